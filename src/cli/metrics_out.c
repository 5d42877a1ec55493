/* metrics_out.c: a program's own counters in tare's outputs (text, TSV, JSON, notes). */
#define _GNU_SOURCE
#include "cli/metrics_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "core/engine/ab_metrics.h"
#include "core/engine/count.h"
#include "core/util/json.h"

int metrics_view_init(struct metrics_view *v, const struct metrics_spec *spec, int n)
{
    *v = (struct metrics_view){.spec = spec, .n = n};
    v->series = calloc(n + 1, sizeof *v->series);
    v->ms = calloc(n + 1, sizeof *v->ms);
    v->specs = calloc(n + 1, sizeof *v->specs);
    return v->series && v->ms && v->specs ? 0 : -1;
}

int metrics_view_count(struct metrics_view *v, const struct metrics_spec *spec,
                       const struct count_job *jobs, const char *const *names, int n)
{
    if (metrics_view_init(v, spec, n) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        v->series[i] = names[i];
        v->ms[i] = jobs[i].status == COUNT_OK || jobs[i].status == COUNT_UNSTABLE
                   ? &jobs[i].metrics : NULL;
        v->specs[i] = jobs[i].metrics_from;
    }
    return metrics_view_names(v);
}

int metrics_view_names(struct metrics_view *v)
{
    const struct metrics **ms = v->ms;
    int n = v->n, cap = 0;
    for (int i = 0; i < n; i++)
        cap += ms[i] ? ms[i]->n : 0;
    v->names = calloc(cap + 1, sizeof *v->names);
    v->cols = calloc(cap + 1, sizeof *v->cols);
    if (!v->names || !v->cols)
        return -1;
    for (int i = 0; i < n; i++)
        for (int k = 0; ms[i] && k < ms[i]->n; k++) {
            const char *name = ms[i]->m[k].name;
            int j = 0;
            while (j < v->nnames && strcmp(v->names[j], name) != 0)
                j++;
            if (j < v->nnames)
                continue;
            if (asprintf(&v->cols[j], "%s%s", METRICS_PREFIX, name) < 0) {
                v->cols[j] = NULL;
                return -1;
            }
            v->names[v->nnames++] = name;
        }
    return 0;
}

void metrics_view_free(struct metrics_view *v)
{
    for (int i = 0; v->cols && i < v->nnames; i++)
        free(v->cols[i]);
    free(v->cols);
    free(v->names);
    free(v->series);
    free(v->ms);
    free(v->specs);
    *v = (struct metrics_view){0};
}

/* The spec series i's counters were read with. */
static const struct metrics_spec *spec_of(const struct metrics_view *v, int i)
{
    return v->specs && v->specs[i] ? v->specs[i] : v->spec;
}

static bool asked(const struct metrics_spec *s)
{
    return s && s->from != METRICS_FROM_NONE;
}

/* Whether two series' counters were read alike: the same source and pattern. */
static bool same_spec(const struct metrics_spec *a, const struct metrics_spec *b)
{
    const char *sa = a ? metrics_spec_source(a) : "", *sb = b ? metrics_spec_source(b) : "";
    const char *pa = a && a->pattern ? a->pattern : "", *pb = b && b->pattern ? b->pattern : "";
    return strcmp(sa, sb) == 0 && strcmp(pa, pb) == 0;
}

bool metrics_view_shown(const struct metrics_view *v)
{
    for (int i = 0; i < v->n; i++)
        if (asked(spec_of(v, i)))
            return true;
    return asked(v->spec) || v->nnames > 0;
}

int cli_metrics_spec(const char *cmd, const char *usage, const char *from, const char *pattern,
                     struct metrics_spec *s)
{
    *s = (struct metrics_spec){0};
    if (pattern && !from)
        return cli_usage_error(cmd, usage, "--metrics-pattern needs --metrics-from (where the "
                               "counters are printed)");
    struct err e = {0};
    if (metrics_spec_init(s, from, pattern, &e) < 0)
        return cli_usage_error(cmd, usage, "%s", e.msg);
    return EXIT_OK;
}

const char *metrics_where(const struct metrics_spec *spec, char *buf, size_t n)
{
    if (!spec || spec->from == METRICS_FROM_NONE)
        snprintf(buf, n, "through TARE_METRICS_OUT");
    else if (spec->from == METRICS_FROM_FILE)
        snprintf(buf, n, "in '%s'", out_vis(spec->file));
    else
        snprintf(buf, n, "on %s", metrics_spec_source(spec));
    return buf;
}

