/* run_revs.h: tare run --revisions: the suite measured at each commit of a range (a
 * backfill), each commit in a worktree built first, its rows written under it; several
 * commits at once where the passes allow. cmd_run.c measures; this lists, builds, schedules,
 * writes and says. */
#ifndef TARE_RUN_REVS_H
#define TARE_RUN_REVS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

/* One commit of the range, as git log gives it. */
struct revs_commit {
    const char *hash, *date, *subject;
};

/* The workers' shared lock: builds and count passes of several commits run at once; a wall
 * pass runs alone (the others' builds and counts wait for it, and it for them). */
struct revs_sync;
/* Takes the lock: alone (a wall pass) or beside the others (a build, a count pass). */
void revs_lock(struct revs_sync *s, bool alone);
void revs_unlock(struct revs_sync *s);

/* One commit's rows: for each history file (wall.tsv, count.tsv: the passes that ran), a
 * header line and rows, as hist_append takes them. */
struct revs_rows {
    char *text[2];
    size_t len[2];
    int nseries, nfailed;   /* the series, and those whose figures are NA */
};

/* Measures one commit in dir (the suite's directory in its worktree), the passes taking
 * sync's lock as they need; with fail not NULL (its build failed) measures nothing and makes
 * every row NA with that reason. Fills rows (freed by the caller). 0, or -1 with e set. */
typedef int (*revs_measure_fn)(void *ctx, const char *dir, const struct revs_commit *c,
                               const char *fail, struct revs_sync *sync, struct revs_rows *rows,
                               struct err *e);

struct revs_opts {
    const char *range;       /* A..B (git's meaning, first parent), or a file of revisions */
    int every;               /* keep every N-th commit, counting back from the newest */
    const char *build;       /* run in the worktree before measuring, or NULL */
    double build_timeout;    /* seconds, 0 for none */
    bool skip_existing;      /* leave out commits with rows in every history file already */
    int jobs;                /* commits at once */
    const char *suite_dir;   /* the suite's directory in the user's tree */
    const char *files[2];    /* the history files the rows go to (wall.tsv, count.tsv) */
    int nfiles;
    revs_measure_fn measure;
    void *ctx;
};

/* The backfill (said on stderr as it goes, with an estimate of the time left, and its
 * failures once at the end): the exit status (0, 1 when a build or a series failed, 2 bad
 * input, 130/143 interrupted: no worktree and no partial row left). */
int run_revisions(const char *cmd, const struct revs_opts *o);

#endif
