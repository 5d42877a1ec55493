/* fuzz_allocstacks.c: the stack lines of libtare-alloc's report and the saved stack tables
 * (TSV) must never crash or leak; what is read adds up, and a table written is read back
 * whole. Input starting with "stack" is a table, anything else a report. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/allocstacks.h"

static const char *namer(void *ctx, const struct alloc_proc *p, uint64_t addr, char *buf,
                         size_t n)
{
    (void)ctx;
    (void)p;
    snprintf(buf, n, "f%llx", (unsigned long long)(addr % 97));   /* names that repeat */
    return buf;
}

/* The table's rows add up to its totals; written as TSV and read back, the same rows. */
static void check_table(struct astk_table *t)
{
    uint64_t sum[ASTK_NMEASURES] = {0};
    for (size_t i = 0; i < t->nrows; i++)
        for (int m = 0; m < ASTK_NMEASURES; m++)
            sum[m] += t->rows[i].v[m];
    if (memcmp(sum, t->total, sizeof sum) != 0)
        abort();
    astk_sort(t, ASTK_BYTES);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    astk_write_tsv(t, f, 0);
    fclose(f);
    struct astk_table u;
    struct err e;
    if (astk_parse_tsv(text, len, "fuzz", &u, &e) != 0 || u.nrows != t->nrows ||
        memcmp(u.total, t->total, sizeof sum) != 0)
        abort();
    struct astk_delta *d;
    size_t nd;
    if (astk_diff(t, &u, ASTK_ALLOCS, &d, &nd, &e) == 0) {
        for (size_t i = 0; i < nd; i++)
            if (memcmp(d[i].before, d[i].after, sizeof d[i].before) != 0)
                abort();                               /* a table against itself: no change */
        if (nd != t->nrows)
            abort();
        free(d);
    }
    astk_free(&u);
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
