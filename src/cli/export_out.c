/* export_out.c: the shared --export-bmf/--export-gab/--export-junit options (export_out.h). */
#include "cli/export_out.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/engine/count.h"
#include "core/history/history.h"
#include "core/util/metrics.h"
#include "core/util/stats.h"

static double count_value(uint64_t v)
{
    return v == COUNT_NA ? NAN : (double)v;
}

/* One count of a job: its value, NA with the job's failure or note (or na_why, when given);
 * v2 (COUNT_NA: none) the second pass's, its range beside it. */
static int add_count(struct export_set *s, const char *name, const struct count_job *j,
                     const char *measure, uint64_t v, uint64_t v2, int runs, const char *na_why,
                     struct err *e)
{
    struct export_rec r = {.bench = name, .measure = measure, .value = count_value(v),
                           .lo = NAN, .hi = NAN, .runs = runs};
    if (j->status != COUNT_OK) {
        r.state = EXPORT_FAILED;
        r.note = j->why;
    } else if (isnan(r.value)) {
        r.state = EXPORT_SKIPPED;
        r.note = na_why ? na_why : j->note[0] ? j->note : "not measured";
    }
    if (!isnan(r.value) && v2 != COUNT_NA) {
        r.lo = fmin(r.value, (double)v2);
        r.hi = fmax(r.value, (double)v2);
        r.range_what = "the two callgrind passes";
    }
    return export_add(s, &r, e);
}

int cli_export_add_counts(struct export_set *s, const char *name, const struct count_job *j,
                          bool check_warm, struct err *e)
{
    static const char *const measure[4] = {"instructions", "allocations", "bytes", "peak_bytes"};
    const uint64_t v[4] = {j->instructions, j->allocations, j->bytes, j->peak_bytes};
    const uint64_t v2[2] = {j->instructions2, j->allocations2};
    for (int m = 0; m < 4; m++)
        if (add_count(s, name, j, measure[m], v[m], check_warm && m < 2 ? v2[m] : COUNT_NA,
                      check_warm && m < 2 ? 2 : 1, NULL, e) < 0)
            return -1;
    return 0;
}

int cli_export_add_cache(struct export_set *s, const char *name, const struct count_job *j,
                         struct err *e)
{
    /* named as count.tsv's columns: HM_L1I_MISSES .. HM_EST_CYCLES */
    const uint64_t v[5] = {j->l1i_misses, j->l1d_misses, j->lli_misses, j->lld_misses,
                           j->est_cycles};
    for (int m = 0; m < 5; m++)
        if (add_count(s, name, j, hist_metric_names[HM_L1I_MISSES + m], v[m], COUNT_NA, 1,
                      NULL, e) < 0)
            return -1;
    return 0;
}

int cli_export_add_net(struct export_set *s, const char *name, const struct count_job *j,
                       struct err *e)
{
    /* named as count.tsv's columns: HM_NET_INSTRUCTIONS .. HM_NET_BYTES */
    const uint64_t v[3] = {j->net_instructions, j->net_allocations, j->net_bytes};
    for (int m = 0; m < 3; m++)
        if (add_count(s, name, j, hist_metric_names[HM_NET_INSTRUCTIONS + m], v[m], COUNT_NA,
                      1, "NA: the baseline's count is the larger, or one of the two was not "
                      "measured", e) < 0)
            return -1;
    return 0;
}

int cli_export_add_metrics(struct export_set *s, const char *name, const struct metrics *ms,
                           const struct metrics_spec *asked, struct err *e)
{
    if (!ms)
        return 0;
    if (ms->n == 0 && asked && asked->from != METRICS_FROM_NONE) {
        char why[400];
        snprintf(why, sizeof why, "no counters found on %s%s%s",
                 asked->from == METRICS_FROM_FILE ? "the file " : "", metrics_spec_source(asked),
                 ms->note[0] ? "; " : "");
        if (ms->note[0])
            snprintf(why + strlen(why), sizeof why - strlen(why), "%s", ms->note);
        struct export_rec r = {.bench = name, .measure = "metrics", .value = NAN, .lo = NAN,
                               .hi = NAN, .state = EXPORT_SKIPPED, .note = why};
        return export_add(s, &r, e);
    }
    for (int i = 0; i < ms->n; i++) {
        const struct metric *m = &ms->m[i];
        char measure[sizeof METRICS_PREFIX + METRICS_NAME_MAX + 1];
        snprintf(measure, sizeof measure, "%s%s", METRICS_PREFIX, m->name);
        struct export_rec r = {
            .bench = name, .measure = measure,
            .value = m->varied ? m->median : (double)m->max,
            .lo = m->nv > 1 ? (double)m->min : NAN, .hi = m->nv > 1 ? (double)m->max : NAN,
            .range_what = m->nv > 1 ? "the runs' min .. max" : NULL, .runs = m->nv,
            .note = m->varied ? "not deterministic: not the same in every run" : NULL,
        };
        if (export_add(s, &r, e) < 0)
            return -1;
    }
    return 0;
}

