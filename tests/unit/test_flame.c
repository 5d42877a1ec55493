/* test_flame.c: the frame tree (core/profile/flame.c) of hand-written profiles, each answer worked
 * out by hand: exact stacks, the estimate below a function with two callers (rounded so that
 * its parts add up), recursion collapsed (a direct one into one frame, A <-> B drawn
 * main;A;B;A;B), the recursion marks telling where a shared function's calls are made,
 * small callees merged into "other"; and the sums of every tree: each function's frames hold
 * its self cost, its outermost ones its inclusive cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/flame.h"
#include "core/profile/profile.h"
#include "unit.h"

static struct cg_profile *load_as(const char *text, bool keep_callers)
{
    struct err e = {0};
    struct cg_profile *p = cg_profile_new();
    struct cg_read_opts o = {.keep_callers = keep_callers};
    if (cg_read_mem(p, "t.out", text, strlen(text), &o, &e) < 0 ||
        cg_profile_finish(p, &e) < 0) {
        fprintf(stderr, "load: %s\n", e.msg);
        cg_profile_free(p);
        return NULL;
    }
    return p;
}

static struct cg_profile *load(const char *text)
{
    return load_as(text, false);
}

/* "main;R;S" for frame i */
static void path_of(const struct cg_profile *p, const struct cg_flame *fl, uint32_t i, char *buf,
                    size_t n)
{
    const char *parts[64];
    int k = 0;
    for (; i != 0 && k < 64; i = fl->frames[i].parent) {
        uint32_t f = fl->frames[i].func;
        parts[k++] = f == CG_FRAME_OTHER ? "[other]" : cg_str(p, p->funcs[f].name);
    }
    buf[0] = 0;
    while (k-- > 0) {
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", used ? ";" : "", parts[k]);
    }
}

/* All frames as "path=value[ exact]" lines, in the tree's order; the tree's invariants
 * checked first (with the sums where the tree was complete). */
static void dump(const struct cg_profile *p, const struct cg_flame *fl, char *out, size_t n)
{
    char why[256] = "";
    bool ok = cg_flame_check(fl, p, why, sizeof why);
    if (!ok)
        fprintf(stderr, "cg_flame_check: %s\n", why);
    CHECK(ok);
    out[0] = 0;
    for (uint32_t i = 1; i < fl->n; i++) {
        char path[512];
        path_of(p, fl, i, path, sizeof path);
        size_t used = strlen(out);
        snprintf(out + used, n - used, "%s=%llu%s\n", path,
                 (unsigned long long)cg_frame_value(fl, i, 0), fl->frames[i].exact ? " exact" : "");
    }
}

/* main calls L and R; both call S (two callers), which calls D. */
static const char two_callers[] =
    "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) L\ncalls=1 1\n1 40\n"
    "cfn=(3) R\ncalls=1 1\n1 60\n"
    "fn=(2)\n1 20\ncfn=(4) S\ncalls=1 1\n1 20\n"
    "fn=(3)\ncfn=(4)\ncalls=1 1\n1 60\n"
    "fn=(4)\n1 30\ncfn=(5) D\ncalls=2 1\n1 50\n"
    "fn=(5)\n1 50\ntotals: 110\n";

/* main -> A -> B -> A'2 -> B'2, with callgrind's recursion marks */
static const char mutual[] =
    "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) A\ncalls=1 1\n1 100\n"
    "fn=(2)\n1 20\ncfn=(3) B\ncalls=1 1\n1 80\n"
    "fn=(3)\n1 20\ncfn=(4) A'2\ncalls=1 1\n1 60\n"
    "fn=(4)\n1 20\ncfn=(5) B'2\ncalls=1 1\n1 40\n"
    "fn=(5)\n1 40\ntotals: 110\n";

/* fib'2 .. fib'3 under main: one frame */
static const char fib[] =
    "events: Ir\nfl=f.c\nfn=(1) main\n1 10\ncfn=(2) fib\ncalls=1 1\n1 100\n"
    "fn=(2)\n1 20\ncfn=(3) fib'2\ncalls=2 1\n1 80\n"
    "fn=(3)\n1 60\ncfn=(4) fib'3\ncalls=1 1\n1 20\n"
    "fn=(4)\n1 20\ntotals: 110\n";

