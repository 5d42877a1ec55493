/* ab_out.c: tare ab's result for people (text) and programs (JSON), and its notes on stderr. */
#include "cli/ab_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/count_out.h"
#include "cli/counters_out.h"
#include "cli/out.h"

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
    printf("\ncounts (deterministic: the median of %ld %s passes of each, side by side, "
           "after a native warm-up; spread: (max - min) / median of a side's passes; bytes and "
           "peak heap from libtare-alloc):\n", r->count_runs, count_engine_name(co->engine));
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

/* A count in JSON: a whole number as one (never 1.6e+09), null when not measured. */
static void json_count(double v)
{
    if (isnan(v))
        fputs("null", stdout);
    else
        printf("%.0f", v);
}

static void json_str_or_null(const char *s)
{
    if (s && *s)
        json_str(stdout, s);
    else
        fputs("null", stdout);
}

static void json_count_side(const struct ab_result *r, int k, int nf)
{
    const struct count_job *bad = r->bad[k];
    printf("\"%s\": {\"status\": \"%s\"", k ? "b" : "a",
           count_status_name(bad ? bad->status : COUNT_OK));
    for (int f = 0; f < AB_NPLAIN; f++) {
        printf(", \"%s\": ", ab_field_names[f]);
        json_count(r->count[f].med[k]);
    }
    for (int f = 0; f < AB_NPLAIN; f++) {
        printf(", \"%s_spread\": ", ab_field_names[f]);
        json_num(stdout, r->count[f].spread[k]);
    }
    for (int f = AB_NPLAIN; f < nf; f++) {   /* --cache-sim's, after the four */
        printf(", \"%s\": ", ab_field_names[f]);
        json_count(r->count[f].med[k]);
        printf(", \"%s_spread\": ", ab_field_names[f]);
        json_num(stdout, r->count[f].spread[k]);
    }
    fputs(", \"error\": ", stdout);
    if (bad)
        json_str(stdout, bad->why);
    else
        fputs("null", stdout);
    fputs("}, ", stdout);
}

