/* measure_opts.h: the measuring options, declared once as opt.h entries (their letters are
 * hyperfine's, with hyperfine's meanings) and listed in the table of every command that
 * measures (wall, stat, ab, count, run): each macro is one option or one family of them, its
 * value's place the command's own. A command's table is these plus its own entries. */
#ifndef TARE_MEASURE_OPTS_H
#define TARE_MEASURE_OPTS_H

#include <sched.h>

#include "cli/export_out.h"
#include "cli/harness.h"
#include "core/engine/hyperfine_export.h"
#include "cli/opt.h"
#include "cli/targets.h"

/* The callbacks behind them: a struct series_spec's (targets.c), a struct harness's
 * (harness.c, which hook in defval). */
opt_cb series_opt_lane, series_opt_name, series_opt_shell, series_opt_no_shell;
opt_cb harness_opt_hook, harness_opt_output, harness_opt_show_output, harness_opt_scan,
    harness_opt_list, harness_opt_time_unit, harness_opt_style, harness_opt_sort;

/* -r, --runs N into a long; given (or NULL) set when it was given. dflt: " (default 7)". */
#define MOPT_RUNS(v, given_, dflt) \
    OPT_LONG('r', "runs", (v), "N", 1, 1000000, "measured runs per series" dflt, \
             .given = (given_))
/* -w, --warmup N into a long. */
#define MOPT_WARMUP(v) \
    OPT_LONG('w', "warmup", (v), "N", 0, 1000000, \
             "runs before the measured ones, never counted (default 1)")
/* -l, --lane, into a struct series_spec. */
#define MOPT_LANE(spec) \
    OPT_CALLBACK('l', "lane", (spec), "NAME:VAR=VALUE[,VAR=VALUE...]", \
                 "run each command in this environment, as series NAME+LANE\n" \
                 "(repeatable; lanes replace the plain run, add 'NAME:' for it)", \
                 series_opt_lane)
/* -n, --command-name (--name), into a struct series_spec. */
#define MOPT_NAME(spec) \
    OPT_CALLBACK('n', "command-name", (spec), "NAME", \
                 "name the commands in order (default: first word's basename;\n" \
                 "--name is the same)", series_opt_name, .alias = "name")
/* -S, --shell SHELL and -N, into a struct series_spec. */
#define MOPT_SHELL(spec) \
    OPT_CALLBACK('S', "shell", (spec), "SHELL", \
                 "run each command string with SHELL -c (sh, bash, 'bash --norc'\n" \
                 "or a path; default: none, the words run as they are)", series_opt_shell), \
    OPT_CALLBACK('N', NULL, (spec), NULL, "no shell (the default: accepted for hyperfine's -N)", \
                 series_opt_no_shell)
/* -t, --timeout SECONDS into a double; dflt: "" or " (default 1800: ...)". */
#define MOPT_TIMEOUT(v, dflt) \
    OPT_SECONDS('t', "timeout", (v), "SECONDS", \
                "kill a run (and its process group) after this long" dflt)
/* --pin CPU into an int; more: "" or more words on the help line. */
#define MOPT_PIN(v, more) \
    OPT_INT(0, "pin", (v), "CPU", 0, CPU_SETSIZE - 1, "run the commands on this CPU only" more)
/* -i, --ignore-failure into a bool. */
#define MOPT_IGNORE_FAILURE(v) \
    OPT_BOOL('i', "ignore-failure", (v), \
             "measure runs that exit non-zero instead of reporting NA")
/* --export-json, --export-csv, --export-markdown: hyperfine's files, into a struct hf_paths. */
#define MOPT_HF_EXPORTS(x) \
    OPT_STRING(0, "export-json", &(x)->json, "FILE", \
               "also write hyperfine's JSON export schema to FILE"), \
    OPT_STRING(0, "export-csv", &(x)->csv, "FILE", \
               "also write hyperfine's CSV export columns to FILE"), \
    OPT_STRING(0, "export-markdown", &(x)->markdown, "FILE", \
               "also write hyperfine's markdown table to FILE")
/* --export-asciidoc, --export-orgmode: hyperfine's other markup tables, into a struct
 * hf_paths (wall, stat: hf_export_series writes them). */
#define MOPT_HF_MARKUP_EXPORTS(x) \
    OPT_STRING(0, "export-asciidoc", &(x)->asciidoc, "FILE", \
               "also write hyperfine's AsciiDoc table to FILE"), \
    OPT_STRING(0, "export-orgmode", &(x)->orgmode, "FILE", \
               "also write hyperfine's org-mode table to FILE")
/* hyperfine's display options: -u/--time-unit (out.h's out_time_unit), --style (cli.h's
 * cli_style), --sort (the markup exports' rows). */
