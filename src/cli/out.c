/* out.c: output shared by commands: aligned text tables, TSV/CSV/markdown, units, JSON. */
#define _GNU_SOURCE
#include "cli/out.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/esc.h"
#include "core/util/json.h"

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fputs("tare: out of memory\n", stderr);
        exit(EXIT_USAGE); /* style: allow exit -- a table has no error path yet; 24 callers */
    }
    return q;
}

void table_init(struct table *t, int ncols, const char *const *headers, unsigned left_mask)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->headers = (const char **)headers;
    t->left_mask = left_mask;
}

void table_row(struct table *t)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->cells = xrealloc(t->cells, (size_t)t->cap * t->ncols * sizeof *t->cells);
        t->red = xrealloc(t->red, (size_t)t->cap * t->ncols * sizeof *t->red);
    }
    memset(t->cells + (size_t)t->nrows * t->ncols, 0, t->ncols * sizeof *t->cells);
    memset(t->red + (size_t)t->nrows * t->ncols, 0, t->ncols * sizeof *t->red);
    t->nrows++;
}

void table_set(struct table *t, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    char **cell = &t->cells[(size_t)(t->nrows - 1) * t->ncols + col];
    free(*cell);
    *cell = s;
}

void table_set_red(struct table *t, int col, const char *s)
{
    table_set(t, col, "%s", s);
    t->red[(size_t)(t->nrows - 1) * t->ncols + col] = true;
}

static const char *cell(const struct table *t, int r, int c)
{
    const char *s = t->cells[(size_t)r * t->ncols + c];
    return s ? s : "";
}

/* Display width in characters of a cell's text form (esc.h: no control characters, valid
 * UTF-8): a UTF-8 sequence counts as one. */
static int width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* TSV: the text form (a tab or a line break in a name shows as \x09, \x0a: the row stays
 * whole). */
static void put_tsv_field(FILE *f, const char *s)
{
    esc_text(f, s);
}

static void put_md_field(FILE *f, const char *s)
{
    esc_md_text(f, s);
}

void table_print(const struct table *t, FILE *f, enum out_format fmt)
{
    if (fmt == FMT_TSV || fmt == FMT_CSV) {
        char sep = fmt == FMT_TSV ? '\t' : ',';
        for (int r = -1; r < t->nrows; r++) {
            for (int c = 0; c < t->ncols; c++) {
                if (c)
                    fputc(sep, f);
                const char *s = r < 0 ? t->headers[c] : cell(t, r, c);
                if (fmt == FMT_TSV)
                    put_tsv_field(f, s);
                else
                    esc_csv_field(f, s);
            }
            fputc('\n', f);
        }
        return;
    }
    if (fmt == FMT_MARKDOWN) {
        for (int r = -1; r < t->nrows; r++) {
            fputc('|', f);
            for (int c = 0; c < t->ncols; c++) {
                fputc(' ', f);
                put_md_field(f, r < 0 ? t->headers[c] : cell(t, r, c));
                fputs(" |", f);
            }
            fputc('\n', f);
            if (r < 0) {
                fputc('|', f);
                for (int c = 0; c < t->ncols; c++)
                    fputs(t->left_mask & (1u << c) ? " :--- |" : " ---: |", f);
                fputc('\n', f);
            }
        }
        return;
    }
    /* for people: every cell in its text form (a name's escapes shown, never sent) */
    size_t ncell = (size_t)t->nrows * t->ncols;
    int *w = calloc(t->ncols, sizeof *w);
    char **vis = calloc(ncell + 1, sizeof *vis);
    if (!w || !vis) {
        free(w);
        free(vis);
        return;
    }
    for (size_t i = 0; i < ncell; i++) {
        const char *s = t->cells[i] ? t->cells[i] : "";
        vis[i] = esc_text_plain(s) ? NULL : esc_text_dup(s);
    }
    for (int c = 0; c < t->ncols; c++) {
        w[c] = width(t->headers[c]);
        for (int r = 0; r < t->nrows; r++) {
            size_t i = (size_t)r * t->ncols + c;
            int cw = width(vis[i] ? vis[i] : cell(t, r, c));
            if (cw > w[c])
                w[c] = cw;
        }
    }
    for (int r = -1; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            size_t i = (size_t)r * t->ncols + c;
            const char *s = r < 0 ? t->headers[c] : vis[i] ? vis[i] : cell(t, r, c);
            bool red = r >= 0 && t->red[i];
            int pad = w[c] - width(s);
            bool left = t->left_mask & (1u << c);
            bool last = c == t->ncols - 1;
            if (c)
                fputs("  ", f);
            if (!left)
                fprintf(f, "%*s", pad, "");
            fputs(red ? "\033[31m" : "", f);
            fputs(s, f);
            fputs(red ? "\033[0m" : "", f);
            if (left && !last)
                fprintf(f, "%*s", pad, "");
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < ncell; i++)
        free(vis[i]);
    free(vis);
    free(w);
}

