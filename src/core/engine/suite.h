/* suite.h: a benchmark suite file (INI, read by ini.c): command, benchmarks, reference,
 * runs and lanes; the benchmarks found by glob and split into shards. */
#ifndef TARE_SUITE_H
#define TARE_SUITE_H

#include <stdbool.h>

#include "core/engine/budget.h"
#include "core/engine/count.h"
#include "core/util/err.h"

struct suite_lane {
    char *name;     /* [lane NAME]; "" for a plain [lane] (series named after the benchmark) */
    char **env;     /* "VAR=VALUE" words, NULL-terminated */
    char *metrics_from, *metrics_pattern;   /* metrics =, metrics-pattern = beside env, or NULL */
};

struct suite_bench {
    char *name;     /* the file's base name without its extension */
    char *path;     /* as matched, relative to the suite's directory */
};

struct suite {
    char *dir;                 /* the suite file's directory: commands run there */
    char *command;             /* with {bench} (the path) and {name} */
    char *reference;           /* or NULL */
    char **patterns;           /* benchmarks = PATTERN...: globs, NULL-terminated */
    long runs, warmup;
    double timeout;            /* 0: none */
    bool count;                /* count = yes: the deterministic pass by default too */
    /* The count pass's options (tare run's --cache-sim, --engine, --valgrind-arg win):
     * cache-sim = yes|no, engine = callgrind|cachegrind, valgrind-arg = ARG (repeatable, in
     * order; NULL-terminated, or NULL). */
    bool cache_sim;
    enum count_engine engine;
    char **vg_args;
    /* subtract = CMD: a baseline counted in the same pass (a template like command; one a
     * lane when it has no {bench} or {name}, else one a series), or NULL. */
    char *subtract;
    /* setup, prepare, conclude, cleanup = CMD (repeatable, in order): templates like command,
     * run around the wall pass's runs (tare wall's hooks); NULL-terminated, or NULL. */
    char **hooks[4];
    char *input;               /* input = FILE: every timed run's stdin, a template, or NULL */
    /* metrics = stderr|stdout|FILE, metrics-pattern = REGEX: where the programs print their
     * own counters (core/util/metrics.h), or NULL; a lane's or a [bench NAME]'s win
     * (suite_metrics) */
    char *metrics_from, *metrics_pattern;
    /* keep-stacks = DIR: the count pass keeps each benchmark's allocation stacks there
     * (count_opts.stacks_dir; relative to the suite file's directory), or NULL */
    char *keep_stacks;
    char *build;               /* build = CMD: how tare run --revisions builds a commit (in the
                                * suite's directory of its worktree, /bin/sh -c), or NULL */
    struct suite_lane *lanes;
    int nlanes;
    struct suite_bench *bench;
    int nbench;
    struct budget *budgets;    /* [bench NAME] sections: thresholds and count budgets */
    int nbudgets;
};

/* Parses INI text (name: for messages; dir: where the suite's paths are relative to).
 * Errors say "'name' line N: ...". Does not look for the benchmarks. */
int suite_parse(const char *name, const char *text, const char *dir, struct suite *s,
                struct err *e);
/* Reads path, parses it, and globs the benchmarks (sorted; none found is an error). */
int suite_load(const char *path, struct suite *s, struct err *e);
void suite_free(struct suite *s);

/* Where benchmark b's program prints its counters in lane l (-1: no lanes): the [bench
 * NAME]'s keys, else the lane's, else the suite's (each of the two keys on its own); NULL
 * where none says. */
void suite_metrics(const struct suite *s, int b, int l, const char **from, const char **pattern);

/* Keeps every n-th benchmark starting at the k-th (1 <= k <= n), in sorted order. */
void suite_shard(struct suite *s, int k, int n);

/* The argv of a command template for one benchmark: split into words like a shell (nothing
 * expanded; shell syntax refused), then {bench} and {name} replaced in each word. */
int suite_argv(const char *tmpl, const struct suite_bench *b, char ***argv, struct err *e);

#endif