int cli_export_add_wall(struct export_set *s, const char *name, const double *times, int n,
                        const char *why_failed, double ratio, struct err *e)
{
    bool ok = !why_failed && n > 0;
    double med = ok ? stats_median(times, n) : NAN, mad = ok ? stats_mad(times, n) : NAN;
    struct export_rec r = {.bench = name, .measure = "median_s", .value = med, .lo = med - mad,
                           .hi = med + mad, .range_what = "median - MAD .. median + MAD",
                           .runs = ok ? n : 0, .state = ok ? EXPORT_PASS : EXPORT_FAILED,
                           .note = ok ? NULL : why_failed ? why_failed : "no run measured"};
    if (export_add(s, &r, e) < 0)
        return -1;
    if (!ok || isnan(ratio))
        return 0;
    r = (struct export_rec){.bench = name, .measure = "ratio", .value = ratio, .lo = NAN,
                            .hi = NAN, .runs = n};
    return export_add(s, &r, e);
}

int cli_export_add_check(struct export_set *s, const struct hist_db *db,
                         const struct hist_judgement *j, struct err *e)
{
    const struct hist_series *se = &db->series[j->series];
    const struct hist_step *st = &j->st;
    char note[512] = "", why[128];
    struct export_rec r = {.bench = se->name, .measure = hist_db_metric_name(db, j->metric),
                           .value = j->now, .lo = NAN, .hi = NAN, .note = note};
    if (j->verdict == HIST_NA) {
        r.state = EXPORT_FAILED;   /* a failed measurement fails, as in every other export */
        snprintf(note, sizeof note, "measurement failed: %s",
                 j->failure ? j->failure : hist_untested_why(st, false, why, sizeof why));
    } else if (st->untested != HIST_TESTED) {
        r.state = EXPORT_SKIPPED;
        snprintf(note, sizeof note, "not checked: %s",
                 hist_untested_why(st, false, why, sizeof why));
    } else if (st->found || st->pending) {
        r.state = st->found && st->change > 0 ? EXPORT_REGRESSED : EXPORT_PASS;
        snprintf(note, sizeof note, "%s: %.9g -> %.9g (%+.1f%%, threshold %.1f%%) at commit %.12s",
                 st->pending ? "pending (past the threshold, not yet persistent)"
                 : st->change > 0 ? "regression" : "improvement",
                 st->before, st->after, 100 * st->change, 100 * st->fence,
                 db->commit[se->commit[j->step_point]]);
    } else {
        r.note = NULL;
    }
    return export_add(s, &r, e);
}

bool cli_export_opt(struct cli_export *x, int c, const char *arg)
{
    if (c < CLI_OPT_EXPORT_BMF || c > CLI_OPT_EXPORT_JUNIT)
        return false;
    x->path[c - CLI_OPT_EXPORT_BMF] = arg;
    return true;
}

bool cli_export_wanted(const struct cli_export *x)
{
    for (int k = 0; k < EXPORT_NFORMATS; k++)
        if (x->path[k])
            return true;
    return false;
}

int cli_export_write(const char *cmd, const struct cli_export *x, const struct export_set *s)
{
    int status = EXIT_OK;
    for (int k = 0; k < EXPORT_NFORMATS; k++) {
        if (!x->path[k])
            continue;
        size_t left = 0;
        struct err e = {0};
        if (export_write(s, (enum export_format)k, x->path[k], &left, &e) < 0) {
            int st = cli_fail(cmd, &e);
            if (status == EXIT_OK)
                status = st;
            continue;
        }
        if (left)
            cli_error(cmd, "note: --export-%s: %zu NA value%s left out of '%s' (the format has "
                      "no NA, and 0 would be a false figure)", export_format_names[k], left,
                      left == 1 ? "" : "s", x->path[k]);
    }
    return status;
}
