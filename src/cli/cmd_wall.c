/* cmd_wall.c: `tare wall`, whole-command wall clock with warm-up, medians and a reference. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/counters_out.h"
#include "cli/export_out.h"
#include "cli/harness.h"
#include "core/engine/hyperfine_export.h"
#include "cli/measure_opts.h"
#include "cli/metrics_out.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/engine/counters.h"
#include "core/util/json.h"
#include "core/util/proc.h"
#include "core/engine/session.h"
#include "core/engine/timing.h"

const char cmd_wall_usage[] =
    "tare wall [options] -- CMD [ARG...]\n"
    "tare wall [options] 'CMD 1' 'CMD 2' ...";

/* The series are the engine's (core/engine/session.h); each one's user pointer is its target. */
struct wall {
    long runs, warmup;
    double timeout;
    int pin;
    bool ignore_failure, progress;
    struct harness h;           /* hooks, stdin, stdout */
    struct session_series *s;   /* the commands' series, then the reference's */
    int ns;
    struct session_series *ref; /* NULL without --reference */
    struct ctr_set *ctr;        /* --counters, or NULL */
    struct metrics_spec metrics;   /* --metrics-from, --metrics-pattern */
    struct metrics_view mview;  /* the program's own counters, series then reference */
    struct session_plan plan;
    struct session sess;
    struct timing_relative *rel;   /* per series (the reference last), or NULL */
    const struct session_series *base;   /* what they are compared with, or NULL */
};

static const struct series *tgt(const struct session_series *s)
{
    return s->user;
}

/* Warm-up, then rounds: every series once, then the reference, so drift hits all alike. */
static int measure(struct wall *w, struct err *e)
{
    w->plan = (struct session_plan){
        .series = w->s, .nseries = w->ns + (w->ref ? 1 : 0), .warmup = w->warmup, .runs = w->runs,
        .order = SESSION_ROUNDS, .timeout_s = w->timeout, .pin_cpu = w->pin,
        .ignore_failure = w->ignore_failure, .ctr = w->ctr, .metrics = &w->metrics,
        .progress = w->progress ? harness_progress : NULL,
    };
    harness_plan(&w->h, &w->plan);
    int rc = session_init(&w->sess, &w->plan, e);
    if (rc == 0)
        rc = session_run(&w->sess, e);
    if (w->progress)
        fputs("\r\033[K", stderr);
    return rc;
}

/* The program's own counters of each series (NA for one that failed), then the reference's. */
static int metrics_of(struct wall *w)
{
    int n = w->ns + (w->ref ? 1 : 0);
    if (metrics_view_init(&w->mview, &w->metrics, n) < 0)
        return -1;
    for (int k = 0; k < n; k++) {
        const struct session_series *s = &w->s[k];
        w->mview.series[k] = tgt(s)->name;
        w->mview.ms[k] = s->state == SESSION_OK ? &s->metrics : NULL;
    }
    return metrics_view_names(&w->mview);
}

/* The seed's first rule: say so when the first run was cold. */
static void note_cold(const struct session_series *s)
{
    double first, median;
    char a[32], b[32];
    switch (timing_cold(s, &first, &median)) {
    case TIMING_COLD_WARMUP:
        fprintf(stderr, "tare wall: note: the warm-up run of '%s' took %s against a median of %s: "
                "it was cold, and was not counted\n",
                tgt(s)->name, fmt_seconds(a, first), fmt_seconds(b, median));
        break;
    case TIMING_COLD_FIRST:
        fprintf(stderr, "tare wall: note: the first run of '%s' took %s against a median of %s "
                "for the others: it looks cold, and it was counted; use --warmup 1\n",
                tgt(s)->name, fmt_seconds(a, first), fmt_seconds(b, median));
        break;
    case TIMING_WARM:
        break;
    }
}

static void report_failure(const struct session_series *s, bool is_ref)
{
    if (!s || s->state == SESSION_OK)
        return;
    char why[512];
    cli_error("wall", "%s'%s'%s %s%s", is_ref ? "reference " : "", tgt(s)->name,
              s->fail.hook ? ":" : " failed:",
              session_failure_why(&s->fail, why, sizeof why),
              s->fail.tail[0] ? "; its stderr ended with:" : "");
    if (s->fail.tail[0])
        cli_print_stderr_tail(s->fail.tail);
}

