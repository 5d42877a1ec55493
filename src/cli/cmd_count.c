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
#include "cli/growth.h"
#include "cli/harness.h"
#include "cli/measure_opts.h"
#include "cli/export_out.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/count.h"
#include "core/json.h"

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

static void print_json(const struct count_job *jobs, const struct target *t, int n,
                       const struct count_view *v, const struct growth *g, int ng)
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

static void print_table(const struct count_job *jobs, const struct target *t, int n,
                        enum out_format fmt, const struct count_view *v)
{
    static const char *const tsv_h[] = {"name", "lane", "instructions", "allocations", "bytes",
                                        "peak_bytes"};
    static const char *const text_h[] = {"series", "instructions", "allocations", "bytes",
                                         "peak heap"};
    bool text = fmt == FMT_TEXT;
    const char *h[24];
    int nh = 0;
    for (; nh < (text ? 5 : 6); nh++)
        h[nh] = text ? text_h[nh] : tsv_h[nh];
    nh += count_extra_header(h + nh, text, v);
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
}

/* For `git bisect run`: good, bad, and "cannot test this commit". */
enum { EXIT_BISECT_SKIP = 125 };

/* --fail-above/--fail-below: the metric of every series against the limits. Returns the
 * status git bisect run expects: 0 good, 1 bad, 125 when a series has no such count. */