#define MOPT_SHOW() \
    OPT_CALLBACK('u', "time-unit", NULL, "UNIT", \
                 "every time in second, millisecond or microsecond (the text\n" \
                 "and the Markdown, AsciiDoc and org-mode exports; default:\n" \
                 "a unit for each value)", harness_opt_time_unit), \
    OPT_CALLBACK(0, "style", NULL, "STYLE", \
                 "auto (default), basic (no colour, no progress line), full,\n" \
                 "nocolor, color, or none (nothing on standard output)", harness_opt_style), \
    OPT_CALLBACK(0, "sort", NULL, "METHOD", \
                 "the exported tables' rows: auto or command (as given), or\n" \
                 "mean-time (fastest first)", harness_opt_sort)
/* --export-bmf, --export-gab, --export-junit: CI tools' files, into a struct cli_export. */
#define MOPT_CI_EXPORTS(x) \
    OPT_STRING(0, "export-bmf", &(x)->path[EXPORT_BMF], "FILE", \
               "also write bencher's BMF JSON to FILE"), \
    OPT_STRING(0, "export-gab", &(x)->path[EXPORT_GAB], "FILE", \
               "also write github-action-benchmark's customSmallerIsBetter JSON"), \
    OPT_STRING(0, "export-junit", &(x)->path[EXPORT_JUNIT], "FILE", \
               "also write JUnit XML (a regression or a failure: a failing test)")
/* The hooks, stdin and stdout of the runs, into a struct harness. */
#define MOPT_HOOKS(h) \
    OPT_CALLBACK('s', "setup", (h), "CMD", \
                 "run CMD once before each series' runs (repeatable, in order)", \
                 harness_opt_hook, .defval = HARNESS_SETUP), \
    OPT_CALLBACK('p', "prepare", (h), "CMD", \
                 "run CMD before every run, warm-ups included; never timed", \
                 harness_opt_hook, .defval = HARNESS_PREPARE), \
    OPT_CALLBACK('C', "conclude", (h), "CMD", "run CMD after every run; never timed", \
                 harness_opt_hook, .defval = HARNESS_CONCLUDE), \
    OPT_CALLBACK('c', "cleanup", (h), "CMD", \
                 "run CMD once after each series' runs, even after a failure\n" \
                 "(hooks get TARE_SERIES and TARE_ITERATION: 1, 2, ... for\n" \
                 "measured runs, -1, -2, ... for warm-ups, 0 for setup/cleanup)", \
                 harness_opt_hook, .defval = HARNESS_CLEANUP), \
    OPT_STRING(0, "input", &(h)->input, "FILE", \
               "every run reads FILE on stdin (default: /dev/null)"), \
    OPT_CALLBACK(0, "output", (h), "WHERE", \
                 "the runs' stdout: null (default), pipe (read through a pipe\n" \
                 "and thrown away), inherit (stdout and stderr passed\n" \
                 "through), or a FILE (every run's output, appended)", \
                 harness_opt_output), \
    OPT_CALLBACK(0, "show-output", (h), NULL, "the same as --output inherit", \
                 harness_opt_show_output)
/* The parameters (-P, -D, -L), into a struct harness: one series per combination. */
#define MOPT_PARAMS(h) \
    OPT_CALLBACK('P', "parameter-scan", (h), "VAR MIN MAX", \
                 "one series per value of VAR from MIN to MAX, {VAR} replaced\n" \
                 "in the commands and hooks", harness_opt_scan), \
    OPT_STRING('D', "parameter-step-size", &(h)->step, "STEP", "the scan's step (default 1)"), \
    OPT_CALLBACK('L', "parameter-list", (h), "VAR A,B,...", \
                 "one series per value (repeatable: every combination)", harness_opt_list)
/* The run count by time (-m, -M, --min-time) in place of --runs, into a struct harness. */
#define MOPT_RUNS_BY_TIME(h) \
    OPT_LONG('m', "min-runs", &(h)->min_runs, "N", 1, 1000000, \
             "at least N measured runs (default: --runs's 7)"), \
    OPT_LONG('M', "max-runs", &(h)->max_runs, "N", 1, 1000000, "at most N measured runs"), \
    OPT_SECONDS(0, "min-time", &(h)->min_time, "SECONDS", \
                "measure until the runs (hooks included) took this long, at\n" \
                "least --min-runs and at most --max-runs of them"), \
    OPT_SECONDS(0, "min-benchmarking-time", &(h)->min_time, "SECONDS", \
                "the same as --min-time (hyperfine's name)")
/* --metrics-from WHERE, --metrics-pattern REGEX: the program's own counters (core/util/metrics.h),
 * into two strings (cli_metrics_spec makes them one spec). */
#define MOPT_METRICS(from, pattern) \
    OPT_STRING(0, "metrics-from", (from), "WHERE", \
               "also read the program's own counters: stderr, stdout or a\n" \
               "FILE it writes; lines NAME: INTEGER or NAME=INTEGER"), \
    OPT_STRING(0, "metrics-pattern", (pattern), "REGEX", \
               "their lines instead: an extended regex, (NAME) (VALUE) groups")

#endif
