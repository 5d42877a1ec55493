/* cmd_ab.c: `tare ab`, paired interleaved A/B with an interval and an honest verdict. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/ab_out.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/count_out.h"
#include "cli/counters_out.h"
#include "cli/export_out.h"
#include "cli/harness.h"
#include "core/engine/hyperfine_export.h"
#include "cli/measure_opts.h"
#include "cli/metrics_out.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/engine/ab.h"
#include "core/engine/count.h"
#include "core/engine/counters.h"
#include "core/git/gitwt.h"
#include "core/util/json.h"
#include "core/util/proc.h"
#include "core/engine/session.h"
#include "core/util/stats.h"

const char cmd_ab_usage[] =
    "tare ab [options] 'CMD A' 'CMD B'\n"
    "tare ab [options] [--base REV] [--build 'BUILD CMD'] -- CMD [ARG...]";

/* The command line's state: the options for ab_run, and what the command itself keeps. */
struct ab_cli {
    struct ab_opts o;
    bool fail_if_slower;
    bool counters;          /* --counters */
    struct ctr_set ctr;
    struct harness h;       /* hooks, stdin, stdout of the timed runs */
    char **vg_args;         /* o.copt.vg_args, owned */
    char valgrind[4096], alloc_lib[4096];
    char alloc_why[1024];   /* why bytes and peak heap are NA, or "" */
    /* The two sides' targets, and the worktree of git mode. */
    struct series *targets, *targets_b;
    int nt, nt_b;
    struct series *ta, *tb;
    struct gitwt git;
    /* What the options left for the plan. */
    struct series_spec spec;
    char *names[2];         /* room for two --name values */
    const char *base, *build;
    bool max_pairs_set, count_runs_set, engine_set;
    enum out_format fmt;
    struct hf_paths exports;
    struct cli_export ci_export;
    const char *metrics_from, *metrics_pattern;
    struct metrics_spec mspec;   /* o.metrics and o.copt.metrics */
};

/* The CI formats (export_out.h): each side's median (median -/+ MAD, pairs as runs), B/A with
 * its interval (failing as a regression with --fail-if-slower when slower), and with --count
 * each side's first pass. failed: the A/B stopped on a failure (why); every value NA. */
static int export_ci(const struct ab_cli *c, const struct ab_result *r, const char *failed)
{
    struct export_set set;
    struct err e = {0};
    int rc = export_init(&set, "tare ab", &e);
    char why[512], ratio_name[1024], note[256];
    for (int k = 0; k < 2 && rc == 0; k++) {
        const struct session_series *x = &r->series[k];
        const char *name = c->o.side[k].name;
        bool bad = x->name && x->state != SESSION_OK;
        double med = failed ? NAN : stats_median(x->wall_s, r->n);
        double mad = failed ? NAN : stats_mad(x->wall_s, r->n);
        struct export_rec rec = {
            .bench = name, .measure = "median_s", .value = med, .lo = med - mad,
            .hi = med + mad, .range_what = "median - MAD .. median + MAD", .runs = r->n,
            .state = !failed ? EXPORT_PASS : bad ? EXPORT_FAILED : EXPORT_SKIPPED,
            .note = !failed ? NULL : bad ? session_failure_why(&x->fail, why, sizeof why)
                                         : "not measured: the other side failed"};
        rc = export_add(&set, &rec, &e);
        if (rc == 0 && !failed && r->counted)
            rc = cli_export_add_counts(&set, name, &r->cjob[k * r->count_runs], false, &e);
        /* the program's own counters: that first pass's, or the timed runs' */
        const struct count_job *j = r->counted ? &r->cjob[k * r->count_runs] : NULL;
        if (rc == 0 && !failed && (!j || j->status == COUNT_OK))
            rc = cli_export_add_metrics(&set, name, j ? &j->metrics : &x->metrics,
                                        c->o.metrics, &e);
    }
    snprintf(ratio_name, sizeof ratio_name, "%s / %s", c->o.side[1].name, c->o.side[0].name);
    const struct stats_ab *w = &r->wall;
    bool slower = !failed && w->verdict == STATS_SLOWER;
    snprintf(note, sizeof note, "%s", failed ? failed : stats_verdict_name(w->verdict));
    struct export_rec rec = {
        .bench = ratio_name, .measure = "ratio", .value = failed ? NAN : w->ratio,
        .lo = failed ? NAN : w->ci_low, .hi = failed ? NAN : w->ci_high,
        .range_what = "the Hodges-Lehmann interval", .runs = r->n,
        .state = failed ? EXPORT_FAILED
                 : slower && c->fail_if_slower ? EXPORT_REGRESSED : EXPORT_PASS,
        .note = note};
    if (rc == 0)
        rc = export_add(&set, &rec, &e);
    int status = rc < 0 ? cli_fail("ab", &e) : cli_export_write("ab", &c->ci_export, &set);
    export_free(&set);
    return status;
}

