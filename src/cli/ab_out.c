/* ab_out.c: tare ab's result for people (text) and programs (JSON), and its notes on stderr. */
#include "cli/ab_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/count_out.h"
#include "cli/counters_out.h"
#include "cli/metrics_out.h"
#include "cli/out.h"
#include "core/util/json.h"

static const char *pct(char *buf, double ratio)
{
    return ab_pct(buf, FMT_BUF_MIN, ratio);
}

static const char *count_status_name(enum count_status s)
{
    switch (s) {
    case COUNT_OK: return "ok";
    case COUNT_TIMEOUT: return "timeout";
    case COUNT_UNSTABLE: return "unstable";
    default: return "failed";
    }
}

static void print_counts_text(const struct ab_result *r)
{
    static const char *const h[] = {"count", "A", "B", "B/A change", "A spread", "B spread"};
    static const char *const label[AB_NFIELD] = {
        "instructions", "allocations", "bytes", "peak heap", "L1 instr misses", "L1 data misses",
        "LL instr misses", "LL data misses", "all misses", "est. cycles",
    };
    const struct count_opts *co = &r->o->copt;
    struct table t;
    table_init(&t, 6, h, 0x1);
    char b[64];
    for (int f = 0; f < (co->cache_sim ? AB_NFIELD : AB_NPLAIN); f++) {
        const struct ab_count *c = &r->count[f];
        table_row(&t);
        table_set(&t, 0, "%s", label[f]);
        for (int k = 0; k < 2; k++) {
            table_set(&t, k + 1, "%s", isnan(c->med[k]) ? "NA" : fmt_count(b, c->med[k]));
            table_set(&t, k + 4, "%s", ab_spread_str(b, sizeof b, c->spread[k]));
        }
        table_set(&t, 3, "%s", pct(b, c->ratio));
    }
    char more[96] = "";
    if (r->count_runs > r->o->count_runs)
        snprintf(more, sizeof more, " (%ld, not %ld: the counts vary from pass to pass)",
                 r->count_runs, r->o->count_runs);
    printf("\ncounts (deterministic: the median of %ld %s passes of each%s, in rounds of A and "
           "B side by side, each round in a later second of the clock; after a native warm-up; "
           "spread: (max - min) / median of a side's passes; bytes and peak heap from "
           "libtare-alloc):\n", r->count_runs, count_engine_name(co->engine), more);
    struct count_view v = {.co = co};   /* the valgrind options, the cycles model */
    count_extra_legend(stdout, &v);
    table_print(&t, stdout, FMT_TEXT);
    table_free(&t);
    if (r->work_line[0])
        printf("%s\n", r->work_line);
    if (r->cache_line[0])
        printf("%s\n", r->cache_line);
    if (r->reading_line[0])
        printf("%s\n", r->reading_line);
}

/* A count in JSON: null when not measured; whole by the number rule (never 1.6e+09). */
static void json_count_side(struct jw *w, const struct ab_result *r, int k, int nf)
{
    const struct count_job *bad = r->bad[k];
    jw_kobject(w, k ? "b" : "a");
    jw_kstring(w, "status", count_status_name(bad ? bad->status : COUNT_OK));
    for (int f = 0; f < AB_NPLAIN; f++)
        jw_kdouble(w, ab_field_names[f], r->count[f].med[k]);
    char key[64];
    for (int f = 0; f < AB_NPLAIN; f++) {
        snprintf(key, sizeof key, "%s_spread", ab_field_names[f]);
        jw_kdouble(w, key, r->count[f].spread[k]);
    }
    for (int f = AB_NPLAIN; f < nf; f++) {   /* --cache-sim's, after the four */
        jw_kdouble(w, ab_field_names[f], r->count[f].med[k]);
        snprintf(key, sizeof key, "%s_spread", ab_field_names[f]);
        jw_kdouble(w, key, r->count[f].spread[k]);
    }
    jw_kstring(w, "error", bad ? bad->why : NULL);
    jw_end(w);
}

/* A string, or null when there is none (or it is empty). */
static void json_str_or_null(struct jw *w, const char *key, const char *s)
{
    jw_kstring(w, key, s && *s ? s : NULL);
}

static void print_counts_json(struct jw *w, const struct ab_result *r)
{
    const struct count_opts *co = &r->o->copt;
    int nf = co->cache_sim ? AB_NFIELD : AB_NPLAIN;
    jw_break(w, "\n ");
    jw_kobject(w, "count");
    jw_ki64(w, "runs", r->count_runs);
    jw_kbool(w, "varies", r->varies);
    jw_kstring(w, "engine", count_engine_name(co->engine));
    jw_kbool(w, "cache_sim", co->cache_sim);
    count_vg_args_jw(w, co);
    for (int k = 0; k < 2; k++)
        json_count_side(w, r, k, nf);
    jw_kobject(w, "ratio");
    for (int f = 0; f < nf; f++)
        jw_kdouble(w, ab_field_names[f], r->count[f].ratio);
    jw_end(w);
    jw_kobject(w, "change");
    for (int f = 0; f < nf; f++)
        json_str_or_null(w, ab_field_names[f], ab_change_name(r->count[f].change));
    jw_end(w);
    json_str_or_null(w, "work", ab_work_name(r->work));
    json_str_or_null(w, "caches",
                     r->cache == AB_CHANGE_NONE ? "same" : ab_change_name(r->cache));
    json_str_or_null(w, "caches_line", r->cache_line);
    json_str_or_null(w, "reading", ab_reading_name(r->reading));
    json_str_or_null(w, "note", r->reading_line);
    jw_end(w);
}