/* two_callers with --separate-callers=1 contexts, D calling E: S'L and S'R tell how much of
 * D each caller's S made (10 and 40), which the edges alone split 20:60 (12 and 37); D'S has
 * two caller contexts, so E's 30 under it is split 10:40 (6 and 24, estimates) */
static const char contexts[] =
    "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) L'main\ncalls=1 1\n1 40\n"
    "cfn=(3) R'main\ncalls=1 1\n1 60\n"
    "fn=(2)\n1 20\ncfn=(4) S'L\ncalls=1 1\n1 20\n"
    "fn=(3)\ncfn=(5) S'R\ncalls=1 1\n1 60\n"
    "fn=(4)\n1 10\ncfn=(6) D'S\ncalls=1 1\n1 10\n"
    "fn=(5)\n1 20\ncfn=(6)\ncalls=1 1\n1 40\n"
    "fn=(6)\n1 20\ncfn=(7) E'D\ncalls=2 1\n1 30\n"
    "fn=(7)\n1 30\ntotals: 110\n";

/* fib's recursion levels in contexts: fib'2'main is fib'main, one level deeper */
static const char fib_contexts[] =
    "events: Ir\nfl=f.c\nfn=(1) main\n1 10\ncfn=(2) fib'main\ncalls=1 1\n1 100\n"
    "fn=(2)\n1 20\ncfn=(3) fib'2'main\ncalls=2 1\n1 80\n"
    "fn=(3)\n1 80\ntotals: 110\n";

/* mutual with the recursion going on: A'2 and B'2 calling each other (a cycle among the
 * recursion levels), entered once from B: drawn main;A;B;A;B, each level once */
static const char cycle[] =
    "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) A\ncalls=1 1\n1 190\n"
    "fn=(2)\n1 20\ncfn=(3) B\ncalls=1 1\n1 170\n"
    "fn=(3)\n1 20\ncfn=(4) A'2\ncalls=1 1\n1 150\n"
    "fn=(4)\n1 50\ncfn=(5) B'2\ncalls=2 1\n1 100\n"
    "fn=(5)\n1 60\ncfn=(4)\ncalls=1 1\n1 40\n"
    "fn=(4)\n1 0\ncfn=(6) W\ncalls=1 1\n1 40\n"
    "fn=(6)\n1 40\ntotals: 200\n";

static void test_cycle(void)
{
    char got[4096];
    struct err e = {0};
    struct cg_flame fl;
    struct cg_profile *p = load(cycle);
    CHECK(p);
    if (!p)
        return;
    CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
    dump(p, &fl, got, sizeof got);
    /* the cycle of A'2 (self 50, calling W: 40) and B'2 (self 60) holds 150, B's call into
     * it: drawn from A'2, entered there, with B'2 under it once; the paths inside the cycle
     * are the profile's edges, their values its content (exact as a whole, not each) */
    CHECK_STR(got, "main=200 exact\nmain;A=190 exact\nmain;A;B=170 exact\n"
                   "main;A;B;A=150 exact\nmain;A;B;A;B=60\nmain;A;B;A;W=40\n");
    CHECK(fl.groups == 1);
    CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
    cg_flame_free(&fl);
    cg_profile_free(p);
}

/* A -> B -> C -> A, the recursion going round once more (--separate-recs=2: every deeper
 * level is A'2, B'2, C'2): A'2 (self 40 + 20 at two depths) calls B'2 (50), B'2 C'2 (60), C'2
 * the deeper A'2 (20, a leaf). Drawn main;A;B;C;A;B;C: the first round exact, the inner
 * A, B, C every deeper level, each with its own function's self cost (A's 30 + 60 on A's
 * frames, none of A'2's 20 left on C'2's), the inner A holding the whole recursion (170) */
