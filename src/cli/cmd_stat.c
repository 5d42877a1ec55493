/* cmd_stat.c: `tare stat`, hardware and software counters of whole commands via perf_event_open. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/counters_out.h"
#include "cli/harness.h"
#include "core/engine/hyperfine_export.h"
#include "cli/measure_opts.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/engine/counters.h"
#include "core/util/json.h"
#include "core/util/proc.h"
#include "core/engine/session.h"

const char cmd_stat_usage[] =
    "tare stat [options] -- CMD [ARG...]\n"
    "tare stat [options] 'CMD 1' 'CMD 2' ...";

/* The series are the engine's (core/engine/session.h); each one's user pointer is its target. */
struct stat_run {
    long runs, warmup;
    double timeout;
    int pin;
    bool ignore_failure, progress;
    struct harness h;           /* hooks, stdin, stdout */
    struct ctr_set set;
    struct session_series *s;
    int ns;
    struct session_plan plan;
    struct session sess;
};

static const struct series *tgt(const struct session_series *s)
{
    return s->user;
}

/* Warm-up, then rounds of every series once, as tare wall does. */
static int measure(struct stat_run *st, struct err *e)
{
    st->plan = (struct session_plan){
        .series = st->s, .nseries = st->ns, .warmup = st->warmup, .runs = st->runs,
        .order = SESSION_ROUNDS, .timeout_s = st->timeout, .pin_cpu = st->pin,
        .ignore_failure = st->ignore_failure, .ctr = &st->set,
        .progress = st->progress ? harness_progress : NULL,
    };
    harness_plan(&st->h, &st->plan);
    int rc = session_init(&st->sess, &st->plan, e);
    if (rc == 0)
        rc = session_run(&st->sess, e);
    if (st->progress)
        fputs("\r\033[K", stderr);
    return rc;
}

static void report_failure(const struct session_series *s)
{
    if (s->state == SESSION_OK)
        return;
    char why[512];
    cli_error("stat", "'%s'%s %s%s", tgt(s)->name, s->fail.hook ? ":" : " failed:",
              session_failure_why(&s->fail, why, sizeof why),
              s->fail.tail[0] ? "; its stderr ended with:" : "");
    if (s->fail.tail[0])
        cli_print_stderr_tail(s->fail.tail);
}

/* Counter i of series s: its figures, or NA with the series' state when it failed. */
static struct ctr_summary summarize(const struct session_series *s, int i)
{
    if (s->state != SESSION_OK || s->n == 0)
        return (struct ctr_summary){NAN, NAN, NAN, 0, session_state_name(s->state)};
    return ctr_summarize(s->ctr, s->n, i);
}

static const char *const tsv_headers[] = {"name", "lane", "event", "median", "min", "max", "runs",
                                          "status"};

static void print_tsv(const struct stat_run *st)
{
    struct table t;
    table_init(&t, 8, tsv_headers, 0x7);
    char b[64];
    for (int k = 0; k < st->ns; k++) {
        const struct session_series *s = &st->s[k];
        for (int i = 0; i < st->set.n; i++) {
            struct ctr_summary c = summarize(s, i);
            table_row(&t);
            table_set(&t, 0, "%s", tgt(s)->name);
            table_set(&t, 1, "%s", tgt(s)->lane ? tgt(s)->lane : "-");
            table_set(&t, 2, "%s", st->set.c[i].label);
            table_set(&t, 3, "%s", fmt_num(b, c.median));
            table_set(&t, 4, "%s", fmt_num(b, c.min));
            table_set(&t, 5, "%s", fmt_num(b, c.max));
            table_set(&t, 6, "%d", c.runs);
            table_set(&t, 7, "%s", c.status);
        }
    }
    table_print(&t, stdout, FMT_TSV);
    table_free(&t);
}

