/* suite.h: a benchmark suite file (INI, read by ini.c): command, benchmarks, reference,
 * runs and lanes; the benchmarks found by glob and split into shards. */
#ifndef TARE_SUITE_H
#define TARE_SUITE_H

#include <stdbool.h>

#include "core/budget.h"
#include "core/count.h"
#include "core/err.h"

struct suite_lane {
    char *name;     /* [lane NAME]; "" for a plain [lane] (series named after the benchmark) */
    char **env;     /* "VAR=VALUE" words, NULL-terminated */
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

/* Keeps every n-th benchmark starting at the k-th (1 <= k <= n), in sorted order. */
void suite_shard(struct suite *s, int k, int n);

/* The argv of a command template for one benchmark: split into words like a shell (nothing
 * expanded; shell syntax refused), then {bench} and {name} replaced in each word. */
int suite_argv(const char *tmpl, const struct suite_bench *b, char ***argv, struct err *e);

#endif
