/* test_alloctree.c: a stack table as a tree of frames: the paths depth first with siblings by
 * name, each frame the sum of the stacks through it, a recursive name once a stack, the calls
 * between names; compared with a table before: its own values by path, new and gone names. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "core/profile/alloctree.h"
#include "unit.h"

#define HDR "stack\tallocations\tbytes\ttemporaries\tpeak_bytes\tleaked_bytes\n"

static const char after_tsv[] = HDR
    "main;a;b\t3\t30\t1\t10\t0\n"
    "main;a\t2\t20\t0\t0\t20\n"
    "main;c;c;d\t1\t100\t0\t50\t0\n"
    "main;b;a\t4\t4\t4\t0\t0\n";

static const char before_tsv[] = HDR
    "main;a;b\t1\t10\t0\t10\t0\n"
    "main;e\t5\t50\t0\t0\t0\n"
    "main;a;x\t2\t2\t0\t0\t2\n";

static void parse(const char *text, struct astk_table *t)
{
    struct err e = {0};
    CHECK_INT(astk_parse_tsv(text, strlen(text), "t", t, &e), 0);
}

/* The frame's path of names from the root ("main;a;b"; "" for the root). */
static void path_of(const struct atree *t, size_t i, char *buf, size_t n)
{
    const char *part[64];
    int k = 0;
    for (uint32_t d = t->frames[i].depth; d > 0 && k < 64; i--)
        if (t->frames[i].depth == d) {
            part[k++] = t->names[t->frames[i].name];
            d--;
        }
    buf[0] = 0;
    for (int j = k - 1; j >= 0; j--)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", j == k - 1 ? "" : ";", part[j]);
}

static long frame_at(const struct atree *t, const char *path)
{
    char buf[256];
    for (size_t i = 0; i < t->nframes; i++) {
        path_of(t, i, buf, sizeof buf);
        if (strcmp(buf, path) == 0)
            return (long)i;
    }
    return -1;
}

static uint32_t name_at(const struct atree *t, const char *name)
{
    for (uint32_t i = 0; i < t->nnames; i++)
        if (strcmp(t->names[i], name) == 0)
            return i;
    return UINT32_MAX;
}

static const struct atree_edge *edge_at(const struct atree *t, const char *a, const char *b)
{
    for (size_t k = 0; k < t->nedges; k++)
        if (t->edges[k].caller == name_at(t, a) && t->edges[k].callee == name_at(t, b))
            return &t->edges[k];
    return NULL;
}

static void test_tree(void)
{
    struct astk_table a;
    struct atree t;
    struct err e = {0};
    parse(after_tsv, &a);
    CHECK_INT(atree_build(&a, NULL, &t, &e), 0);
    static const char *const want[] = {"",   "main", "main;a", "main;a;b", "main;b", "main;b;a",
                                       "main;c", "main;c;c", "main;c;c;d"};
    static const uint64_t allocs[] = {10, 10, 5, 3, 4, 4, 1, 1, 1};
    CHECK_INT(t.nframes, 9);
    for (size_t i = 0; i < 9 && i < t.nframes; i++) {
        char buf[256];
        path_of(&t, i, buf, sizeof buf);
        CHECK_STR(buf, want[i]);
        CHECK_INT(t.frames[i].v[ASTK_ALLOCS], allocs[i]);
        CHECK(!t.frames[i].in_before);
    }
    CHECK_INT(t.frames[0].name, ATREE_ROOT);
    CHECK_INT(t.frames[0].v[ASTK_BYTES], 154);
    CHECK_INT(t.frames[0].v[ASTK_LEAKED], 20);
    CHECK_INT(t.frames[frame_at(&t, "main;c")].v[ASTK_PEAK], 50);
    CHECK_INT(t.total[ASTK_TEMPS], 5);
    /* functions: a recursive name counted once a stack */
    const struct atree_func *fa = &t.funcs[name_at(&t, "a")], *fc = &t.funcs[name_at(&t, "c")];
    CHECK_INT(fa->self[ASTK_ALLOCS], 6);   /* main;a and main;b;a */
    CHECK_INT(fa->incl[ASTK_ALLOCS], 9);
    CHECK_INT(fc->self[ASTK_ALLOCS], 0);
    CHECK_INT(fc->incl[ASTK_BYTES], 100);
    CHECK_INT(t.funcs[name_at(&t, "main")].incl[ASTK_ALLOCS], 10);
    CHECK(fa->in_after && !fa->in_before);
    /* calls: main -> a in two stacks; c -> c is none */
    CHECK_INT(t.nedges, 6);
    const struct atree_edge *ma = edge_at(&t, "main", "a");
    CHECK(ma && ma->stacks == 2 && ma->v[ASTK_ALLOCS] == 5 && ma->v[ASTK_LEAKED] == 20);
    CHECK(edge_at(&t, "c", "d") && edge_at(&t, "c", "d")->v[ASTK_BYTES] == 100);
    CHECK(!edge_at(&t, "c", "c"));
    atree_free(&t);
    astk_free(&a);
}