/* A counter's value: exact when it did not vary; else the runs' median. */
static const char *value_cell(char *buf, const struct metric *m, bool human)
{
    if (human)
        return fmt_count(buf, m->varied ? m->median : (double)m->max);
    if (!m->varied)
        snprintf(buf, FMT_BUF_MIN, "%llu", (unsigned long long)m->max);
    else if (m->median == floor(m->median))
        snprintf(buf, FMT_BUF_MIN, "%.0f", m->median);
    else
        snprintf(buf, FMT_BUF_MIN, "%.1f", m->median);
    return buf;
}

void metrics_hist_header(FILE *f, const struct metrics_view *v)
{
    if (!metrics_view_shown(v))
        return;
    for (int i = 0; i < v->nnames; i++)
        fprintf(f, "\t%s", v->cols[i]);
    fputs("\tmetrics_varied", f);
}

void metrics_hist_cells(FILE *f, const struct metrics_view *v, int i)
{
    if (!metrics_view_shown(v))
        return;
    struct table tb;
    const char *h[1] = {""};
    table_init(&tb, v->nnames + 1, h, 0);
    table_row(&tb);
    int c = 0;
    metrics_tsv_cells(v, i, &tb, &c);
    for (int k = 0; k < c; k++)
        fprintf(f, "\t%s", tb.cells[k] ? tb.cells[k] : "NA");
    table_free(&tb);
}

int metrics_tsv_header(const struct metrics_view *v, const char **h)
{
    if (!metrics_view_shown(v))
        return 0;
    for (int i = 0; i < v->nnames; i++)
        h[i] = v->cols[i];
    h[v->nnames] = "metrics_varied";
    return v->nnames + 1;
}

void metrics_tsv_cells(const struct metrics_view *v, int i, struct table *tb, int *c)
{
    if (!metrics_view_shown(v))
        return;
    const struct metrics *ms = v->ms[i];
    char b[64];
    for (int k = 0; k < v->nnames; k++) {
        const struct metric *m = ms ? metrics_find(ms, v->names[k]) : NULL;
        table_set(tb, (*c)++, "%s", m ? value_cell(b, m, false) : "NA");
    }
    if (!ms || ms->n == 0) {
        table_set(tb, (*c)++, "NA");
        return;
    }
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    bool first = true;
    for (int k = 0; f && k < ms->n; k++)
        if (ms->m[k].varied) {
            fprintf(f, "%s%s", first ? "" : ",", ms->m[k].name);
            first = false;
        }
    if (f)
        fclose(f);
    table_set(tb, (*c)++, "%s", list && *list ? list : "-");
    free(list);
}

void metrics_jw(const struct metrics_view *v, int i, struct jw *w)
{
    if (!metrics_view_shown(v))
        return;
    const struct metrics *ms = v->ms[i];
    char where[300];
    const struct metrics_spec *sp = spec_of(v, i);
    jw_kobject(w, "metrics");
    jw_kstring(w, "from", asked(sp) ? metrics_spec_source(sp) : NULL);
    jw_ki64(w, "runs", ms ? ms->nruns : 0);
    if (!ms || ms->n == 0) {
        jw_knull(w, "counters");
        jw_kstring(w, "error", !ms ? "the measurement failed"
                   : ms->note[0] ? ms->note : "no counters found");
        if (ms && !ms->note[0])
            jw_kstring(w, "where", metrics_where(sp, where, sizeof where));
        jw_end(w);
        return;
    }
    jw_karray(w, "counters");
    for (int k = 0; k < ms->n; k++) {
        const struct metric *m = &ms->m[k];
        jw_object_begin(w);
        jw_kstring(w, "name", m->name);
        if (m->varied)
            jw_kdouble(w, "value", m->median);
        else
            jw_ku64(w, "value", m->max);
        jw_ku64(w, "min", m->min);
        jw_ku64(w, "max", m->max);
        jw_ki64(w, "runs", m->nv);
        if (metrics_checked(ms))
            jw_kbool(w, "deterministic", !m->varied);
        else
            jw_knull(w, "deterministic");
        jw_end(w);
    }
    jw_end(w);
    if (ms->note[0])
        jw_kstring(w, "note", ms->note);
    jw_end(w);
}