void table_free(struct table *t)
{
    for (size_t i = 0; i < (size_t)t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->red);
    t->cells = NULL;
    t->red = NULL;
    t->nrows = t->cap = 0;
}

/* Three significant digits: enough to read, never pretending to more. */
static const char *sig3(char *buf, double v, const char *unit)
{
    int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    snprintf(buf, FMT_BUF_MIN, "%.*f %s", decimals, v, unit);
    return buf;
}

enum out_unit out_time_unit = OUT_UNIT_AUTO;

const char *fmt_seconds(char *buf, double s)
{
    if (isnan(s)) {
        snprintf(buf, FMT_BUF_MIN, "%s", "NA");
        return buf;
    }
    /* -u: hyperfine's digits for its units (3 decimals for seconds, 1 for the others) */
    if (out_time_unit == OUT_UNIT_S)
        snprintf(buf, FMT_BUF_MIN, "%.3f s", s);
    else if (out_time_unit == OUT_UNIT_MS)
        snprintf(buf, FMT_BUF_MIN, "%.1f ms", s * 1e3);
    else if (out_time_unit == OUT_UNIT_US)
        snprintf(buf, FMT_BUF_MIN, "%.1f µs", s * 1e6);
    if (out_time_unit != OUT_UNIT_AUTO)
        return buf;
    double a = fabs(s);
    if (a >= 1 || a == 0)
        return sig3(buf, s, "s");
    if (a >= 1e-3)
        return sig3(buf, s * 1e3, "ms");
    if (a >= 1e-6)
        return sig3(buf, s * 1e6, "µs");
    return sig3(buf, s * 1e9, "ns");
}

const char *fmt_kib(char *buf, double kib)
{
    if (isnan(kib)) {
        snprintf(buf, FMT_BUF_MIN, "%s", "NA");
        return buf;
    }
    if (kib < 1024)
        return sig3(buf, kib, "KiB");
    if (kib < 1024 * 1024)
        return sig3(buf, kib / 1024, "MiB");
    return sig3(buf, kib / (1024 * 1024), "GiB");
}

const char *fmt_count(char *buf, double n)
{
    if (isnan(n)) {
        snprintf(buf, FMT_BUF_MIN, "%s", "NA");
        return buf;
    }
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", fabs(n));
    size_t len = strlen(digits), o = 0;
    if (n < 0)
        buf[o++] = '-';
    for (size_t i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *fmt_num(char *buf, double v)
{
    if (isnan(v)) {
        snprintf(buf, FMT_BUF_MIN, "%s", "NA");
        return buf;
    }
    snprintf(buf, FMT_BUF_MIN, "%.9g", v);
    return buf;
}

const char *out_vis(const char *s)
{
    static char *ring[8];
    static unsigned next;
    if (!s || esc_text_plain(s))
        return s;
    char *v = esc_text_dup(s);
    if (!v)
        return "(out of memory)";
    free(ring[next % 8]);
    ring[next++ % 8] = v;
    return v;
}

void out_json_end(struct jw *w, const char *cmd)
{
    fputc('\n', w->f);
    struct err e;
    if (jw_done(w, &e) < 0)
        cli_error(cmd, "%s", e.msg);
}
