/* harness.h: what every wall-clock command shares around its runs: hooks, stdin, stdout,
 * and parameters (one series per combination of values). Their options are
 * measure_opts.h's MOPT_HOOKS, MOPT_PARAMS and MOPT_RUNS_BY_TIME. */
#ifndef TARE_HARNESS_H
#define TARE_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/targets.h"
#include "core/session.h"

enum harness_hook {
    HARNESS_SETUP, HARNESS_PREPARE, HARNESS_CONCLUDE, HARNESS_CLEANUP, HARNESS_NHOOKS
};

/* One parameter: {VAR} in the commands and hooks takes each of its values in turn. */
struct harness_param {
    const char *var;
    const char *scan[2];              /* --parameter-scan MIN MAX as given, or NULL */
    const char *list;                 /* --parameter-list a,b,c as given, or NULL */
    char **values;                    /* made by harness_finish */
    int n;
};

/* One combination of the parameters' values, and the hooks with them substituted. */
struct harness_combo {
    char *label;                      /* "n=30 m=2", or "" without parameters */
    int *pick;                        /* each parameter's value index */
    char **(*hook_argv[HARNESS_NHOOKS]);
};

struct harness {
    const char *cmd, *usage;          /* for messages: "wall", its usage */
    const char **hook_str[HARNESS_NHOOKS];   /* as given, in order */
    int nhook[HARNESS_NHOOKS];
    struct harness_param *param;      /* in the order given */
    int nparam;
    const char *step;                 /* --parameter-step-size, or NULL */
    struct harness_combo *combo;      /* made by harness_finish: 1 without parameters */
    int ncombo;
    const char *input;                /* --input FILE, or NULL */
    const char *output_file;          /* --output FILE, or NULL */
    bool show_output;                 /* --output inherit / --show-output */
    bool output_pipe;                 /* --output pipe: through a pipe, then thrown away */
    bool runs_given;                  /* --runs: the command sets it */
    long min_runs, max_runs;          /* --min-runs, --max-runs, or 0 */
    double min_time;                  /* --min-time SECONDS, or 0 */
};

/* Room for argc hook options of each kind; false when out of memory. */
bool harness_init(struct harness *h, const char *cmd, const char *usage, int argc);
/* Makes the parameters' values and their combinations, splits the hooks into argv as the
 * commands are (SHELL -c with a shell), substituted for each, and checks that the input can
 * be read. 0, or the exit status after printing the error. */
int harness_finish(struct harness *h, const char *shell);
/* The measured runs from --runs (*runs, runs_given), --min-runs, --max-runs, --min-time:
 * without a time, --min-runs (else *runs) capped by --max-runs. 0, or the exit status after
 * printing the error (--runs with the others, min above max). */
int harness_count_finish(struct harness *h, long *runs);
/* " (--min-time 2 s reached)", " (--max-runs reached before --min-time 60 s)" or "":
 * why the last group's measured runs stopped, for the line above a table. */
const char *harness_count_why(const struct harness *h, const struct session *s, char *buf,
                              size_t n);
/* targets_from_args, then one target per command (and lane) per combination, in that order
 * (target k has combination k % ncombo), named "NAME VAR=VALUE ..." */
int harness_targets(struct harness *h, int argc, char **argv, int dd,
                    const struct target_spec *spec, struct target **out, int *nout);
/* The first parameter whose {VAR} is in s, or NULL. */
const char *harness_param_in(const struct harness *h, const char *s);
/* The hooks of a series (borrowed from h), with combination `combo`'s values. */
void harness_apply(const struct harness *h, struct session_series *x, int combo);
/* The hooks of combination `combo` (borrowed from h): setup, prepare, conclude, cleanup. */
void harness_cmds(const struct harness *h, int combo, struct session_cmds out[HARNESS_NHOOKS]);
/* stdin, stdout and show_output of a plan. */
void harness_plan(const struct harness *h, struct session_plan *p);
void harness_free(struct harness *h);
/* The engine's progress callback of wall and stat: "NAME run I/N  T s" on one line of a
 * terminal's stderr, rewritten each run. */
void harness_progress(void *ctx, const struct session *ss, const struct session_event *ev);

#endif