static void print_relative(const struct wall *w)
{
    if (!w->rel)
        return;
    int n = w->ns + (w->ref ? 1 : 0);
    size_t width = 0;
    for (int k = 0; k < n; k++)
        if (w->rel[k].done && strlen(out_vis(tgt(&w->s[k])->name)) > width)
            width = strlen(out_vis(tgt(&w->s[k])->name));
    printf("\nrelative to %s '%s' (ratio of medians; 95%% interval of the ratio from the "
           "Hodges-Lehmann shift of log times, Mann-Whitney):\n",
           w->ref ? "the reference" : "the fastest", out_vis(tgt(w->base)->name));
    for (int k = 0; k < n; k++) {
        const struct timing_relative *r = &w->rel[k];
        if (!r->done)
            continue;
        printf("  %-*s  %.3f× ", (int)width, out_vis(tgt(&w->s[k])->name), r->ratio);
        if (r->none)
            printf("(%s)\n", r->none);
        else if (strcmp(r->verdict, "same") == 0)
            printf("(%.3f× to %.3f×): no difference the runs can show\n", r->low, r->high);
        else
            printf("%s (%.3f× to %.3f×)\n", r->verdict, r->low, r->high);
    }
    printf("(runs of different commands are independent samples; for a paired, more "
           "sensitive comparison of two, use tare ab)\n");
}

static void json_relative(struct jw *w, const struct timing_relative *r)
{
    if (!r || !r->done) {
        jw_knull(w, "relative");
        return;
    }
    jw_kobject(w, "relative");
    jw_kdouble(w, "ratio", r->ratio);
    jw_kdouble(w, "hl_ratio", r->shift);
    jw_kdouble(w, "ci_low", r->low);
    jw_kdouble(w, "ci_high", r->high);
    jw_kdouble(w, "confidence", r->confidence);
    jw_kstring(w, "verdict", r->verdict);
    jw_end(w);
}

static const char *const tsv_headers[] = {
    "name", "lane", "runs", "median_s", "min_s", "max_s", "mad_s", "user_s", "sys_s",
    "max_rss_kb", "ref_median_s", "ratio", "status",
};

static void print_machine(const struct wall *w, enum out_format fmt, double ref_median)
{
    struct table t;
    int nc = w->ctr ? w->ctr->n : 0;
    const char **h = calloc(13 + CTR_MAX + w->mview.nnames + 2, sizeof *h);
    if (!h) {
        cli_error("wall", "out of memory");
        return;
    }
    memcpy(h, tsv_headers, sizeof tsv_headers);
    for (int i = 0; i < nc; i++)
        h[13 + i] = w->ctr->c[i].label;   /* --counters: one column per counter, its median */
    int nm = metrics_tsv_header(&w->mview, h + 13 + nc);   /* the program's own, after */
    table_init(&t, 13 + nc + nm, h, 0x3);
    char b[64];
    for (int k = 0; k < w->ns; k++) {
        const struct session_series *s = &w->s[k];
        struct timing_summary m = timing_summarize(s);
        table_row(&t);
        table_set(&t, 0, "%s", tgt(s)->name);
        table_set(&t, 1, "%s", tgt(s)->lane ? tgt(s)->lane : "-");
        table_set(&t, 2, "%d", s->n);
        table_set(&t, 3, "%s", fmt_num(b, m.median));
        table_set(&t, 4, "%s", fmt_num(b, m.min));
        table_set(&t, 5, "%s", fmt_num(b, m.max));
        table_set(&t, 6, "%s", fmt_num(b, m.mad));
        table_set(&t, 7, "%s", fmt_num(b, m.user));
        table_set(&t, 8, "%s", fmt_num(b, m.sys));
        table_set(&t, 9, "%s", m.rss_kb < 0 ? "NA" : fmt_num(b, m.rss_kb));
        table_set(&t, 10, "%s", fmt_num(b, ref_median));
        table_set(&t, 11, "%s", fmt_num(b, m.median / ref_median));
        table_set(&t, 12, "%s", session_state_name(s->state));
        for (int i = 0; i < nc; i++)
            table_set(&t, 13 + i, "%s",
                      fmt_num(b, s->state == SESSION_OK ? ctr_median(s->ctr, s->n, i) : NAN));
        int c = 13 + nc;
        metrics_tsv_cells(&w->mview, k, &t, &c);
    }
    table_print(&t, stdout, fmt);
    table_free(&t);
    free(h);
}