static void test_diff(void)
{
    struct astk_table a, b;
    struct atree t;
    struct err e = {0};
    parse(after_tsv, &a);
    parse(before_tsv, &b);
    CHECK_INT(atree_build(&a, &b, &t, &e), 0);
    CHECK_INT(t.nframes, 9);   /* AFTER's paths only: main;e and main;a;x are not frames */
    CHECK_INT(frame_at(&t, "main;e"), -1);
    long ab = frame_at(&t, "main;a;b"), ma = frame_at(&t, "main;a"), mb = frame_at(&t, "main;b");
    CHECK(ab > 0 && ma > 0 && mb > 0);
    CHECK(t.frames[ab].in_before && t.frames[ab].before[ASTK_ALLOCS] == 1);
    CHECK(t.frames[ab].v[ASTK_ALLOCS] == 3);
    CHECK(t.frames[ma].in_before && t.frames[ma].before[ASTK_ALLOCS] == 0);   /* a start */
    CHECK(!t.frames[mb].in_before);
    CHECK(t.frames[0].in_before);
    CHECK_INT(t.btotal[ASTK_ALLOCS], 8);
    CHECK_INT(t.total[ASTK_ALLOCS], 10);
    const struct atree_func *fe = &t.funcs[name_at(&t, "e")], *fb = &t.funcs[name_at(&t, "b")];
    CHECK(fe->in_before && !fe->in_after && fe->bincl[ASTK_ALLOCS] == 5);   /* gone */
    CHECK(fb->in_after && fb->in_before && fb->bself[ASTK_BYTES] == 10);
    CHECK(!t.funcs[name_at(&t, "d")].in_before);                             /* new */
    CHECK_INT(t.nedges, 6);   /* AFTER's calls */
    atree_free(&t);
    /* nothing after: the root alone */
    struct astk_table z;
    parse(HDR, &z);
    CHECK_INT(atree_build(&z, &b, &t, &e), 0);
    CHECK_INT(t.nframes, 1);
    CHECK_INT(t.frames[0].v[ASTK_ALLOCS], 0);
    CHECK(t.funcs[name_at(&t, "e")].in_before);
    atree_free(&t);
    astk_free(&z);
    astk_free(&a);
    astk_free(&b);
}

/* At scale: 20,000 stacks of up to 40 frames add up at every frame. */
static void test_scale(void)
{
    struct astk_table a = {0};
    struct err e = {0};
    const char *names[40];
    char buf[40][16];
    uint64_t total = 0;
    srand(7);
    for (int r = 0; r < 20000; r++) {
        int n = 1 + rand() % 40;
        for (int k = 0; k < n; k++) {
            snprintf(buf[k], sizeof buf[k], "f%d", rand() % (k < 3 ? 3 : 50));
            names[k] = buf[k];
        }
        uint64_t v[ASTK_NMEASURES] = {1 + (uint64_t)(rand() % 9), 8, 0, 0, 0};
        total += v[0];
        if (astk_add(&a, names, (size_t)n, v, &e) < 0) {
            CHECK(!"astk_add");
            break;
        }
    }
    struct atree t;
    CHECK_INT(atree_build(&a, NULL, &t, &e), 0);
    CHECK_INT(t.frames[0].v[ASTK_ALLOCS], total);
    /* each frame: its own row plus its children's frames */
    uint64_t *kids = calloc(t.nframes, sizeof *kids);
    uint32_t *at = malloc(64 * sizeof *at);
    bool ok = kids && at, order = true;
    if (at)
        at[0] = 0;
    for (size_t i = 1; ok && i < t.nframes; i++) {
        uint32_t d = t.frames[i].depth;
        at[d] = (uint32_t)i;
        kids[at[d - 1]] += t.frames[i].v[ASTK_ALLOCS];
        if (t.frames[i - 1].depth >= d)   /* a sibling's subtree ended: names in order */
            for (size_t j = i - 1; j > 0; j--)
                if (t.frames[j].depth <= d) {
                    order &= t.frames[j].depth < d ||
                             strcmp(t.names[t.frames[j].name], t.names[t.frames[i].name]) < 0;
                    break;
                }
    }
    uint64_t own = 0;
    for (size_t i = 0; ok && i < t.nframes; i++) {
        ok &= kids[i] <= t.frames[i].v[ASTK_ALLOCS];
        own += t.frames[i].v[ASTK_ALLOCS] - kids[i];
    }
    CHECK(ok);
    CHECK(order);
    CHECK_INT(own, total);   /* the frames' own values are the rows */
    free(kids);
    free(at);
    atree_free(&t);
    astk_free(&a);
}

int main(void)
{
    test_tree();
    test_diff();
    test_scale();
    return unit_done("test_alloctree");
}
