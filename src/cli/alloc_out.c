/* alloc_out.c: tare alloc's stack tables as text, TSV, JSON and folded stacks (alloc_out.h). */
#include "cli/alloc_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/out.h"

#define TEXT_FRAMES 6   /* the innermost frames a text row shows */

/* The stack for people: innermost frame first, at most TEXT_FRAMES of them; malloc'd. */
static char *short_stack(const struct astk_table *t, const struct astk_row *r)
{
    return astk_stack_text_inner(t, r, " < ", TEXT_FRAMES);
}

void alloc_out_text(FILE *f, const struct astk_table *t, int by, size_t n)
{
    size_t shown = n == 0 || n > t->nrows ? t->nrows : n;
    char a[64], b[64];
    fprintf(f, "%s stacks by %s", fmt_count(a, (double)t->nrows),
            astk_measure_name(by));
    if (shown < t->nrows)
        fprintf(f, ", the top %s", fmt_count(b, (double)shown));
    fputs(" (innermost frame first):\n", f);
    static const char *const h[] = {"allocations", "bytes", "temporaries", "peak bytes",
                                    "leaked bytes", "stack"};
    struct table tb;
    table_init(&tb, 6, h, 0x20);
    for (size_t i = 0; i < shown; i++) {
        const struct astk_row *r = &t->rows[i];
        table_row(&tb);
        for (int m = 0; m < ASTK_NMEASURES; m++)
            table_set(&tb, m, "%s", fmt_count(a, (double)r->v[m]));
        char *s = short_stack(t, r);
        table_set(&tb, 5, "%s", s ? s : "?");
        free(s);
    }
    table_row(&tb);
    for (int m = 0; m < ASTK_NMEASURES; m++)
        table_set(&tb, m, "%s", fmt_count(a, (double)t->total[m]));
    table_set(&tb, 5, "(all stacks)");
    table_print(&tb, f, FMT_TEXT);
    table_free(&tb);
}

static void json_stack(struct jw *w, const struct astk_table *t, const struct astk_row *r)
{
    jw_karray(w, "stack");
    for (uint32_t k = 0; k < r->n; k++)
        jw_string(w, t->names[t->fr[r->off + k]]);
    jw_end(w);
}

static void json_values(struct jw *w, const uint64_t *v)
{
    for (int m = 0; m < ASTK_NMEASURES; m++)
        jw_ku64(w, astk_measure_name(m), v[m]);
}

void alloc_out_json(struct jw *w, const struct astk_table *t, int by, size_t n)
{
    size_t shown = n == 0 || n > t->nrows ? t->nrows : n;
    jw_object_begin(w);
    jw_kstring(w, "by", astk_measure_name(by));
    jw_ku64(w, "stacks", t->nrows);
    jw_ku64(w, "by_fp", t->by_fp);
    jw_ku64(w, "by_dwarf", t->by_dwarf);
    jw_ku64(w, "no_stack", t->no_stack);
    jw_kobject(w, "totals");
    json_values(w, t->total);
    jw_end(w);
    jw_karray(w, "rows");
    for (size_t i = 0; i < shown; i++) {
        jw_object_begin(w);
        json_stack(w, t, &t->rows[i]);
        json_values(w, t->rows[i].v);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

void alloc_out_folded(FILE *f, const struct astk_table *t, int by)
{
    for (size_t i = 0; i < t->nrows; i++) {
        if (!t->rows[i].v[by])
            continue;
        char *s = astk_stack_text(t, &t->rows[i], ";");
        fprintf(f, "%s %" PRIu64 "\n", s ? s : "?", t->rows[i].v[by]);
        free(s);
    }
}

static const struct astk_row *side(const struct astk_table *t, uint32_t r)
{
    return r == UINT32_MAX ? NULL : &t->rows[r];
}

void alloc_out_diff(FILE *f, int fmt, const struct astk_table *a, const struct astk_table *b,
                    const struct astk_delta *d, size_t nd, int by, size_t n)
{
    size_t shown = n == 0 || n > nd ? nd : n;
    if (fmt == FMT_JSON) {
        struct jw w;
        jw_init(&w, f);
        jw_object_begin(&w);
        jw_kstring(&w, "by", astk_measure_name(by));
        jw_kobject(&w, "totals");
        jw_kobject(&w, "before");
        json_values(&w, a->total);
        jw_end(&w);
        jw_kobject(&w, "after");
        json_values(&w, b->total);
        jw_end(&w);
        jw_end(&w);
        jw_karray(&w, "rows");
        for (size_t i = 0; i < shown; i++) {
            const struct astk_row *ra = side(a, d[i].row_before), *rb = side(b, d[i].row_after);
            jw_object_begin(&w);
            json_stack(&w, rb ? b : a, rb ? rb : ra);
            jw_kobject(&w, "before");
            json_values(&w, d[i].before);
            jw_end(&w);
            jw_kobject(&w, "after");
            json_values(&w, d[i].after);
            jw_end(&w);
            jw_end(&w);
        }
        jw_end(&w);
        jw_end(&w);
        out_json_end(&w, "alloc");
        return;
    }
    if (fmt == FMT_TSV) {
        fputs("stack", f);
        for (int m = 0; m < ASTK_NMEASURES; m++)
            fprintf(f, "\t%s_before\t%s_after", astk_measure_name(m), astk_measure_name(m));
        fputc('\n', f);
        for (size_t i = 0; i < shown; i++) {
            const struct astk_row *ra = side(a, d[i].row_before), *rb = side(b, d[i].row_after);
            char *s = astk_stack_text(rb ? b : a, rb ? rb : ra, ";");
            fputs(s ? s : "?", f);
            free(s);
            for (int m = 0; m < ASTK_NMEASURES; m++)
                fprintf(f, "\t%" PRIu64 "\t%" PRIu64, d[i].before[m], d[i].after[m]);
            fputc('\n', f);
        }
        return;
    }
    char x[64], y[64], z[64];
    uint64_t tb = a->total[by], ta = b->total[by];
    fprintf(f, "%s: before %s, after %s (%s%s)\n", astk_measure_name(by),
            fmt_count(x, (double)tb), fmt_count(y, (double)ta), ta >= tb ? "+" : "-",
            fmt_count(z, (double)(ta >= tb ? ta - tb : tb - ta)));
    size_t moved = 0;
    while (moved < nd && d[moved].before[by] != d[moved].after[by])
        moved++;
    fprintf(f, "%zu of %zu stacks changed", moved, nd);
    if (shown < nd)
        fprintf(f, "; the %zu biggest changes first", shown);
    fputs(" (innermost frame first):\n", f);
    static const char *const h[] = {"before", "after", "change", "stack"};
    struct table t;
    table_init(&t, 4, h, 0x8);
    for (size_t i = 0; i < shown; i++) {
        const struct astk_row *ra = side(a, d[i].row_before), *rb = side(b, d[i].row_after);
        uint64_t bv = d[i].before[by], av = d[i].after[by];
        table_row(&t);
        table_set(&t, 0, "%s", ra ? fmt_count(x, (double)bv) : "-");
        table_set(&t, 1, "%s", rb ? fmt_count(y, (double)av) : "-");
        table_set(&t, 2, "%s%s", av > bv ? "+" : av < bv ? "-" : "",
                  fmt_count(z, (double)(av >= bv ? av - bv : bv - av)));
        char *s = short_stack(rb ? b : a, rb ? rb : ra);
        table_set(&t, 3, "%s%s", s ? s : "?", !ra ? "  (new)" : !rb ? "  (gone)" : "");
        free(s);
    }
    table_print(&t, f, FMT_TEXT);
    table_free(&t);
}
