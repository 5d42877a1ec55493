/* fuzz_allocstacks.c: the stack lines of libtare-alloc's report and the saved stack tables
 * (TSV) must never crash or leak; what is read adds up, and a table written is read back
 * whole. Input starting with "stack" is a table, anything else a report. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/allocstacks.h"
#include "core/profile/alloctree.h"

static const char *namer(void *ctx, const struct alloc_proc *p, uint64_t addr, char *buf,
                         size_t n)
{
    (void)ctx;
    (void)p;
    snprintf(buf, n, "f%llx", (unsigned long long)(addr % 97));   /* names that repeat */
    return buf;
}

/* The tree of u against before (u's copy): the root holds the totals, a frame's own value
 * (less its children's) is never negative and is the copy's row on the same path. */
static void check_tree(const struct astk_table *u, const struct astk_table *before)
{
    struct atree tr;
    struct err e;
    if (atree_build(u, before, &tr, &e) != 0)
        return;
    if (tr.nframes == 0 || memcmp(tr.frames[0].v, u->total, sizeof u->total) != 0)
        abort();
    uint64_t *own = malloc(tr.nframes * ASTK_NMEASURES * sizeof *own);
    uint32_t *at = malloc((tr.nframes + 1) * sizeof *at);
    if (!own || !at)
        abort();
    at[0] = 0;
    memcpy(own, tr.frames[0].v, sizeof tr.frames[0].v);
    for (size_t i = 1; i < tr.nframes; i++) {
        uint32_t d = tr.frames[i].depth, up = at[d - 1];
        at[d] = (uint32_t)i;
        memcpy(own + i * ASTK_NMEASURES, tr.frames[i].v, sizeof tr.frames[i].v);
        for (int m = 0; m < ASTK_NMEASURES; m++) {
            if (own[up * ASTK_NMEASURES + m] < tr.frames[i].v[m])
                abort();
            own[up * ASTK_NMEASURES + m] -= tr.frames[i].v[m];
        }
    }
    for (size_t i = 0; i < tr.nframes; i++)
        if (!tr.frames[i].in_before ||
            memcmp(own + i * ASTK_NMEASURES, tr.frames[i].before, sizeof tr.frames[i].before))
            abort();
    free(own);
    free(at);
    atree_free(&tr);
}

/* t as its TSV text (malloc'd, *len bytes). */
static char *tsv_of(const struct astk_table *t, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        abort();
    astk_write_tsv(t, f, 0);
    fclose(f);
    return text;
}

/* The table's rows add up to its totals; written as TSV and read back, the same rows and
 * totals; written again, the same text (names in their written form are a fixed point: a
 * byte that is not UTF-8 comes back as the text "\xff"), and a table compared with its copy
 * shows no change, nor does its tree against the copy's. */
static void check_table(struct astk_table *t)
{
    uint64_t sum[ASTK_NMEASURES] = {0};
    for (size_t i = 0; i < t->nrows; i++)
        for (int m = 0; m < ASTK_NMEASURES; m++)
            sum[m] += t->rows[i].v[m];
    if (memcmp(sum, t->total, sizeof sum) != 0)
        abort();
    astk_sort(t, ASTK_BYTES);
    size_t len, len2;
    char *text = tsv_of(t, &len);
    struct astk_table u, v;
    struct err e;
    if (astk_parse_tsv(text, len, "fuzz", &u, &e) != 0) {
        /* the one way it may: two names that differ only where the written form shows a
         * byte as text (0xff and "\xff") became one, and so did two stacks */
        if (!strstr(e.msg, "the same stack as an earlier line"))
            abort();
        free(text);
        return;
    }
    if (u.nrows != t->nrows || memcmp(u.total, t->total, sizeof sum) != 0)
        abort();
    char *text2 = tsv_of(&u, &len2);
    if (len2 != len || memcmp(text, text2, len) != 0)
        abort();
    if (astk_parse_tsv(text2, len2, "fuzz", &v, &e) != 0)
        abort();
    check_tree(&u, &v);
    struct astk_delta *d;
    size_t nd;
    if (astk_diff(&u, &v, ASTK_ALLOCS, &d, &nd, &e) == 0) {
        for (size_t i = 0; i < nd; i++)
            if (memcmp(d[i].before, d[i].after, sizeof d[i].before) != 0)
                abort();
        if (nd != u.nrows)
            abort();
        free(d);
    }
    astk_free(&v);
    astk_free(&u);
    free(text2);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct err e;
    struct astk_table t;
    if (size >= 5 && memcmp(data, "stack", 5) == 0) {
        if (astk_parse_tsv((const char *)data, size, "fuzz", &t, &e) == 0) {
            check_table(&t);
            astk_free(&t);
        }
        return 0;
    }
    struct alloc_report r;
    if (allocreport_parse((const char *)data, size, &r, &e) != 0)
        return 0;
    struct astk_opts o = {-1, namer, NULL};
    if (astk_from_report(&r, &o, &t, &e) == 0) {
        check_table(&t);
        astk_free(&t);
    }
    allocreport_free(&r);
    return 0;
}
