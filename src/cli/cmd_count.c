/* cmd_count.c: `tare count`, deterministic instructions, allocations, bytes and peak heap. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/count_out.h"
#include "cli/growth_out.h"
#include "cli/harness.h"
#include "cli/measure_opts.h"
#include "cli/export_out.h"
#include "cli/metrics_out.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/engine/count.h"
#include "core/engine/count_plan.h"
#include "core/util/json.h"

const char cmd_count_usage[] =
    "tare count [options] -- CMD [ARG...]\n"
    "tare count [options] 'CMD 1' 'CMD 2' ...";

static const char *status_name(enum count_status s)
{
    switch (s) {
    case COUNT_OK: return "ok";
    case COUNT_TIMEOUT: return "timeout";
    case COUNT_UNSTABLE: return "unstable";
    default: return "failed";
    }
}

static void print_json(const struct count_job *jobs, const struct series *t, int n,
                       const struct count_view *v, const struct metrics_view *mv,
                       const struct growth *g, int ng)
{
    const struct count_opts *co = v->co;
    struct jw w;
    jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_key(&w, "series");
    jw_array_begin_lines(&w, "\n  ", "\n");
    for (int i = 0; i < n; i++) {
        const struct count_job *j = &jobs[i];
        jw_object_begin(&w);
        jw_kstring(&w, "name", t[i].name);
        jw_kstring(&w, "lane", t[i].lane);
        jw_kstring(&w, "command", t[i].command);
        count_jw(&w, "instructions", j->instructions);
        count_jw(&w, "allocations", j->allocations);
        count_jw(&w, "bytes", j->bytes);
        count_jw(&w, "peak_bytes", j->peak_bytes);
        if (co->check_warm) {
            count_jw(&w, "instructions_pass2", j->instructions2);
            count_jw(&w, "allocations_pass2", j->allocations2);
        }
        if (v->region)
            count_region_jw(&w, j, v->region);
        if (v->subtract)
            count_net_jw(&w, j, v->subtract);
        count_vg_args_jw(&w, co);
        if (co->cache_sim)
            count_cache_jw(&w, j);
        jw_kstring(&w, "engine", count_engine_name(co->engine));
        metrics_jw(mv, i, &w);
        jw_kstring(&w, "status", status_name(j->status));
        if (j->status != COUNT_OK)
            jw_kstring(&w, "error", j->why);
        jw_end(&w);
    }
    jw_end(&w);
    growth_print_json(&w, g, ng);
    jw_end(&w);
    out_json_end(&w, "count");
}

static void print_table(const struct count_job *jobs, const struct series *t, int n,
                        enum out_format fmt, const struct count_view *v,
                        const struct metrics_view *mv)
{
    static const char *const tsv_h[] = {"name", "lane", "instructions", "allocations", "bytes",
                                        "peak_bytes"};
    static const char *const text_h[] = {"series", "instructions", "allocations", "bytes",
                                         "peak heap"};
    bool text = fmt == FMT_TEXT;
    const char **h = calloc(24 + mv->nnames + 1, sizeof *h);
    if (!h) {
        cli_error("count", "out of memory");
        return;
    }
    int nh = 0;
    for (; nh < (text ? 5 : 6); nh++)
        h[nh] = text ? text_h[nh] : tsv_h[nh];
    nh += count_extra_header(h + nh, text, v);
    if (!text)   /* the program's counters: a table of their own for people */
        nh += metrics_tsv_header(mv, h + nh);
    h[nh++] = "status";
    struct table tb;
    table_init(&tb, nh, h, text ? 0x1 : 0x3);
    char b[64];
    for (int i = 0; i < n; i++) {
        const struct count_job *j = &jobs[i];
        int c = 0;
        table_row(&tb);
        table_set(&tb, c++, "%s", t[i].name);
        if (!text)
            table_set(&tb, c++, "%s", t[i].lane ? t[i].lane : "-");
        table_set(&tb, c++, "%s", count_cell(b, j->instructions, text));
        table_set(&tb, c++, "%s", count_cell(b, j->allocations, text));
        table_set(&tb, c++, "%s", count_cell(b, j->bytes, text));
        table_set(&tb, c++, "%s", count_cell(b, j->peak_bytes, text));
        count_extra_cells(&tb, &c, j, text, v);
        if (!text)
            metrics_tsv_cells(mv, i, &tb, &c);
        if (text && j->status != COUNT_OK && cli_use_color(stdout))
            table_set_red(&tb, c++, status_name(j->status));
        else
            table_set(&tb, c++, "%s", status_name(j->status));
    }
    if (text && v->co->engine == COUNT_CACHEGRIND)
        printf("instructions (Ir) from one cachegrind run after a native warm-up; allocations,\n"
               "bytes and peak heap from a native run under the counting allocator\n");
    else if (text)
        printf("instructions (Ir) and allocations from one callgrind run after a native warm-up;\n"
               "bytes and peak heap from a native run under the counting allocator\n");
    if (text)
        count_extra_legend(stdout, v);
    table_print(&tb, stdout, fmt);
    table_free(&tb);
    free(h);
    if (text)
        metrics_text(stdout, mv, "its 2 native runs (warm-up, allocator's)");
}

