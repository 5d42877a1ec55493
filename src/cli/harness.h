/* harness.h: the command line's side of core/engine/harness.h (hooks, stdin, stdout, parameters
 * around a measuring command's series): its options are measure_opts.h's MOPT_HOOKS,
 * MOPT_PARAMS and MOPT_RUNS_BY_TIME; these finish it with errors worded for the command. */
#ifndef TARE_HARNESS_H
#define TARE_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/targets.h"
#include "core/engine/harness.h"
#include "core/engine/session.h"

/* harness_init with room for argc of each; false (said) when out of memory. */
bool harness_init_cli(const char *cmd, struct harness *h, int argc);
/* harness_expand and harness_open_files: 0, or the exit status after printing the error
 * (with the usage when it is bad usage). */
int harness_finish(const char *cmd, const char *usage, struct harness *h, const char *shell);
/* The measured runs (harness_runs): 0, or the exit status after printing the error. */
int harness_count_finish(const char *cmd, const char *usage, const struct harness *h,
                         long *runs);
/* " (--min-time 2 s reached)", " (--max-runs reached before --min-time 60 s)" or "":
 * why the last group's measured runs stopped, for the line above a table. */
const char *harness_count_why(const struct harness *h, const struct session *s, char *buf,
                              size_t n);
/* series_from_args, then one target per command (and lane) per combination, in that order
 * (target k has combination k % ncombo), named "NAME VAR=VALUE ..."; 0, or the exit status
 * after printing the error. */
int harness_targets(const char *cmd, const char *usage, const struct harness *h, int argc,
                    char **argv, int dd, const struct series_spec *spec, struct series **out,
                    int *nout);
/* The engine's progress callback of wall and stat: "NAME run I/N  T s" on one line of a
 * terminal's stderr, rewritten each run. */
void harness_progress(void *ctx, const struct session *ss, const struct session_event *ev);

#endif