static void json_series(struct jw *w, const struct session_series *s, double ref_median,
                        bool is_ref, const struct ctr_set *ctr, const struct timing_relative *rel,
                        const struct metrics_view *mv, int k)
{
    struct timing_summary m = timing_summarize(s);
    jw_object_begin(w);
    jw_kstring(w, "name", tgt(s)->name);
    jw_kstring(w, "lane", tgt(s)->lane);
    jw_kstring(w, "command", tgt(s)->command);
    jw_ki64(w, "runs", s->n);
    jw_kdouble(w, "median_s", m.median);
    jw_kdouble(w, "min_s", m.min);
    jw_kdouble(w, "max_s", m.max);
    jw_kdouble(w, "mad_s", m.mad);
    jw_kdouble(w, "user_s", m.user);
    jw_kdouble(w, "sys_s", m.sys);
    jw_kdouble(w, "max_rss_kb", m.rss_kb < 0 ? NAN : m.rss_kb);
    if (!is_ref) {
        jw_kdouble(w, "ref_median_s", ref_median);
        jw_kdouble(w, "ratio", m.median / ref_median);
    }
    json_relative(w, rel);
    jw_kstring(w, "status", session_state_name(s->state));
    if (s->state != SESSION_OK) {
        char why[256];
        jw_kstring(w, "error", session_failure_why(&s->fail, why, sizeof why));
    }
    jw_kdouble(w, "warmup_s", s->warm_first);
    jw_karray(w, "times");
    for (int i = 0; i < s->n; i++)
        jw_double(w, s->wall_s[i]);
    jw_end(w);
    jw_karray(w, "exit_codes");
    for (int i = 0; i < s->n; i++)
        jw_i64(w, s->exit_code[i]);
    jw_end(w);
    if (ctr) {
        jw_kobject(w, "counters");
        for (int i = 0; i < ctr->n; i++)
            jw_kdouble(w, ctr->c[i].label,
                       s->state == SESSION_OK ? ctr_median(s->ctr, s->n, i) : NAN);
        jw_end(w);
    }
    metrics_jw(mv, k, w);
    jw_end(w);
}

static void print_json(const struct wall *wl, double ref_median)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_ki64(&w, "runs", wl->sess.rounds);
    jw_ki64(&w, "warmup", wl->warmup);
    jw_kstring(&w, "runs_stopped", session_stop_name(wl->sess.stopped));
    jw_kdouble(&w, "min_time_s", wl->h.min_time > 0 ? wl->h.min_time : NAN);
    jw_key(&w, "series");
    jw_array_begin_lines(&w, "\n  ", "\n");
    for (int k = 0; k < wl->ns; k++)
        json_series(&w, &wl->s[k], ref_median, false, wl->ctr, wl->rel ? &wl->rel[k] : NULL,
                    &wl->mview, k);
    jw_end(&w);
    jw_kstring(&w, "relative_to", wl->base ? tgt(wl->base)->name : NULL);
    jw_key(&w, "reference");
    if (wl->ref)
        json_series(&w, wl->ref, NAN, true, wl->ctr, wl->rel ? &wl->rel[wl->ns] : NULL,
                    &wl->mview, wl->ns);
    else
        jw_null(&w);
    jw_end(&w);
    out_json_end(&w, "wall");
}