/* For `git bisect run`: good, bad, and "cannot test this commit". */
enum { EXIT_BISECT_SKIP = 125 };

/* --fail-above/--fail-below: the metric of every series against the limits. Returns the
 * status git bisect run expects: 0 good, 1 bad, 125 when a series has no such count. */
static int fail_limits(const struct count_job *jobs, const struct series *t, int n,
                       const struct count_limits *l)
{
    int status = EXIT_OK;
    for (int i = 0; i < n; i++) {
        uint64_t v;
        int bits = count_limit_check(&jobs[i], l, &v);
        if (bits & COUNT_LIMIT_NA) {
            char b[300];
            const char *why = count_counter_why(&jobs[i], l->metric, b, sizeof b);
            cli_error("count", "'%s': no %s count%s%s: exit %d (skip, for git bisect run)",
                      t[i].name, l->metric, *why ? ": " : "", why, EXIT_BISECT_SKIP);
            return EXIT_BISECT_SKIP;
        }
        if (bits & COUNT_LIMIT_ABOVE)
            cli_error("count", "'%s': %s %llu is above %llu", t[i].name, l->metric,
                      (unsigned long long)v, (unsigned long long)l->above_n);
        if (bits & COUNT_LIMIT_BELOW)
            cli_error("count", "'%s': %s %llu is below %llu", t[i].name, l->metric,
                      (unsigned long long)v, (unsigned long long)l->below_n);
        if (bits)
            status = EXIT_FAIL;
    }
    return status;
}

/* --fail-above/--fail-below N: a whole number. */
static int opt_limit(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (!*arg || *end || errno || arg[0] == '-') {
        cli_usage_error(p->cmd, p->usage, "--%s wants a whole number, not '%s'", o->long_name,
                        arg);
        return -1;
    }
    *(uint64_t *)o->value = v;
    return 0;
}

/* --metric: one that count_job_metric knows. */
static int opt_metric(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    if (!count_metric_valid(arg)) {
        cli_usage_error(p->cmd, p->usage, "--metric wants instructions, allocations, bytes, "
                        "peak_bytes or a counter of the program's (NAME, metric.NAME), not '%s'",
                        arg);
        return -1;
    }
    *(const char **)o->value = arg;
    return 0;
}

/* --region marks: the only region given by name. */
static int opt_region(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    if (strcmp(arg, "marks") != 0) {
        cli_usage_error(p->cmd, p->usage, "--region takes 'marks', not '%s'", arg);
        return -1;
    }
    *(bool *)o->value = true;
    return 0;
}

/* The command line's state: what count_run is given, and what the command keeps. */
struct count_cli {
    struct count_opts co;
    struct count_limits lim;    /* --metric, --fail-above, --fail-below */
    struct harness h;
    struct series_spec spec;
    enum out_format fmt;
    struct cli_export ci_export;
    char **toggles, **vg_args;  /* co's, owned */
    char region[512];           /* the region's name, or "" */
    const char *subtract;
    bool engine_given;
    char valgrind[4096], alloc_lib[4096];
    struct err lib_err;         /* why the counting allocator is not there */
    struct series *targets;
    int nt, nall;               /* the series, then the baselines of --subtract (one a lane) */
    struct count_job *jobs;
    struct growth *growth;
    int ngrowth;
    const char *metrics_from, *metrics_pattern;
    struct metrics_spec mspec;  /* co.metrics */
    struct metrics_view mview;  /* the programs' own counters, as shown */
};