/* Two command strings, A and B: their targets. 0, or the exit status after saying why. */
static int plan_strings(struct ab_cli *c, char **argv, int dd, struct err *e)
{
    struct series_spec *spec = &c->spec;
    if (c->base || c->build)
        return cli_usage_error("ab", cmd_ab_usage, "%s takes the command after '--'",
                               c->base ? "--base" : "--build");
    if (dd - optind != 2)
        return cli_usage_error("ab", cmd_ab_usage, "want two commands, A and B (got %d)",
                               dd - optind);
    /* Unnamed, each side is called by its command: two runs of one program differ only in
     * their arguments. */
    for (int i = spec->nnames; i < 2; i++)
        c->names[i] = argv[optind + i];
    if (spec->nnames == 0 && strcmp(c->names[0], c->names[1]) == 0) {
        c->names[0] = "A";         /* the same command twice: an A/A run */
        c->names[1] = "B";
    }
    spec->nnames = 2;
    if (series_build(spec, argv + optind, 2, false, &c->targets, &c->nt, e) < 0)
        return cli_fail("ab", e);
    c->ta = &c->targets[0];
    c->tb = &c->targets[1];
    return 0;
}

/* One command after "--": B in the working tree, A in a worktree of --base. 0, or the exit
 * status after saying why. */
static int plan_git(struct ab_cli *c, int argc, char **argv, int dd, struct err *e)
{
    struct series_spec *spec = &c->spec;
    if (argc - dd - 1 <= 0)
        return cli_usage_error("ab", cmd_ab_usage, "no command after '--'");
    if (spec->shell)
        return cli_usage_error("ab", cmd_ab_usage,
                               "--shell takes command strings, not a command after '--'");
    /* The same command on both sides, in the two trees, named after them. */
    struct series_spec one = {0};
    char **cmdv = argv + dd + 1;
    int cmdc = argc - dd - 1;
    if (series_build(&one, cmdv, cmdc, true, &c->targets, &c->nt, e) < 0 ||
        series_build(&one, cmdv, cmdc, true, &c->targets_b, &c->nt_b, e) < 0)
        return cli_fail("ab", e);
    struct series *ta = &c->targets[0], *tb = &c->targets_b[0];
    free(ta->name);
    free(tb->name);
    ta->name = tb->name = NULL;
    c->ta = ta;
    c->tb = tb;
    if (gitwt_open(&c->git, c->base ? c->base : "HEAD", e) < 0)
        return cli_fail("ab", e);
    if (spec->nnames > 0)
        ta->name = strdup(c->names[0]);
    else if (asprintf(&ta->name, "%s (%.10s)", c->git.rev, c->git.commit) < 0)
        ta->name = NULL;
    tb->name = strdup(spec->nnames > 1 ? c->names[1] : "working tree");
    if (!ta->name || !tb->name) {
        cli_error("ab", "out of memory");
        return EXIT_USAGE;
    }
    c->o.git = &c->git;
    c->o.build = c->build;
    return 0;
}

/* The options' combinations checked, then the two sides. 0, or the exit status after saying
 * why. */