static const char cycle3[] =
    "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) A\ncalls=1 1\n1 240\n"
    "fn=(2)\n1 30\ncfn=(3) B\ncalls=1 1\n1 210\n"
    "fn=(3)\n1 20\ncfn=(4) C\ncalls=1 1\n1 190\n"
    "fn=(4)\n1 20\ncfn=(5) A'2\ncalls=1 1\n1 170\n"
    "fn=(5)\n1 60\ncfn=(6) B'2\ncalls=1 1\n1 130\n"
    "fn=(6)\n1 50\ncfn=(7) C'2\ncalls=1 1\n1 80\n"
    "fn=(7)\n1 60\ncfn=(5)\ncalls=1 1\n1 20\ntotals: 250\n";

static void test_cycle3(void)
{
    char got[4096];
    struct err e = {0};
    struct cg_flame fl;
    struct cg_profile *p = load(cycle3);
    CHECK(p);
    if (!p)
        return;
    CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
    dump(p, &fl, got, sizeof got);
    CHECK_STR(got, "main=250 exact\nmain;A=240 exact\nmain;A;B=210 exact\nmain;A;B;C=190 exact\n"
                   "main;A;B;C;A=170 exact\nmain;A;B;C;A;B=110\nmain;A;B;C;A;B;C=60\n");
    CHECK(fl.groups == 1);
    CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
    const char *name[] = {"A", "B", "C"};
    const uint64_t incl[] = {240, 210, 190};   /* the first round's: each one's outermost */
    for (int k = 0; k < 3; k++)
        CHECK_INT(cg_incl(p, cg_find(p, NULL, name[k]))[0], incl[k]);
    cg_flame_free(&fl);
    cg_profile_free(p);
}

/* A function called from outside f and from inside it, calling f's outermost level from the
 * first and its recursion level from the second (an interpreter's callback): the marks tell
 * which of X's calls go where, so that every frame is exact, and f's outermost frames (not
 * under f) add up to its inclusive cost. */
static const char shared[] =
    "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) f\ncalls=1 1\n1 100\n"
    "cfn=(3) X\ncalls=1 1\n1 50\n"
    "fn=(2)\n1 70\ncfn=(3)\ncalls=1 1\n1 60\n"
    "fn=(3)\n1 40\ncfn=(2)\ncalls=1 1\n1 30\ncfn=(4) f'2\ncalls=1 1\n1 40\n"
    "fn=(4)\n1 40\ntotals: 160\n";

static void test_shared(void)
{
    char got[4096];
    struct err e = {0};
    struct cg_flame fl;
    struct cg_profile *p = load(shared);
    CHECK(p);
    if (!p)
        return;
    CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
    dump(p, &fl, got, sizeof got);
    CHECK_STR(got, "main=160 exact\nmain;f=100 exact\nmain;f;X=60 exact\nmain;f;X;f=40 exact\n"
                   "main;X=50 exact\nmain;X;f=30 exact\n");
    CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
    CHECK_INT(cg_incl(p, cg_find(p, NULL, "f"))[0], 130);   /* 100 + 30: the two outermost */
    cg_flame_free(&fl);
    cg_profile_free(p);
}

/* A <-> B without marks (--separate-recs=1): a cycle no mark breaks, drawn once; the self
 * costs still each function's own, the inclusive ones bounds (flagged) */
static const char unmarked[] =
    "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) A\ncalls=1 1\n1 100\n"
    "fn=(2)\n1 60\ncfn=(3) B\ncalls=2 1\n1 70\n"
    "fn=(3)\n1 40\ncfn=(2)\ncalls=1 1\n1 50\n"
    "totals: 110\n";

static void test_unmarked(void)
{
    char got[4096];
    struct err e = {0};
    struct cg_flame fl;
    struct cg_profile *p = load(unmarked);
    CHECK(p);
    if (!p)
        return;
    CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
    dump(p, &fl, got, sizeof got);
    CHECK_STR(got, "main=110 exact\nmain;A=100 exact\nmain;A;B=40\n");
    CHECK(fl.checked && fl.self_est == 0);
    uint32_t a = cg_find(p, NULL, "A"), bb = cg_find(p, NULL, "B");
    CHECK(fl.flag[a] & CG_FLAME_INCL_EST && fl.flag[bb] & CG_FLAME_INCL_EST);
    cg_flame_free(&fl);
    cg_profile_free(p);
}

