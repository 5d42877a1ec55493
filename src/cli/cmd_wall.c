/* cmd_wall.c: `tare wall`, whole-command wall clock with warm-up, medians and a reference. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/counters_out.h"
#include "cli/harness.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/counters.h"
#include "core/proc.h"
#include "core/session.h"
#include "core/stats.h"

const char cmd_wall_usage[] =
    "tare wall [options] -- CMD [ARG...]\n"
    "tare wall [options] 'CMD 1' 'CMD 2' ...";

static const char wall_options[] =
    "Options:\n"
    "  -n, --runs N            measured runs per series (default 7)\n"
    "  -w, --warmup N          runs before those, never counted (default 1)\n"
    "  -r, --reference CMD     a reference measured alongside, runs interleaved; each\n"
    "                          series gets the ratio of its median to the reference's\n"
    "  -l, --lane NAME:VAR=VALUE[,VAR=VALUE...]\n"
    "                          run each command in this environment, as series NAME+LANE\n"
    "                          (repeatable; lanes replace the plain run, add 'NAME:' for it)\n"
    "      --name NAME         name the commands in order (default: first word's basename)\n"
    "      --shell             run each command string with /bin/sh -c\n"
    "  -t, --timeout SECONDS   kill a run (and its process group) after this long\n"
    "      --pin CPU           run the commands on this CPU only\n"
    "      --counters          also count cycles, instructions, faults (see tare stat) and\n"
    "                          show their medians; 'unavailable' where the machine has none\n"
    "  -i, --ignore-failure    measure runs that exit non-zero instead of reporting NA\n"
    "  -f, --format FORMAT     text (default), tsv, json, csv or markdown\n"
    "      --export-json FILE  also write hyperfine's JSON export schema to FILE\n"
    "  -h, --help              show this help\n"
    "Around the runs (hooks are split into words like the commands, or run with --shell):\n";

/* The series are the engine's (core/session.h); each one's user pointer is its target. */
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
    struct session_plan plan;
    struct session sess;
};

static const struct target *tgt(const struct session_series *s)
{
    return s->user;
}