static int ab_plan(struct ab_cli *c, int argc, char **argv, int dd, struct err *e)
{
    struct ab_opts *o = &c->o;
    bool dashdash = dd < argc;
    if (dashdash && optind < dd)
        return cli_usage_error("ab", cmd_ab_usage, "give two command strings, or one command "
                               "after '--' with --base, not both ('%s' comes before '--')",
                               argv[optind]);
    if ((c->max_pairs_set || o->max_time_s > 0) && !o->until)
        return cli_usage_error("ab", cmd_ab_usage,
                               "--max-pairs and --max-time only apply with --until-decided");
    if (c->count_runs_set && !o->count)
        return cli_usage_error("ab", cmd_ab_usage, "--count-runs only applies with --count");
    const char *count_only = o->copt.cache_sim ? "--cache-sim" : c->engine_set ? "--engine"
                             : o->copt.nvg_args ? "--valgrind-arg" : NULL;
    if (count_only && !o->count)
        return cli_usage_error("ab", cmd_ab_usage, "%s only applies with --count", count_only);
    if (o->until && o->max_pairs < o->pairs)
        return cli_usage_error("ab", cmd_ab_usage, "--max-pairs %ld is fewer than --pairs %ld",
                               o->max_pairs, o->pairs);
    int st = dashdash ? plan_git(c, argc, argv, dd, e) : plan_strings(c, argv, dd, e);
    if (st != 0)
        return st;
    const struct series *t[2] = {c->ta, c->tb};
    for (int k = 0; k < 2; k++)
        o->side[k] = (struct ab_side){.name = t[k]->name, .command = t[k]->command,
                                      .argv = t[k]->argv, .env = t[k]->env};
    return 0;
}

/* Valgrind (--count) and the counters (--counters), found before any run; the hooks, stdin
 * and stdout of the harness. 0, or the exit status after saying why. */
static int ab_tools(struct ab_cli *c, struct err *e)
{
    struct ab_opts *o = &c->o;
    if (o->count) {
        /* Before any run: without valgrind there is nothing to count with. */
        if (count_find_valgrind(c->valgrind, sizeof c->valgrind, e) < 0)
            return cli_fail("ab", e);
        struct err lib_err = {0};
        if (cli_find_alloc_lib(c->alloc_lib, sizeof c->alloc_lib, &lib_err) < 0)
            snprintf(c->alloc_why, sizeof c->alloc_why, "%s",
                     lib_err.msg[0] ? lib_err.msg : "?");
        o->copt.valgrind = c->valgrind;
        o->copt.alloc_lib = c->alloc_why[0] ? NULL : c->alloc_lib;
    }
    if (c->counters) {
        if (counters_open_beside("ab", &c->ctr, o->pin_cpu, e) < 0)
            return cli_fail("ab", e);
        o->ctr = &c->ctr;
    }
    struct session_cmds hooks[HARNESS_NHOOKS];
    harness_cmds(&c->h, 0, hooks);
    o->setup = hooks[HARNESS_SETUP];
    o->prepare = hooks[HARNESS_PREPARE];
    o->conclude = hooks[HARNESS_CONCLUDE];
    o->cleanup = hooks[HARNESS_CLEANUP];
    struct session_plan p = {0};
    harness_plan(&c->h, &p);
    o->stdin_path = p.stdin_path;
    o->stdout_path = p.stdout_path;
    o->show_output = p.show_output;
    if (cli_progress() && !o->show_output)
        o->progress = ab_progress_print;
    return 0;
}

/* After ab_run: the verdict printed, the CI and hyperfine files written; the exit status (1
 * when a side's counting failed, 3 with --fail-if-slower when slower). */
static int ab_report(const struct ab_cli *c, const struct ab_result *r)
{
    bool count_failed = r->counted && ab_report_counts(r, c->alloc_why);
    if (c->fmt == FMT_JSON) {
        struct jw w;
        jw_init(&w, stdout);
        ab_print_json(&w, r);
        out_json_end(&w, "ab");
    } else
        ab_print_text(r);
    int status = count_failed ? EXIT_FAIL
                 : c->fail_if_slower && r->wall.verdict == STATS_SLOWER ? EXIT_REGRESSION
                                                                         : EXIT_OK;
    if (cli_export_wanted(&c->ci_export)) {
        int st = export_ci(c, r, NULL);
        if (st != EXIT_OK)
            status = st;
    }
    /* hyperfine's exports of A and B, B's "Relative" against A */
    const enum hf_format hf_fmt[5] = {HF_JSON, HF_CSV, HF_MARKDOWN, HF_ASCIIDOC, HF_ORGMODE};
    const char *hf_path[5] = {c->exports.json, c->exports.csv, c->exports.markdown,
                              c->exports.asciidoc, c->exports.orgmode};
    struct hf_result hf[2] = {{.command = c->o.side[0].command, .s = &r->series[0]},
                              {.command = c->o.side[1].command, .s = &r->series[1]}};
    struct err e = {0};
    for (int i = 0; i < 5; i++)
        if (hf_path[i] && hf_export(hf_path[i], hf_fmt[i], hf, 2, 0, &e) < 0)
            return cli_fail("ab", &e);
    return status;
}