bool ab_report_counts(const struct ab_result *r, const char *alloc_why)
{
    if (alloc_why && alloc_why[0])
        cli_error("ab", "note: bytes and peak heap are NA: %s", alloc_why);
    bool failed = false;
    long n = r->count_runs;
    static const char *const labels[2] = {"A", "B"};
    for (int k = 0; k < 2; k++) {
        const struct count_job *runs = r->cjob + k * n, *bad = NULL;
        const char *name = r->o->side[k].name;
        for (long i = 0; i < n; i++)
            if (runs[i].note[0]) {
                cli_error("ab", "note: %s '%s': %s", labels[k], name, runs[i].note);
                break;
            }
        long i = 0;
        for (; i < n && !bad; i++)
            if (runs[i].status != COUNT_OK)
                bad = &runs[i];
        if (!bad)
            continue;
        failed = true;
        cli_error("ab", "counting %s '%s' failed (pass %ld of %ld): %s%s", labels[k], name, i,
                  n, bad->why, bad->tail[0] ? "; its stderr ended with:" : "");
        if (bad->tail[0])
            cli_print_stderr_tail(bad->tail);
    }
    return failed;
}

static void report_tail(const char *label, const char *name, const char *tail)
{
    if (!tail[0])
        return;
    fprintf(stderr, "tare ab: the stderr of %s '%s' ended with:\n", label, name);
    cli_print_stderr_tail(tail);
}

void ab_report_failure(const struct ab_result *r)
{
    if (r->build_failed)
        report_tail("build", r->build_which, r->build_tail);
    for (int k = 0; k < 2; k++) {
        const struct session_series *x = &r->series[k];
        if (x->name && x->state != SESSION_OK)
            report_tail(x->label, x->name, x->fail.tail);
    }
}

static const char *ratio_str(char *buf, double v)
{
    if (isnan(v))
        snprintf(buf, FMT_BUF_MIN, "%s", "NA");
    else if (isinf(v))
        snprintf(buf, FMT_BUF_MIN, "%s", "inf");
    else
        snprintf(buf, FMT_BUF_MIN, "%.4f", v);
    return buf;
}

/* The wall clock's verdict line. */
static void print_wall_verdict(const struct ab_result *r)
{
    const struct stats_ab *w = &r->wall;
    char m[32], c1[32], c2[32];
    switch (ab_wall_kind(w)) {
    case AB_WALL_TOO_FEW:
        printf("same: no detectable change: %ld pairs are too few for a %.0f%% interval "
               "(use more pairs)\n", r->n, 100 * (1 - AB_ALPHA / r->planned_looks));
        break;
    case AB_WALL_SLOWER:
        printf("slower: B takes %s longer than A (interval %s .. %s)\n", pct(m, w->ratio) + 1,
               pct(c1, w->ci_low), pct(c2, w->ci_high));
        break;
    case AB_WALL_FASTER:
        printf("faster: B takes %s less time than A (interval %s .. %s)\n",
               pct(m, w->ratio) + 1, pct(c1, w->ci_low), pct(c2, w->ci_high));
        break;
    case AB_WALL_UNDER_THRESHOLD:
        printf("same: a change of %s (interval %s .. %s) is under the %.3g%% threshold\n",
               pct(m, w->ratio), pct(c1, w->ci_low), pct(c2, w->ci_high),
               100 * r->o->threshold);
        break;
    case AB_WALL_NO_CHANGE:
        printf("same: no detectable change (interval %s .. %s); this run could have "
               "detected a change of %.2g%% or more\n", pct(c1, w->ci_low), pct(c2, w->ci_high),
               100 * w->detectable);
        break;
    }
}

