/* hyperfine_export.c: hyperfine's JSON, CSV and markdown exports of the engine's series. */
#define _GNU_SOURCE
#include "core/engine/hyperfine_export.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/esc.h"
#include "core/util/export.h"
#include "core/util/json.h"
#include "core/util/proc.h"
#include "core/engine/series.h"
#include "core/util/stats.h"

bool hf_sort_by_mean;
enum hf_unit hf_time_unit = HF_UNIT_AUTO;

/* hyperfine's figures of one series: NA (NAN) for a series that failed. */
struct hf_stats {
    double mean, stddev, median, user, system, min, max;
};

static struct hf_stats hf_stats(const struct session_series *s)
{
    struct hf_stats m = {NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    if (s->state != SESSION_OK || s->n == 0)
        return m;
    m.mean = stats_mean(s->wall_s, s->n);
    m.stddev = stats_stddev(s->wall_s, s->n);
    m.median = stats_median(s->wall_s, s->n);
    m.user = stats_mean(s->user_s, s->n);       /* hyperfine's user and system are means */
    m.system = stats_mean(s->sys_s, s->n);
    m.min = stats_min(s->wall_s, s->n);
    m.max = stats_max(s->wall_s, s->n);
    return m;
}

/* A series that failed is left out, as hyperfine leaves out a command that failed: its
 * schema has every figure a number and its scripts read them so (tare's own JSON keeps the
 * series, with null figures). */
static void write_json(FILE *f, const struct hf_result *r, int n)
{
    struct jw w;
    jw_init(&w, f);
    jw_object_begin(&w);
    jw_key(&w, "results");
    jw_array_begin_lines(&w, "\n  ", "\n");
    for (int k = 0; k < n; k++) {
        const struct session_series *s = r[k].s;
        struct hf_stats m = hf_stats(s);
        if (isnan(m.mean))
            continue;
        jw_object_begin(&w);
        jw_kstring(&w, "command", r[k].command);
        if (r[k].nparam > 0) {
            jw_kobject(&w, "parameters");
            for (int i = 0; i < r[k].nparam; i++)
                jw_kstring(&w, r[k].param_names[i], r[k].param_values[i]);
            jw_end(&w);
        }
        jw_kdouble(&w, "mean", m.mean);
        jw_kdouble(&w, "stddev", s->n > 1 ? m.stddev : NAN);   /* null: as hyperfine */
        jw_kdouble(&w, "median", m.median);
        jw_kdouble(&w, "user", m.user);
        jw_kdouble(&w, "system", m.system);
        jw_kdouble(&w, "min", m.min);
        jw_kdouble(&w, "max", m.max);
        jw_karray(&w, "times");
        for (int i = 0; i < s->n; i++)
            jw_double(&w, s->wall_s[i]);
        jw_end(&w);
        jw_karray(&w, "exit_codes");
        for (int i = 0; i < s->n; i++)
            jw_i64(&w, s->exit_code[i]);
        jw_end(&w);
        jw_karray(&w, "memory_usage_byte");
        for (int i = 0; i < s->n; i++)
            jw_i64(&w, (int64_t)s->max_rss_kb[i] * 1024);
        jw_end(&w);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    fputc('\n', f);
}

static void csv_num(FILE *f, double v)
{
    fputc(',', f);
    if (isnan(v))
        fputs("NA", f);           /* a failed series, as everywhere in tare */
    else
        fprintf(f, "%.9g", v);
}

/* hyperfine's columns: command,mean,stddev,median,user,system,min,max, then parameter_VAR for
 * each parameter (the first result's names: every result has the same). */
static void write_csv(FILE *f, const struct hf_result *r, int n)
{
    fputs("command,mean,stddev,median,user,system,min,max", f);
    int np = n > 0 ? r[n - 1].nparam : 0;
    for (int i = 0; i < np; i++) {
        char name[256];
        snprintf(name, sizeof name, "parameter_%s", r[n - 1].param_names[i]);
        fputc(',', f);
        esc_csv_field(f, name);
    }
    fputc('\n', f);
    for (int k = 0; k < n; k++) {
        struct hf_stats m = hf_stats(r[k].s);
        esc_csv_field(f, r[k].command);
        csv_num(f, m.mean);
        csv_num(f, m.stddev);
        csv_num(f, m.median);
        csv_num(f, m.user);
        csv_num(f, m.system);
        csv_num(f, m.min);
        csv_num(f, m.max);
        for (int i = 0; i < np; i++) {
            fputc(',', f);
            esc_csv_field(f, i < r[k].nparam ? r[k].param_values[i] : "");
        }
        fputc('\n', f);
    }
}

/* hyperfine's markup tables: Markdown, AsciiDoc and org-mode, the same five columns. */
static const char *const markup_header[] = {"Command", "Mean [%s]", "Min [%s]", "Max [%s]",
                                            "Relative"};

/* A command in a cell: written so the row stays whole and the text reads as given
 * (control characters and bytes that are not UTF-8 shown, esc.h). */
static void markup_command(FILE *f, enum hf_format fmt, const char *s)
{
    if (fmt == HF_MARKDOWN) {
        esc_md_code(f, s, true);
        return;
    }
    fputs(fmt == HF_ASCIIDOC ? "`" : "=", f);
    for (const char *p = s; *p;) {
        uint32_t cp;
        int n = esc_utf8(p, &cp);
        char vis[8];
        if (n == 0 || esc_is_control(cp)) {
            if (n == 0)
                esc_visible_byte(vis, (unsigned char)*p);
            else
                esc_visible_code(vis, cp);
            fputs(vis, f);
            p += n ? n : 1;
            continue;
        }
        if (*p == '|')
            fputs(fmt == HF_ASCIIDOC ? "\\|" : "\\vert{}", f);
        else
            fwrite(p, 1, (size_t)n, f);
        p += n;
    }
    fputs(fmt == HF_ASCIIDOC ? "`" : "=", f);
}

/* One row of cells, as each format lays them out (hyperfine's spacing). */
static void markup_row(FILE *f, enum hf_format fmt, const char *const *cell, int n)
{
    for (int i = 0; i < n; i++) {
        if (fmt == HF_MARKDOWN)
            fprintf(f, "%s %s", i ? " |" : "|", cell[i]);
        else if (fmt == HF_ASCIIDOC)
            fprintf(f, "| %s \n", cell[i]);
        else   /* org-mode: "| first  |  second |  ... |" */
            fprintf(f, "%s%s", i == 0 ? "| " : i == 1 ? "  |  " : " |  ", cell[i]);
    }
    if (fmt == HF_MARKDOWN)
        fputs(" |\n", f);
    else if (fmt == HF_ORGMODE)
        fputs(" |\n", f);
}

/* The unit of every time in the table: -u's, else ms under a second and s from there, by
 * the first result's mean (as hyperfine 1.15). */
static void markup_unit(const struct hf_result *r, int n, const char **name, double *scale,
                        int *digits)
{
    enum hf_unit u = hf_time_unit;
    if (u == HF_UNIT_AUTO) {
        double first = n > 0 ? hf_stats(r[0].s).mean : NAN;
        u = first >= 1 ? HF_UNIT_S : HF_UNIT_MS;
    }
    *name = u == HF_UNIT_S ? "s" : u == HF_UNIT_MS ? "ms" : "µs";
    *scale = u == HF_UNIT_S ? 1 : u == HF_UNIT_MS ? 1e3 : 1e6;
    *digits = u == HF_UNIT_S ? 3 : 1;
}

static int by_mean(const void *a, const void *b, void *ctx)
{
    const struct hf_result *r = ctx;
    double x = hf_stats(r[*(const int *)a].s).mean, y = hf_stats(r[*(const int *)b].s).mean;
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);   /* NA last */
    return (x > y) - (x < y);
}

/* hyperfine's table: the mean with its standard deviation, min, max, and the mean relative
 * to the reference (r[ref], or the fastest mean when ref < 0); rows as given, or by mean
 * (--sort mean-time). */
static void write_markup(FILE *f, enum hf_format fmt, const struct hf_result *r, int n,
                         int ref, bool sort_by_mean)
{
    const char *u;
    double scale;
    int digits;
    markup_unit(r, n, &u, &scale, &digits);
    char hdr[5][32];
    const char *hc[5];
    for (int i = 0; i < 5; i++) {
        snprintf(hdr[i], sizeof hdr[i], markup_header[i], u);
        hc[i] = hdr[i];
    }
    if (fmt == HF_ASCIIDOC)
        fputs("[cols=\"<,>,>,>,>\"]\n|===\n", f);
    markup_row(f, fmt, hc, 5);
    if (fmt == HF_MARKDOWN)
        fputs("|:---|---:|---:|---:|---:|\n", f);
    else if (fmt == HF_ORGMODE)
        fputs("|--+--+--+--+--|\n", f);
    if (ref < 0) {
        double best = NAN;
        for (int k = 0; k < n; k++) {
            double mean = hf_stats(r[k].s).mean;
            if (!isnan(mean) && (ref < 0 || mean < best)) {
                best = mean;
                ref = k;
            }
        }
    }
    int *order = malloc((n > 0 ? n : 1) * sizeof *order);
    if (!order)
        return;
    for (int k = 0; k < n; k++)
        order[k] = k;
    if (sort_by_mean)
        qsort_r(order, n, sizeof *order, by_mean, (void *)r);
    struct hf_stats b = ref >= 0 ? hf_stats(r[ref].s) : (struct hf_stats){.mean = NAN};
    for (int i = 0; i < n; i++) {
        int k = order[i];
        struct hf_stats m = hf_stats(r[k].s);
        char *cell[5] = {NULL};
        size_t len;
        FILE *c = open_memstream(&cell[0], &len);
        if (c) {
            markup_command(c, fmt, r[k].command);
            fclose(c);
        }
        char mean[64], mn[32], mx[32], rel[64];
        int o = isnan(m.mean) ? snprintf(mean, sizeof mean, "NA")
                              : snprintf(mean, sizeof mean, "%.*f", digits, m.mean * scale);
        if (!isnan(m.mean) && r[k].s->n > 1)
            snprintf(mean + o, sizeof mean - (size_t)o, " ± %.*f", digits, m.stddev * scale);
        snprintf(mn, sizeof mn, isnan(m.min) ? "NA" : "%.*f", digits, m.min * scale);
        snprintf(mx, sizeof mx, isnan(m.max) ? "NA" : "%.*f", digits, m.max * scale);
        double ratio = m.mean / b.mean;
        if (isnan(ratio))
            snprintf(rel, sizeof rel, "NA");
        else if (k == ref)
            snprintf(rel, sizeof rel, "1.00");
        else   /* the ratio's standard deviation, from both relative deviations (hyperfine) */
            snprintf(rel, sizeof rel, "%.2f ± %.2f", ratio,
                     ratio * sqrt(pow(m.stddev / m.mean, 2) + pow(b.stddev / b.mean, 2)));
        const char *row[5] = {cell[0] ? cell[0] : "", mean, mn, mx, rel};
        if (fmt == HF_ASCIIDOC)
            fputc('\n', f);
        markup_row(f, fmt, row, 5);
        free(cell[0]);
    }
    if (fmt == HF_ASCIIDOC)
        fputs("|===\n", f);
    free(order);
}

int hf_export(const char *path, enum hf_format fmt, const struct hf_result *r, int n, int ref,
              struct err *e)
{
    char tmp[EXPORT_TMP_MAX];
    FILE *f = export_file_open(path, tmp, e);
    if (!f)
        return -1;
    if (fmt == HF_JSON)
        write_json(f, r, n);
    else if (fmt == HF_CSV)
        write_csv(f, r, n);
    else
        write_markup(f, fmt, r, n, ref, hf_sort_by_mean);
    return export_file_commit(f, tmp, path, e);
}

int hf_export_series(const struct hf_paths *p, const struct harness *h,
                     const struct session_series *s, int ns, const struct session_series *ref,
                     struct err *e)
{
    if (!p->json && !p->csv && !p->markdown && !p->asciidoc && !p->orgmode)
        return 0;
    int n = ns + (ref ? 1 : 0);
    struct hf_result *r = calloc(n, sizeof *r);
    const char **names = calloc(h->nparam + 1, sizeof *names);
    const char **values = calloc((size_t)ns * h->nparam + 1, sizeof *values);
    if (!r || !names || !values) {
        free(r);
        free(names);
        free(values);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    for (int i = 0; i < h->nparam; i++)
        names[i] = h->param[i].var;
    int k = 0;
    if (ref)       /* first, as hyperfine lists its --reference */
        r[k++] = (struct hf_result){.command = ((const struct series *)ref->user)->command,
                                    .s = ref};
    for (int i = 0; i < ns; i++) {
        const struct harness_combo *co = h->ncombo > 0 ? &h->combo[i % h->ncombo] : NULL;
        const char **v = values + (size_t)i * h->nparam;
        for (int j = 0; co && j < h->nparam; j++)
            v[j] = h->param[j].values[co->pick[j]];
        r[k++] = (struct hf_result){.command = ((const struct series *)s[i].user)->command,
                                    .s = &s[i], .param_names = names, .param_values = v,
                                    .nparam = co ? h->nparam : 0};
    }
    int rc = 0;
    if (p->json)
        rc = hf_export(p->json, HF_JSON, r, n, ref ? 0 : -1, e);
    if (rc == 0 && p->csv)
        rc = hf_export(p->csv, HF_CSV, r, n, ref ? 0 : -1, e);
    if (rc == 0 && p->markdown)
        rc = hf_export(p->markdown, HF_MARKDOWN, r, n, ref ? 0 : -1, e);
    if (rc == 0 && p->asciidoc)
        rc = hf_export(p->asciidoc, HF_ASCIIDOC, r, n, ref ? 0 : -1, e);
    if (rc == 0 && p->orgmode)
        rc = hf_export(p->orgmode, HF_ORGMODE, r, n, ref ? 0 : -1, e);
    free(r);
    free(names);
    free(values);
    return rc;
}