/* --counters: each series' medians, the reference's last (a row per counter). */
static void print_counters(const struct wall *w)
{
    int all = w->ns + (w->ref ? 1 : 0), m = 0;
    const char **names = calloc(all + 1, sizeof *names);
    struct ctr_sample **smp = calloc(all + 1, sizeof *smp);
    int *n = calloc(all + 1, sizeof *n);
    for (int k = 0; names && smp && n && k < all; k++) {
        const struct session_series *s = k < w->ns ? &w->s[k] : w->ref;
        names[m] = tgt(s)->name;
        smp[m] = s->ctr;
        n[m++] = s->state == SESSION_OK ? s->n : 0;
    }
    if (names && smp && n)
        counters_print_medians(stdout, w->ctr, m, names, smp, n);
    else
        cli_error("wall", "out of memory");
    free(names);
    free(smp);
    free(n);
}

static void print_text(const struct wall *w, double ref_median)
{
    bool ref = w->ref != NULL;
    static const char *const h_ref[] = {"series", "median ± MAD", "min", "max", "user", "sys",
                                        "max RSS", "runs", "ratio", "status"};
    struct table t;
    table_init(&t, ref ? 10 : 9, h_ref, 0x1);
    if (!ref) {
        static const char *const h[] = {"series", "median ± MAD", "min", "max", "user", "sys",
                                        "max RSS", "runs", "status"};
        t.headers = (const char **)h;
    }
    char a[32], b[32];
    for (int k = 0; k < w->ns + (ref ? 1 : 0); k++) {
        const struct session_series *s = k < w->ns ? &w->s[k] : w->ref;
        struct timing_summary m = timing_summarize(s);
        table_row(&t);
        int c = 0;
        if (k < w->ns)
            table_set(&t, c++, "%s", tgt(s)->name);
        else
            table_set(&t, c++, "%s (reference)", tgt(s)->name);
        if (isnan(m.median))
            table_set(&t, c++, "NA");
        else
            table_set(&t, c++, "%s ± %s", fmt_seconds(a, m.median), fmt_seconds(b, m.mad));
        table_set(&t, c++, "%s", fmt_seconds(a, m.min));
        table_set(&t, c++, "%s", fmt_seconds(a, m.max));
        table_set(&t, c++, "%s", fmt_seconds(a, m.user));
        table_set(&t, c++, "%s", fmt_seconds(a, m.sys));
        table_set(&t, c++, "%s", m.rss_kb < 0 ? "NA" : fmt_kib(a, m.rss_kb));
        table_set(&t, c++, "%d", s->n);
        if (ref) {
            double ratio = k < w->ns ? m.median / ref_median : 1.0;
            if (isnan(ratio))
                table_set(&t, c++, "NA");
            else
                table_set(&t, c++, "%.3f×", ratio);
        }
        if (s->state != SESSION_OK && cli_use_color(stdout))
            table_set_red(&t, c++, session_state_name(s->state));
        else
            table_set(&t, c++, "%s", session_state_name(s->state));
    }
    char why[96];
    printf("%ld run%s each%s after %ld warm-up run%s (not counted); ± is the median absolute "
           "deviation%s\n",
           w->sess.rounds, w->sess.rounds == 1 ? "" : "s", harness_count_why(&w->h, &w->sess, why,
           sizeof why), w->warmup, w->warmup == 1 ? "" : "s",
           ref ? "; ratio is median over the reference's median" : "");
    table_print(&t, stdout, FMT_TEXT);
    table_free(&t);
    if (w->ctr)
        print_counters(w);
    char runs[96];
    snprintf(runs, sizeof runs, "the measured runs (%ld each)", w->sess.rounds);
    metrics_text(stdout, &w->mview, runs);
}

/* The CI formats (export_out.h): each series' median with median -/+ MAD, its run count, and
 * its ratio to the reference; a failed series is NA with its reason. */
