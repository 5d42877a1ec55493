/* revs.h: tare run --revisions in the library: the suite measured at each commit of a range (a
 * backfill), each commit in a worktree built first, its rows written under it; several commits
 * at once where the passes allow. The caller measures (revs_measure_fn) and says what happens
 * (the progress callbacks); this lists, picks, builds, schedules and writes. */
#ifndef TARE_REVS_H
#define TARE_REVS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/err.h"

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

/* One commit done (its rows written), for a progress line. */
struct revs_event {
    size_t done, npick;       /* commits done so far, of those to measure */
    const char *hash, *subject;
    bool nobuild;             /* it did not build: its rows are NA */
    int nfailed, nseries;     /* its series whose figures are NA, of */
    double took, elapsed;     /* this commit's seconds, and the backfill's so far */
};

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
    /* Called before the workers start (npick of the range's total, jobs at a time), and as
     * each commit is done (serialised); either may be NULL. */
    void (*start)(void *pctx, size_t npick, size_t total, int jobs);
    void (*progress)(void *pctx, const struct revs_event *ev);
    void *pctx;
};

/* A commit that did not build, and why (owned by the result). */
struct revs_nobuild {
    char *hash, *subject, *why;
};

struct revs_result {
    size_t done, total, skipped;      /* measured, in the range, in the history already */
    double seconds;
    struct revs_nobuild *nobuild;     /* in the range's order */
    size_t nnobuild;
    size_t nfailed_series;            /* series NA at commits that built */
    bool stopped;                     /* an error stopped it: err says which */
    struct err err;
};

/* The backfill. 0 with *r filled (r->stopped when an error or an interrupt stopped it part of
 * the way: no worktree and no partial row is left); -1 with e set when it could not start
 * (not a repository, a bad range, a history file unreadable). */
int revs_run(const struct revs_opts *o, struct revs_result *r, struct err *e);
void revs_result_free(struct revs_result *r);

#endif
