/* fuzz_history_append.c: appending must never crash, and must keep every row the file had:
 * the input is FILE, a NUL byte, then the rows to append (no NUL: rows onto a new file). A
 * file that read back before the append reads back after it, with every old cell in place,
 * the new rows after, and (when widened) every row as wide as the header. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/history/history.h"

static char path[64];

static int write_file(const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t put = fwrite(text, 1, len, f);
    return fclose(f) == 0 && put == len ? 0 : -1;
}

/* Every cell of the old table is in the new one, row for row, under its column's name. */
static void check_kept(const struct hist_table *old, const struct hist_table *now)
{
    if (now->nrows < old->nrows)
        abort();
    for (int c = 0; c < old->ncols; c++) {
        int d = -1;
        for (int k = 0; k < now->ncols; k++)
            if (strcmp(hist_canonical(now->cols[k]), hist_canonical(old->cols[c])) == 0)
                d = k;
        if (d < 0)
            abort();
        for (size_t r = 0; r < old->nrows; r++) {
            const char *a = hist_cell(old, r, c), *b = hist_cell(now, r, d);
            /* A short row's missing cell ("") may have been written out as NA. */
            if (strcmp(a, b) != 0 && !(!*a && strcmp(b, "NA") == 0))
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_history_append.%d.tsv", (int)getpid());
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t flen = nul ? (size_t)(nul - text) : 0;
    const char *rows = nul ? nul + 1 : text;
    size_t rlen = nul ? size - flen - 1 : size;
    unlink(path);
    if (nul && write_file(text, flen) < 0)
        return 0;
    struct err e;
    struct hist_table old;
    /* What the file holds as rows before: its whole rows (a torn last one is cut by append). */
    bool old_ok = nul && hist_parse("old", text, flen, &old, &e) == 0;
    long n = hist_append(path, rows, rlen, &e);
    struct hist_table now;
    if (n >= 0 && old_ok) {
        if (hist_read(path, &now, &e) < 0)
            abort();
        if (now.nrows != old.nrows + (size_t)n || now.torn_line)
            abort();
        check_kept(&old, &now);
        hist_table_free(&now);
    } else if (n >= 0 && !nul) {
        if (hist_read(path, &now, &e) < 0 || now.nrows != (size_t)n)
            abort();
        hist_table_free(&now);
    }
    if (old_ok)
        hist_table_free(&old);
    unlink(path);
    return 0;
}