static void print_counts_json(const struct ab_result *r)
{
    const struct count_opts *co = &r->o->copt;
    int nf = co->cache_sim ? AB_NFIELD : AB_NPLAIN;
    printf(",\n \"count\": {\"runs\": %ld, \"engine\": \"%s\", \"cache_sim\": %s",
           r->count_runs, count_engine_name(co->engine), co->cache_sim ? "true" : "false");
    count_vg_args_json(stdout, co);
    fputs(", ", stdout);
    for (int k = 0; k < 2; k++)
        json_count_side(r, k, nf);
    static const char *const change_name[] = {"null", "\"none\"", "\"more\"", "\"less\""};
    fputs("\"ratio\": {", stdout);
    for (int f = 0; f < nf; f++) {
        printf("%s\"%s\": ", f ? ", " : "", ab_field_names[f]);
        json_num(stdout, r->count[f].ratio);
    }
    fputs("}, \"change\": {", stdout);
    for (int f = 0; f < nf; f++)
        printf("%s\"%s\": %s", f ? ", " : "", ab_field_names[f],
               change_name[r->count[f].change]);
    fputs("}, \"work\": ", stdout);
    json_str_or_null(ab_work_name(r->work));
    fputs(", \"caches\": ", stdout);
    static const char *const cache_word[] = {NULL, "same", "more", "less"};
    json_str_or_null(cache_word[r->cache]);
    fputs(", \"caches_line\": ", stdout);
    json_str_or_null(r->cache_line);
    fputs(", \"note\": ", stdout);
    json_str_or_null(r->reading_line);
    fputs("}", stdout);
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
    int wd = (int)strlen(o->side[0].name);
    if ((int)strlen(o->side[1].name) > wd)
        wd = (int)strlen(o->side[1].name);
    /* An A/A run is named A and B: no name column then. */
    bool unnamed = strcmp(o->side[0].name, "A") == 0 && strcmp(o->side[1].name, "B") == 0;
    for (int i = 0; i < 2; i++) {
        const struct ab_side *s = &o->side[i];
        const double *t = r->series[i].wall_s;
        printf("%s  %-*s%smedian %9s  min %9s", i ? "B" : "A", unnamed ? 0 : wd,
               unnamed ? "" : s->name, unnamed ? "" : "  ",
               fmt_seconds(m, stats_median(t, r->n)), fmt_seconds(n, stats_min(t, r->n)));
        if (strcmp(s->name, s->command) != 0)
            printf("  (%s)", s->command);
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
}

static void json_side(const struct ab_result *r, int k)
{
    const struct ab_side *s = &r->o->side[k];
    const struct session_series *x = &r->series[k];
    fputs("{\"name\": ", stdout);
    json_str(stdout, s->name);
    fputs(", \"command\": ", stdout);
    json_str(stdout, s->command);
    fputs(", \"median_s\": ", stdout);
    json_num(stdout, stats_median(x->wall_s, r->n));
    fputs(", \"min_s\": ", stdout);
    json_num(stdout, stats_min(x->wall_s, r->n));
    fputs(", \"warmup_s\": ", stdout);
    json_num(stdout, x->warm_first);
    fputs(", \"times\": [", stdout);
    for (long i = 0; i < r->n; i++) {
        if (i)
            fputs(", ", stdout);
        json_num(stdout, x->wall_s[i]);
    }
    fputs("]", stdout);
    const struct ctr_set *ctr = r->o->ctr;
    if (ctr) {
        fputs(", \"counters\": {", stdout);
        for (int i = 0; i < ctr->n; i++) {
            json_str(stdout, ctr->c[i].label);
            fputs(": ", stdout);
            json_num(stdout, ctr_median(x->ctr, (int)r->n, i));
            fputs(i + 1 < ctr->n ? ", " : "", stdout);
        }
        fputs("}", stdout);
    }
    fputs("}", stdout);
}

void ab_print_json(const struct ab_result *r, bool newline)
{
    const struct ab_opts *o = r->o;
    const struct stats_ab *w = &r->wall;
    fputs("{\"a\": ", stdout);
    json_side(r, 0);
    fputs(",\n \"b\": ", stdout);
    json_side(r, 1);
    printf(",\n \"pairs\": %ld, \"warmup\": %ld, \"ratio\": ", r->n, o->warmup);
    json_num(stdout, w->ratio);
    fputs(", \"ci_low\": ", stdout);
    json_num(stdout, w->ci_low);
    fputs(", \"ci_high\": ", stdout);
    json_num(stdout, w->ci_high);
    fputs(", \"confidence\": ", stdout);
    json_num(stdout, w->confidence);
    fputs(", \"median_pair_ratio\": ", stdout);
    json_num(stdout, w->median_ratio);
    fputs(",\n \"threshold\": ", stdout);
    json_num(stdout, o->threshold);
    fputs(", \"resolution\": ", stdout);
    json_num(stdout, w->resolution);
    fputs(", \"detectable\": ", stdout);
    json_num(stdout, w->detectable);
    printf(", \"significant\": %s, \"verdict\": \"%s\",\n", w->significant ? "true" : "false",
           stats_verdict_name(w->verdict));
    printf(" \"until_decided\": %s, \"looks\": %d, \"planned_looks\": %d, \"stopped\": \"%s\", "
           "\"method\": \"hodges-lehmann\",\n", o->until ? "true" : "false", r->looks,
           r->planned_looks, ab_stopped_name(r));
    fputs(" \"pair_ratios\": [", stdout);
    for (long i = 0; i < r->n; i++) {
        if (i)
            fputs(", ", stdout);
        json_num(stdout, r->series[1].wall_s[i] / r->series[0].wall_s[i]);
    }
    fputs("],\n \"base\": ", stdout);
    if (o->git) {
        fputs("{\"rev\": ", stdout);
        json_str(stdout, o->git->rev);
        fputs(", \"commit\": ", stdout);
        json_str(stdout, o->git->commit);
        fputs("}", stdout);
    } else {
        fputs("null", stdout);
    }
    if (r->counted)
        print_counts_json(r);
    fputs(newline ? "}\n" : "}", stdout);
}

void ab_progress_print(void *ctx, const char *what, double seconds)
{
    (void)ctx;
    if (!what) {
        fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[K%s  %.1f s", what, seconds);
    fflush(stderr);
}
