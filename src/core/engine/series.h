/* series.h: commands x lanes -> named series (struct series), shared by every measuring command. */
#ifndef TARE_SERIES_H
#define TARE_SERIES_H

#include <stdbool.h>

#include "core/util/err.h"
#include "core/engine/suite.h"

/* One series: a command in one lane. */
struct series {
    char *name;      /* series name: NAME, or NAME+LANE */
    char *lane;      /* lane name, or NULL */
    char *command;   /* the command as a person would type it, lane variables first */
    char **argv;     /* NULL-terminated */
    char **env;      /* lane variables, NULL-terminated, or NULL */
};

/* How commands become series: one struct suite_lane per --lane (or [lane] of a suite). */
struct series_spec {
    const char *shell;          /* run each command string with SHELL -c, or NULL */
    char **names;               /* --name values, in order of the commands; may be fewer */
    int nnames;
    struct suite_lane *lanes;   /* none: one plain series per command */
    int nlanes;
};

/* A series' name: "NAME+LANE", or NAME where lane is NULL or "" (the unnamed lane). Malloc'd;
 * NULL out of memory. */
char *series_name(const char *name, const char *lane);

/* Room for argc --name and --lane values; false when out of memory. */
bool series_spec_init(struct series_spec *spec, int argc);
/* Frees the lanes and names the spec holds. */
void series_spec_free(struct series_spec *spec);

/* Parses "NAME:VAR=VALUE[,VAR=VALUE...]" (NAME may be empty; the list may be empty). */
int lane_parse(const char *spec, struct suite_lane *out, struct err *e);
/* Frees what a lane owns, and forgets it. */
void lane_free(struct suite_lane *l);

/*
 * Builds the series for the commands: with dashdash, argv[0..argc) is one command's argv;
 * otherwise each argv[i] is one command string, split into words (or given to SHELL -c). Names
 * default to the command's first word's basename; default names that clash become
 * "basename args", and commands still alike get "#2", "#3"; names the user gave, and every
 * series' name, must be distinct. *out (malloc'd, argc x lanes, by command then lane).
 */
int series_build(const struct series_spec *spec, char **argv, int argc, bool dashdash,
                  struct series **out, int *nout, struct err *e);
/* One command string's argv, split into words (or given to SHELL -c with a shell: its own words,
 * "bash --norc", then -c and the string); refuses shell syntax without one. Hook commands are
 * split this way too. */
int series_split(const char *cmd, const char *shell, char ***argv, struct err *e);
/* One target from one command string, no lane (the reference). */
int series_from_string(const char *cmd, const char *name, const char *shell, struct series *t,
                       struct err *e);
/* Frees what each target owns (not the array itself). */
void series_free(struct series *t, int n);

#endif
