/* test_callgrind.c: the callgrind reader and profile model on hand-written profiles: the
 * cases valgrind does not produce on demand, each with its answer derived by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/profile/profile.h"
#include "unit.h"

static struct cg_profile *load_in(const char *text, const struct cg_read_opts *o, struct err *e)
{
    struct cg_profile *p = cg_profile_new();
    memset(e, 0, sizeof *e);
    if (cg_read_mem(p, "t.out", text, strlen(text), o, e) < 0 || cg_profile_finish(p, e) < 0) {
        cg_profile_free(p);
        return NULL;
    }
    return p;
}

/* Reads text in one range, then again cut into small ranges, lexed in threads or one after
 * another, and with the general parser alone (not the loop for plain lines): every way must
 * give the same model, or the same error. */
static struct cg_profile *load_at(const char *text, const char *lines_for, struct err *e, int line)
{
    struct cg_read_opts one = {.lines_for = lines_for, .threads = 1};
    struct cg_profile *p = load_in(text, &one, e);
    if (p) {    /* every profile the tests read keeps the model's invariants */
        char why[512] = "", m[600];
        bool ok = cg_profile_check(p, why, sizeof why);
        snprintf(m, sizeof m, "the model's invariants hold (%s)", why);
        unit_report(ok, __FILE__, line, m);
    }
    /* in threads, ranges cut at fn= lines; in one thread, rounds cut at any line */
    static const struct { int threads; size_t chunk; bool general; } ways[] = {
        {3, 2, false}, {3, 16, false}, {3, 40, false}, {3, 4096, false}, {1, 7, false},
        {1, 40, false}, {1, 0, true}, {3, 16, true},
    };
    for (size_t i = 0; i < sizeof ways / sizeof *ways; i++) {
        struct cg_read_opts many = {.lines_for = lines_for, .threads = ways[i].threads,
                                    .chunk = ways[i].chunk, .general_only = ways[i].general};
        struct err e2;
        struct cg_profile *q = load_in(text, &many, &e2);
        char why[512] = "", m[3000];
        bool same = p && q ? cg_profile_same(p, q, why, sizeof why)
                           : !p && !q && e->kind == e2.kind && strcmp(e->msg, e2.msg) == 0;
        snprintf(
            m, sizeof m,
            "in ranges of %zu bytes, %d thread(s)%s: the same as in one (%s; '%s' against '%s')",
            ways[i].chunk, ways[i].threads, ways[i].general ? ", general parser only" : "", why,
            p ? "read" : e->msg, q ? "read" : e2.msg);
        unit_report(same, __FILE__, line, m);
        cg_profile_free(q);
    }
    return p;
}
#define load(text, lines_for, e) load_at(text, lines_for, e, __LINE__)

static uint64_t self_of(struct cg_profile *p, const char *name, int ev)
{
    uint32_t f = cg_find(p, NULL, name);
    return f == UINT32_MAX ? 999999999 : cg_self(p, f)[ev];
}

static uint64_t incl_of(struct cg_profile *p, const char *name, int ev)
{
    uint32_t f = cg_find(p, NULL, name);
    return f == UINT32_MAX ? 999999999 : cg_incl(p, f)[ev];
}

static uint64_t calls_of(struct cg_profile *p, const char *a, const char *b)
{
    uint32_t x = cg_find_edge(p, cg_find(p, NULL, a), cg_find(p, NULL, b));
    return x == UINT32_MAX ? 999999999 : p->edges[x].calls;
}

/* n letters a, b, c, ... in name, with c at place at (none where at < 0) */
static void letters(char *name, int n, int at, char c)
{
    for (int i = 0; i < n; i++)
        name[i] = (char)('a' + i % 26);
    if (at >= 0)
        name[at] = c;
}

/* cg_strip_name's rule, one byte at a time: the first quote outside brackets ends the name;
 * "operator" and the operator after it open none. */
static size_t ref_strip(const char *s, size_t len, bool *rec)
{
    int depth = 0;
    *rec = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == 'o' && len - i >= 8 && memcmp(s + i, "operator", 8) == 0) {
            i += 8;
            while (i < len && s[i] && strchr("<>=!+-*/%^&|~[]()", s[i])) {
                if (s[i] == '(' && i + 1 < len && s[i + 1] == ')') {
                    i += 2;
                    break;
                }
                if (s[i] == '(')
                    break;
                i++;
            }
            i--;
        } else if (strchr("([{<", c))
            depth++;
        else if (strchr(")]}>", c)) {
            if (depth > 0)
                depth--;
        } else if (c == '\'' && depth == 0 && i > 0) {
            size_t j = i + 1;
            while (j < len && s[j] >= '0' && s[j] <= '9')
                j++;
            *rec = j > i + 1 && (j == len || s[j] == '\'');
            return i;
        }
    }
    return len;
}

/* An error case: must fail with ERR_INPUT and a message containing want. */
static void bad(const char *text, const char *want, int line)
{
    struct err e;
    struct cg_profile *p = load_at(text, NULL, &e, line);
    char m[2048];
    snprintf(m, sizeof m, "rejected with '%s' (got %s: '%s')", want, p ? "accepted" : "error",
             e.msg);
    unit_report(!p && e.kind == ERR_INPUT && strstr(e.msg, want), __FILE__, line, m);
    cg_profile_free(p);
}
#define BAD(text, want) bad(text, want, __LINE__)

/* A case with one function to check: read (every way load() reads) with f's self cost want. */
static void self_is(const char *text, const char *f, uint64_t want, int line)
{
    struct err e;
    struct cg_profile *p = load_at(text, NULL, &e, line);
    char m[256];
    snprintf(m, sizeof m, "read, with %s's self cost %llu (got %s%llu)", f,
             (unsigned long long)want,
             p ? "" : "an error: ", p ? (unsigned long long)self_of(p, f, 0) : 0ull);
    unit_report(p && self_of(p, f, 0) == want, __FILE__, line, m);
    cg_profile_free(p);
}
#define SELF_IS(text, f, want) self_is(text, f, want, __LINE__)

/* The views the CLI prints: top-N by self or inclusive cost, and the diff of two profiles,
 * on two builds of one program (in /a and /b) whose costs are placed by hand. */
static const char view_a[] =
    "events: Ir\nob=/a/bin/x\nfl=x.c\nfn=main\n1 10\ncfn=f\ncalls=1 1\n1 100\n"
    "cfn=g\ncalls=1 1\n1 11\nfn=alpha\n1 0\nfn=f\n1 100\nfn=g\n1 5\n"
    "cob=/lib/libc.so.6\ncfn=malloc\ncalls=3 1\n1 6\n"
    "ob=/lib/libc.so.6\nfn=malloc\n1 6\ntotals: 121\n";
static const char view_b[] =
    "events: Ir\nob=/b/bin/x\nfl=x.c\nfn=main\n1 10\ncfn=f\ncalls=1 1\n1 160\n"
    "cfn=h\ncalls=1 1\n1 30\ncob=/lib/libc.so.6\ncfn=malloc\ncalls=5 1\n1 10\n"
    "fn=f\n1 160\nfn=h\n1 30\nob=/lib/libc.so.6\nfn=malloc\n1 10\ntotals: 210\n";

static const char *fname(const struct cg_profile *p, uint32_t f)
{
    return cg_str(p, p->funcs[f].name);
}