/* ab_run with the failure said: the exit status. */
static int ab_measure(struct ab_cli *c)
{
    struct ab_result r;
    struct err e = {0};
    /* Before the worktree exists, so an interrupt from here on still reaches the cleanup. */
    cli_install_signal_handlers();
    int rc = ab_run(&c->o, &r, &e);
    if (r.rm_error[0])
        cli_error("ab", "%s", r.rm_error);
    int status;
    if (rc == 0) {
        status = ab_report(c, &r);
    } else {
        status = e.msg[0] ? cli_fail("ab", &e) : cli_exit_for(&e);
        ab_report_failure(&r);
        if (r.hint[0])
            cli_error("ab", "hint: %s", r.hint);
        if (cli_export_wanted(&c->ci_export))
            export_ci(c, &r, r.build_failed || !e.msg[0] ? "the measurement failed" : e.msg);
    }
    ab_result_free(&r);
    return status;
}

/* --threshold PCT: "1%" or "0.5", under 100. */
static int opt_threshold(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    char *end;
    double pct = strtod(arg, &end);
    if (end != arg && *end == '%')
        end++;
    if (end == arg || *end || !(pct >= 0 && pct < 100)) {
        cli_usage_error(p->cmd, p->usage, "bad value '%s' for --threshold: want a "
                        "percentage from 0 to under 100, such as 1%% or 0.5", arg);
        return -1;
    }
    *(double *)o->value = pct / 100;
    return 0;
}

/* -n, --name: A's, then B's. */
static int opt_side_name(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct ab_cli *c = o->value;
    if (c->spec.nnames == 2) {
        cli_usage_error(p->cmd, p->usage, "--name given more than twice (A, then B)");
        return -1;
    }
    c->names[c->spec.nnames++] = (char *)arg;
    return 0;
}