static int fail_limits(const struct count_job *jobs, const struct target *t, int n,
                       const char *metric, bool above, uint64_t above_n, bool below,
                       uint64_t below_n)
{
    int status = EXIT_OK;
    for (int i = 0; i < n; i++) {
        uint64_t v = count_job_metric(&jobs[i], metric);
        if (jobs[i].status != COUNT_OK || v == COUNT_NA) {
            cli_error("count", "'%s': no %s count: exit %d (skip, for git bisect run)",
                      t[i].name, metric, EXIT_BISECT_SKIP);
            return EXIT_BISECT_SKIP;
        }
        if (above && v > above_n) {
            cli_error("count", "'%s': %s %llu is above %llu", t[i].name, metric,
                      (unsigned long long)v, (unsigned long long)above_n);
            status = EXIT_FAIL;
        }
        if (below && v < below_n) {
            cli_error("count", "'%s': %s %llu is below %llu", t[i].name, metric,
                      (unsigned long long)v, (unsigned long long)below_n);
            status = EXIT_FAIL;
        }
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
        cli_usage_error(p->cmd, p->usage, "--metric wants instructions, allocations, bytes or "
                        "peak_bytes, not '%s'", arg);
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

/* --subtract CMD: its series, one a lane, named baseline[+LANE], appended to *t. */
static int add_baselines(const struct target_spec *spec, const char *cmd, struct target **t,
                         int *n)
{
    struct target_spec bs = *spec;
    char *name = "baseline", *argv1[] = {(char *)cmd, NULL};
    bs.names = &name;
    bs.nnames = 1;
    struct target *b = NULL;
    int nb = 0;
    struct err e = {0};
    if (targets_build(&bs, argv1, 1, false, &b, &nb, &e) < 0) {
        err_prefix(&e, "--subtract");
        return cli_fail("count", &e);
    }
    struct target *all = realloc(*t, (size_t)(*n + nb) * sizeof *all);
    if (!all) {
        targets_free(b, nb);
        free(b);
        cli_error("count", "out of memory");
        return EXIT_USAGE;
    }
    memcpy(all + *n, b, (size_t)nb * sizeof *b);
    free(b);
    *t = all;
    *n += nb;
    return 0;
}

int cmd_count(int argc, char **argv)
{
    const char *metric = "instructions";
    bool fail_above = false, fail_below = false;
    uint64_t above_n = 0, below_n = 0;
    struct harness h = {0};
    struct growth *growth = NULL;
    int ngrowth = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct count_opts co = {.jobs = ncpu > 0 ? (int)ncpu : 1, .timeout_s = COUNT_TIMEOUT_S};
    struct target_spec spec = {0};
    enum out_format fmt = FMT_TEXT;
    struct cli_export ci_export = {0};
    struct err e = {0};
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);
    struct target *targets = NULL;
    struct count_job *jobs = NULL;
    int nt = 0;
    char **toggles = calloc(argc + 1, sizeof *toggles);
    char **vg_args = calloc(argc + 1, sizeof *vg_args);
    char region[512] = "";
    const char *subtract = NULL;
    bool engine_given = false;
    int nall = 0;   /* the series, then the baselines of --subtract (one a lane) */

    if (!toggles || !vg_args || !target_spec_init(&spec, argc) ||
        !harness_init(&h, "count", cmd_count_usage, argc))
        goto done;
    const struct opt opts[] = {
        OPT_GROUP("Options (hyperfine's letters, with hyperfine's meanings, where count has "
                  "the option):"),
        OPT_INT('j', "jobs", &co.jobs, "N", 1, 1024,
                "commands measured at once (default: the number of CPUs)"),
        MOPT_LANE(&spec),
        MOPT_NAME(&spec),
        MOPT_SHELL(&spec),
        MOPT_TIMEOUT(&co.timeout_s, "\n(default 1800: callgrind is slow)"),
        OPT_STRING(0, "keep-profile", &co.keep_dir, "DIR",
                   "keep each callgrind profile as DIR/NAME.callgrind.out"),
        OPT_BOOL(0, "check-warm", &co.check_warm,
                 "two callgrind passes; flag counts that differ by over 0.01%"),
        OPT_LIST(0, "toggle-collect", toggles, &co.ntoggle, "FUNC",
                 "count a region too: FUNC and what it calls (repeatable)"),
        OPT_CALLBACK(0, "region", &co.marks, "marks",
                     "count a region too: from TARE_COUNT_START to TARE_COUNT_STOP", opt_region),
        OPT_CALLBACK(0, "valgrind-arg", vg_args, "ARG",
                     "pass this option to valgrind too (repeatable)", count_opt_vg_arg,
                     .count = &co.nvg_args),
        OPT_BOOL(0, "cache-sim", &co.cache_sim,
                 "simulated L1 and LL cache misses, and estimated cycles"),
        OPT_STRING(0, "subtract", &subtract, "CMD",
                   "count CMD too (each lane); show the counts less CMD's"),
        OPT_CALLBACK(0, "engine", &co.engine, "ENGINE",
                     "callgrind (default) or cachegrind (faster: no call graph)",
                     count_opt_engine, .given = &engine_given),
        OPT_FORMAT(&fmt, FMT_TEXT | FMT_TSV | FMT_JSON),
        OPT_CALLBACK(0, "metric", &metric, "METRIC",
                     "instructions (default), allocations, bytes or peak_bytes,\n"
                     "for --fail-above and --fail-below", opt_metric),
        OPT_CALLBACK(0, "fail-above", &above_n, "N",
                     "exit 1 if the metric is above N, 0 if not, 125 if it could\n"
                     "not be counted (as 'git bisect run' expects)", opt_limit,
                     .given = &fail_above),
        OPT_CALLBACK(0, "fail-below", &below_n, "N",
                     "the same, exit 1 if the metric is below N", opt_limit,
                     .given = &fail_below),
        MOPT_CI_EXPORTS(&ci_export),
        OPT_HELP(),
        OPT_GROUP("Around the runs (natively: never under valgrind or the counting allocator; "
                  "with --jobs\nabove 1 the series and their hooks run side by side):"),
        MOPT_HOOKS(&h),
        MOPT_PARAMS(&h),
        OPT_END(),
    };
    struct opt_parser op = {
        .cmd = "count", .usage = cmd_count_usage, .argc = dd, .argv = argv,
        .about = "Deterministic counts: instructions and allocations from one callgrind run\n"
                 "after a native warm-up, bytes and peak heap from the counting allocator.\n"
                 "Counts do not depend on load, so commands run side by side (-j).",
    };
    int prc = opt_parse(&op, opts);
    if (prc != 0) {
        status = opt_status(prc);
        goto done;
    }
    co.toggle = toggles;
    co.vg_args = vg_args;
    if (!count_engine_ok("count", cmd_count_usage, &co))
        goto done;
    if (co.marks && co.ntoggle) {
        cli_usage_error("count", cmd_count_usage, "--region marks and --toggle-collect are two "
                        "ways to say the region: give one");
        goto done;
    }
    if (co.marks || co.ntoggle)
        count_region_name(region, sizeof region, &co);
    if ((status = harness_finish(&h, spec.shell)) != 0)
        goto done;
    if ((status = harness_targets(&h, argc, argv, dd, &spec, &targets, &nt)) != 0) {
        /* A command this revision lacks (not built) is a commit git bisect should skip. */
        if ((fail_above || fail_below) && status == EXIT_USAGE && (optind < dd || dd + 1 < argc))
            status = EXIT_BISECT_SKIP;
        goto done;
    }
    co.show_output = h.show_output;
    co.stdin_path = h.input;
    co.stdout_path = h.output_file;
    co.stdout_pipe = h.output_pipe;
    nall = nt;
    const char *pvar = subtract ? harness_param_in(&h, subtract) : NULL;
    if (pvar) {
        status = cli_usage_error("count", cmd_count_usage, "--subtract '%s': parameters are "
                                 "not put in the baseline (it is counted once a lane); write "
                                 "it without {%s}", subtract, pvar);
        goto done;
    }
    if (subtract && (status = add_baselines(&spec, subtract, &targets, &nall)) != 0)
        goto done;
    status = EXIT_USAGE;
    char valgrind[4096];
    if (count_find_valgrind(valgrind, sizeof valgrind, &e) < 0) {
        status = cli_fail("count", &e);
        if (fail_above || fail_below)
            status = EXIT_BISECT_SKIP;
        goto done;
    }
    co.valgrind = valgrind;
    /* Without the counting allocator, bytes and peak heap are NA, and tare says why once. */
    char alloc_lib[4096];
    struct err lib_err = {0};
    if (cli_find_alloc_lib(alloc_lib, sizeof alloc_lib, &lib_err) == 0)
        co.alloc_lib = alloc_lib;
    if (co.keep_dir && mkdir(co.keep_dir, 0777) < 0 && errno != EEXIST) {
        cli_error("count", "cannot make the profile directory '%s': %s", co.keep_dir,
                  strerror(errno));
        goto done;
    }
    jobs = calloc(nall, sizeof *jobs);
    if (!jobs) {
        cli_error("count", "out of memory");
        goto done;
    }
    for (int i = 0; i < nall; i++) {
        jobs[i].name = targets[i].name;
        jobs[i].argv = targets[i].argv;
        jobs[i].env = targets[i].env;
        /* A baseline (--subtract) runs no hooks: they prepare a benchmark, not its start-up. */
        struct session_cmds hk[HARNESS_NHOOKS] = {{0}};
        if (i < nt)
            harness_cmds(&h, i % h.ncombo, hk);
        jobs[i].setup = hk[HARNESS_SETUP];
        jobs[i].prepare = hk[HARNESS_PREPARE];
        jobs[i].conclude = hk[HARNESS_CONCLUDE];
        jobs[i].cleanup = hk[HARNESS_CLEANUP];
    }
    struct count_progress ps = {.on = cli_progress() && !co.show_output, .t0 = proc_now()};
    co.progress = count_progress_print;
    co.ctx = &ps;
    cli_install_signal_handlers();
    int rc = count_run(jobs, nall, &co, &e);
    if (ps.on)
        fputs("\r\033[K", stderr);
    if (rc < 0) {
        status = cli_fail("count", &e);
        if ((fail_above || fail_below) && e.kind != ERR_INTERRUPTED)
            status = EXIT_BISECT_SKIP;
        goto done;
    }
    bool any_failed = false;
    if (!co.alloc_lib)
        cli_error("count", "note: %s are NA: %s", co.engine == COUNT_CACHEGRIND
                  ? "allocations, bytes and peak heap" : "bytes and peak heap", lib_err.msg);
    for (int i = 0; i < nall; i++) {
        if (jobs[i].note[0])
            cli_error("count", "note: '%s': %s", targets[i].name, jobs[i].note);
        if (jobs[i].region_why[0])
            cli_error("count", "note: '%s': region NA: %s", targets[i].name, jobs[i].region_why);
        if (jobs[i].status == COUNT_OK)
            continue;
        any_failed = true;
        if (jobs[i].status == COUNT_UNSTABLE) {
            cli_error("count", "'%s' is %s", targets[i].name, jobs[i].why);
            continue;
        }
        cli_error("count", "'%s' failed: %s%s", targets[i].name, jobs[i].why,
                  jobs[i].tail[0] ? "; its stderr ended with:" : "");
        if (jobs[i].tail[0])
            cli_print_stderr_tail(jobs[i].tail);
    }
    /* A lane's series less that lane's baseline (series are command-major, then lane, then
     * parameter combination: target i is lane (i / ncombo) % nlanes). */
    for (int i = 0; subtract && i < nt; i++)
        count_subtract(&jobs[i], &jobs[nt + (i / h.ncombo) % (nall - nt)]);
    struct count_view view = {.co = &co, .region = region[0] ? region : NULL, .subtract = subtract,
                              .engine_column = engine_given};
    if (growth_fit(&h, jobs, targets, nt, &growth, &ngrowth) < 0) {
        cli_error("count", "out of memory");
        status = EXIT_USAGE;
        goto done;
    }
    if (fmt == FMT_JSON) {
        print_json(jobs, targets, nt, &view, growth, ngrowth);
    } else {
        print_table(jobs, targets, nt, fmt, &view);
        if (fmt == FMT_TEXT)
            growth_print_text(stdout, growth, ngrowth);
        else
            growth_print_table(stdout, growth, ngrowth, fmt);
    }
    status = any_failed ? EXIT_FAIL : EXIT_OK;
    if (fail_above || fail_below)
        status = fail_limits(jobs, targets, nt, metric, fail_above, above_n, fail_below, below_n);
    if (cli_export_wanted(&ci_export)) {
        struct export_set set;
        int st = export_init(&set, "tare count", &e);
        for (int i = 0; i < nt && st == 0; i++) {
            st = cli_export_add_counts(&set, targets[i].name, &jobs[i], co.check_warm, &e);
            if (st == 0 && co.cache_sim)
                st = cli_export_add_cache(&set, targets[i].name, &jobs[i], &e);
            if (st == 0 && subtract)
                st = cli_export_add_net(&set, targets[i].name, &jobs[i], &e);
        }
        st = st < 0 ? cli_fail("count", &e) : cli_export_write("count", &ci_export, &set);
        export_free(&set);
        if (st != EXIT_OK)
            status = st;
    }

done:
    growth_free(growth, ngrowth);
    harness_free(&h);
    free(toggles);
    free(vg_args);
    free(jobs);
    targets_free(targets, nall > nt ? nall : nt);
    free(targets);
    target_spec_free(&spec);
    return status;
}