static void test_views(void)
{
    struct err e;
    struct cg_profile *a = load(view_a, NULL, &e), *b = load(view_b, NULL, &e);
    CHECK(a && b);
    if (!a || !b) {
        cg_profile_free(a);
        cg_profile_free(b);
        return;
    }
    /* Top by self cost: f 100, main 10, malloc 6, g 5; alpha (no cost) left out. */
    uint32_t *idx;
    CHECK_INT(cg_top_funcs(a, 0, false, NULL, 0, &idx), 4);
    CHECK_STR(fname(a, idx[0]), "f");
    CHECK_STR(fname(a, idx[1]), "main");
    CHECK_STR(fname(a, idx[2]), "malloc");
    CHECK_STR(fname(a, idx[3]), "g");
    free(idx);
    /* The first n only, the same as the first n of all (the one-pass selection). */
    CHECK_INT(cg_top_funcs(a, 0, false, NULL, 2, &idx), 2);
    CHECK_STR(fname(a, idx[0]), "f");
    CHECK_STR(fname(a, idx[1]), "main");
    free(idx);
    /* Inclusive: main 121, f 100, g 11, malloc 6; a name filter. */
    CHECK_INT(cg_top_funcs(a, 0, true, NULL, 3, &idx), 3);
    CHECK_STR(fname(a, idx[0]), "main");
    CHECK_STR(fname(a, idx[1]), "f");
    CHECK_STR(fname(a, idx[2]), "g");
    free(idx);
    CHECK_INT(cg_top_funcs(a, 0, false, "a", 0, &idx), 2);
    CHECK_STR(fname(a, idx[0]), "main");
    CHECK_STR(fname(a, idx[1]), "malloc");
    free(idx);
    /* A tie in cost goes by name: g and a function of the same self cost. */
    CHECK(cg_cmp_cost(a, 0, false, cg_find(a, NULL, "f"), cg_find(a, NULL, "g")) < 0);
    CHECK(cg_cmp_cost(a, 0, false, cg_find(a, NULL, "g"), cg_find(a, NULL, "f")) > 0);
    CHECK_INT(cg_cmp_cost(a, 0, true, cg_find(a, NULL, "g"), cg_find(a, NULL, "g")), 0);

    /* Self: f +60, h new 30, g gone 5, malloc +4, main 0; f matched across /a and /b. */
    struct cg_diff_row *r;
    CHECK_INT(cg_profile_diff(a, 0, b, 0, CG_DIFF_SELF, &r), 5);
    CHECK_STR(r[0].name, "f");
    CHECK(r[0].has_a && r[0].has_b && r[0].a == 100 && r[0].b == 160);
    CHECK_STR(r[0].obj, "/a/bin/x");
    CHECK_STR(r[1].name, "h");
    CHECK(!r[1].has_a && r[1].has_b && r[1].b == 30);
    CHECK_STR(r[2].name, "g");
    CHECK(r[2].has_a && !r[2].has_b && r[2].a == 5);
    CHECK_STR(r[3].name, "malloc");
    CHECK_STR(r[4].name, "main");
    CHECK(r[4].a == 10 && r[4].b == 10);
    free(r);
    /* Inclusive: main +89 first, then f +60, h 30, g 11, malloc 4; no bounds here. */
    CHECK_INT(cg_profile_diff(a, 0, b, 0, CG_DIFF_INCLUSIVE, &r), 5);
    CHECK_STR(r[0].name, "main");
    CHECK(r[0].a == 121 && r[0].b == 210 && !r[0].bound_a && !r[0].bound_b);
    CHECK_STR(r[3].name, "g");
    CHECK_INT(r[3].a, 11);
    free(r);
    /* Allocations by call site: main new with 5 calls, g gone with 3. */
    CHECK_INT(cg_profile_diff(a, 0, b, 0, CG_DIFF_ALLOCS, &r), 2);
    CHECK_STR(r[0].name, "main");
    CHECK(!r[0].has_a && r[0].b == 5);
    CHECK_STR(r[1].name, "g");
    CHECK(r[1].has_a && !r[1].has_b && r[1].a == 3);
    free(r);
    /* A profile against itself: every row unchanged. */
    long n = cg_profile_diff(a, 0, a, 0, CG_DIFF_SELF, &r);
    CHECK_INT(n, 4);
    for (long i = 0; i < n; i++)
        CHECK(r[i].has_a && r[i].has_b && r[i].a == r[i].b);
    free(r);
    cg_profile_free(a);
    cg_profile_free(b);
}

