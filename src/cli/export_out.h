/* export_out.h: the --export-bmf/--export-gab/--export-junit options every measuring command
 * shares, and writing the files they name (core/util/export.h does the formats). */
#ifndef TARE_EXPORT_OUT_H
#define TARE_EXPORT_OUT_H

#include <stdbool.h>

#include "core/util/export.h"

/* getopt values: the harness has 0x100..., each command its own from 0x180, these 0x1c0 */
enum { CLI_OPT_EXPORT_BMF = 0x1c0, CLI_OPT_EXPORT_GAB, CLI_OPT_EXPORT_JUNIT };

#define CLI_EXPORT_LONGOPTS \
    {"export-bmf", required_argument, NULL, CLI_OPT_EXPORT_BMF}, \
    {"export-gab", required_argument, NULL, CLI_OPT_EXPORT_GAB}, \
    {"export-junit", required_argument, NULL, CLI_OPT_EXPORT_JUNIT}

/* The help lines for the three options. */
#define CLI_EXPORT_HELP \
    "      --export-bmf FILE   also write bencher's BMF JSON to FILE\n" \
    "      --export-gab FILE   also write github-action-benchmark's customSmallerIsBetter JSON\n" \
    "      --export-junit FILE also write JUnit XML (a regression or a failure: a failing test)\n"

/* The files asked for, by format; NULL where none. */
struct cli_export {
    const char *path[EXPORT_NFORMATS];
};

struct count_job;
/* Adds one counted series (a count_job of core/engine/count.h): instructions, allocations, bytes
 * and
 * peak_bytes, runs 1 (2 with check_warm, the two passes' range beside instructions and
 * allocations); a failed job's counts NA with its reason; bytes NA without the allocator:
 * skipped with its note. 0, or -1 with e set. */
int cli_export_add_counts(struct export_set *s, const char *name, const struct count_job *j,
                          bool check_warm, struct err *e);
/* Adds --subtract's net counts of one series the same way: net_instructions,
 * net_allocations, net_bytes (NA, skipped, where the baseline's was the larger). 0, or -1. */
int cli_export_add_net(struct export_set *s, const char *name, const struct count_job *j,
                       struct err *e);
/* Adds --cache-sim's counts of one series the same way: l1i_misses, l1d_misses, lli_misses,
 * lld_misses and est_cycles. 0, or -1 with e set. */
int cli_export_add_cache(struct export_set *s, const char *name, const struct count_job *j,
                         struct err *e);

struct metrics;
struct metrics_spec;
/* Adds one series' own counters (core/util/metrics.h), each as metric.NAME: its value (the runs'
 * median where they differ) with the runs' min .. max beside it and how many runs reported
 * it. asked (--metrics-from) and none reported: one skipped record, metrics, saying so. A
 * failed series (ms NULL) adds nothing: its other records fail already. 0, or -1. */
int cli_export_add_metrics(struct export_set *s, const char *name, const struct metrics *ms,
                           const struct metrics_spec *asked, struct err *e);

/* Adds one timed series: its median with median -/+ MAD of times[0..n), n runs, and its ratio to
 * a reference when ratio is not NAN; why_failed (not NULL): NA with that reason. */
int cli_export_add_wall(struct export_set *s, const char *name, const double *times, int n,
                        const char *why_failed, double ratio, struct err *e);

struct hist_db;
struct hist_judgement;
/* Adds one judgement of history check at the commit checked (hist_check_commit): its value
 * there; a regression (before, after, change, threshold, the commit of the step) fails, a
 * metric not tested is skipped with why; an improvement or a pending step passes with a
 * note. 0, or -1 with e. */
int cli_export_add_check(struct export_set *s, const struct hist_db *db,
                         const struct hist_judgement *j, struct err *e);

/* Takes the option value of c if c is one of the three (true), else false. */
bool cli_export_opt(struct cli_export *x, int c, const char *arg);
/* Whether any file was asked for. */
bool cli_export_wanted(const struct cli_export *x);
/* Writes every file asked for; a record left out of a format (NA) is said in a note on
 * stderr. EXIT_OK, or the exit status of the first file that could not be written (said). */
int cli_export_write(const char *cmd, const struct cli_export *x, const struct export_set *s);

#endif
