/* harness.h: what surrounds the runs of a measuring command's series: hook commands, stdin,
 * stdout, and hyperfine's parameters ({VAR} in the commands and hooks takes each value of a
 * scan or a list in turn: one series per combination of values). The command line fills it
 * (cli/measure_opts.h); this makes the values, the combinations, each combination's hooks
 * as argv and its series, and gives them to a session plan. */
#ifndef TARE_CORE_HARNESS_H
#define TARE_CORE_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/err.h"
#include "core/engine/series.h"
#include "core/engine/session.h"

enum harness_hook {
    HARNESS_SETUP, HARNESS_PREPARE, HARNESS_CONCLUDE, HARNESS_CLEANUP, HARNESS_NHOOKS
};

/* One parameter: {VAR} in the commands and hooks takes each of its values in turn. */
struct harness_param {
    const char *var;
    const char *scan[2];              /* --parameter-scan MIN MAX as given, or NULL */
    const char *list;                 /* --parameter-list a,b,c as given, or NULL */
    char **values;                    /* made by harness_expand */
    int n;
};

/* One combination of the parameters' values, and the hooks with them substituted. */
struct harness_combo {
    char *label;                      /* "n=30 m=2", or "" without parameters */
    int *pick;                        /* each parameter's value index */
    char **(*hook_argv[HARNESS_NHOOKS]);
};

struct harness {
    const char **hook_str[HARNESS_NHOOKS];   /* as given, in order */
    int nhook[HARNESS_NHOOKS];
    struct harness_param *param;      /* in the order given */
    int nparam;
    const char *step;                 /* --parameter-step-size, or NULL */
    struct harness_combo *combo;      /* made by harness_expand: 1 without parameters */
    int ncombo;
    const char *input;                /* --input FILE, or NULL */
    const char *output_file;          /* --output FILE, or NULL */
    bool show_output;                 /* --output inherit / --show-output */
    bool output_pipe;                 /* --output pipe: through a pipe, then thrown away */
    bool runs_given;                  /* --runs: the command sets it */
    long min_runs, max_runs;          /* --min-runs, --max-runs, or 0 */
    double min_time;                  /* --min-time SECONDS, or 0 */
};

/* The most series parameters may make, so a typo in a scan cannot start a week of runs. */
#define HARNESS_MAX_COMBOS 10000

/* Room for `room` hook commands of each kind and parameters; -1 (e set) out of memory. */
int harness_init(struct harness *h, int room, struct err *e);
/* A new parameter VAR for option opt ("--parameter-list"), its values still to be set (scan
 * or list); NULL with e set (ERR_INPUT) when VAR is not a name or is given twice. */
struct harness_param *harness_add_param(struct harness *h, const char *opt, const char *var,
                                        struct err *e);
/* Makes the parameters' values and their combinations (the first parameter varies slowest),
 * and splits each combination's hooks into argv as the commands are (SHELL -c with a shell),
 * its values substituted. 0; -1 with e set: ERR_INPUT for a bad scan, list, step or hook (a
 * usage error), ERR_SYSTEM out of memory. */
int harness_expand(struct harness *h, const char *shell, struct err *e);
/* Checks that --input can be read and empties --output's file (every run, warm-ups too, then
 * appends to it): once here rather than as a failed spawn in every run. 0, or -1 (ERR_INPUT). */
int harness_open_files(const struct harness *h, struct err *e);
/* The first parameter that is in none of cmds[0..n) and none of the hooks, or NULL. */
const char *harness_param_unused(const struct harness *h, char *const *cmds, int n);
/* The first parameter whose {VAR} is in s, or NULL. */
const char *harness_param_in(const struct harness *h, const char *s);
/* s with every {VAR} replaced by combination c's value: malloc'd, NULL out of memory. */
char *harness_subst(const struct harness *h, int c, const char *s);
/*
 * The series of the commands cmds[0..n) (series_build's way, with spec and dashdash) for
 * every combination: raw[0..nraw) are those series built without substitution (their names
 * decide the names); target k is raw series k / ncombo in combination k % ncombo, named
 * "NAME VAR=VALUE ...". *out malloc'd (nraw * ncombo). 0, or -1 with e set.
 */
int harness_series(const struct harness *h, const struct series_spec *spec, char **cmds, int n,
                   bool dashdash, const struct series *raw, int nraw, struct series **out,
                   int *nout, struct err *e);
/* The measured runs from --runs (*runs, runs_given), --min-runs, --max-runs, --min-time:
 * without a time, --min-runs (else *runs) capped by --max-runs. 0, or -1 with e set (ERR_INPUT:
 * --runs with the others, min above max). */
int harness_runs(const struct harness *h, long *runs, struct err *e);
/* The hooks of combination `combo` (borrowed from h): setup, prepare, conclude, cleanup. */
void harness_cmds(const struct harness *h, int combo, struct session_cmds out[HARNESS_NHOOKS]);
/* The hooks of a series (borrowed from h), with combination `combo`'s values. */
void harness_apply(const struct harness *h, struct session_series *x, int combo);
/* stdin, stdout, show_output and the run count by time of a plan. */
void harness_plan(const struct harness *h, struct session_plan *p);
void harness_free(struct harness *h);

#endif