static void print_json(const struct stat_run *st)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_ki64(&w, "runs", st->sess.rounds);
    jw_ki64(&w, "warmup", st->warmup);
    jw_kbool(&w, "kernel", st->set.kernel);
    jw_karray(&w, "pmus");
    for (int i = 0; i < st->set.pmus.n; i++) {
        jw_object_begin(&w);
        jw_kstring(&w, "name", st->set.pmus.pmu[i].name);
        jw_ku64(&w, "type", st->set.pmus.pmu[i].type);
        jw_end(&w);
    }
    jw_end(&w);
    jw_kstring(&w, "runs_stopped", session_stop_name(st->sess.stopped));
    jw_kdouble(&w, "min_time_s", st->h.min_time > 0 ? st->h.min_time : NAN);
    jw_key(&w, "series");
    jw_array_begin_lines(&w, "\n  ", "\n");
    for (int k = 0; k < st->ns; k++) {
        const struct session_series *s = &st->s[k];
        jw_object_begin(&w);
        jw_kstring(&w, "name", tgt(s)->name);
        jw_kstring(&w, "lane", tgt(s)->lane);
        jw_kstring(&w, "command", tgt(s)->command);
        jw_ki64(&w, "runs", s->n);
        jw_kstring(&w, "status", session_state_name(s->state));
        if (s->state != SESSION_OK) {
            char why[256];
            jw_kstring(&w, "error", session_failure_why(&s->fail, why, sizeof why));
        }
        jw_key(&w, "counters");
        jw_array_begin_lines(&w, "\n    ", NULL);
        for (int i = 0; i < st->set.n; i++) {
            const struct ctr_counter *c = &st->set.c[i];
            struct ctr_summary m = summarize(s, i);
            jw_object_begin(&w);
            jw_kstring(&w, "event", c->label);
            jw_kstring(&w, "unit", c->ev->unit);
            jw_kdouble(&w, "median", m.median);
            jw_kdouble(&w, "min", m.min);
            jw_kdouble(&w, "max", m.max);
            jw_ki64(&w, "runs", m.runs);
            jw_kstring(&w, "status", m.status);
            jw_kdouble(&w, "min_running", s->n ? ctr_min_running(s->ctr, s->n, i) : NAN);
            jw_karray(&w, "values");
            for (int r = 0; r < s->n; r++)
                jw_double(&w, s->ctr[r].value[i]);
            jw_end(&w);
            jw_end(&w);
        }
        jw_end(&w);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    out_json_end(&w, "stat");
}

static const char *on_pmu(const struct ctr_set *set, const struct ctr_counter *c)
{
    return c->pmu >= 0 && set->pmus.hybrid ? " on " : "";
}

static void print_text(const struct stat_run *st)
{
    static const char *const h[] = {"series", "event", "median", "min", "max", "runs", "status"};
    struct table t;
    table_init(&t, 7, h, 0x3);
    char a[64];
    for (int k = 0; k < st->ns; k++) {
        const struct session_series *s = &st->s[k];
        for (int i = 0; i < st->set.n; i++) {
            const struct ctr_counter *c = &st->set.c[i];
            struct ctr_summary m = summarize(s, i);
            table_row(&t);
            table_set(&t, 0, "%s", i == 0 ? tgt(s)->name : "");
            table_set(&t, 1, "%s", c->label);
            table_set(&t, 2, "%s", counters_fmt(a, c, m.median));
            table_set(&t, 3, "%s", counters_fmt(a, c, m.min));
            table_set(&t, 4, "%s", counters_fmt(a, c, m.max));
            table_set(&t, 5, "%d", m.runs);
            if (strcmp(m.status, "scaled") == 0)
                table_set(&t, 6, "scaled: multiplexed, ran %.0f%% of the time at least",
                          100 * ctr_min_running(s->ctr, s->n, i));
            else
                table_set(&t, 6, "%s", m.status);
        }
    }
    char why[96];
    printf("%ld run%s each%s after %ld warm-up run%s (not counted); medians; %s\n",
           st->sess.rounds, st->sess.rounds == 1 ? "" : "s",
           harness_count_why(&st->h, &st->sess, why, sizeof why), st->warmup,
           st->warmup == 1 ? "" : "s",
           st->set.kernel ? "user and kernel mode" : "user space only (context switches are "
           "always whole)");
    table_print(&t, stdout, FMT_TEXT);
    table_free(&t);
    /* The ratios people read first, from the medians, per core type. */
    for (int k = 0; k < st->ns; k++) {
        const struct session_series *s = &st->s[k];
        for (int i = 0; i < st->set.n; i++) {
            const struct ctr_counter *c = &st->set.c[i];
            int j;
            if (strcmp(c->ev->name, "instructions") == 0 &&
                (j = ctr_find_pair(&st->set, i, "cycles")) >= 0) {
                double ins = summarize(s, i).median, cyc = summarize(s, j).median;
                if (!isnan(ins) && cyc > 0)
                    printf("%s: %.2f instructions per cycle%s%s\n", out_vis(tgt(s)->name),
                           ins / cyc, on_pmu(&st->set, c), c->pmu >= 0 && st->set.pmus.hybrid ?
                           st->set.pmus.pmu[c->pmu].name : "");
            }
            if (strcmp(c->ev->name, "cache-misses") == 0 &&
                (j = ctr_find_pair(&st->set, i, "cache-references")) >= 0) {
                double mis = summarize(s, i).median, ref = summarize(s, j).median;
                if (!isnan(mis) && ref > 0)
                    printf("%s: %.1f%% of cache references missed%s%s\n", out_vis(tgt(s)->name),
                           100 * mis / ref, on_pmu(&st->set, c), c->pmu >= 0 &&
                           st->set.pmus.hybrid ? st->set.pmus.pmu[c->pmu].name : "");
            }
        }
    }
}

