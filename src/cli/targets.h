/* targets.h: turn a command line's commands, names and lanes into the series to measure. */
#ifndef TARE_TARGETS_H
#define TARE_TARGETS_H

#include <stdbool.h>

#include "core/err.h"

struct lane {
    char *name;      /* "" for the unnamed lane */
    char **env;      /* "VAR=VALUE", NULL-terminated */
};

/* One series: a command in one lane. */
struct target {
    char *name;      /* series name: NAME, or NAME+LANE */
    char *lane;      /* lane name, or NULL */
    char *command;   /* the command as a person would type it, lane variables first */
    char **argv;     /* NULL-terminated */
    char **env;      /* lane variables, NULL-terminated, or NULL */
};

struct target_spec {
    const char *shell;       /* --shell: run each command string with SHELL -c, or NULL */
    char **names;            /* --name values, in order of the commands; may be fewer */
    int nnames;
    struct lane *lanes;      /* none: one plain series per command */
    int nlanes;
};

/* Room for argc --name and --lane values; false when out of memory. */
bool target_spec_init(struct target_spec *spec, int argc);
/* --shell SHELL (hyperfine's -S): "none" for no shell, "default" for /bin/sh, else a shell's
 * name or path with its arguments ("bash --norc"), its program found now; false (the error and
 * the usage printed) when it is not one. */
bool target_spec_set_shell(struct target_spec *spec, const char *cmd, const char *usage,
                           const char *arg);
/* --lane ARG: parsed and added; false (the error and the usage printed) when it is bad. */
bool target_spec_add_lane(struct target_spec *spec, const char *cmd, const char *usage,
                          const char *arg);
void target_spec_free(struct target_spec *spec);

/* Parses "NAME:VAR=VALUE[,VAR=VALUE...]" (NAME may be empty; the list may be empty). */
int lane_parse(const char *spec, struct lane *out, struct err *e);
void lane_free(struct lane *l);

/*
 * Builds the series for the commands: with dashdash, argv[0..argc) is one command's argv;
 * otherwise each argv[i] is one command string, split into words (or given to sh -c).
 */
int targets_build(const struct target_spec *spec, char **argv, int argc, bool dashdash,
                  struct target **out, int *nout, struct err *e);
/* One command string's argv, split into words (or given to SHELL -c with a shell); refuses
 * shell syntax without one. Hook commands are split this way too. */
int target_split(const char *cmd, const char *shell, char ***argv, struct err *e);
/* One target from one command string, no lane (the reference). */
int target_from_string(const char *cmd, const char *name, const char *shell, struct target *t,
                       struct err *e);
/* Frees what each target owns (not the array itself). */
void targets_free(struct target *t, int n);

/*
 * After getopt_long(dd, argv, ...) with dd = find_dashdash(argc, argv): the commands are
 * what follows "--" or, without one, the strings from optind to dd. Builds their series.
 * Returns 0, or the exit status after printing the error (with the usage when it is bad usage).
 */
int targets_from_args(const char *cmd, const char *usage, int argc, char **argv, int dd,
                      const struct target_spec *spec, struct target **out, int *nout);

/* Finds the first "--" in argv; returns its index or argc. */
int find_dashdash(int argc, char **argv);

#endif