/* Warm-up, then rounds: every series once, then the reference, so drift hits all alike. */
static int measure(struct wall *w, struct err *e)
{
    w->plan = (struct session_plan){
        .series = w->s, .nseries = w->ns + (w->ref ? 1 : 0), .warmup = w->warmup, .runs = w->runs,
        .order = SESSION_ROUNDS, .timeout_s = w->timeout, .pin_cpu = w->pin,
        .ignore_failure = w->ignore_failure, .ctr = w->ctr,
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

struct summary {
    double median, min, max, mad, user, sys, mean, stddev;
    long rss_kb;
};

static struct summary summarize(const struct session_series *s)
{
    struct summary m = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1};
    if (s->state != SESSION_OK || s->n == 0)
        return m;
    m.median = stats_median(s->wall_s, s->n);
    m.min = stats_min(s->wall_s, s->n);
    m.max = stats_max(s->wall_s, s->n);
    m.mad = stats_mad(s->wall_s, s->n);
    m.user = stats_median(s->user_s, s->n);
    m.sys = stats_median(s->sys_s, s->n);
    m.mean = stats_mean(s->wall_s, s->n);
    m.stddev = stats_stddev(s->wall_s, s->n);
    for (int i = 0; i < s->n; i++)
        if (s->max_rss_kb[i] > m.rss_kb)
            m.rss_kb = s->max_rss_kb[i];
    return m;
}

/* A first run is cold when it is past the others' median by more than COLD_MADS of their
 * spread (MAD) and by more than COLD_RATIO: the spread alone would flag a steady command's
 * tiny jitter, the ratio alone a noisy command's ordinary run. */
#define COLD_MADS 3
#define COLD_RATIO 1.10

/* The seed's first rule: say so when the first run was cold. */
static void note_cold(const struct wall *w, const struct session_series *s)
{
    struct summary m = summarize(s);
    if (isnan(m.median))
        return;
    char a[32], b[32];
    if (!isnan(s->warm_first)) {
        if (s->warm_first > m.median + COLD_MADS * m.mad && s->warm_first > COLD_RATIO * m.median)
            fprintf(stderr,
                    "tare wall: note: the warm-up run of '%s' took %s against a median of %s: "
                    "it was cold, and was not counted\n",
                    tgt(s)->name, fmt_seconds(a, s->warm_first), fmt_seconds(b, m.median));
    } else if (s->n >= 3) {
        double rest = stats_median(s->wall_s + 1, s->n - 1);
        double mad = stats_mad(s->wall_s + 1, s->n - 1);
        if (s->wall_s[0] > rest + COLD_MADS * mad && s->wall_s[0] > COLD_RATIO * rest)
            fprintf(stderr, "tare wall: note: the first run of '%s' took %s against a median of %s "
                    "for the others: it looks cold, and it was counted; use --warmup 1\n",
                    tgt(s)->name, fmt_seconds(a, s->wall_s[0]), fmt_seconds(b, rest));
    }
    (void)w;
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

static const char *const tsv_headers[] = {
    "name", "lane", "runs", "median_s", "min_s", "max_s", "mad_s", "user_s", "sys_s",
    "max_rss_kb", "ref_median_s", "ratio", "status",
};

static void print_machine(const struct wall *w, enum out_format fmt, double ref_median)
{
    struct table t;
    int nc = w->ctr ? w->ctr->n : 0;
    const char *h[13 + CTR_MAX];
    memcpy(h, tsv_headers, sizeof tsv_headers);
    for (int i = 0; i < nc; i++)
        h[13 + i] = w->ctr->c[i].label;   /* --counters: one column per counter, its median */
    table_init(&t, 13 + nc, h, 0x3);
    char b[64];
    for (int k = 0; k < w->ns; k++) {
        const struct session_series *s = &w->s[k];
        struct summary m = summarize(s);
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
    }
    table_print(&t, stdout, fmt);
    table_free(&t);
}

static void json_series(FILE *f, const struct session_series *s, double ref_median, bool is_ref,
                        const struct ctr_set *ctr)
{
    struct summary m = summarize(s);
    fprintf(f, "{\"name\": ");
    json_str(f, tgt(s)->name);
    fprintf(f, ", \"lane\": ");
    if (tgt(s)->lane)
        json_str(f, tgt(s)->lane);
    else
        fputs("null", f);
    fprintf(f, ", \"command\": ");
    json_str(f, tgt(s)->command);
    fprintf(f, ", \"runs\": %d, \"median_s\": ", s->n);
    json_num(f, m.median);
    fputs(", \"min_s\": ", f); json_num(f, m.min);
    fputs(", \"max_s\": ", f); json_num(f, m.max);
    fputs(", \"mad_s\": ", f); json_num(f, m.mad);
    fputs(", \"user_s\": ", f); json_num(f, m.user);
    fputs(", \"sys_s\": ", f); json_num(f, m.sys);
    fputs(", \"max_rss_kb\": ", f); json_num(f, m.rss_kb < 0 ? NAN : m.rss_kb);
    if (!is_ref) {
        fputs(", \"ref_median_s\": ", f); json_num(f, ref_median);
        fputs(", \"ratio\": ", f); json_num(f, m.median / ref_median);
    }
    fprintf(f, ", \"status\": \"%s\"", session_state_name(s->state));
    if (s->state != SESSION_OK) {
        char why[256];
        fputs(", \"error\": ", f);
        json_str(f, session_failure_why(&s->fail, why, sizeof why));
    }
    fputs(", \"warmup_s\": ", f);
    json_num(f, s->warm_first);
    fputs(", \"times\": [", f);
    for (int i = 0; i < s->n; i++) {
        if (i) fputs(", ", f);
        json_num(f, s->wall_s[i]);
    }
    fputs("], \"exit_codes\": [", f);
    for (int i = 0; i < s->n; i++)
        fprintf(f, "%s%d", i ? ", " : "", s->exit_code[i]);
    fputs("]", f);
    if (ctr) {
        fputs(", \"counters\": {", f);
        for (int i = 0; i < ctr->n; i++) {
            json_str(f, ctr->c[i].label);
            fputs(": ", f);
            json_num(f, s->state == SESSION_OK ? ctr_median(s->ctr, s->n, i) : NAN);
            fputs(i + 1 < ctr->n ? ", " : "", f);
        }
        fputs("}", f);
    }
    fputs("}", f);
}

static void print_json(const struct wall *w, double ref_median)
{
    printf("{\"runs\": %ld, \"warmup\": %ld, \"series\": [", w->runs, w->warmup);
    for (int k = 0; k < w->ns; k++) {
        fputs(k ? ",\n  " : "\n  ", stdout);
        json_series(stdout, &w->s[k], ref_median, false, w->ctr);
    }
    fputs("\n], \"reference\": ", stdout);
    if (w->ref)
        json_series(stdout, w->ref, NAN, true, w->ctr);
    else
        fputs("null", stdout);
    fputs("}\n", stdout);
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
        struct summary m = summarize(s);
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
            table_set(&t, c++, "\033[31m%s\033[0m", session_state_name(s->state));
        else
            table_set(&t, c++, "%s", session_state_name(s->state));
    }
    printf("%ld run%s each after %ld warm-up run%s (not counted); ± is the median absolute "
           "deviation%s\n",
           w->runs, w->runs == 1 ? "" : "s", w->warmup, w->warmup == 1 ? "" : "s",
           ref ? "; ratio is median over the reference's median" : "");
    table_print(&t, stdout, FMT_TEXT);
    table_free(&t);
    if (w->ctr) {
        const char *names[w->ns + 1];
        struct ctr_sample *smp[w->ns + 1];
        int n[w->ns + 1];
        int m = 0;
        for (int k = 0; k < w->ns + (ref ? 1 : 0); k++) {
            const struct session_series *s = k < w->ns ? &w->s[k] : w->ref;
            names[m] = tgt(s)->name;
            smp[m] = s->ctr;
            n[m++] = s->state == SESSION_OK ? s->n : 0;
        }
        counters_print_medians(stdout, w->ctr, m, names, smp, n);
    }
}

/* hyperfine's --export-json schema, so its plotting scripts read tare's results. Written to
 * a temporary beside it and renamed: the file is whole or not there. */
static int export_json(const struct wall *w, const char *path, struct err *e)
{
    char tmp[PATH_MAX + 32];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp)
        return err_set(e, ERR_INPUT, "cannot write '%s': name too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return err_errno(e, ERR_INPUT, errno, "cannot write '%s'", path);
    fputs("{\"results\": [", f);
    bool first = true;
    for (int k = -1; k < w->ns; k++) {
        const struct session_series *s = k < 0 ? w->ref : &w->s[k];
        if (!s)
            continue;
        struct summary m = summarize(s);
        fputs(first ? "\n  {" : ",\n  {", f);
        first = false;
        fputs("\"command\": ", f); json_str(f, tgt(s)->command);
        if (k >= 0 && w->h.nparam > 0) {
            /* hyperfine's "parameters": each one's value in this series */
            const struct harness_combo *co = &w->h.combo[k % w->h.ncombo];
            fputs(", \"parameters\": {", f);
            for (int i = 0; i < w->h.nparam; i++) {
                fputs(i ? ", " : "", f);
                json_str(f, w->h.param[i].var);
                fputs(": ", f);
                json_str(f, w->h.param[i].values[co->pick[i]]);
            }
            fputs("}", f);
        }
        fputs(", \"mean\": ", f); json_num(f, m.mean);
        fputs(", \"stddev\": ", f); json_num(f, m.stddev);
        fputs(", \"median\": ", f); json_num(f, m.median);
        fputs(", \"user\": ", f); json_num(f, s->n ? stats_mean(s->user_s, s->n) : NAN);
        fputs(", \"system\": ", f); json_num(f, s->n ? stats_mean(s->sys_s, s->n) : NAN);
        fputs(", \"min\": ", f); json_num(f, m.min);
        fputs(", \"max\": ", f); json_num(f, m.max);
        fputs(", \"times\": [", f);
        for (int i = 0; i < s->n; i++) {
            if (i) fputs(", ", f);
            json_num(f, s->wall_s[i]);
        }
        fputs("], \"exit_codes\": [", f);
        for (int i = 0; i < s->n; i++)
            fprintf(f, "%s%d", i ? ", " : "", s->exit_code[i]);
        fputs("], \"memory_usage_byte\": [", f);
        for (int i = 0; i < s->n; i++)
            fprintf(f, "%s%ld", i ? ", " : "", s->max_rss_kb[i] * 1024);
        fputs("]}", f);
    }
    fputs("\n]}\n", f);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        int err = errno;
        unlink(tmp);
        return err_errno(e, ERR_INPUT, err, "cannot write '%s'", path);
    }
    if (proc_interrupted()) {
        unlink(tmp);
        return err_set(e, ERR_INTERRUPTED, "interrupted: '%s' not written", path);
    }
    if (rename(tmp, path) < 0) {
        int err = errno;
        unlink(tmp);
        return err_errno(e, ERR_INPUT, err, "cannot rename '%s' to '%s'", tmp, path);
    }
    return 0;
}