static int export_ci(const struct wall *w, const struct cli_export *x, double ref_median)
{
    struct export_set set;
    struct err e = {0};
    if (export_init(&set, "tare wall", &e) < 0)
        return cli_fail("wall", &e);
    int rc = 0;
    for (int k = -1; k < w->ns && rc == 0; k++) {
        const struct session_series *s = k < 0 ? w->ref : &w->s[k];
        if (!s)
            continue;
        struct timing_summary m = timing_summarize(s);
        char why[512];
        struct export_rec r = {
            .bench = tgt(s)->name, .measure = "median_s", .value = m.median,
            .lo = m.median - m.mad, .hi = m.median + m.mad,
            .range_what = "median - MAD .. median + MAD", .runs = s->n,
            .state = s->state == SESSION_OK ? EXPORT_PASS : EXPORT_FAILED,
            .note = s->state == SESSION_OK ? NULL : session_failure_why(&s->fail, why, sizeof why),
        };
        rc = export_add(&set, &r, &e);
        if (rc == 0 && s->state == SESSION_OK)   /* the program's own counters */
            rc = cli_export_add_metrics(&set, tgt(s)->name, &s->metrics, &w->metrics, &e);
        if (rc == 0 && k >= 0 && w->ref && s->state == SESSION_OK) {
            /* NA when the reference failed (its own test case says why) */
            r = (struct export_rec){.bench = r.bench, .measure = "ratio", .lo = NAN, .hi = NAN,
                                    .value = m.median / ref_median, .runs = s->n,
                                    .state = isnan(ref_median) ? EXPORT_FAILED : EXPORT_PASS,
                                    .note = isnan(ref_median) ? "the reference failed" : NULL};
            rc = export_add(&set, &r, &e);
        }
    }
    int status = rc < 0 ? cli_fail("wall", &e) : cli_export_write("wall", x, &set);
    export_free(&set);
    return status;
}
/* What the runs say, in the format asked, and the exports; the exit status. */
static int report_all(struct wall *w, enum out_format fmt, struct hf_paths *exports,
                      struct cli_export *ci_export)
{
    struct err e = {0};
    double ref_median = w->ref ? timing_summarize(w->ref).median : NAN;
    bool any_failed = w->ref && w->ref->state != SESSION_OK;
    report_failure(w->ref, true);
    for (int k = 0; k < w->ns; k++) {
        report_failure(&w->s[k], false);
        any_failed |= w->s[k].state != SESSION_OK;
        note_cold(&w->s[k]);
    }
    if (w->ref)
        note_cold(w->ref);
    timing_relative_all(w->s, w->ns + (w->ref ? 1 : 0), w->ref, &w->rel, &w->base);
    if (metrics_of(w) < 0) {
        cli_error("wall", "out of memory");
        return EXIT_USAGE;
    }
    metrics_notes("wall", &w->mview);
    if (fmt == FMT_TEXT) {
        print_text(w, ref_median);
        print_relative(w);
    } else if (fmt == FMT_JSON) {
        print_json(w, ref_median);
    } else {
        print_machine(w, fmt, ref_median);
    }
    int status = any_failed ? EXIT_FAIL : EXIT_OK;
    if (hf_export_series(exports, &w->h, w->s, w->ns, w->ref, &e) < 0)
        status = cli_fail("wall", &e);
    if (cli_export_wanted(ci_export)) {
        int st = export_ci(w, ci_export, ref_median);
        if (st != EXIT_OK)
            status = st;
    }
    return status;
}