/* The options into c: 0, 1 after --help, -1 after the error (opt_parse). */
static int ab_options(struct ab_cli *c, char **argv, int dd)
{
    struct ab_opts *o = &c->o;
    const struct opt opts[] = {
        OPT_GROUP("Options (hyperfine's letters, with hyperfine's meanings):"),
        OPT_LONG('r', "pairs", &o->pairs, "N", 1, 100000,
                 "pairs of runs, that is runs of each (default 20; at least 6\n"
                 "for a 95% interval; --runs is the same)", .alias = "runs"),
        MOPT_WARMUP(&o->warmup),
        OPT_CALLBACK(0, "threshold", &o->threshold, "PCT",
                     "the least change called faster or slower (default 1%)", opt_threshold),
        OPT_BOOL(0, "until-decided", &o->until,
                 "add pairs until the verdict is decided or the interval lies\n"
                 "within the threshold (looks at N, 2N, 4N, ... pairs)"),
        OPT_LONG(0, "max-pairs", &o->max_pairs, "N", 1, 100000,
                 "with --until-decided: stop at N pairs (default 200)",
                 .given = &c->max_pairs_set),
        OPT_SECONDS(0, "max-time", &o->max_time_s, "SECONDS",
                    "with --until-decided: stop after this long"),
        OPT_BOOL(0, "fail-if-slower", &c->fail_if_slower,
                 "exit 3 when the verdict is slower (for CI)"),
        OPT_BOOL(0, "count", &o->count,
                 "also count instructions, allocations, bytes and peak heap\n"
                 "of each side (callgrind passes, as tare count does)"),
        OPT_LONG(0, "count-runs", &o->count_runs, "N", 1, 100,
                 "with --count: passes of each side, A and B in rounds a second\n"
                 "apart (default 2; counts that vary take 6; 1: no verdict)",
                 .given = &c->count_runs_set),
        OPT_BOOL(0, "cache-sim", &o->copt.cache_sim,
                 "with --count: simulated L1 and LL cache misses, and estimated\n"
                 "cycles, of each side, with a verdict on the misses"),
        OPT_CALLBACK(0, "engine", &o->copt.engine, "ENGINE",
                     "with --count: callgrind (default) or cachegrind (faster)",
                     count_opt_engine, .given = &c->engine_set),
        OPT_CALLBACK(0, "valgrind-arg", c->vg_args, "ARG",
                     "with --count: pass this option to valgrind too (repeatable)",
                     count_opt_vg_arg, .count = &o->copt.nvg_args),
        OPT_BOOL(0, "counters", &c->counters,
                 "also count cycles, instructions, faults (see tare stat)\n"
                 "in every measured run; medians beside the times"),
        MOPT_METRICS(&c->metrics_from, &c->metrics_pattern),
        OPT_STRING(0, "base", &c->base, "REV",
                   "A is REV built in a temporary git worktree, B the working\n"
                   "tree; CMD comes after '--' (default REV: HEAD)"),
        OPT_STRING(0, "build", &c->build, "'BUILD CMD'",
                   "with --base: build each tree first (run with /bin/sh -c)"),
        OPT_CALLBACK('n', "command-name", c, "NAME",
                     "name A, then B (default: the command; --name is the same)",
                     opt_side_name, .alias = "name"),
        MOPT_SHELL(&c->spec),
        MOPT_TIMEOUT(&o->timeout_s, ""),
        MOPT_PIN(&o->pin_cpu, ""),
        OPT_FORMAT(&c->fmt, FMT_TEXT | FMT_JSON),
        MOPT_HF_EXPORTS(&c->exports),
        MOPT_HF_MARKUP_EXPORTS(&c->exports),
        MOPT_SHOW(),
        MOPT_CI_EXPORTS(&c->ci_export),
        OPT_HELP(),
        OPT_GROUP("Around the timed runs (hooks are split into words like the commands, or run "
                  "with\n--shell; --count's pass runs none of them):"),
        MOPT_HOOKS(&c->h),
        OPT_END(),
    };
    struct opt_parser op = {
        .cmd = "ab", .usage = cmd_ab_usage, .argc = dd, .argv = argv,
        .about = "Paired, interleaved A/B of two commands, or of a git revision against the\n"
                 "working tree: the ratio B/A with a confidence interval, and a verdict of\n"
                 "faster, slower or same (no detectable change).",
    };
    return opt_parse(&op, opts);
}

int cmd_ab(int argc, char **argv)
{
    struct ab_cli c = {.fmt = FMT_TEXT};
    ab_opts_init(&c.o);
    struct err e = {0};
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);
    c.spec.names = c.names;
    c.o.copt.vg_args = c.vg_args = calloc((size_t)argc + 1, sizeof *c.vg_args);
    if (!c.vg_args || !harness_init_cli("ab", &c.h, argc))
        goto done;
    int rc = ab_options(&c, argv, dd);
    if (rc != 0) {
        status = opt_status(rc);
        goto done;
    }
    if ((status = cli_metrics_spec("ab", cmd_ab_usage, c.metrics_from, c.metrics_pattern,
                                   &c.mspec)) != 0)
        goto done;
    c.o.metrics = c.o.copt.metrics = &c.mspec;
    if ((status = ab_plan(&c, argc, argv, dd, &e)) != 0 ||
        (status = harness_finish("ab", cmd_ab_usage, &c.h, c.spec.shell)) != 0 ||
        (status = ab_tools(&c, &e)) != 0)
        goto done;
    status = ab_measure(&c);
done:
    series_free(c.targets, c.nt);
    free(c.targets);
    series_free(c.targets_b, c.nt_b);
    free(c.targets_b);
    free(c.vg_args);
    if (c.o.ctr)
        ctr_set_free(c.o.ctr);
    gitwt_free(&c.git);
    harness_free(&c.h);
    metrics_spec_free(&c.mspec);
    return status;
}