int cmd_wall(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"runs", required_argument, NULL, 'n'},
        {"warmup", required_argument, NULL, 'w'},
        {"reference", required_argument, NULL, 'r'},
        {"lane", required_argument, NULL, 'l'},
        {"name", required_argument, NULL, 'N'},
        {"shell", no_argument, NULL, 'S'},
        {"timeout", required_argument, NULL, 't'},
        {"pin", required_argument, NULL, 'P'},
        {"counters", no_argument, NULL, 'C'},
        {"ignore-failure", no_argument, NULL, 'i'},
        {"format", required_argument, NULL, 'f'},
        {"export-json", required_argument, NULL, 'E'},
        {"help", no_argument, NULL, 'h'},
        HARNESS_LONGOPTS,
        HARNESS_PARAM_LONGOPTS,
        {0},
    };
    struct wall w = {.runs = 7, .warmup = 1, .pin = -1};
    struct target_spec spec = {0};
    enum out_format fmt = FMT_TEXT;
    const char *reference = NULL, *export_path = NULL;
    bool counters = false;
    struct ctr_set ctr;
    struct err e = {0};
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);
    long v;

    if (!target_spec_init(&spec, argc) || !harness_init(&w.h, "wall", cmd_wall_usage, argc))
        goto done;
    optind = 1;
    int c;
    while ((c = getopt_long(dd, argv, "n:w:r:l:t:if:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!cli_parse_count("wall", cmd_wall_usage, "--runs", optarg, 1, 1000000, &w.runs))
                goto done;
            break;
        case 'w':
            if (!cli_parse_count("wall", cmd_wall_usage, "--warmup", optarg, 0, 1000000, &w.warmup))
                goto done;
            break;
        case 'r': reference = optarg; break;
        case 'l':
            if (!target_spec_add_lane(&spec, "wall", cmd_wall_usage, optarg))
                goto done;
            break;
        case 'N': spec.names[spec.nnames++] = optarg; break;
        case 'S': spec.shell = true; break;
        case 't':
            if (!cli_parse_seconds("wall", cmd_wall_usage, "--timeout", optarg, &w.timeout))
                goto done;
            break;
        case 'P':
            if (!cli_parse_count("wall", cmd_wall_usage, "--pin", optarg, 0, CPU_SETSIZE - 1, &v))
                goto done;
            w.pin = (int)v;
            break;
        case 'C': counters = true; break;
        case 'i': w.ignore_failure = true; break;
        case 'f':
            if (!cli_parse_format("wall", cmd_wall_usage, optarg,
                                  FMT_TEXT | FMT_TSV | FMT_JSON | FMT_CSV | FMT_MARKDOWN, &fmt))
                goto done;
            break;
        case 'E': export_path = optarg; break;
        case 'h':
            cli_print_usage(stdout, cmd_wall_usage);
            printf("\nTime whole commands: warm-up runs discarded, then the median, spread and\n"
                   "resource use of N runs, beside a reference's when one is given.\n\n%s%s%s",
                   wall_options, harness_options_help, harness_param_help);
            status = EXIT_OK;
            goto done;
        default:
            if ((v = harness_option(&w.h, c, dd, argv)) != 0) {
                if (v < 0)
                    goto done;
                break;
            }
            cli_print_usage(stderr, cmd_wall_usage);
            fprintf(stderr, "Try 'tare wall --help' for the options.\n");
            goto done;
        }
    }
    struct target *targets = NULL, ref_target;
    int nt = 0;
    if ((status = harness_finish(&w.h, spec.shell)) != 0)
        goto done;
    if ((status = harness_targets(&w.h, argc, argv, dd, &spec, &targets, &nt)) != 0)
        goto done;
    status = EXIT_USAGE;
    if (reference && target_from_string(reference, NULL, spec.shell, &ref_target, &e) < 0) {
        status = cli_fail("wall", &e);
        targets_free(targets, nt);
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
    w.progress = isatty(STDERR_FILENO) && !w.h.show_output;
    cli_install_signal_handlers();

    if (measure(&w, &e) < 0) {
        status = cli_fail("wall", &e);
        goto free_all;
    }
    double ref_median = w.ref ? summarize(w.ref).median : NAN;
    bool any_failed = w.ref && w.ref->state != SESSION_OK;
    report_failure(w.ref, true);
    for (int k = 0; k < w.ns; k++) {
        report_failure(&w.s[k], false);
        any_failed |= w.s[k].state != SESSION_OK;
        note_cold(&w, &w.s[k]);
    }
    if (w.ref)
        note_cold(&w, w.ref);
    if (fmt == FMT_TEXT)
        print_text(&w, ref_median);
    else if (fmt == FMT_JSON)
        print_json(&w, ref_median);
    else
        print_machine(&w, fmt, ref_median);
    status = any_failed ? EXIT_FAIL : EXIT_OK;
    if (export_path && export_json(&w, export_path, &e) < 0)
        status = cli_fail("wall", &e);

free_all:
    if (w.ctr)
        ctr_set_free(w.ctr);
    session_free(&w.sess);
    free(w.s);
    if (reference)
        targets_free(&ref_target, 1);
    targets_free(targets, nt);
    free(targets);
done:
    harness_free(&w.h);
    target_spec_free(&spec);
    return status;
}
