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
#include "cli/hyperfine_export.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/ab.h"
#include "core/count.h"
#include "core/counters.h"
#include "core/gitwt.h"
#include "core/proc.h"
#include "core/session.h"
#include "core/stats.h"

const char cmd_ab_usage[] =
    "tare ab [options] 'CMD A' 'CMD B'\n"
    "tare ab [options] [--base REV] [--build 'BUILD CMD'] -- CMD [ARG...]";

static const char ab_options[] =
    "Options (hyperfine's letters, with hyperfine's meanings):\n"
    "  -r, --pairs N           pairs of runs, that is runs of each (default 20; at least 6\n"
    "                          for a 95% interval; --runs is the same)\n"
    "  -w, --warmup N          runs of each before the pairs, never counted (default 1)\n"
    "      --threshold PCT     the least change called faster or slower (default 1%)\n"
    "      --until-decided     add pairs until the verdict is decided or the interval lies\n"
    "                          within the threshold (looks at N, 2N, 4N, ... pairs)\n"
    "      --max-pairs N       with --until-decided: stop at N pairs (default 200)\n"
    "      --max-time SECONDS  with --until-decided: stop after this long\n"
    "      --fail-if-slower    exit 3 when the verdict is slower (for CI)\n"
    "      --count             also count instructions, allocations, bytes and peak heap\n"
    "                          of each side (callgrind passes, as tare count does)\n"
    "      --count-runs N      with --count: passes of each side, A and B in rounds a second\n"
    "                          apart (default 2; counts that vary take 6; 1: no verdict)\n"
    "      --cache-sim         with --count: simulated L1 and LL cache misses, and estimated\n"
    "                          cycles, of each side, with a verdict on the misses\n"
    "      --engine ENGINE     with --count: callgrind (default) or cachegrind (faster)\n"
    "      --valgrind-arg ARG  with --count: pass this option to valgrind too (repeatable)\n"
    "      --counters          also count cycles, instructions, faults (see tare stat)\n"
    "                          in every measured run; medians beside the times\n"
    "      --base REV          A is REV built in a temporary git worktree, B the working\n"
    "                          tree; CMD comes after '--' (default REV: HEAD)\n"
    "      --build 'BUILD CMD' with --base: build each tree first (run with /bin/sh -c)\n"
    "  -n, --command-name NAME\n"
    "                          name A, then B (default: the command; --name is the same)\n"
    "  -S, --shell SHELL       run each command string with SHELL -c (sh, bash, 'bash --norc'\n"
    "                          or a path; default: none, the words run as they are)\n"
    "  -N                      no shell (the default: accepted for hyperfine's -N)\n"
    "  -t, --timeout SECONDS   kill a run (and its process group) after this long\n"
    "      --pin CPU           run the commands on this CPU only\n"
    "  -f, --format FORMAT     text (default) or json\n"
    "      --export-json FILE  also write A and B in hyperfine's JSON export schema\n"
    "      --export-csv FILE   also write A and B in hyperfine's CSV export columns\n"
    "      --export-markdown FILE\n"
    "                          also write A and B as hyperfine's markdown table\n"
    CLI_EXPORT_HELP
    "  -h, --help              show this help\n"
    "Around the timed runs (hooks are split into words like the commands, or run with\n"
    "--shell; --count's pass runs none of them):\n";

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
    struct target *targets, *targets_b;
    int nt, nt_b;
    struct target *ta, *tb;
    struct gitwt git;
    /* What the options left for the plan. */
    struct target_spec spec;
    char *names[2];         /* room for two --name values */
    const char *base, *build;
    bool max_pairs_set, count_runs_set, engine_set;
    enum out_format fmt;
    struct hf_paths exports;
    struct cli_export ci_export;
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
    struct target_spec *spec = &c->spec;
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
    if (targets_build(spec, argv + optind, 2, false, &c->targets, &c->nt, e) < 0)
        return cli_fail("ab", e);
    c->ta = &c->targets[0];
    c->tb = &c->targets[1];
    return 0;
}

/* One command after "--": B in the working tree, A in a worktree of --base. 0, or the exit
 * status after saying why. */
static int plan_git(struct ab_cli *c, int argc, char **argv, int dd, struct err *e)
{
    struct target_spec *spec = &c->spec;
    if (argc - dd - 1 <= 0)
        return cli_usage_error("ab", cmd_ab_usage, "no command after '--'");
    if (spec->shell)
        return cli_usage_error("ab", cmd_ab_usage,
                               "--shell takes command strings, not a command after '--'");
    /* The same command on both sides, in the two trees, named after them. */
    struct target_spec one = {0};
    char **cmdv = argv + dd + 1;
    int cmdc = argc - dd - 1;
    if (targets_build(&one, cmdv, cmdc, true, &c->targets, &c->nt, e) < 0 ||
        targets_build(&one, cmdv, cmdc, true, &c->targets_b, &c->nt_b, e) < 0)
        return cli_fail("ab", e);
    struct target *ta = &c->targets[0], *tb = &c->targets_b[0];
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
    const struct target *t[2] = {c->ta, c->tb};
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
    if (isatty(STDERR_FILENO) && !o->show_output)
        o->progress = ab_progress_print;
    return 0;
}