int main(void)
{
    struct err e;
    struct cg_profile *p;

    /* The format specification's extended example, with name compression. */
    p = load("# callgrind format\nevents: Instructions\n"
             "fl=(1) file1.c\nfn=(1) main\n16 20\ncfn=(2) func1\ncalls=1 50\n16 400\n"
             "cfi=(2) file2.c\ncfn=(3) func2\ncalls=3 20\n16 400\n"
             "fn=(2)\n51 100\ncfi=(2)\ncfn=(3)\ncalls=2 20\n51 300\n"
             "fl=(2)\nfn=(3)\n20 700\ntotals: 820\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(cg_total(p, 0), 820);
        CHECK_INT(self_of(p, "main", 0), 20);
        CHECK_INT(incl_of(p, "main", 0), 820);
        CHECK_INT(incl_of(p, "func1", 0), 400);
        CHECK_INT(incl_of(p, "func2", 0), 700);
        CHECK_INT(calls_of(p, "main", "func2"), 3);
        CHECK_INT(calls_of(p, "func1", "func2"), 2);
        CHECK_INT(p->nparts, 1);
        cg_profile_free(p);
    }

    /* Ids defined on a call line and used bare as fn= later; id 0; names starting with '(' */
    p = load("events: Ir\nob=(0) /bin/x\nfl=(0) x.c\nfn=(0) (below main)\n1 3\n"
             "cfn=(7) (anonymous namespace)::f()\ncalls=2 1\n* 50\n"
             "fn=(7)\n5 40\ncob=(1) /lib/libc.so\ncfn=(8) malloc\ncalls=1 0\n* 10\n"
             "ob=(1)\nfn=(8)\n1 10\ntotals: 53\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "(anonymous namespace)::f()", 0), 40);
        CHECK_INT(self_of(p, "(below main)", 0), 3);
        CHECK_INT(incl_of(p, "(below main)", 0), 53);
        CHECK_INT(incl_of(p, "(anonymous namespace)::f()", 0), 50);
        /* cob= named the callee's object for that call only */
        CHECK(cg_find(p, "/lib/libc.so", "malloc") != UINT32_MAX);
        CHECK(cg_find(p, "/bin/x", "malloc") == UINT32_MAX);
        CHECK_INT(cg_allocations(p), 1);
        cg_profile_free(p);
    }

    /* Recursion levels (fib'2) merged; inclusive from outside the recursion only */
    p = load("events: Ir\nfl=f.c\nfn=(1) main\n1 10\ncfn=(2) fib\ncalls=1 4\n* 100\n"
             "fn=(2)\n4 20\ncfn=(3) fib'2\ncalls=2 4\n* 80\n"
             "fn=(3)\n4 80\ncfn=(3)\ncalls=4 4\n* 50\ntotals: 110\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "fib", 0), 100);
        CHECK(cg_find(p, NULL, "fib'2") == UINT32_MAX);
        CHECK_INT(incl_of(p, "fib", 0), 100);
        CHECK_INT(calls_of(p, "fib", "fib"), 6);
        uint32_t x = cg_find_edge(p, cg_find(p, NULL, "fib"), cg_find(p, NULL, "fib"));
        CHECK_INT(cg_edge_kind(p, x), CG_EDGE_RECURSIVE);   /* inside main's call: not added */
        CHECK_INT(cg_edge_outer_cost(p, x, 0), 0);
        CHECK_INT(p->edges[x].calls_rec, 6);    /* all six into fib'2 */
        CHECK_INT(p->edges[x].calls_nest, 4);   /* four of them from fib'2 */
        CHECK_INT(cg_edge_top_cost(p, x, 0), 80);    /* the outermost level's calls */
        x = cg_find_edge(p, cg_find(p, NULL, "main"), cg_find(p, NULL, "fib"));
        CHECK_INT(cg_edge_outer_cost(p, x, 0), 100);
        CHECK(!p->funcs[cg_find(p, NULL, "fib")].incl_bound);
        CHECK_INT(cg_total(p, 0), 110);
        cg_profile_free(p);
    }

    /* Mutual recursion with callgrind's marks: main -> A -> B -> A'2 -> B'2. B's inclusive
     * cost is its one outermost call (80), not every call into B (80 + 40: 120, above the
     * total of 110) */
    static const char mutual[] =
        "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) A\ncalls=1 1\n1 100\n"
        "fn=(2)\n1 20\ncfn=(3) B\ncalls=1 1\n1 80\n"
        "fn=(3)\n1 20\ncfn=(4) A'2\ncalls=1 1\n1 60\n"
        "fn=(4)\n1 20\ncfn=(5) B'2\ncalls=1 1\n1 40\n"
        "fn=(5)\n1 40\ntotals: 110\n";
    p = load(mutual, NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(incl_of(p, "A", 0), 100);
        CHECK_INT(incl_of(p, "B", 0), 80);
        CHECK_INT(self_of(p, "B", 0), 60);
        CHECK_INT(incl_of(p, "main", 0), 110);
        CHECK_INT(calls_of(p, "A", "B"), 2);
        uint32_t x = cg_find_edge(p, cg_find(p, NULL, "A"), cg_find(p, NULL, "B"));
        CHECK_INT(cg_edge_outer_calls(p, x), 1);
        CHECK_INT(cg_edge_outer_cost(p, x, 0), 80);
        CHECK_INT(p->bounded, 0);
        cg_profile_free(p);
    }
    /* The same calls without marks (--separate-recs=1): A and B are a cycle; what can be
     * proved is the cost of the calls into the cycle (100), marked as a bound */
    p = load("events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) A\ncalls=1 1\n1 100\n"
             "fn=(2)\n1 20\ncfn=(3) B\ncalls=1 1\n1 80\n"
             "fn=(3)\n1 20\ncfn=(2)\ncalls=1 1\n1 60\n"
             "fn=(2)\n1 20\ncfn=(3)\ncalls=1 1\n1 40\n"
             "fn=(3)\n1 40\ntotals: 110\n", NULL, &e);
    CHECK(p);
    if (p) {
        uint32_t a = cg_find(p, NULL, "A"), b = cg_find(p, NULL, "B");
        CHECK_INT(incl_of(p, "A", 0), 100);
        CHECK_INT(incl_of(p, "B", 0), 100);     /* the truth, 80, is below it */
        CHECK(p->funcs[a].incl_bound && p->funcs[b].incl_bound);
        CHECK(!p->funcs[cg_find(p, NULL, "main")].incl_bound);
        CHECK_INT(cg_edge_kind(p, cg_find_edge(p, a, b)), CG_EDGE_CYCLE);
        CHECK_INT(p->bounded, 2);
        cg_profile_free(p);
    }
    /* A file with marks and one without, of the same program: the calls of the second can
     * be recursive without saying so, so its cycle gives bounds; a direct recursion alone
     * (fib, in a file without marks) is exact */
    {
        const char *unmarked =
            "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) A\ncalls=1 1\n1 30\n"
            "fn=(2)\n1 20\ncfn=(3) B\ncalls=1 1\n1 10\nfn=(3)\n1 10\n"
            "cfn=(4) fib\ncalls=1 1\n1 0\nfn=(4)\ncfn=(4)\ncalls=3 1\n1 0\ntotals: 40\n";
        const char *cycle = "events: Ir\nfl=m.c\nfn=(1) main\n1 1\ncfn=(2) A\ncalls=1 1\n1 11\n"
                            "fn=(2)\n1 5\ncfn=(3) B\ncalls=1 1\n1 6\n"
                            "fn=(3)\n1 4\ncfn=(2)\ncalls=1 1\n1 2\ntotals: 10\n";
        struct cg_profile *q = cg_profile_new();
        CHECK(cg_read_mem(q, "m.out", mutual, strlen(mutual), NULL, &e) == 0 &&
              cg_read_mem(q, "u.out", unmarked, strlen(unmarked), NULL, &e) == 0 &&
              cg_profile_finish(q, &e) == 0);
        CHECK_INT(q->marked_files, 1);
        CHECK_INT(incl_of(q, "A", 0), 130);     /* no cycle in the unmarked file: exact */
        CHECK(!q->funcs[cg_find(q, NULL, "A")].incl_bound);
        CHECK(!q->funcs[cg_find(q, NULL, "fib")].incl_bound);
        char why[512] = "";
        CHECK(cg_profile_check(q, why, sizeof why));
        CHECK_STR(why, "");
        cg_profile_free(q);
        q = cg_profile_new();
        CHECK(cg_read_mem(q, "m.out", mutual, strlen(mutual), NULL, &e) == 0 &&
              cg_read_mem(q, "c.out", cycle, strlen(cycle), NULL, &e) == 0 &&
              cg_profile_finish(q, &e) == 0);
        CHECK(q->funcs[cg_find(q, NULL, "A")].incl_bound);
        CHECK(q->funcs[cg_find(q, NULL, "B")].incl_bound);
        CHECK(cg_profile_check(q, why, sizeof why));
        cg_profile_free(q);
    }
    /* A three-function cycle with marks, entered twice from main: each function's inclusive
     * cost is the sum of its outermost calls */
    p = load("events: Ir\nfl=m.c\nfn=(1) main\n1 1\ncfn=(2) A\ncalls=2 1\n1 16\n"
             "cfn=(3) B\ncalls=1 1\n1 4\n"
             "fn=(2)\n1 4\ncfn=(3)\ncalls=2 1\n1 12\n"
             "fn=(3)\n1 6\ncfn=(4) C\ncalls=2 1\n1 10\n"
             "fn=(4)\n1 5\ncfn=(5) A'2\ncalls=1 1\n1 5\n"
             "fn=(5)\n1 2\ncfn=(6) B'2\ncalls=1 1\n1 3\n"
             "fn=(6)\n1 3\ntotals: 21\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(cg_total(p, 0), 21);
        CHECK_INT(incl_of(p, "main", 0), 21);
        CHECK_INT(incl_of(p, "A", 0), 16);
        CHECK_INT(incl_of(p, "B", 0), 16);      /* 12 under A, 4 from main */
        CHECK_INT(incl_of(p, "C", 0), 10);
        CHECK_INT(p->bounded, 0);
        cg_profile_free(p);
    }
    /* A profile at odds with itself (a call costing more than the program): the total, as a
     * bound, never above it */
    p = load("events: Ir\nfl=m.c\nfn=(1) main\n1 1\ncfn=(2) f\ncalls=1 1\n1 500\nfn=(2)\n1 "
             "9\ntotals: 10\n",
             NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(incl_of(p, "f", 0), 10);
        CHECK(p->funcs[cg_find(p, NULL, "f")].incl_bound);
        cg_profile_free(p);
    }

    /* PLT stubs: an address in object ??? that jumps to one function is billed to it: its
     * self cost, its callers; one that calls two functions, or one in a known object, stays */
    p = load(
        "events: Ir\nob=(1) /bin/p\nfl=(1) p.c\nfn=(1) main\n1 10\n"
        "cob=(2) ???\ncfn=(2) 0x0000000000001030\ncalls=3 0\n1 36\n"
        "cob=(2)\ncfn=(4) 0x0000000000001040\ncalls=1 0\n1 7\n"
        "cfn=(5) 0x0000000000001050\ncalls=1 0\n1 5\n"
        "ob=(2)\nfl=(2) ???\nfn=(2)\n0 3\ncob=(1)\ncfn=(3) work\ncalls=3 1\n0 33\n"
        "fn=(4)\n0 1\ncob=(1)\ncfn=(3)\ncalls=1 1\n0 3\ncob=(1)\ncfn=(6) other\ncalls=1 1\n0 3\n"
        "ob=(1)\nfl=(1)\nfn=(5)\n0 1\ncfn=(3)\ncalls=1 1\n0 4\n"
        "fn=(3)\n1 40\nfn=(6)\n1 3\ntotals: 58\n",
        "", &e);
    CHECK(p);
    if (p) {
        uint32_t stub = cg_find(p, "???", "0x0000000000001030"), work = cg_find(p, NULL, "work");
        CHECK(stub != UINT32_MAX && p->funcs[stub].folded);
        CHECK_INT(p->folded, 1);
        CHECK_INT(self_of(p, "0x0000000000001030", 0), 0);
        CHECK_INT(self_of(p, "work", 0), 43);       /* 40 + the stub's 3 */
        CHECK_INT(calls_of(p, "main", "work"), 3);
        CHECK_INT(cg_edge_outer_cost(p, cg_find_edge(p, cg_find(p, NULL, "main"), work), 0), 36);
        CHECK(cg_find_edge(p, stub, work) == UINT32_MAX);
        CHECK(!p->funcs[cg_find(p, NULL, "0x0000000000001040")].folded);   /* two callees */
        CHECK(!p->funcs[cg_find(p, NULL, "0x0000000000001050")].folded);   /* in /bin/p */
        CHECK_INT(incl_of(p, "work", 0), 36 + 3 + 4);
        /* its line (no debug information: file ???, line 0) is work's now */
        uint32_t stub_lines = 0, work_stub_line = 0;
        for (uint32_t l = 0; l < p->nline; l++) {
            stub_lines += p->lines[l].func == stub;
            if (p->lines[l].func == work && strcmp(cg_str(p, p->lines[l].file), "???") == 0)
                work_stub_line = (uint32_t)p->line_cost[(size_t)l * p->nev];
        }
        CHECK_INT(stub_lines, 0);
        CHECK_INT(work_stub_line, 3);
        CHECK_INT(incl_of(p, "main", 0), 10 + 36 + 7 + 5);
        cg_profile_free(p);
    }

    /* --separate-callers chains and realloc(NULL) -> malloc counted once */
    p = load("events: Ir\nob=(1) /bin/p\nfl=p.c\nfn=(1) main\n1 1\n"
             "cob=(2) /lib/libc.so.6\ncfn=(2) realloc'main\ncalls=2 0\n* 30\n"
             "cob=(2)\ncfn=(3) malloc'main\ncalls=3 0\n* 30\n"
             "cob=(2)\ncfn=(4) strdup'main\ncalls=1 0\n* 20\n"
             "ob=(2)\nfn=(2)\n0 10\ncfn=(5) malloc'realloc'main\ncalls=1 0\n* 10\n"
             "fn=(4)\n0 10\ncfn=(6) malloc@@GLIBC_2.2.5'strdup'main\ncalls=1 0\n* 10\n"
             "fn=(3)\n0 30\nfn=(5)\n0 10\nfn=(6)\n0 10\ntotals: 71\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(cg_allocations(p), 6);   /* 2 realloc + 3 malloc + 1 via strdup */
        CHECK_INT(self_of(p, "malloc", 0), 40);
        CHECK_INT(calls_of(p, "realloc", "malloc"), 1);
        cg_profile_free(p);
    }

    /* allocation sites: a PLT stub (an address for a name) is seen through to its callers */
    p = load("events: Ir\nob=(1) /bin/p\nfn=(1) xcalloc\n1 1\ncob=(2) ???\ncfn=(2) "
             "0x0000000000632ed0\ncalls=5 0\n* 50\n"
             "fn=(3) other\n1 1\ncob=(2)\ncfn=(2)\ncalls=2 0\n* 20\ncob=(3) "
             "/lib/libc.so.6\ncfn=(4) malloc\ncalls=4 0\n* 40\n"
             "ob=(2)\nfn=(2)\n0 7\ncob=(3)\ncfn=(5) calloc\ncalls=7 0\n* 63\n"
             "ob=(3)\nfn=(4)\n0 40\nfn=(5)\n0 63\ntotals: 112\n",
             NULL, &e);
    CHECK(p);
    if (p) {
        struct cg_site *sites;
        long n = cg_alloc_sites(p, &sites);
        CHECK_INT(n, 2);
        uint64_t x = 0, o = 0;
        for (long i = 0; i < n; i++) {
            const char *name = cg_str(p, p->funcs[sites[i].func].name);
            if (strcmp(name, "xcalloc") == 0) x = sites[i].allocations;
            if (strcmp(name, "other") == 0) o = sites[i].allocations;
        }
        CHECK_INT(x, 5);
        CHECK_INT(o, 2 + 4);
        CHECK_INT(cg_allocations(p), 11);
        free(sites);
        cg_profile_free(p);
    }

    /* positions: instr line; hex; relative +N -N *; fewer costs than events; totals */
    p = load("version: 1\ncreator: callgrind-3.19.0\npositions: instr line\nevents: Ir Dr Dw\n"
             "fl=a.c\nfn=f\n0x1000 10 5 2 1\n+4 * 3\n-2 +1 0x10 1\n* -1 1\n"
             "totals: 25 3 1\n", "f", &e);
    CHECK(p);
    if (p) {
        CHECK_INT(cg_total(p, cg_event_index(p, "Ir")), 25);
        CHECK_INT(cg_total(p, cg_event_index(p, "Dr")), 3);
        CHECK_INT(cg_total(p, cg_event_index(p, "Dw")), 1);
        CHECK_INT(p->nline, 2);
        for (uint32_t i = 0; i < p->nline; i++) {
            if (p->lines[i].line == 10)
                CHECK_INT(p->line_cost[i * p->nev], 9);    /* 5 + 3 + 1 */
            else
                CHECK_INT(p->lines[i].line, 11);
        }
        cg_profile_free(p);
    }

    /* positions: instr bb line */
    SELF_IS("positions: instr bb line\nevents: Ir\nfn=g\n0x10 0x10 7 3\n+2 * * 4\ntotals: 7\n", "g",
            7);

    /* fi=/fe=: inlined lines stay with the function; the call line does not move the base */
    p = load("events: Ir\nfl=(1) a.c\nfn=(1) f\n10 5\nfi=(2) h.h\n3 7\nfe=(1)\n12 1\n"
             "cfn=(2) g\ncalls=1 50\n+3 100\n+1 2\nfn=(2)\n50 100\ntotals: 115\n", "f", &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "f", 0), 15);
        CHECK_INT(incl_of(p, "f", 0), 115);
        int found = 0;
        for (uint32_t i = 0; i < p->nline; i++) {
            const char *file = cg_str(p, p->lines[i].file);
            if (strcmp(file, "h.h") == 0 && p->lines[i].line == 3)
                found += p->line_cost[i] == 7;
            if (strcmp(file, "a.c") == 0 && p->lines[i].line == 13)   /* 12 + 1, not 15 + 1 */
                found += p->line_cost[i] == 2;
        }
        CHECK_INT(found, 2);
        cg_profile_free(p);
    }

    /* The lines the lexer reads in a loop of their own (one event; each subposition '*', +N,
     * -N, decimal or 0x hex and one space; one decimal cost), among lines it leaves to the
     * general parser (trailing space, \r\n, 20 digits, no cost), and jumps the loop takes
     * with the line after them. load() reads each case with the general parser too. */
    p = load("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+2 * 4\n-1 +2 5\n* -7 6\n"
             "0x1F 9 7\n+0 * 8\n12 3 1 \n+1 * 2\r\n+1 *\n"
             "jcnd=1/3 +4 +2 \n* * \njump=2 -4 * \n* * 1000\n* +1 9\n"
             "fn=g\n0xffffffffffffffff 1 100\n-18446744073709551615 * 1\n"
             "fn=h\n* * 12345678901234567890\ntotals: 12345678901234568036\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "f", 0), 3 + 4 + 5 + 6 + 7 + 8 + 1 + 2 + 9);
        CHECK_INT(self_of(p, "g", 0), 101);
        CHECK_INT(self_of(p, "h", 0), 12345678901234567890ull);
        cg_profile_free(p);
    }
    /* numbers of every length from 1 to 19 digits in every field the loop reads -- one digit
     * alone or after '+' is read without a loop, the first digits one by one, the rest in a
     * loop -- and a digit followed by what ends no field; the general parser reads them too */
    {
        char text[8192];
        size_t n = (size_t)snprintf(text, sizeof text,
                                    "positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n");
        uint64_t want = 3, ten = 1;
        for (int digits = 1; digits <= 19; digits++, ten *= 10) {
            uint64_t v = ten + (uint64_t)digits;    /* exactly `digits` digits */
            n += (size_t)snprintf(text + n, sizeof text - n, "+%llu %llu %llu\n-%llu * %d\n",
                                  (unsigned long long)v, (unsigned long long)v,
                                  (unsigned long long)v, (unsigned long long)v, digits);
            want += v + (uint64_t)digits;
        }
        snprintf(text + n, sizeof text - n, "fn=g\n9 0 1\n+1 7 2\n* 10 3\ntotals: %llu\n",
                 (unsigned long long)(want + 1 + 2 + 3));
        p = load(text, NULL, &e);
        CHECK(p);
        if (p) {
            CHECK_INT(self_of(p, "f", 0), want);
            CHECK_INT(self_of(p, "g", 0), 6);
            cg_profile_free(p);
        }
    }
    /* repeats: a "+D" line with the same bytes after its first subposition as the self cost
     * line before is taken by one compare. Each case by hand; load() also reads each with the
     * general parser alone. The cost of a repeat, its first subposition added (seen where a
     * later -N would go below zero), the others kept (likewise), across jump and call lines;
     * the eight bytes compared hold the '\n' (a longer cost is no repeat; nine bytes are not
     * compared), and bytes after a
     * relative subposition are no repeat (the subposition moves on each line) */
    p = load("positions: instr line\nevents: Ir\nfn=f\n0x10 0 240\n+3 0 240\n+5 0 240\n"
             "jcnd=1/2 +3 0 \n* 0 \n+1 0 240\n+2 0 2400\n+1 0 24\n+1 0 24\n+1 0 24000\n"
             "cfn=g\ncalls=1 0x99 0 \n* 0 7\n+9 0 24000\n+1 0 12345\n+1 0 12346\n-41 0 1\n"
             "fn=h\n1 1 5\n+1 +1 5\n+1 +1 5\n+1 +1 5\n0 -4 5\n"
             "fn=k\n1 9 6\n+1 -1 6\n+1 -1 6\n0 -7 6\n"
             "fn=m\n5 0x1f 3\n+1 0x1f 3\n+2 * 3\n+1 * 3\n* -31 3\ntotals: 76164\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "f", 0), 240 * 4 + 2400 + 24 * 2 + 24000 * 2 + 12345 + 12346 + 1);
        CHECK_INT(self_of(p, "g", 0), 0);
        CHECK_INT(incl_of(p, "f", 0), 240 * 4 + 2400 + 24 * 2 + 24000 * 2 + 12345 + 12346 + 1 + 7);
        CHECK_INT(self_of(p, "h", 0), 25);
        CHECK_INT(self_of(p, "k", 0), 24);
        CHECK_INT(self_of(p, "m", 0), 15);
        cg_profile_free(p);
    }
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 0 240\n+3 0 240\n+5 0 240\n-25 0 1\n",
        "line 7: relative subposition -25 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 0 240\n+3 0 240\njump=1 +3 0 \n* 0 \n"
        "+5 0 240\ncfn=g\ncalls=1 0x99 0 \n* 0 7\n+1 0 240\n-26 0 1\n",
        "line 13: relative subposition -26 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=h\n1 1 5\n+1 +1 5\n+1 +1 5\n0 -4 5\n",
        "line 7: relative subposition -4 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=k\n1 9 6\n+1 -1 6\n+1 -1 6\n+1 -1 6\n0 -7 6\n",
        "line 8: relative subposition -7 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=m\n5 0x1f 3\n+1 0x1f 3\n+2 * 3\n* -32 3\n",
        "line 7: relative subposition -32 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0xfffffffffffffffd 0 5\n+1 0 5\n+1 0 5\n+1 0 5\n"
        "fn=g\n1 0 1\n", "line 7: subposition overflows");
    /* three subpositions: a relative third one makes no repeat either */
    SELF_IS("positions: instr bb line\nevents: Ir\nfn=f\n1 2 3 5\n+1 2 +1 5\n+1 2 +1 5\n+1 * * 5\n"
            "+1 * * 5\n0 -2 -5 5\ntotals: 30\n", "f", 30);
    BAD("positions: instr bb line\nevents: Ir\nfn=f\n1 2 3 5\n+1 2 +1 5\n+1 2 +1 5\n+1 * * 5\n"
        "+1 * * 5\n0 -2 -6 5\n", "line 9: relative subposition -6 goes below zero");
    BAD("positions: instr bb line\nevents: Ir\nfn=f\n1 2 3 5\n+1 2 -1 5\n+1 2 -1 5\n0 -2 -2 5\n",
        "line 7: relative subposition -2 goes below zero");
    /* one subposition: the bytes after it are the cost alone */
    SELF_IS("events: Ir\nfn=f\n3 17\n+1 17\n+2 17\n+1 170\n+1 17\n-8 1\ntotals: 239\n", "f",
            17 * 4 + 170 + 1);
    BAD("events: Ir\nfn=f\n3 17\n+1 17\n+2 17\n-7 1\n",
        "line 6: relative subposition -7 goes below zero");
    /* the values those subpositions take, seen where the next one would go below zero */
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1 7 4\n* -8 1\n",
        "line 6: relative subposition -8 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+9 * 4\n-26 * 1\n",
        "line 6: relative subposition -26 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1 99 4\n* -100 1\n",
        "line 6: relative subposition -100 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1 999 4\n* -1000 1\n",
        "line 6: relative subposition -1000 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1 99999 4\n* -100000 1\n",
        "line 6: relative subposition -100000 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1x * 4\n",
        "line 5: bad subposition: unexpected 'x'");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n1x * 4\n", "line 5: bad subposition");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1 * 4x\n", "line 5: bad cost");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1 * 1234x\n", "line 5: bad cost");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+12 * 123456789x\n",
        "line 5: bad cost");
    /* the name lines of calls among the usual lines are taken by the loop too, the others by
     * the general parser (a fn= line ends the run of self cost lines, which one without a cost
     * began); a malformed name line is judged by the general parser, with its line */
    p = load("positions: instr line\nevents: Ir\nob=(1) o\nfl=(1) a.c\nfn=(1) f\n0x10 5\n+1 * 2\n"
             "cfi=(2) b.c\ncfn=(2) g'f\ncalls=1 0x40 9 \n* * 30\n+1 * 4\nfi=(2)\n+1 * 8\nfe=(1)\n"
             "fn=(2)\n0x40 9 16\n+1 * 1\njfi=(2)\ncob=(1)\ncfn=(1)\ncalls=2 0x10 5 \n* * 6\n"
             "fn=(1)\n+1 * 32\ntotals: 63\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "f", 0), 2 + 4 + 8 + 32);
        CHECK_INT(self_of(p, "g", 0), 16 + 1);
        /* f calls g, g calls f, in a profile without recursion marks; and no call enters
         * that cycle: it holds the program's entry, so the bound is the total */
        CHECK_INT(incl_of(p, "g", 0), 63);
        CHECK(p->funcs[cg_find(p, NULL, "g")].incl_bound);
        CHECK_INT(calls_of(p, "g", "f"), 2);
        cg_profile_free(p);
    }
    /* a run of self cost lines the general parser began (a trailing space), continued by the
     * loop with the name lines of a call: its cost stays with the function before the fn= */
    p = load("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3 \ncfn=(2) g\ncalls=1 0x40 9 \n"
             "* * 30\nfn=(2)\n0x40 9 7\n+1 * 1\nfn=(1)\n+1 * 0\ntotals: 11\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "f", 0), 3);
        CHECK_INT(self_of(p, "g", 0), 8);
        cg_profile_free(p);
    }
    /* a name with a NUL byte is cut there (in the first eight bytes, in a full word, in the
     * last bytes): it is the same function as the name without what follows */
    {
        static const char text[] =
            "events: Ir\nfn=(1) ab\0xyz\n1 1\nfn=(2) ab\n1 2\n"
            "fn=(3) abcdefghij\0kl\n1 4\nfn=(4) abcdefghij\n1 8\n"
            "fn=(5) abcdefg\0ijklmnopq\n1 16\nfn=(6) abcdefg\n1 32\ntotals: 63\n";
        struct cg_profile *q = cg_profile_new();
        struct err e2 = {0};
        CHECK(cg_read_mem(q, "t.out", text, sizeof text - 1, NULL, &e2) == 0 &&
              cg_profile_finish(q, &e2) == 0);
        CHECK_INT(self_of(q, "ab", 0), 1 + 2);
        CHECK_INT(self_of(q, "abcdefghij", 0), 4 + 8);
        CHECK_INT(self_of(q, "abcdefg", 0), 16 + 32);
        cg_profile_free(q);
    }
    /* name lines alone are no body: a callgrind part of them needs no totals: line */
    p = load("creator: callgrind-3.19.0\nevents: Ir\ncfn=(1) x\nfn=(2) y\nfl=(1) a.c\n", NULL, &e);
    CHECK(p);
    cg_profile_free(p);
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\n+1 * 2\ncfn=(1x) g\n",
        "line 6: bad name id in 'cfn='");
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\n+1 * 2\nfn=(99999999) g\n",
        "line 6: name id 99999999 in 'fn=' is too large");
    /* ids of every length: the largest allowed, one more, nine and twenty digits, and ids
     * ending before their ')' */
    p = load("events: Ir\nfn=(16777215) f\n1 1\nfn=(0000007) g\n1 2\nfn=(16777215)\n1 4\n"
             "fn=(12) h\n1 8\nfn=(15) i\n1 16\nfn=(12)\n1 32\ntotals: 63\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "f", 0), 5);
        CHECK_INT(self_of(p, "g", 0), 2);
        CHECK_INT(self_of(p, "h", 0), 40);
        CHECK_INT(self_of(p, "i", 0), 16);
        cg_profile_free(p);
    }
    BAD("events: Ir\nfn=(16777216) f\n", "line 2: name id 16777216 in 'fn=' is too large");
    BAD("events: Ir\nfn=(20000001) f\n", "line 2: name id 20000001 in 'fn=' is too large");
    BAD("events: Ir\nfn=(123456789) f\n", "line 2: name id 123456789 in 'fn=' is too large");
    BAD("events: Ir\nfn=(12345678901234567890) f\n",
        "line 2: name id 12345678901234567890 in 'fn=' is too large");
    BAD("events: Ir\nfn=(123456789012345678901) f\n", "line 2: bad name id in 'fn='");
    BAD("events: Ir\nfn=(12\n", "line 2: bad name id in 'fn='");
    BAD("events: Ir\nfn=(123456789\n", "line 2: bad name id in 'fn='");
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\n+1 * 2\nfi=\n+1 * 2\n",
        "line 6: empty name in 'fi='");
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\n+1 * 2\nfn=(2)\n+1 * 2\n",
        "line 6: undefined name id 2 in 'fn='");
    /* a round may end after any line, a jump line too: the loop must not read the line after
     * it from the next round (one thread, rounds of every size from 1 to 48 bytes) */
    {
        const char *text = "positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+2 * 4\n"
                           "jcnd=1/3 +4 +2 \n* * 7\n+1 * 5\njump=2 -4 * \n* * \n+1 +1 6\n"
                           "jump=1 +2 * \n* * \n-1 * 1\ntotals: 19\n";
        struct cg_read_opts whole = {.threads = 1};
        struct err e1, e2;
        struct cg_profile *a = load_in(text, &whole, &e1);
        int differ = !a;
        for (size_t chunk = 1; a && chunk <= 48; chunk++) {
            struct cg_read_opts o = {.threads = 1, .chunk = chunk};
            struct cg_profile *b = load_in(text, &o, &e2);
            char why[512];
            differ += !b || !cg_profile_same(a, b, why, sizeof why);
            cg_profile_free(b);
        }
        CHECK_INT(differ, 0);
        CHECK_INT(a ? self_of(a, "f", 0) : 0, 3 + 4 + 5 + 6 + 1);
        cg_profile_free(a);
    }
    /* calls in the loop: a bare cfn= line, calls= with its target and a space after each
     * subposition, the cost line (checked against the base, which it does not move) */
    p = load("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\ncfn=(2) g\ncalls=2 0x40 9 \n"
             "+1 * 50\n+1 * 4\ncfn=(2)\ncalls=3 0x40 9 \n* * 70\n-1 * 6\ncob=(1) o\ncfn=(2)\n"
             "calls=1 +2 * \n+0 * 10\ncfn=(3) h\ncalls=1 0x50 * \n* *\nfn=(2)\n0x40 9 130\n"
             "fn=(3)\n0x50 9 0\ntotals: 143\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(self_of(p, "f", 0), 3 + 4 + 6);
        CHECK_INT(calls_of(p, "f", "g"), 5);
        CHECK_INT(incl_of(p, "f", 0), 3 + 4 + 6 + 50 + 70 + 10);    /* the last call: to g in o */
        CHECK_INT(self_of(p, "g", 0), 130);
        cg_profile_free(p);
    }
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\ncfn=(16777216)\ncalls=1 0x40 9 \n* "
        "* 5\n",
        "line 5: name id 16777216 in 'cfn=' is too large");
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\ncfn=(7)\ncalls=1 0x40 9 \n* * 5\n",
        "line 5: undefined name id 7 in 'cfn='");
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\ncfn=(2) g\ncalls=1 -99 9 \n* * 5\n",
        "line 6: relative subposition -99 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\ncfn=(2) g\ncalls=1 0x40 9 \n-99 * "
        "5\n",
        "line 7: relative subposition -99 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\ncfn=(2) g\ncalls=1 0x40 9 "
        "\ncalls=1 0x40 9 \n",
        "line 7: 'calls=' where the cost line of the previous call was due");
    /* a bare cfn= line, calls= and its cost line are one operation: each error keeps its line */
    BAD("positions: instr line\nevents: Ir\ncfn=(2) g\ncfn=(2)\ncalls=1 0x40 9 \n* * 5\n",
        "line 5: 'calls=' before any 'fn='");
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\ncfn=(9)\ncalls=1 0x40 9 \n* * 5\n",
        "line 5: undefined name id 9 in 'cfn='");
    /* the cost line of a call does not move the base: -17 is taken from 0x10 */
    BAD("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 5 3\ncfn=(2) g\ncalls=1 0x40 9 \n+50 * "
        "5\n-17 * 1\n",
        "line 8: relative subposition -17 goes below zero");
    /* what the loop refuses is judged by the general parser, with the same line */
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+2 * 4\n-99 * 5\n",
        "line 6: relative subposition -99 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0xffffffffffffffff 5 3\n+1 * 4\n",
        "line 5: subposition overflows");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n0x1ffffffffffffffff * 4\n",
        "line 5: bad subposition");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1 * 18446744073709551616\n",
        "line 5: bad cost");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\n+1 * 5x\n", "line 5: bad cost");
    /* the line after a jump does not move the base: -20 is taken from 0x10, not from 0x42 */
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\njump=1 +100 * \n+50 * \n-20 * 1\n",
        "line 7: relative subposition -20 goes below zero");
    BAD("positions: instr line\nevents: Ir\nfn=f\n0x10 5 3\njcnd=1/2 -99 * \n* * \n",
        "line 5: relative subposition -99 goes below zero");

    /* jumps and the cost-less line after them; bb=/ln=/rec= skipped */
    SELF_IS("positions: instr line\nevents: Ir\nfn=(1) f\n0x10 1 4\njcnd=1/3 +4 2\n* 1\n"
            "jump=2 -4 1\n* 1\njfi=(3) x.c\njfn=(9) g\nbb=0x10\nln=4\n+4 2 6\ntotals: 10\n",
            "f", 10);

    /* Two parts (--combine-dumps): ids carried over, each part's totals checked, summed */
    p = load("creator: callgrind-3.19.0\npart: 1\nevents: Ir\nob=(1) /bin/x\nfl=(1) x.c\nfn=(1) "
             "main\n1 10\n"
             "totals: 10\n\npart: 2\nevents: Ir\nob=(1)\nfl=(1)\nfn=(1)\n1 5\ntotals: 5\n",
             NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(p->nparts, 2);
        CHECK_INT(cg_total(p, 0), 15);
        CHECK_INT(self_of(p, "main", 0), 15);
        cg_profile_free(p);
    }

    /* Same name in two objects: two functions */
    p = load("events: Ir\nob=/bin/a\nfn=work\n1 3\nob=/lib/b.so\nfn=work\n1 4\ntotals: 7\n", NULL,
             &e);
    CHECK(p);
    if (p) {
        CHECK_INT(p->nfunc, 2);
        CHECK_INT(cg_self(p, cg_find(p, "/bin/a", "work"))[0], 3);
        CHECK_INT(cg_self(p, cg_find(p, "/lib/b.so", "work"))[0], 4);
        cg_profile_free(p);
    }

    /* cachegrind: no positions, summary: at the end is the total */
    p = load("desc: I1 cache: 32768 B\ncmd: ./a\nevents: Ir I1mr \nfl=a.c\nfn=main\n3 4 1\n5 "
             "6\nsummary: 10 1\n",
             NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_STR(p->command, "./a");
        CHECK_INT(cg_total(p, 0), 10);
        cg_profile_free(p);
    }
    BAD("events: Ir\nfn=main\n3 4\nsummary: 5\n",
        "line 4: the cost lines add up to 4 Ir, but 'summary:' says 5");
    /* ... and required: cut at the end of any line before it, a cachegrind profile is refused
     * (it read as whole, with a smaller total), cut before its first cost line too */
    {
        const char *cg =
            "desc: I1 cache: 32768 B\ncmd: ./a\nevents: Ir I1mr\nfl=a.c\nfn=main\n3 4 1\n"
            "5 6\nfl=b.c\nfn=f\n1 7 2\nsummary: 17 3\n";
        int refused = 0, lines = 0;
        for (const char *nl = strchr(cg, '\n'); nl; nl = strchr(nl + 1, '\n')) {
            size_t len = (size_t)(nl + 1 - cg);
            if (len == strlen(cg))
                break;
            lines++;
            struct cg_profile *q = cg_profile_new();
            struct err e2 = {0};
            refused += cg_read_mem(q, "t.out", cg, len, NULL, &e2) < 0 && e2.kind == ERR_INPUT;
            cg_profile_free(q);
        }
        CHECK_INT(refused, lines);
        BAD("events: Ir\nfn=main\n3 4\n",
            "line 3: truncated: the part that began on line 1 has no 'summary:' line");
        BAD("events: Ir\nfl=a.c\nfn=main\n",
            "truncated: the part that began on line 1 has no 'summary:' line");
    }
    /* Costs that add up past 2^64 are refused, never wrapped: in a part, and over files */
    BAD("events: Ir\nfn=a\n1 9223372036854775808\nfn=b\n1 9223372036854775808\ntotals: 0\n",
        "line 6: the cost lines of the part that began on line 1 add up past 2^64");
    BAD("events: Ir\nfn=a\n1 18446744073709551615\n1 1\nsummary: 0\n",
        "line 5: the cost lines of the part that began on line 1 add up past 2^64");
    /* ... and so are calls whose costs or counts do: one edge's sums */
    BAD("events: Ir\nfn=a\n1 1\ncfn=b\ncalls=1 1\n1 9223372036854775808\n"
        "cfn=b\ncalls=1 1\n1 9223372036854775808\nfn=b\ntotals: 1\n",
        "line 11: the calls of the part that began on line 1 add up past 2^64 (their counts or "
        "their costs, with those of the parts read before)");
    BAD("events: Ir\nfn=a\n1 1\ncfn=b\ncalls=18446744073709551615 1\n1 0\n"
        "cfn=b\ncalls=1 1\n1 0\nfn=b\ntotals: 1\n",
        "line 11: the calls of the part that began on line 1 add up past 2^64 (their counts or "
        "their costs, with those of the parts read before)");
    {
        const char *half = "events: Ir\nfn=a\n1 9223372036854775808\ntotals: 9223372036854775808\n";
        struct cg_profile *q = cg_profile_new();
        struct err e2 = {0};
        CHECK_INT(cg_read_mem(q, "a.out", half, strlen(half), NULL, &e2), 0);
        CHECK_INT(cg_read_mem(q, "b.out", half, strlen(half), NULL, &e2), -1);
        CHECK_STR(e2.msg,
                  "'b.out' line 4: the Ir costs add up past 2^64 over the parts and files read");
        cg_profile_free(q);
    }

    /* Ranges: a profile of many functions, read whole and cut at 'fn=' lines into ranges
     * lexed at once. Functions begin with relative subpositions (the lexer of a later range
     * cannot know their base and must give way), calls cross range edges, cost lines follow
     * jump and calls lines, and a second part with other positions and events begins midway. */
    {
        char *big = malloc(1 << 20);
        size_t at = 0;
        uint64_t part[2] = {0, 0}, dr = 0;
        at += sprintf(big + at, "creator: callgrind-3.19.0\npositions: instr line\nevents: Ir Dr\n"
                                "ob=(1) /bin/x\nfl=(1) x.c\n");
        for (int f = 1; f <= 300; f++) {
            bool p2 = f >= 150;
            if (f == 150)
                at += sprintf(big + at,
                              "totals: %llu %llu\npart: 2\npositions: line\nevents: Ir\n"
                              "ob=(1)\nfl=(1)\n",
                              (unsigned long long)part[0], (unsigned long long)dr);
            at += sprintf(big + at, "fn=(%d) f%d\n", f, f);
            if (p2)
                at += sprintf(big + at, f % 3 ? "+%d 5\n" : "%d 5\n", 16 + f);
            else
                at += sprintf(big + at, f % 3 ? "+%d +1 5 1\n" : "0x%x 7 5 1\n", 16 + f);
            part[p2] += 5;
            dr += !p2;
            for (int i = 0; i < f % 7; i++) {
                at += sprintf(big + at, p2 ? "+1 %d\n" : "+1 * %d\n", i);
                part[p2] += i;
            }
            if (f > 1)
                at += sprintf(big + at, "cfn=(%d)%s\ncalls=%d %s\n%s 9\n", f - 1,
                              f == 2 ? " f1" : "", f, p2 ? "-1" : "0x10 -1", p2 ? "*" : "* *");
            at += sprintf(big + at,
                          p2 ? "jump=1 +3\n* \n# a comment\n\n" : "jcnd=1/2 +3 *\n* * \n\n");
        }
        at += sprintf(big + at, "totals: %llu\n", (unsigned long long)part[1]);
        p = load(big, NULL, &e);
        CHECK(p);
        if (p) {
            CHECK_INT(p->nparts, 2);
            CHECK_INT(cg_total(p, 0), part[0] + part[1]);
            CHECK_INT(cg_total(p, 1), dr);
            CHECK_INT(p->nfunc, 300);
            CHECK_INT(calls_of(p, "f200", "f199"), 200);
            CHECK_INT(calls_of(p, "f2", "f1"), 2);
            cg_profile_free(p);
        }
        p = load(big, "f2", &e);    /* lines mode: one range at a time */
        CHECK(p);
        cg_profile_free(p);
        /* a relative subposition below zero where a range may begin: only the whole file knows */
        char *q = strstr(big, "fn=(100) f100\n+116");
        CHECK(q);
        if (q) {
            memcpy(q + strlen("fn=(100) f100\n"), "-999", 4);
            BAD(big, "relative subposition -999 goes below zero");
        }
        free(big);
    }
    /* new parts with more positions, then more events: ranges lexed before a header was read
     * assumed the old ones and are lexed again */
    p = load("positions: line\nevents: Ir\nfn=a\n1 1\nfn=b\n2 2\ntotals: 3\npart: 2\n"
             "positions: instr line\nevents: Ir\nfn=c\n3 4 5\nfn=d\n3 4 5\nfn=e\n3 4 5\n"
             "fn=f\n3 4 5\nfn=g\n3 4 5\nfn=h\n3 4 5\ntotals: 30\npart: 3\npositions: instr line\n"
             "events: Ir Dr\nfn=c\n3 4 5 6\nfn=d\n3 4 5 6\nfn=e\n3 4 5 6\nfn=f\n3 4 5 6\n"
             "fn=g\n3 4 5 6\nfn=h\n3 4 5 6\ntotals: 30 36\n", NULL, &e);
    CHECK(p);
    if (p) {
        CHECK_INT(cg_total(p, 0), 63);
        CHECK_INT(cg_total(p, 1), 36);
        CHECK_INT(self_of(p, "h", 0), 10);
        CHECK_INT(self_of(p, "h", 1), 6);
        cg_profile_free(p);
    }

    /* Several files into one profile are summed */
    p = cg_profile_new();
    const char *f1 = "events: Ir\nob=/x\nfn=main\n1 3\ntotals: 3\n",
               *f2 = "events: Ir Dr\nob=/x\nfn=main\n1 4 2\ntotals: 4 2\n";
    CHECK(cg_read_mem(p, "a", f1, strlen(f1), NULL, &e) == 0);
    CHECK(cg_read_mem(p, "b", f2, strlen(f2), NULL, &e) == 0);
    CHECK(cg_profile_finish(p, &e) == 0);
    CHECK_INT(cg_total(p, cg_event_index(p, "Ir")), 7);
    CHECK_INT(cg_total(p, cg_event_index(p, "Dr")), 2);
    CHECK_INT(p->nfiles, 2);
    cg_profile_free(p);

    /* Names */
    bool rec;
    CHECK_INT(cg_strip_name("fib'2", 5, &rec), 3);
    CHECK(rec);
    CHECK_INT(cg_strip_name("malloc'strdup'main", 18, &rec), 6);
    CHECK(!rec);
    CHECK_INT(cg_strip_name("fib'3'main", 10, &rec), 3);
    CHECK(rec);
    const char *op = "std::operator<<(std::ostream&, int)'2";
    CHECK_INT(cg_strip_name(op, strlen(op), &rec), strlen(op) - 2);
    const char *op2 = "A::operator()(int) const'f";
    CHECK_INT(cg_strip_name(op2, strlen(op2), &rec), strlen(op2) - 2);
    const char *op3 = "f(A::operator()'x)'2";     /* "()" of the operator closes nothing */
    CHECK_INT(cg_strip_name(op3, strlen(op3), &rec), strlen(op3) - 2);
    CHECK(rec);
    const char *tpl = "f<(char)39>(x)'2";
    CHECK_INT(cg_strip_name(tpl, strlen(tpl), &rec), strlen(tpl) - 2);
    /* names are scanned sixteen bytes at a time: the quote, brackets and "operator" at every
     * offset across those blocks, against the rule applied one byte at a time */
    {
        char name[128];
        int wrong = 0;
        for (int k = 0; k < 40; k++) {
            int n = snprintf(name, sizeof name, "f(%.*s)'caller'main", k,
                             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
            wrong += cg_strip_name(name, n, &rec) != (size_t)k + 3 || rec;
            n = snprintf(name, sizeof name, "f(%.*s'x)'2", k,
                         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
            wrong += cg_strip_name(name, n, &rec) != (size_t)n - 2 || !rec;
            n = snprintf(name, sizeof name, "%.*sA::operator<'3'main", k,
                         "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
            wrong += cg_strip_name(name, n, &rec) != (size_t)k + 12 || !rec;
        }
        CHECK_INT(wrong, 0);
        unsigned seed = 12345;
        static const char alphabet[] = "ab(o)<>[]{}'operator2 ";
        for (int t = 0; t < 20000; t++) {
            int n = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 80;
            for (int i = 0; i < n; i++)
                name[i] =
                    alphabet[((seed = seed * 1103515245u + 12345u) >> 16) % (sizeof alphabet - 1)];
            bool r1, r2;
            size_t got = cg_strip_name(name, n, &r1), want = ref_strip(name, n, &r2);
            wrong += got != want || r1 != r2;
        }
        CHECK_INT(wrong, 0);
    }
    /* interning: names of every length up to 70 (hashed in 16-byte steps, the last bytes as
     * one overlapping word, short ones apart), each with one byte changed at every place, are
     * all different strings, and the same string is found again */
    {
        struct cg_profile *q = cg_profile_new();
        char name[80];
        int wrong = 0;
        uint32_t before = q->nstr;
        for (int n = 1; n <= 70; n++)
            for (int at = -1; at < n; at++) {
                letters(name, n, at, '#');
                uint32_t id = cg_intern(q, name, (size_t)n);
                wrong += id == UINT32_MAX || id != q->nstr - 1 ||
                         cg_intern(q, name, (size_t)n) != id ||
                         strlen(cg_str(q, id)) != (size_t)n ||
                         memcmp(cg_str(q, id), name, (size_t)n) != 0;
            }
        CHECK_INT(wrong, 0);
        CHECK_INT(q->nstr - before, 70 * 71 / 2 + 70);
        cg_profile_free(q);
    }
    /* the lexer's hash looks for NUL bytes in the words it reads: one at every place of names
     * of every length up to 70 is seen (short names, the 16-byte steps, the word after them,
     * the last word), and a name without one has cg_hash()'s hash */
    {
        char name[80];
        int wrong = 0;
        for (int n = 1; n <= 70; n++)
            for (int at = -1; at < n; at++) {
                letters(name, n, at, '\0');
                uint32_t h = 0;
                bool text = cg_hash_text(name, (size_t)n, &h);
                wrong += at >= 0 ? text : !text || h != cg_hash(name, (size_t)n);
            }
        CHECK_INT(wrong, 0);
    }
    CHECK(cg_is_alloc_entry("malloc"));
    CHECK(cg_is_alloc_entry("realloc@@GLIBC_2.2.5"));
    CHECK(cg_is_alloc_entry("__libc_calloc"));
    CHECK(cg_is_alloc_entry("pvalloc"));
    CHECK(!cg_is_alloc_entry("free"));
    CHECK(!cg_is_alloc_entry("malloc_usable_size"));
    CHECK(!cg_is_alloc_entry("_int_malloc"));
    {
        /* every entry point, alone, versioned, as glibc's __libc_ alias, and both; one byte
         * more or less is none */
        static const char *const all[] = {"malloc", "calloc", "realloc", "reallocarray",
                                          "aligned_alloc", "posix_memalign", "memalign",
                                          "valloc", "pvalloc"};
        char name[64];
        int wrong = 0;
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
            static const char *const forms[] = {"%s", "%s@@GLIBC_2.2.5", "__libc_%s",
                                                "__libc_%s@GLIBC_2.2.5"};
            for (int f = 0; f < 4; f++) {
                snprintf(name, sizeof name, forms[f], all[i]);
                wrong += !cg_is_alloc_entry(name);
            }
            snprintf(name, sizeof name, "__libc_%sx", all[i]);
            wrong += cg_is_alloc_entry(name);
            snprintf(name, sizeof name, "%.*s", (int)strlen(all[i]) - 1, all[i]);
            wrong += cg_is_alloc_entry(name);
        }
        CHECK_INT(wrong, 0);
        CHECK(!cg_is_alloc_entry("std::vector<int, std::allocator<int> >::push_back(int const&)"));
    }

    /* Bad input: the file, the line, what */
    BAD("events: Ir\nfn=(1) f\ncfn=(57)\ncalls=1 0\n1 1\n",
        "'t.out' line 3: undefined name id 57 in 'cfn='");
    BAD("events: Ir\nfn=f\n1 5\ntotals: 6\n",
        "line 4: the cost lines add up to 5 Ir, but 'totals:' says 6");
    BAD("creator: callgrind-3.19.0\nevents: Ir\nfn=f\n1 5\n",
        "truncated: the part that began on line 2 has no 'totals:' line");
    BAD("events: Ir\nfn=f\n1 5", "line 3: truncated: the last line has no newline");
    BAD("events: Ir\nfn=f\ncfn=g\ncalls=1 2\n",
        "truncated: 'calls=' line not followed by its cost line");
    BAD("positions: foo\n", "line 1: unknown position 'foo'");
    BAD("positions: line instr\n", "out of order");
    BAD("fn=f\n1 2\n", "line 2: cost line before 'events:'");
    BAD("events: Ir\n1 2\n", "cost line before any 'fn='");
    BAD("events: Ir\nfn=f\n1 2 3\n", "more costs than the 1 events");
    BAD("events: Ir\nfn=f\n3 1\n-4 1\n", "goes below zero");
    BAD("events: Ir\nfn=f\n1 x\n", "bad cost");
    BAD("events: Ir\nfn=f\n1 99999999999999999999\n", "bad cost");
    BAD("events: Ir\nfn=f\nxyz=1\n", "unknown line 'xyz='");
    BAD("events: Ir\nfn=f\ncalls=1 2\n1 1\n", "'calls=' without a 'cfn='");
    BAD("events: Ir\nfn=(1) f\nfn=(1) g\n", "name id 1 in 'fn=' redefined");
    /* the same name, once a recursion level and once not, is two definitions */
    BAD("events: Ir\nfn=(1) f'2\n1 1\nfn=(1) f\n", "line 4: name id 1 in 'fn=' redefined");
    BAD("events: Ir\nfn=\n", "empty name");
    BAD("events: Ir\nfn=f\n1 5\ntotals: 5\n2 1\n", "cost line after 'totals:'");
    /* the same where a range may begin: the reader, not the lexer, knows the header. The
     * comment moves the header across the edges of ranges. */
    for (int pad = 0; pad < 48; pad++) {
        char text[512];
        snprintf(text, sizeof text,
                 "events: Ir\nfn=a\n1 1\n#%.*s\ntotals: 1\nfn=b\n1 1\nfn=c\n1 1\n"
                 "fn=d\n1 1\nfn=e\n1 1\n",
                 pad, "................................................");
        BAD(text, "line 7: cost line after 'totals:'");
        snprintf(text, sizeof text,
                 "events: Ir\nfn=a\n1 1\n#%.*s\ntotals: 1\npart: 2\npositions: line\n"
                 "fn=b\n1 1\nfn=c\n1 1\nfn=d\n1 1\nfn=e\n1 1\n",
                 pad, "................................................");
        BAD(text, "line 9: cost line before 'events:'");
        snprintf(
            text, sizeof text,
            "positions: instr\nevents: Ir\nfn=a\n1 1\n#%.*s\ntotals: 1\npart: 2\n"
            "positions: instr bb\nevents: Ir\nfn=b\n1 1 1\nfn=c\n1 1 1\nfn=d\n1 1 1\nfn=e\n1 1 1\n"
            "totals: 4\n",
            pad, "................................................");
        p = load(text, NULL, &e);
        CHECK(p && cg_total(p, 0) == 5);
        cg_profile_free(p);
    }
    BAD("version: 2\n", "unsupported format version");
    BAD("hello world\n", "malformed line");
    BAD("", "no 'events:' line");
    BAD("events: Ir Ir\n", "named twice");
    BAD("events: Ir\nfn=f\n1 1\ncfn=g\ncalls=1 1\nfn=h\n",
        "where the cost line of a call or jump was due");

    /* cg_read_file: blocks of 4 MiB, lines across their edges, a line longer than a block */
    char path[] = "/tmp/tare-test-cg-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f);
    if (f) {
        fputs("creator: callgrind-3.19.0\npositions: instr line\nevents: Ir Dr\nob=(1) "
              "/bin/x\nfl=(1) x.c\nfn=(1) ",
              f);
        for (int i = 0; i < 5 << 20; i++)     /* a 5 MiB name */
            fputc('a' + i % 26, f);
        fputs("\n0x1000 1 1 1\n", f);
        uint64_t want = 1;
        for (int i = 0; i < 700000; i++) {   /* ~7 MB of cost lines */
            fprintf(f, "+%d * %d\n", i % 90 + 1, i % 7);
            want += i % 7;
        }
        fprintf(f, "fn=(2) g\n0x10 3 5 2\ntotals: %llu 3\n", (unsigned long long)(want + 5));
        fclose(f);
        p = cg_profile_new();
        CHECK(cg_read_file(p, path, NULL, &e) == 0);
        CHECK(cg_profile_finish(p, &e) == 0);
        CHECK_INT(cg_total(p, 0), want + 5);
        CHECK_INT(cg_total(p, 1), 3);
        CHECK_INT(p->nfunc, 2);
        CHECK_INT(strlen(cg_str(p, p->funcs[0].name)), 5 << 20);
        cg_profile_free(p);
        p = cg_profile_new();
        CHECK(cg_read_file(p, "/nonexistent/x.out", NULL, &e) < 0 && e.kind == ERR_INPUT &&
              strstr(e.msg, "cannot open '/nonexistent/x.out'"));
        cg_profile_free(p);
        unlink(path);
    }

    /* Tables made at the size a file's bytes suggest, at most 16,384 / 16,384 / 65,536 slots;
     * a small file leaves them at 1,024; a profile read into them is the one read without */
    {
        struct cg_profile *big = cg_profile_new(), *small = cg_profile_new();
        cg_profile_expect(big, 27u << 20);
        CHECK_INT(big->str_hash_cap, 16384);
        CHECK_INT(big->func_hash_cap, 16384);
        CHECK_INT(big->edge_hash_cap, 65536);
        cg_profile_expect(big, (uint64_t)2 << 30);
        CHECK_INT(big->edge_hash_cap, 65536);
        cg_profile_expect(small, 100000);
        CHECK_INT(small->str_hash_cap, 1024);
        CHECK_INT(small->edge_hash_cap, 1024);
        const char *text =
            "events: Ir\nob=(1) /bin/p\nfl=(1) p.c\nfn=(1) main\n1 5\ncfn=(2) f'main\n"
            "calls=2 1\n1 30\nfn=(2)\n2 30\ncfn=(1)\ncalls=1 1\n2 4\nfn=(3) g\n3 1\ntotals: 36\n";
        struct err e1, e2;
        CHECK(cg_read_mem(big, "t.out", text, strlen(text), NULL, &e1) == 0 &&
              cg_profile_finish(big, &e1) == 0);
        p = load_in(text, NULL, &e2);
        char why[256] = "";
        CHECK(p && cg_profile_same(big, p, why, sizeof why));
        CHECK_INT(big->edge_hash_cap, 65536);
        /* a large file's tables made since are in the arena (huge pages), a small file's
         * from malloc */
        CHECK(big->mem.huge && !small->mem.huge);
        CHECK(arena_owns(&big->mem, big->edge_hash) && arena_owns(&big->mem, big->funcs));
        CHECK(!arena_owns(&small->mem, small->edge_hash));
        cg_profile_free(p);
        cg_profile_free(big);
        cg_profile_free(small);
    }

    /* Tables grown in the arena (functions, edges, strings past their first sizes; a cost
     * array widened for an event a later file adds): the model read without it. */
    {
        size_t cap = 1u << 20, len = 0;
        uint64_t self_sum = 0;
        char *text = malloc(cap);
        len += snprintf(text + len, cap - len, "events: Ir\nob=(1) /bin/p\nfl=(1) p.c\n");
        for (int i = 0; i < 3000; i++) {
            len += snprintf(
                text + len, cap - len,
                "fn=(%d) a_function_name_long_enough_to_fill_the_pool_%d(int, char const*)\n"
                "%d %d\n",
                i + 1, i, i + 1, i % 7 + 1);
            self_sum += i % 7 + 1;
            if (i > 0)
                len += snprintf(text + len, cap - len, "cfn=(%d)\ncalls=%d 1\n1 %d\n", i, i % 3 + 1,
                                i % 5);
        }
        len += snprintf(text + len, cap - len, "totals: %llu\n", (unsigned long long)self_sum);
        const char *more =
            "events: Ir Dr\nob=(1) /bin/p\nfl=(1) p.c\nfn=(1) main\n1 5 2\ntotals: 5 2\n";
        struct cg_profile *huge = cg_profile_new();
        struct err e1 = {0}, e2 = {0};
        cg_profile_expect(huge, CG_HUGE_BYTES);
        CHECK(cg_read_mem(huge, "t.out", text, len, NULL, &e1) == 0 &&
              cg_read_mem(huge, "u.out", more, strlen(more), NULL, &e1) == 0 &&
              cg_profile_finish(huge, &e1) == 0);
        struct cg_profile *plain = cg_profile_new();
        CHECK(cg_read_mem(plain, "t.out", text, len, NULL, &e2) == 0 &&
              cg_read_mem(plain, "u.out", more, strlen(more), NULL, &e2) == 0 &&
              cg_profile_finish(plain, &e2) == 0);
        char why[256] = "";
        CHECK(cg_profile_same(huge, plain, why, sizeof why));
        CHECK_STR(why, "");
        CHECK_INT(huge->nfunc, 3001);
        CHECK_INT(huge->nev, 2);
        CHECK(huge->pool_len > 65536 && arena_owns(&huge->mem, huge->pool) &&
              arena_owns(&huge->mem, huge->self) && arena_owns(&huge->mem, huge->edges));
        cg_profile_free(huge);
        cg_profile_free(plain);
        free(text);
    }

    test_views();
    return unit_done("test_callgrind");
}