/* cc1's preprocessor, in small: H (a directive) is reached from I (at start, L not on the
 * stack) and from L (lexing); only under L does H call P, which calls L again (L'2). H's call
 * into P split by H's paths' shares (1000 : 200) gives P under L 25 of the 130 its recursive
 * call needs: the rest is pulled in from H under L, never drawn where L is not on the stack
 * (the least pulled: P's self stays under I) */
static const char pulled[] =
    "events: Ir\nfl=m.c\nfn=(1) main\n1 10\ncfn=(2) I\ncalls=1 1\n1 1000\n"
    "cfn=(5) L\ncalls=1 1\n1 250\n"
    "fn=(2)\ncfn=(3) H\ncalls=1 1\n1 1000\n"
    "fn=(5)\n1 50\ncfn=(3)\ncalls=1 1\n1 200\n"
    "fn=(3)\n1 1050\ncfn=(4) P\ncalls=2 1\n1 150\n"
    "fn=(4)\n1 20\ncfn=(6) L'2\ncalls=1 1\n1 130\n"
    "fn=(6)\n1 130\n"
    "totals: 1260\n";

static void test_pulled(void)
{
    char got[4096];
    struct err e = {0};
    struct cg_flame fl;
    struct cg_profile *p = load(pulled);
    CHECK(p);
    if (!p)
        return;
    CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
    dump(p, &fl, got, sizeof got);
    CHECK_STR(got, "main=1260 exact\nmain;I=1000 exact\nmain;I;H=1000 exact\nmain;I;H;P=20\n"
                   "main;L=250 exact\nmain;L;H=200 exact\nmain;L;H;P=130\nmain;L;H;P;L=130\n");
    CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
    cg_flame_free(&fl);
    cg_profile_free(p);
}

static void test_contexts(void)
{
    char got[4096];
    struct err e = {0};
    struct cg_flame fl;
    struct cg_profile *p = load(contexts), *ctx = load_as(contexts, true);
    CHECK(p && ctx);
    if (!p || !ctx)
        goto done;
    CHECK(p->contexts && ctx->contexts);
    CHECK_INT(p->nfunc, 6);       /* main L R S D E */
    CHECK_INT(ctx->nfunc, 7);     /* S'L and S'R apart */
    CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
    dump(p, &fl, got, sizeof got);
    /* D's 50 split 60:20 is 37.5 and 12.5: the frame drawn first (by name: L's) gets the
     * unit; E's 30 likewise (22.5 and 7.5) */
    CHECK_STR(got, "main=110 exact\nmain;R=60 exact\nmain;R;S=60 exact\nmain;R;S;D=37\n"
                   "main;R;S;D;E=22\nmain;L=40 exact\nmain;L;S=20 exact\nmain;L;S;D=13\n"
                   "main;L;S;D;E=8\n");
    CHECK_INT(fl.context_depth, 0);
    CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
    cg_flame_free(&fl);
    struct cg_flame_opts o = {.ctx = ctx};
    CHECK(cg_flame_build(p, &o, &fl, &e) == 0);
    dump(p, &fl, got, sizeof got);
    CHECK_STR(got, "main=110 exact\nmain;R=60 exact\nmain;R;S=60 exact\nmain;R;S;D=40 exact\n"
                   "main;R;S;D;E=24\nmain;L=40 exact\nmain;L;S=20 exact\nmain;L;S;D=10 exact\n"
                   "main;L;S;D;E=6\n");
    CHECK_INT(fl.context_depth, 1);
    CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
    cg_flame_free(&fl);
    /* a contexts' profile of other files: an error */
    cg_profile_free(ctx);
    ctx = load_as(fib_contexts, true);
    o.ctx = ctx;
    CHECK(ctx && cg_flame_build(p, &o, &fl, &e) < 0 && e.kind == ERR_INPUT);
    CHECK(strstr(e.msg, "is no function of the profile"));
    cg_profile_free(p);
    p = load(fib_contexts);
    CHECK(p && cg_flame_build(p, &o, &fl, &e) == 0);
    if (p && fl.n) {
        dump(p, &fl, got, sizeof got);
        CHECK_STR(got, "main=110 exact\nmain;fib=100 exact\n");
        cg_flame_free(&fl);
    }
done:
    cg_profile_free(p);
    cg_profile_free(ctx);
}