/* After ab_run: the verdict printed, the CI and hyperfine files written; the exit status (1
 * when a side's counting failed, 3 with --fail-if-slower when slower). */
static int ab_report(const struct ab_cli *c, const struct ab_result *r)
{
    bool count_failed = r->counted && ab_report_counts(r, c->alloc_why);
    if (c->fmt == FMT_JSON)
        ab_print_json(r, true);
    else
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
    const enum hf_format hf_fmt[3] = {HF_JSON, HF_CSV, HF_MARKDOWN};
    const char *hf_path[3] = {c->exports.json, c->exports.csv, c->exports.markdown};
    struct hf_result hf[2] = {{.command = c->o.side[0].command, .s = &r->series[0]},
                              {.command = c->o.side[1].command, .s = &r->series[1]}};
    struct err e = {0};
    for (int i = 0; i < 3; i++)
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

enum { OPT_COUNT = 0x180, OPT_COUNTERS, OPT_PIN, OPT_EXPORT_JSON, OPT_EXPORT_CSV,
       OPT_EXPORT_MD, OPT_CACHE_SIM, OPT_ENGINE, OPT_VGARG };

static const struct option ab_longopts[] = {
    {"pairs", required_argument, NULL, 'r'},
    {"runs", required_argument, NULL, 'r'},
    {"warmup", required_argument, NULL, 'w'},
    {"threshold", required_argument, NULL, 'T'},
    {"until-decided", no_argument, NULL, 'U'},
    {"max-pairs", required_argument, NULL, 'M'},
    {"max-time", required_argument, NULL, 'X'},
    {"fail-if-slower", no_argument, NULL, 'F'},
    {"count", no_argument, NULL, OPT_COUNT},
    {"count-runs", required_argument, NULL, 'R'},
    {"counters", no_argument, NULL, OPT_COUNTERS},
    {"cache-sim", no_argument, NULL, OPT_CACHE_SIM},
    {"engine", required_argument, NULL, OPT_ENGINE},
    {"valgrind-arg", required_argument, NULL, OPT_VGARG},
    {"base", required_argument, NULL, 'B'},
    {"build", required_argument, NULL, 'b'},
    {"command-name", required_argument, NULL, 'n'},
    {"name", required_argument, NULL, 'n'},
    {"shell", required_argument, NULL, 'S'},
    {"timeout", required_argument, NULL, 't'},
    {"pin", required_argument, NULL, OPT_PIN},
    {"format", required_argument, NULL, 'f'},
    {"export-json", required_argument, NULL, OPT_EXPORT_JSON},
    {"export-csv", required_argument, NULL, OPT_EXPORT_CSV},
    {"export-markdown", required_argument, NULL, OPT_EXPORT_MD},
    CLI_EXPORT_LONGOPTS,
    {"help", no_argument, NULL, 'h'},
    HARNESS_LONGOPTS,
    {0},
};

/* --threshold PCT: "1%" or "0.5", under 100. */
static bool parse_threshold(const char *arg, double *out)
{
    char *end;
    double p = strtod(arg, &end);
    if (end != arg && *end == '%')
        end++;
    if (end == arg || *end || !(p >= 0 && p < 100)) {
        cli_usage_error("ab", cmd_ab_usage, "bad value '%s' for --threshold: want a "
                        "percentage from 0 to under 100, such as 1%% or 0.5", arg);
        return false;
    }
    *out = p / 100;
    return true;
}

/* The options that set numbers: 1 taken, 0 not one of them, -1 bad (said). */
static int number_opt(struct ab_cli *c, int opt, const char *arg)
{
    struct ab_opts *o = &c->o;
    long v;
    switch (opt) {
    case 'r': return cli_parse_count("ab", cmd_ab_usage, "--pairs", arg, 1, 100000, &o->pairs)
                     ? 1 : -1;
    case 'w': return cli_parse_count("ab", cmd_ab_usage, "--warmup", arg, 0, 1000000, &o->warmup)
                     ? 1 : -1;
    case 'T': return parse_threshold(arg, &o->threshold) ? 1 : -1;
    case 'M':
        c->max_pairs_set = true;
        return cli_parse_count("ab", cmd_ab_usage, "--max-pairs", arg, 1, 100000, &o->max_pairs)
               ? 1 : -1;
    case 'X': return cli_parse_seconds("ab", cmd_ab_usage, "--max-time", arg, &o->max_time_s)
                     ? 1 : -1;
    case 'R':
        c->count_runs_set = true;
        return cli_parse_count("ab", cmd_ab_usage, "--count-runs", arg, 1, 100, &o->count_runs)
               ? 1 : -1;
    case 't': return cli_parse_seconds("ab", cmd_ab_usage, "--timeout", arg, &o->timeout_s)
                     ? 1 : -1;
    case OPT_PIN:
        if (!cli_parse_count("ab", cmd_ab_usage, "--pin", arg, 0, CPU_SETSIZE - 1, &v))
            return -1;
        o->pin_cpu = (int)v;
        return 1;
    default: return 0;
    }
}

/* One option: 0 taken, 1 --help printed, -1 bad (said). */
static int ab_option(struct ab_cli *c, int opt, const char *arg, int dd, char **argv)
{
    struct ab_opts *o = &c->o;
    int n = number_opt(c, opt, arg);
    if (n != 0)
        return n > 0 ? 0 : -1;
    switch (opt) {
    case 'U': o->until = true; break;
    case 'F': c->fail_if_slower = true; break;
    case OPT_COUNT: o->count = true; break;
    case CLI_OPT_EXPORT_BMF: case CLI_OPT_EXPORT_GAB: case CLI_OPT_EXPORT_JUNIT:
        cli_export_opt(&c->ci_export, opt, arg);
        break;
    case OPT_COUNTERS: c->counters = true; break;
    case OPT_CACHE_SIM: o->copt.cache_sim = true; break;
    case OPT_ENGINE:
        if (!count_parse_engine("ab", cmd_ab_usage, arg, &o->copt.engine))
            return -1;
        c->engine_set = true;
        break;
    case OPT_VGARG:
        if (!count_vg_arg_ok("ab", cmd_ab_usage, arg))
            return -1;
        c->vg_args[o->copt.nvg_args++] = (char *)arg;
        break;
    case 'B': c->base = arg; break;
    case OPT_EXPORT_JSON: c->exports.json = arg; break;
    case OPT_EXPORT_CSV: c->exports.csv = arg; break;
    case OPT_EXPORT_MD: c->exports.markdown = arg; break;
    case 'b': c->build = arg; break;
    case 'n':
        if (c->spec.nnames == 2) {
            cli_usage_error("ab", cmd_ab_usage, "--name given more than twice (A, then B)");
            return -1;
        }
        c->names[c->spec.nnames++] = (char *)arg;
        break;
    case 'S': return target_spec_set_shell(&c->spec, "ab", cmd_ab_usage, arg) ? 0 : -1;
    case 'N': c->spec.shell = NULL; break;
    case 'f':
        return cli_parse_format("ab", cmd_ab_usage, arg, FMT_TEXT | FMT_JSON, &c->fmt) ? 0 : -1;
    case 'h':
        cli_print_usage(stdout, cmd_ab_usage);
        printf("\nPaired, interleaved A/B of two commands, or of a git revision against the\n"
               "working tree: the ratio B/A with a confidence interval, and a verdict of\n"
               "faster, slower or same (no detectable change).\n\n%s%s", ab_options,
               harness_options_help);
        return 1;
    default: {
        int v = harness_option(&c->h, opt, dd, argv);
        if (v != 0)
            return v < 0 ? -1 : 0;
        cli_print_usage(stderr, cmd_ab_usage);
        fprintf(stderr, "Try 'tare ab --help' for the options.\n");
        return -1;
    }
    }
    return 0;
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
    if (!c.vg_args || !harness_init(&c.h, "ab", cmd_ab_usage, argc))
        goto done;
    optind = 1;
    int opt;
    while ((opt = getopt_long(dd, argv, "r:w:n:S:Nt:f:h" HARNESS_SHORTOPTS, ab_longopts,
                              NULL)) != -1) {
        int rc = ab_option(&c, opt, optarg, dd, argv);
        if (rc != 0) {
            status = rc > 0 ? EXIT_OK : EXIT_USAGE;
            goto done;
        }
    }
    if ((status = ab_plan(&c, argc, argv, dd, &e)) != 0 ||
        (status = harness_finish(&c.h, c.spec.shell)) != 0 ||
        (status = ab_tools(&c, &e)) != 0)
        goto done;
    status = ab_measure(&c);
done:
    targets_free(c.targets, c.nt);
    free(c.targets);
    targets_free(c.targets_b, c.nt_b);
    free(c.targets_b);
    free(c.vg_args);
    if (c.o.ctr)
        ctr_set_free(c.o.ctr);
    gitwt_free(&c.git);
    harness_free(&c.h);
    return status;
}