/* What the spread column says of one counter. */
static const char *spread(char *buf, size_t n, const struct metrics *ms, const struct metric *m)
{
    char a[64], b[64];
    if (!metrics_checked(ms))
        snprintf(buf, n, "one run: not checked");
    else if (m->nv < ms->nruns)
        snprintf(buf, n, "not deterministic: in %d of %d runs (%s .. %s)", m->nv, ms->nruns,
                 fmt_count(a, (double)m->min), fmt_count(b, (double)m->max));
    else if (m->varied)
        snprintf(buf, n, "not deterministic: %s .. %s over %d runs",
                 fmt_count(a, (double)m->min), fmt_count(b, (double)m->max), m->nv);
    else if (m->nv == 2)
        snprintf(buf, n, "same in both runs");
    else
        snprintf(buf, n, "same in all %d runs", m->nv);
    return buf;
}

void metrics_text(FILE *f, const struct metrics_view *v, const char *runs_what)
{
    if (!metrics_view_shown(v))
        return;
    static const char *const h[] = {"series", "counter", "value", "spread"};
    struct table tb;
    table_init(&tb, 4, h, 0x3 | 0x8);
    char b[64], s[200], where[300];
    for (int i = 0; i < v->n; i++) {
        const struct metrics *ms = v->ms[i];
        if (!ms || ms->n == 0) {
            table_row(&tb);
            table_set(&tb, 0, "%s", v->series[i]);
            table_set(&tb, 1, "-");
            table_set(&tb, 2, "NA");
            table_set(&tb, 3, "%s", !ms ? "the measurement failed"
                      : ms->note[0] ? ms->note : "no counters found");
            continue;
        }
        for (int k = 0; k < ms->n; k++) {
            const struct metric *m = &ms->m[k];
            table_row(&tb);
            table_set(&tb, 0, "%s", v->series[i]);
            table_set(&tb, 1, "%s", m->name);
            table_set(&tb, 2, "%s", value_cell(b, m, true));
            table_set(&tb, 3, "%s", spread(s, sizeof s, ms, m));
        }
    }
    bool mixed = false;
    for (int i = 1; i < v->n; i++)
        mixed |= !same_spec(spec_of(v, i), spec_of(v, 0));
    if (mixed)
        snprintf(where, sizeof where, "where the suite says");
    else
        metrics_where(v->n ? spec_of(v, 0) : v->spec, where, sizeof where);
    fprintf(f, "\nthe program's own counters (%s), read in %s;\nvalue: the runs' median where "
            "they differ\n", where, runs_what);
    table_print(&tb, f, FMT_TEXT);
    table_free(&tb);
}

void metrics_notes(const char *cmd, const struct metrics_view *v)
{
    char where[300];
    for (int i = 0; i < v->n; i++) {
        const struct metrics *ms = v->ms[i];
        if (!ms)
            continue;
        if (ms->note[0])
            cli_error(cmd, "note: '%s': counters: %s", out_vis(v->series[i]), out_vis(ms->note));
        else if (ms->n == 0 && asked(spec_of(v, i)))
            cli_error(cmd, "note: '%s': no counters found %s: they are NA", out_vis(v->series[i]),
                      metrics_where(spec_of(v, i), where, sizeof where));
    }
}

/* ab's sides' counters into side[0..1] and their verdict into am: -1 when there is nothing to
 * show (none asked for, none reported) or no memory. */
static int ab_judged(const struct ab_result *r, struct metrics side[2], struct ab_metrics *am,
                     const char **what)
{
    struct err e = {0};
    side[0] = side[1] = (struct metrics){0};
    *what = r->counted ? "the count pass's native runs" : "the timed runs";
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        if (!r->counted) {
            rc = metrics_merge(&side[k], &r->series[k].metrics, &e);
            continue;
        }
        for (long i = 0; i < r->count_runs && rc == 0; i++) {
            const struct count_job *j = &r->cjob[k * r->count_runs + i];
            if (j->status == COUNT_OK || j->status == COUNT_UNSTABLE)
                rc = metrics_merge(&side[k], &j->metrics, &e);
        }
        metrics_finish(&side[k]);
    }
    bool shown = asked(r->o->metrics) || side[0].n || side[1].n;
    if (rc < 0 || !shown || ab_metrics_judge(&side[0], &side[1], am, &e) < 0) {
        metrics_free(&side[0]);
        metrics_free(&side[1]);
        return -1;
    }
    return 0;
}

static const char *change_word(const struct ab_metric *m)
{
    switch (m->c.change) {
    case AB_CHANGE_MORE: return "more";
    case AB_CHANGE_LESS: return "fewer";
    case AB_CHANGE_NONE: return "same";
    case AB_CHANGE_UNKNOWN: return "unknown";
    default: return NULL;
    }
}