int main(void)
{
    test_contexts();
    char got[4096];
    struct err e = {0};
    struct cg_flame fl;
    struct cg_profile *p = load(two_callers);
    CHECK(p);
    if (p) {
        CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
        CHECK_INT(cg_frame_value(&fl, 0, 0), 110);
        CHECK(fl.frames[0].func == CG_FRAME_ROOT);
        dump(p, &fl, got, sizeof got);
        /* R's call into S costs 60 of S's 80: D's 50 splits 60:20, 37.5 and 12.5, the unit
         * to the first drawn (by name, L): 37 and 13, adding up to D's 50 */
        CHECK_STR(got, "main=110 exact\nmain;R=60 exact\nmain;R;S=60 exact\nmain;R;S;D=37\n"
                       "main;L=40 exact\nmain;L;S=20 exact\nmain;L;S;D=13\n");
        CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
        CHECK_INT(fl.unreached, 0);
        uint64_t self[16];
        cg_flame_self(&fl, 0, self);
        CHECK_INT(self[0], 0);
        CHECK_INT(self[1], 10);   /* main */
        CHECK_INT(self[3], 23);   /* R;S: 60 less D's 37 */
        cg_flame_free(&fl);
        /* 20% of 110 is 22: L;S (20) merged into an "other" under L; R;S;D (37) kept */
        struct cg_flame_opts o = {.min_frac = 0.2};
        CHECK(cg_flame_build(p, &o, &fl, &e) == 0);
        dump(p, &fl, got, sizeof got);
        CHECK_STR(got, "main=110 exact\nmain;R=60 exact\nmain;R;S=60 exact\nmain;R;S;D=37\n"
                       "main;L=40 exact\nmain;L;[other]=20\n");
        CHECK_INT(fl.merged, 1);
        /* merged: the sums checked as far as the tree can tell (S's frames short of its self
         * cost by 7 of the 20 merged, D's by 13): nothing surely off, nothing flagged */
        CHECK(fl.checked && fl.cut && fl.self_est == 0 && fl.incl_est == 0);
        cg_flame_free(&fl);
        /* a frame limit too small: an error, not a partial tree */
        o = (struct cg_flame_opts){.max_frames = 3};
        CHECK(cg_flame_build(p, &o, &fl, &e) < 0);
        CHECK(e.kind == ERR_INPUT && strstr(e.msg, "more than 3 frames"));
        CHECK(fl.frames == NULL && fl.n == 0);
        cg_profile_free(p);
    }
    p = load(mutual);
    CHECK(p);
    if (p) {
        CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
        dump(p, &fl, got, sizeof got);
        /* A'2 and B'2 under B's outermost call (80): a frame each, A's and B's self at
         * every level on frames of their own */
        CHECK_STR(got, "main=110 exact\nmain;A=100 exact\nmain;A;B=80 exact\n"
                       "main;A;B;A=60 exact\nmain;A;B;A;B=40 exact\n");
        CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
        cg_flame_free(&fl);
        cg_profile_free(p);
    }
    p = load(fib);
    CHECK(p);
    if (p) {
        CHECK(cg_flame_build(p, NULL, &fl, &e) == 0);
        dump(p, &fl, got, sizeof got);
        CHECK_STR(got, "main=110 exact\nmain;fib=100 exact\n");
        CHECK(fl.checked && fl.self_est == 0 && fl.incl_est == 0);
        cg_flame_free(&fl);
        cg_profile_free(p);
    }
    test_cycle();
    test_cycle3();
    test_shared();
    test_unmarked();
    test_pulled();
    return unit_done("flame");
}