int cmd_wall(int argc, char **argv)
{
    struct wall w = {.runs = 7, .warmup = 1, .pin = -1};
    struct series_spec spec = {0};
    enum out_format fmt = FMT_TEXT;
    const char *reference = NULL;
    struct hf_paths exports = {0};
    struct cli_export ci_export = {0};
    bool counters = false;
    struct ctr_set ctr;
    struct err e = {0};
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);

    const char *metrics_from = NULL, *metrics_pattern = NULL;
    if (!series_spec_init(&spec, argc) || !harness_init_cli("wall", &w.h, argc))
        goto done;
    const struct opt opts[] = {
        OPT_GROUP("Options (hyperfine's letters, with hyperfine's meanings):"),
        MOPT_RUNS(&w.runs, &w.h.runs_given, " (default 7)"),
        MOPT_WARMUP(&w.warmup),
        OPT_STRING(0, "reference", &reference, "CMD",
                   "a reference measured alongside, runs interleaved; each\n"
                   "series gets the ratio of its median to the reference's"),
        MOPT_LANE(&spec),
        MOPT_NAME(&spec),
        MOPT_SHELL(&spec),
        MOPT_TIMEOUT(&w.timeout, ""),
        MOPT_PIN(&w.pin, ""),
        OPT_BOOL(0, "counters", &counters,
                 "also count cycles, instructions, faults (see tare stat) and\n"
                 "show their medians; 'unavailable' where the machine has none"),
        MOPT_IGNORE_FAILURE(&w.ignore_failure),
        MOPT_METRICS(&metrics_from, &metrics_pattern),
        OPT_FORMAT(&fmt, FMT_TEXT | FMT_TSV | FMT_JSON | FMT_CSV | FMT_MARKDOWN),
        MOPT_HF_EXPORTS(&exports),
        MOPT_HF_MARKUP_EXPORTS(&exports),
        MOPT_SHOW(),
        MOPT_CI_EXPORTS(&ci_export),
        OPT_HELP(),
        OPT_GROUP("Around the runs (hooks are split into words like the commands, or run with "
                  "--shell):"),
        MOPT_HOOKS(&w.h),
        MOPT_PARAMS(&w.h),
        OPT_GROUP("The run count by time, in place of --runs:"),
        MOPT_RUNS_BY_TIME(&w.h),
        OPT_END(),
    };
    struct opt_parser op = {
        .cmd = "wall", .usage = cmd_wall_usage, .argc = dd, .argv = argv,
        .about = "Time whole commands: warm-up runs discarded, then the median, spread and\n"
                 "resource use of N runs, beside a reference's when one is given.",
    };
    int rc = opt_parse(&op, opts);
    if (rc != 0) {
        status = opt_status(rc);
        goto done;
    }
    struct series *targets = NULL, ref_target;
    int nt = 0;
    if ((status = cli_metrics_spec("wall", cmd_wall_usage, metrics_from, metrics_pattern,
                                   &w.metrics)) != 0 ||
        (status = harness_finish("wall", cmd_wall_usage, &w.h, spec.shell)) != 0 ||
        (status = harness_count_finish("wall", cmd_wall_usage, &w.h, &w.runs)) != 0)
        goto done;
    if ((status = harness_targets("wall", cmd_wall_usage, &w.h, argc, argv, dd, &spec,
                                  &targets, &nt)) != 0)
        goto done;
    status = EXIT_USAGE;
    if (reference && series_from_string(reference, NULL, spec.shell, &ref_target, &e) < 0) {
        status = cli_fail("wall", &e);
        series_free(targets, nt);
        free(targets);
        goto done;
    }
    w.ns = nt;
    w.s = calloc(nt + 1, sizeof *w.s);
    if (!w.s) {
        cli_error("wall", "out of memory");
        goto free_all;
    }
    for (int k = 0; k < nt; k++)
        w.s[k] = (struct session_series){.name = targets[k].name, .argv = targets[k].argv,
                                         .env = targets[k].env, .user = &targets[k]};
    if (reference) {
        w.ref = &w.s[nt];
        *w.ref = (struct session_series){.name = ref_target.name, .argv = ref_target.argv,
                                         .env = ref_target.env, .user = &ref_target};
    }
    for (int k = 0; k < nt + (reference ? 1 : 0); k++)
        harness_apply(&w.h, &w.s[k], k < nt ? k % w.h.ncombo : 0);
    if (counters) {
        if (counters_open_beside("wall", &ctr, w.pin, &e) < 0) {
            status = cli_fail("wall", &e);
            goto free_all;
        }
        w.ctr = &ctr;
    }
    w.progress = cli_progress() && !w.h.show_output;
    cli_install_signal_handlers();

    if (measure(&w, &e) < 0) {
        status = cli_fail("wall", &e);
        goto free_all;
    }
    status = report_all(&w, fmt, &exports, &ci_export);

free_all:
    metrics_view_free(&w.mview);
    free(w.rel);
    if (w.ctr)
        ctr_set_free(w.ctr);
    session_free(&w.sess);
    free(w.s);
    if (reference)
        series_free(&ref_target, 1);
    series_free(targets, nt);
    free(targets);
done:
    metrics_spec_free(&w.metrics);
    harness_free(&w.h);
    series_spec_free(&spec);
    return status;
}