static void print_verdict(const struct ab_result *r)
{
    const struct ab_opts *o = r->o;
    const struct stats_ab *w = &r->wall;
    char m[32], n[32], c1[32], c2[32], c3[32];
    int wd = (int)strlen(out_vis(o->side[0].name));
    if ((int)strlen(out_vis(o->side[1].name)) > wd)
        wd = (int)strlen(out_vis(o->side[1].name));
    /* An A/A run is named A and B: no name column then. */
    bool unnamed = strcmp(o->side[0].name, "A") == 0 && strcmp(o->side[1].name, "B") == 0;
    for (int i = 0; i < 2; i++) {
        const struct ab_side *s = &o->side[i];
        const double *t = r->series[i].wall_s;
        printf("%s  %-*s%smedian %9s  min %9s", i ? "B" : "A", unnamed ? 0 : wd,
               unnamed ? "" : out_vis(s->name), unnamed ? "" : "  ",
               fmt_seconds(m, stats_median(t, r->n)), fmt_seconds(n, stats_min(t, r->n)));
        if (strcmp(s->name, s->command) != 0)
            printf("  (%s)", out_vis(s->command));
        putchar('\n');
    }
    printf("%ld pair%s after %ld warm-up run%s of each, in alternating order (A B, B A, ...)",
           r->n, r->n == 1 ? "" : "s", o->warmup, o->warmup == 1 ? "" : "s");
    if (o->until)
        printf("; stopped: %s after %d look%s", ab_stopped_name(r), r->looks,
               r->looks == 1 ? "" : "s");
    printf("\n");
    double conf = 1 - AB_ALPHA / r->planned_looks;
    printf("B/A %s, %.3g%% interval %s .. %s (Hodges-Lehmann over the pairs' ratios; "
           "median pair ratio %s)\n", ratio_str(m, w->ratio), 100 * conf,
           ratio_str(c1, w->ci_low), ratio_str(c2, w->ci_high), ratio_str(c3, w->median_ratio));
    print_wall_verdict(r);
}

void ab_print_text(const struct ab_result *r)
{
    print_verdict(r);
    if (r->o->ctr) {
        const char *names[2] = {"A", "B"};
        struct ctr_sample *smp[2] = {r->series[0].ctr, r->series[1].ctr};
        int n[2] = {(int)r->n, (int)r->n};
        counters_print_medians(stdout, r->o->ctr, 2, names, smp, n);
    }
    if (r->counted)
        print_counts_text(r);
    metrics_ab_print_text(r);   /* the programs' own counters, judged */
}

static void json_side(struct jw *w, const struct ab_result *r, int k)
{
    const struct ab_side *s = &r->o->side[k];
    const struct session_series *x = &r->series[k];
    jw_object_begin(w);
    jw_kstring(w, "name", s->name);
    jw_kstring(w, "command", s->command);
    jw_kdouble(w, "median_s", stats_median(x->wall_s, r->n));
    jw_kdouble(w, "min_s", stats_min(x->wall_s, r->n));
    jw_kdouble(w, "warmup_s", x->warm_first);
    jw_karray(w, "times");
    for (long i = 0; i < r->n; i++)
        jw_double(w, x->wall_s[i]);
    jw_end(w);
    const struct ctr_set *ctr = r->o->ctr;
    if (ctr) {
        jw_kobject(w, "counters");
        for (int i = 0; i < ctr->n; i++)
            jw_kdouble(w, ctr->c[i].label, ctr_median(x->ctr, (int)r->n, i));
        jw_end(w);
    }
    jw_end(w);
}

void ab_print_json(struct jw *w, const struct ab_result *r)
{
    const struct ab_opts *o = r->o;
    const struct stats_ab *s = &r->wall;
    jw_object_begin(w);
    jw_key(w, "a");
    json_side(w, r, 0);
    jw_break(w, "\n ");
    jw_key(w, "b");
    json_side(w, r, 1);
    jw_break(w, "\n ");
    jw_ki64(w, "pairs", r->n);
    jw_ki64(w, "warmup", o->warmup);
    jw_kdouble(w, "ratio", s->ratio);
    jw_kdouble(w, "ci_low", s->ci_low);
    jw_kdouble(w, "ci_high", s->ci_high);
    jw_kdouble(w, "confidence", s->confidence);
    jw_kdouble(w, "median_pair_ratio", s->median_ratio);
    jw_break(w, "\n ");
    jw_kdouble(w, "threshold", o->threshold);
    jw_kdouble(w, "resolution", s->resolution);
    jw_kdouble(w, "detectable", s->detectable);
    jw_kbool(w, "significant", s->significant);
    jw_kstring(w, "verdict", stats_verdict_name(s->verdict));
    jw_break(w, "\n ");
    jw_kbool(w, "until_decided", o->until);
    jw_ki64(w, "looks", r->looks);
    jw_ki64(w, "planned_looks", r->planned_looks);
    jw_kstring(w, "stopped", ab_stopped_name(r));
    jw_kstring(w, "method", "hodges-lehmann");
    jw_break(w, "\n ");
    jw_karray(w, "pair_ratios");
    for (long i = 0; i < r->n; i++)
        jw_double(w, r->series[1].wall_s[i] / r->series[0].wall_s[i]);
    jw_end(w);
    jw_break(w, "\n ");
    jw_key(w, "base");
    if (o->git) {
        jw_object_begin(w);
        jw_kstring(w, "rev", o->git->rev);
        jw_kstring(w, "commit", o->git->commit);
        jw_end(w);
    } else {
        jw_null(w);
    }
    if (r->counted)
        print_counts_json(w, r);
    metrics_ab_print_json(w, r);
    jw_end(w);
}

void ab_progress_print(void *ctx, const char *what, double seconds)
{
    (void)ctx;
    if (!what) {
        fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[K%s  %.1f s", out_vis(what), seconds);
    fflush(stderr);
}