void metrics_ab_print_text(const struct ab_result *r)
{
    struct metrics side[2];
    struct ab_metrics am;
    const char *what;
    if (ab_judged(r, side, &am, &what) < 0)
        return;
    char where[300];
    metrics_where(r->o->metrics, where, sizeof where);
    if (am.n == 0) {
        printf("\nthe programs' own counters (%s): NA, no counters found in %s\n", where, what);
    } else {
        printf("\nthe programs' own counters (%s), from %s (%d and %d a side); spread:\n"
               "(max - min) / median; one that varies changes only where B's readings all lie\n"
               "beyond A's by more than the wider side's range:\n", where, what, side[0].nruns,
               side[1].nruns);
        static const char *const h[] = {"counter", "A", "B", "B/A", "spread A", "spread B",
                                        "verdict"};
        struct table tb;
        table_init(&tb, 7, h, 0x1 | 0x40);
        char b[64];
        for (int i = 0; i < am.n; i++) {
            const struct ab_metric *m = &am.m[i];
            table_row(&tb);
            table_set(&tb, 0, "%s", m->name);
            table_set(&tb, 1, "%s", fmt_count(b, m->c.med[0]));
            table_set(&tb, 2, "%s", fmt_count(b, m->c.med[1]));
            table_set(&tb, 3, "%s", ab_pct(b, sizeof b, m->c.ratio));
            table_set(&tb, 4, "%s", ab_spread_str(b, sizeof b, m->c.spread[0]));
            table_set(&tb, 5, "%s", ab_spread_str(b, sizeof b, m->c.spread[1]));
            const char *w = change_word(m);
            bool known = w && m->c.change != AB_CHANGE_UNKNOWN;
            /* Two readings a count pass (the warm-up's, the measured run's). */
            char hint[48] = "";
            if (r->counted && m->c.change == AB_CHANGE_UNKNOWN)
                snprintf(hint, sizeof hint, " (--count-runs %d)", (AB_COUNT_VARY_RUNS + 1) / 2);
            table_set(&tb, 6, "%s%s%s%s%s", w ? w : "NA", !known ? ": " : "",
                      !known && m->why ? m->why : "",
                      known && (m->varied[0] || m->varied[1]) ? " (not deterministic: judged "
                      "with its spread)" : "",
                      hint);
        }
        table_print(&tb, stdout, FMT_TEXT);
        table_free(&tb);
    }
    ab_metrics_free(&am);
    metrics_free(&side[0]);
    metrics_free(&side[1]);
}

void metrics_ab_print_json(struct jw *w, const struct ab_result *r)
{
    struct metrics side[2];
    struct ab_metrics am;
    const char *what;
    if (ab_judged(r, side, &am, &what) < 0)
        return;
    jw_key(w, "metrics");
    jw_object_begin(w);
    jw_kstring(w, "from", asked(r->o->metrics) ? metrics_spec_source(r->o->metrics) : NULL);
    jw_kstring(w, "readings", r->counted ? "count" : "pairs");
    jw_ki64(w, "runs_a", side[0].nruns);
    jw_ki64(w, "runs_b", side[1].nruns);
    jw_karray(w, "counters");
    for (int i = 0; i < am.n; i++) {
        const struct ab_metric *m = &am.m[i];
        jw_object_begin(w);
        jw_kstring(w, "name", m->name);
        jw_kdouble(w, "a", m->c.med[0]);
        jw_kdouble(w, "b", m->c.med[1]);
        jw_kdouble(w, "ratio", m->c.ratio);
        jw_kdouble(w, "spread_a", m->c.spread[0]);
        jw_kdouble(w, "spread_b", m->c.spread[1]);
        jw_kdouble(w, "min_a", m->c.lo[0]);
        jw_kdouble(w, "max_a", m->c.hi[0]);
        jw_kdouble(w, "min_b", m->c.lo[1]);
        jw_kdouble(w, "max_b", m->c.hi[1]);
        jw_kbool(w, "deterministic", !m->varied[0] && !m->varied[1]);
        jw_kstring(w, "change", change_word(m));
        if (m->why)
            jw_kstring(w, "why", m->why);
        jw_end(w);
    }
    jw_end(w);
    if (am.n == 0)
        jw_kstring(w, "error", "no counters found");
    jw_end(w);
    ab_metrics_free(&am);
    metrics_free(&side[0]);
    metrics_free(&side[1]);
}