/* The options into c: 0, 1 after --help, -1 after the error (opt_parse). */
static int count_options(struct count_cli *c, char **argv, int dd)
{
    struct count_opts *co = &c->co;
    const struct opt opts[] = {
        OPT_GROUP("Options (hyperfine's letters, with hyperfine's meanings, where count has "
                  "the option):"),
        OPT_INT('j', "jobs", &co->jobs, "N", 1, 1024,
                "commands measured at once (default: the number of CPUs)"),
        MOPT_LANE(&c->spec),
        MOPT_NAME(&c->spec),
        MOPT_SHELL(&c->spec),
        MOPT_TIMEOUT(&co->timeout_s, "\n(default 1800: callgrind is slow)"),
        OPT_STRING(0, "keep-profile", &co->keep_dir, "DIR",
                   "keep each callgrind profile as DIR/NAME.callgrind.out"),
        OPT_STRING(0, "keep-stacks", &co->stacks_dir, "DIR",
                   "one more run under the allocator records stacks: kept as\n"
                   "DIR/NAME.stacks.tsv (tare alloc --from, --diff)"),
        OPT_BOOL(0, "check-warm", &co->check_warm,
                 "two callgrind passes; flag counts that differ by over 0.01%"),
        OPT_LIST(0, "toggle-collect", c->toggles, &co->ntoggle, "FUNC",
                 "count a region too: FUNC and what it calls (repeatable)"),
        OPT_CALLBACK(0, "region", &co->marks, "marks",
                     "count a region too: from TARE_COUNT_START to TARE_COUNT_STOP", opt_region),
        OPT_CALLBACK(0, "valgrind-arg", c->vg_args, "ARG",
                     "pass this option to valgrind too (repeatable)", count_opt_vg_arg,
                     .count = &co->nvg_args),
        OPT_BOOL(0, "cache-sim", &co->cache_sim,
                 "simulated L1 and LL cache misses, and estimated cycles"),
        OPT_STRING(0, "subtract", &c->subtract, "CMD",
                   "count CMD too (each lane); show the counts less CMD's"),
        OPT_CALLBACK(0, "engine", &co->engine, "ENGINE",
                     "callgrind (default) or cachegrind (faster: no call graph)",
                     count_opt_engine, .given = &c->engine_given),
        OPT_FORMAT(&c->fmt, FMT_TEXT | FMT_TSV | FMT_JSON),
        MOPT_METRICS(&c->metrics_from, &c->metrics_pattern),
        OPT_CALLBACK(0, "metric", &c->lim.metric, "METRIC",
                     "instructions (default), allocations, bytes, peak_bytes or a\n"
                     "counter of the program's, for --fail-above and --fail-below", opt_metric),
        OPT_CALLBACK(0, "fail-above", &c->lim.above_n, "N",
                     "exit 1 if the metric is above N, 0 if not, 125 if it could\n"
                     "not be counted (as 'git bisect run' expects)", opt_limit,
                     .given = &c->lim.above),
        OPT_CALLBACK(0, "fail-below", &c->lim.below_n, "N",
                     "the same, exit 1 if the metric is below N", opt_limit,
                     .given = &c->lim.below),
        MOPT_CI_EXPORTS(&c->ci_export),
        OPT_HELP(),
        OPT_GROUP("Around the runs (natively: never under valgrind or the counting allocator; "
                  "with --jobs\nabove 1 the series and their hooks run side by side):"),
        MOPT_HOOKS(&c->h),
        MOPT_PARAMS(&c->h),
        OPT_END(),
    };
    struct opt_parser op = {
        .cmd = "count", .usage = cmd_count_usage, .argc = dd, .argv = argv,
        .about = "Deterministic counts: instructions and allocations from one callgrind run\n"
                 "after a native warm-up, bytes and peak heap from the counting allocator.\n"
                 "Counts do not depend on load, so commands run side by side (-j).",
    };
    return opt_parse(&op, opts);
}

/* The options that go together, the series (with --subtract's baselines): 0, or the exit
 * status after saying why. */