static void list_events(const struct ctr_set *set)
{
    int n;
    const struct ctr_event *t = ctr_events(&n);
    printf("%-18s %-9s %s\n", "event", "kind", "what");
    for (int i = 0; i < n; i++)
        printf("%-18s %-9s %s%s\n", t[i].name,
               t[i].source == CTR_HARDWARE ? "hardware" : "software", t[i].what,
               t[i].unit ? " (ns)" : "");
    printf("\ncore PMUs under %s: ", set->pmus.root);
    if (set->pmus.n == 0)
        printf("none (no hardware counters)\n");
    for (int i = 0; i < set->pmus.n; i++)
        printf("%s (type %u)%s", set->pmus.pmu[i].name, set->pmus.pmu[i].type,
               i + 1 < set->pmus.n ? ", " : "\n");
    if (set->paranoid != CTR_PARANOID_UNKNOWN)
        printf("perf_event_paranoid: %d (%s)\n", set->paranoid,
               ctr_paranoid_meaning(set->paranoid));
}

int cmd_stat(int argc, char **argv)
{
    struct stat_run st = {.runs = 7, .warmup = 1, .pin = -1};
    struct series_spec spec = {0};
    struct ctr_config cfg = {.pin_cpu = -1};
    enum out_format fmt = FMT_TEXT;
    bool list = false;
    struct hf_paths exports = {0};
    struct err e = {0};
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);
    struct series *targets = NULL;
    int nt = 0;

    if (!series_spec_init(&spec, argc) || !harness_init_cli("stat", &st.h, argc))
        goto done;
    const struct opt opts[] = {
        OPT_GROUP("Options (hyperfine's letters, with hyperfine's meanings):"),
        MOPT_RUNS(&st.runs, &st.h.runs_given, " (default 7)"),
        MOPT_WARMUP(&st.warmup),
        OPT_STRING('e', "event", &cfg.events, "LIST",
                   "events to count, comma-separated (default: cycles,\n"
                   "instructions,branch-misses,cache-references,cache-misses,\n"
                   "task-clock,page-faults,context-switches); PMU/EVENT names\n"
                   "one core type's counter on a hybrid (cpu_core/cycles)"),
        OPT_BOOL(0, "list-events", &list, "list the events and what this machine has, then exit"),
        MOPT_PIN(&st.pin, "; on a hybrid, count on its\ncore type's PMU only"),
        OPT_BOOL(0, "kernel", &cfg.kernel,
                 "count kernel mode too (needs perf_event_paranoid <= 1)"),
        MOPT_LANE(&spec),
        MOPT_NAME(&spec),
        MOPT_SHELL(&spec),
        MOPT_TIMEOUT(&st.timeout, ""),
        MOPT_IGNORE_FAILURE(&st.ignore_failure),
        OPT_FORMAT(&fmt, FMT_TEXT | FMT_TSV | FMT_JSON),
        MOPT_HF_EXPORTS(&exports),
        MOPT_HF_MARKUP_EXPORTS(&exports),
        MOPT_SHOW(),
        OPT_HELP(),
        OPT_GROUP("Around the runs (hooks are split into words like the commands, or run with "
                  "--shell):"),
        MOPT_HOOKS(&st.h),
        MOPT_PARAMS(&st.h),
        OPT_GROUP("The run count by time, in place of --runs:"),
        MOPT_RUNS_BY_TIME(&st.h),
        OPT_END(),
    };
    struct opt_parser op = {
        .cmd = "stat", .usage = cmd_stat_usage, .argc = dd, .argv = argv,
        .about = "Count what whole commands do with the kernel's counters (perf_event_open):\n"
                 "cycles, instructions, misses where the machine has them, and the software\n"
                 "events everywhere. Medians of N runs after a warm-up.",
    };
    int rc = opt_parse(&op, opts);
    if (rc != 0) {
        status = opt_status(rc);
        goto done;
    }
    cfg.pin_cpu = st.pin;
    if (list) {
        struct ctr_config all = {.events = "task-clock", .pin_cpu = -1};
        if (ctr_set_init(&st.set, &all, &e) < 0) {
            status = cli_fail("stat", &e);
            goto done;
        }
        list_events(&st.set);
        status = EXIT_OK;
        goto done;
    }
    if (ctr_set_init(&st.set, &cfg, &e) < 0) {
        status = cli_fail("stat", &e);
        goto done;
    }
    if ((status = harness_finish("stat", cmd_stat_usage, &st.h, spec.shell)) != 0 ||
        (status = harness_count_finish("stat", cmd_stat_usage, &st.h, &st.runs)) != 0)
        goto free_all;
    if ((status = harness_targets("stat", cmd_stat_usage, &st.h, argc, argv, dd, &spec,
                                  &targets, &nt)) != 0)
        goto free_all;
    status = EXIT_USAGE;
    /* Every counter asked for, or none: a row of zeros for a counter the machine lacks
     * would be a lie, and half a table invites one. */
    if (ctr_set_probe(&st.set) > 0 && !cfg.events)
        counters_drop_kernel_side("stat", &st.set);
    if (ctr_set_probe(&st.set) > 0) {
        counters_explain("stat", &st.set, false);
        status = EXIT_FAIL;
        goto free_all;
    }
    st.ns = nt;
    st.s = calloc(nt, sizeof *st.s);
    if (!st.s) {
        cli_error("stat", "out of memory");
        goto free_all;
    }
    for (int k = 0; k < nt; k++)
        st.s[k] = (struct session_series){.name = targets[k].name, .argv = targets[k].argv,
                                          .env = targets[k].env, .user = &targets[k]};
    for (int k = 0; k < nt; k++)
        harness_apply(&st.h, &st.s[k], k % st.h.ncombo);
    st.progress = cli_progress() && !st.h.show_output;
    cli_install_signal_handlers();
    if (measure(&st, &e) < 0) {
        status = cli_fail("stat", &e);
        goto free_all;
    }
    bool any_failed = false;
    for (int k = 0; k < st.ns; k++) {
        report_failure(&st.s[k]);
        any_failed |= st.s[k].state != SESSION_OK;
    }
    if (fmt == FMT_TEXT)
        print_text(&st);
    else if (fmt == FMT_JSON)
        print_json(&st);
    else
        print_tsv(&st);
    status = any_failed ? EXIT_FAIL : EXIT_OK;
    if (hf_export_series(&exports, &st.h, st.s, st.ns, NULL, &e) < 0)
        status = cli_fail("stat", &e);

free_all:
    session_free(&st.sess);
    free(st.s);
    series_free(targets, nt);
    free(targets);
    ctr_set_free(&st.set);
done:
    harness_free(&st.h);
    series_spec_free(&spec);
    return status;
}
