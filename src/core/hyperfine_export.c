/* hyperfine_export.c: hyperfine's JSON, CSV and markdown exports of the engine's series. */
#define _GNU_SOURCE
#include "core/hyperfine_export.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/esc.h"
#include "core/export.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/series.h"
#include "core/stats.h"

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

/* A command in a markdown cell: a code span whatever it holds, the row kept whole. */
static void md_command(FILE *f, const char *s)
{
    esc_md_code(f, s, true);
}

static void md_time(FILE *f, double v, double scale, int digits)
{
    if (isnan(v))
        fputs("NA", f);
    else
        fprintf(f, "%.*f", digits, v * scale);
}

/* hyperfine's table: the unit (ms under a second, else s) from the first result's mean; the
 * mean with its standard deviation, min, max, and the mean relative to the reference. */
static void write_markdown(FILE *f, const struct hf_result *r, int n, int ref)
{
    double first = n > 0 ? hf_stats(r[0].s).mean : NAN;
    bool ms = !(first >= 1);
    double scale = ms ? 1e3 : 1;
    int digits = ms ? 1 : 3;
    const char *u = ms ? "ms" : "s";
    fprintf(f, "| Command | Mean [%s] | Min [%s] | Max [%s] | Relative |\n", u, u, u);
    fputs("|:---|---:|---:|---:|---:|\n", f);
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
    struct hf_stats b = ref >= 0 ? hf_stats(r[ref].s) : (struct hf_stats){.mean = NAN};
    for (int k = 0; k < n; k++) {
        struct hf_stats m = hf_stats(r[k].s);
        fputs("| ", f);
        md_command(f, r[k].command);
        fputs(" | ", f);
        md_time(f, m.mean, scale, digits);
        if (!isnan(m.mean) && r[k].s->n > 1) {
            fputs(" ± ", f);
            md_time(f, m.stddev, scale, digits);
        }
        fputs(" | ", f);
        md_time(f, m.min, scale, digits);
        fputs(" | ", f);
        md_time(f, m.max, scale, digits);
        fputs(" | ", f);
        double ratio = m.mean / b.mean;
        if (isnan(ratio))
            fputs("NA", f);
        else if (k == ref)
            fputs("1.00", f);
        else {
            /* the ratio's standard deviation, from both relative deviations (as hyperfine) */
            double sd = ratio * sqrt(pow(m.stddev / m.mean, 2) + pow(b.stddev / b.mean, 2));
            fprintf(f, "%.2f ± %.2f", ratio, sd);
        }
        fputs(" |\n", f);
    }
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
        write_markdown(f, r, n, ref);
    return export_file_commit(f, tmp, path, e);
}

int hf_export_series(const struct hf_paths *p, const struct harness *h,
                     const struct session_series *s, int ns, const struct session_series *ref,
                     struct err *e)
{
    if (!p->json && !p->csv && !p->markdown)
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
        r[k++] = (struct hf_result){.command = ((const struct target *)ref->user)->command,
                                    .s = ref};
    for (int i = 0; i < ns; i++) {
        const struct harness_combo *co = h->ncombo > 0 ? &h->combo[i % h->ncombo] : NULL;
        const char **v = values + (size_t)i * h->nparam;
        for (int j = 0; co && j < h->nparam; j++)
            v[j] = h->param[j].values[co->pick[j]];
        r[k++] = (struct hf_result){.command = ((const struct target *)s[i].user)->command,
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
    free(r);
    free(names);
    free(values);
    return rc;
}