static int count_plan(struct count_cli *c, int argc, char **argv, int dd)
{
    struct count_opts *co = &c->co;
    bool limits = c->lim.above || c->lim.below;
    co->toggle = c->toggles;
    co->vg_args = c->vg_args;
    if (!count_engine_ok("count", cmd_count_usage, co))
        return EXIT_USAGE;
    int ms = cli_metrics_spec("count", cmd_count_usage, c->metrics_from, c->metrics_pattern,
                              &c->mspec);
    if (ms != EXIT_OK)
        return ms;
    co->metrics = &c->mspec;
    if (co->marks && co->ntoggle)
        return cli_usage_error("count", cmd_count_usage, "--region marks and --toggle-collect "
                               "are two ways to say the region: give one");
    if (co->marks || co->ntoggle)
        count_region_name(c->region, sizeof c->region, co);
    int status = harness_finish("count", cmd_count_usage, &c->h, c->spec.shell);
    if (status != 0)
        return status;
    if ((status = harness_targets("count", cmd_count_usage, &c->h, argc, argv, dd, &c->spec,
                                  &c->targets, &c->nt)) != 0) {
        /* A command this revision lacks (not built) is a commit git bisect should skip. */
        if (limits && status == EXIT_USAGE && (optind < dd || dd + 1 < argc))
            status = EXIT_BISECT_SKIP;
        return status;
    }
    co->show_output = c->h.show_output;
    co->stdin_path = c->h.input;
    co->stdout_path = c->h.output_file;
    co->stdout_pipe = c->h.output_pipe;
    c->nall = c->nt;
    const char *pvar = c->subtract ? harness_param_in(&c->h, c->subtract) : NULL;
    if (pvar)
        return cli_usage_error("count", cmd_count_usage, "--subtract '%s': parameters are not "
                               "put in the baseline (it is counted once a lane); write it "
                               "without {%s}", c->subtract, pvar);
    struct err e = {0};
    if (c->subtract &&
        count_add_baselines(&c->spec, c->subtract, &c->targets, &c->nall, &e) < 0) {
        if (e.kind != ERR_SYSTEM)
            err_prefix(&e, "--subtract");
        return cli_fail("count", &e);
    }
    return 0;
}

/* valgrind, the counting allocator (bytes and peak heap NA without it, said once after),
 * --keep-profile's directory, the jobs: 0, or the exit status after saying why. */
static int count_tools(struct count_cli *c)
{
    struct err e = {0};
    if (count_find_valgrind(c->valgrind, sizeof c->valgrind, &e) < 0) {
        int status = cli_fail("count", &e);
        return c->lim.above || c->lim.below ? EXIT_BISECT_SKIP : status;
    }
    c->co.valgrind = c->valgrind;
    if (cli_find_alloc_lib(c->alloc_lib, sizeof c->alloc_lib, &c->lib_err) == 0)
        c->co.alloc_lib = c->alloc_lib;
    if (c->co.keep_dir && mkdir(c->co.keep_dir, 0777) < 0 && errno != EEXIST) {
        cli_error("count", "cannot make the profile directory '%s': %s", c->co.keep_dir,
                  strerror(errno));
        return EXIT_USAGE;
    }
    if (c->co.stacks_dir && (!c->co.alloc_lib ||
                             (mkdir(c->co.stacks_dir, 0777) < 0 && errno != EEXIST))) {
        cli_error("count", "--keep-stacks '%s': %s", c->co.stacks_dir,
                  c->co.alloc_lib ? strerror(errno) : c->lib_err.msg);
        return EXIT_USAGE;
    }
    if (!(c->jobs = count_jobs_make(c->targets, c->nall, c->nt, &c->h))) {
        cli_error("count", "out of memory");
        return EXIT_USAGE;
    }
    return 0;
}

/* The notes and failures of the jobs, on stderr; whether any failed. */
static bool count_report_jobs(const struct count_cli *c)
{
    bool any_failed = false;
    if (!c->co.alloc_lib)
        cli_error("count", "note: %s are NA: %s", c->co.engine == COUNT_CACHEGRIND
                  ? "allocations, bytes and peak heap" : "bytes and peak heap", c->lib_err.msg);
    for (int i = 0; i < c->nall; i++) {
        const struct count_job *j = &c->jobs[i];
        const char *name = c->targets[i].name;
        if (j->note[0])
            cli_error("count", "note: '%s': %s", name, j->note);
        if (j->region_why[0])
            cli_error("count", "note: '%s': region NA: %s", name, j->region_why);
        if (j->status == COUNT_OK)
            continue;
        any_failed = true;
        if (j->status == COUNT_UNSTABLE) {
            cli_error("count", "'%s' is %s", name, j->why);
            continue;
        }
        cli_error("count", "'%s' failed: %s%s", name, j->why,
                  j->tail[0] ? "; its stderr ended with:" : "");
        if (j->tail[0])
            cli_print_stderr_tail(j->tail);
    }
    return any_failed;
}

/* The CI formats (export_out.h) of the measured series: EXIT_OK, or the exit status of the
 * first file that could not be written. */
static int count_export(const struct count_cli *c)
{
    struct export_set set;
    struct err e = {0};
    int st = export_init(&set, "tare count", &e);
    for (int i = 0; i < c->nt && st == 0; i++) {
        const char *name = c->targets[i].name;
        st = cli_export_add_counts(&set, name, &c->jobs[i], c->co.check_warm, &e);
        if (st == 0 && c->co.cache_sim)
            st = cli_export_add_cache(&set, name, &c->jobs[i], &e);
        if (st == 0 && c->subtract)
            st = cli_export_add_net(&set, name, &c->jobs[i], &e);
        if (st == 0)
            st = cli_export_add_metrics(&set, name, c->mview.ms[i], c->co.metrics, &e);
    }
    st = st < 0 ? cli_fail("count", &e) : cli_export_write("count", &c->ci_export, &set);
    export_free(&set);
    return st;
}

/* Counts every job and shows them: the exit status. */
static int count_measure(struct count_cli *c)
{
    struct err e = {0};
    bool limits = c->lim.above || c->lim.below;
    struct count_progress ps = {.on = cli_progress() && !c->co.show_output,
                                .t0 = proc_now()};
    c->co.progress = count_progress_print;
    c->co.ctx = &ps;
    cli_install_signal_handlers();
    int rc = count_run(c->jobs, c->nall, &c->co, &e);
    if (ps.on)
        fputs("\r\033[K", stderr);
    if (rc < 0) {
        int status = cli_fail("count", &e);
        return limits && e.kind != ERR_INTERRUPTED ? EXIT_BISECT_SKIP : status;
    }
    bool any_failed = count_report_jobs(c);
    count_subtract_lanes(c->jobs, c->nt, c->nall, c->h.ncombo);
    if (growth_fit(&c->h, c->jobs, c->targets, c->nt, &c->growth, &c->ngrowth) < 0) {
        cli_error("count", "out of memory");
        return EXIT_USAGE;
    }
    struct count_view view = {.co = &c->co, .region = c->region[0] ? c->region : NULL,
                              .subtract = c->subtract, .engine_column = c->engine_given};
    const char **names = calloc(c->nt + 1, sizeof *names);
    for (int i = 0; names && i < c->nt; i++)
        names[i] = c->targets[i].name;
    int mrc = names ? metrics_view_count(&c->mview, c->co.metrics, c->jobs, names, c->nt) : -1;
    free(names);   /* the view keeps the names, not the array */
    if (mrc < 0) {
        cli_error("count", "out of memory");
        return EXIT_USAGE;
    }
    metrics_notes("count", &c->mview);
    if (c->fmt == FMT_JSON) {
        print_json(c->jobs, c->targets, c->nt, &view, &c->mview, c->growth, c->ngrowth);
    } else {
        print_table(c->jobs, c->targets, c->nt, c->fmt, &view, &c->mview);
        if (c->fmt == FMT_TEXT)
            growth_print_text(stdout, c->growth, c->ngrowth);
        else
            growth_print_table(stdout, c->growth, c->ngrowth, c->fmt);
    }
    int status = any_failed ? EXIT_FAIL : EXIT_OK;
    if (limits)
        status = fail_limits(c->jobs, c->targets, c->nt, &c->lim);
    if (cli_export_wanted(&c->ci_export)) {
        int st = count_export(c);
        if (st != EXIT_OK)
            status = st;
    }
    return status;
}

int cmd_count(int argc, char **argv)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct count_cli *c = calloc(1, sizeof *c);
    if (!c) {
        cli_error("count", "out of memory");
        return EXIT_USAGE;
    }
    c->co = (struct count_opts){.jobs = ncpu > 0 ? (int)ncpu : 1, .timeout_s = COUNT_TIMEOUT_S};
    c->lim.metric = "instructions";
    c->fmt = FMT_TEXT;
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);
    c->toggles = calloc(argc + 1, sizeof *c->toggles);
    c->vg_args = calloc(argc + 1, sizeof *c->vg_args);
    if (c->toggles && c->vg_args && series_spec_init(&c->spec, argc) &&
        harness_init_cli("count", &c->h, argc)) {
        int rc = count_options(c, argv, dd);
        status = rc != 0 ? opt_status(rc) : count_plan(c, argc, argv, dd);
        if (rc == 0 && status == 0 && (status = count_tools(c)) == 0)
            status = count_measure(c);
    }
    growth_free(c->growth, c->ngrowth);
    harness_free(&c->h);
    free(c->toggles);
    free(c->vg_args);
    for (int i = 0; c->jobs && i < c->nall; i++)
        count_job_free(&c->jobs[i]);
    free(c->jobs);
    metrics_view_free(&c->mview);
    metrics_spec_free(&c->mspec);
    series_free(c->targets, c->nall > c->nt ? c->nall : c->nt);
    free(c->targets);
    series_spec_free(&c->spec);
    free(c);
    return status;
}
