/* revs.c: tare run --revisions in the library (revs.h): list the range, leave out what is
 * done, build each commit in a worktree of its own worker, measure, write its rows. */
#define _GNU_SOURCE
#include "core/engine/revs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/git/gitwt.h"
#include "core/history/history.h"
#include "core/util/proc.h"

struct revs_sync {
    pthread_rwlock_t rw;     /* builds and counts share it; a wall pass holds it alone */
    pthread_mutex_t mu;      /* the queue, the history files, the progress lines */
};

void revs_lock(struct revs_sync *s, bool alone)
{
    if (alone)
        pthread_rwlock_wrlock(&s->rw);
    else
        pthread_rwlock_rdlock(&s->rw);
}

void revs_unlock(struct revs_sync *s)
{
    pthread_rwlock_unlock(&s->rw);
}

/* What became of one commit. */
enum revs_state { REVS_TODO, REVS_DONE, REVS_NOBUILD, REVS_SKIPPED };

/* The whole backfill: the commits, and what the workers share. */
struct revs {
    const struct revs_opts *o;
    struct gitwt_log log;    /* the commits, oldest first once listed */
    size_t *pick;            /* the commits to measure, in order; npick of them */
    size_t npick, next, done, nfailed_series;
    enum revs_state *state;
    char **why;              /* a build's failure, per commit */
    struct revs_sync sync;
    double t0;
    struct err err;          /* the first error (it stops every worker) */
    bool stop;
};

/* The range as git lists it (A..B, or B and every commit before it: first parent, oldest
 * first), or the revisions of a file (one a line) in its order. 0, or -1 with e set. */
static int list_commits(struct revs *v, const char *top, struct err *e)
{
    const char *range = v->o->range;
    if (access(range, F_OK) != 0) {   /* a range as git means it: A..B, or B and before */
        char *args[] = {"--first-parent", "--end-of-options", (char *)range, NULL};
        if (gitwt_log(top, args, &v->log, e) < 0)
            return -1;
        for (size_t i = 0, j = v->log.n; i < j--; i++) {   /* git gives the newest first */
            char **f[3] = {v->log.hash, v->log.date, v->log.subject};
            for (int k = 0; k < 3; k++) {
                char *t = f[k][i];
                f[k][i] = f[k][j];
                f[k][j] = t;
            }
        }
    } else {
        char *args[] = {"--no-walk=unsorted", "--stdin", NULL};
        if (gitwt_log_in(top, args, range, &v->log, e) < 0)
            return -1;
    }
    if (v->log.n == 0)
        return err_set(e, ERR_INPUT, "--revisions '%s': no commits", range);
    return 0;
}

/* Whether every history file the rows go to has rows of commit c already. */
static bool in_history(struct hist_table *t, int nt, const char *c)
{
    for (int k = 0; k < nt; k++) {
        bool found = false;
        for (size_t r = 0; r < t[k].nrows && !found; r++)
            found = strcmp(hist_cell(&t[k], r, t[k].c_commit), c) == 0;
        if (!found)
            return false;
    }
    return true;
}

/* The commits to measure: every N-th back from the newest, less those in the history
 * already (--skip-existing). 0, or -1 with e set. */
static int pick_commits(struct revs *v, struct err *e)
{
    const struct revs_opts *o = v->o;
    size_t n = v->log.n;
    struct hist_table t[2];
    int nt = 0;
    for (int k = 0; o->skip_existing && k < o->nfiles; k++) {
        if (access(o->files[k], F_OK) != 0) {
            nt = -1;   /* a file not there yet: no commit has all its rows */
            break;
        }
        if (hist_read(o->files[k], &t[nt], e) < 0) {
            for (int j = 0; j < nt; j++)
                hist_table_free(&t[j]);
            return -1;
        }
        nt++;
    }
    v->pick = calloc(n + 1, sizeof *v->pick);
    v->state = calloc(n + 1, sizeof *v->state);
    v->why = calloc(n + 1, sizeof *v->why);
    if (!v->pick || !v->state || !v->why) {
        for (int j = 0; j < nt; j++)
            hist_table_free(&t[j]);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if ((n - 1 - i) % (size_t)o->every != 0)
            continue;
        if (nt > 0 && in_history(t, nt, v->log.hash[i]))
            v->state[i] = REVS_SKIPPED;
        else
            v->pick[v->npick++] = i;
    }
    for (int j = 0; j < nt; j++)
        hist_table_free(&t[j]);
    return 0;
}

/* One commit's rows into the history files (under v->sync.mu), and said. */
static int commit_done(struct revs *v, size_t i, struct revs_rows *rows, double took,
                       struct err *e)
{
    const struct revs_opts *o = v->o;
    struct hist_rows f[2];
    for (int k = 0; k < o->nfiles; k++)
        f[k] = (struct hist_rows){o->files[k], rows->text[k], rows->len[k]};
    if (hist_append_files(f, o->nfiles, e) < 0)
        return -1;
    v->done++;
    v->nfailed_series += v->state[i] == REVS_NOBUILD ? 0 : (size_t)rows->nfailed;
    if (v->state[i] != REVS_NOBUILD)
        v->state[i] = REVS_DONE;
    struct revs_event ev = {
        .done = v->done, .npick = v->npick, .hash = v->log.hash[i],
        .subject = v->log.subject[i], .nobuild = v->state[i] == REVS_NOBUILD,
        .nfailed = rows->nfailed, .nseries = rows->nseries, .took = took,
        .elapsed = proc_now() - v->t0,
    };
    if (o->progress)
        o->progress(o->pctx, &ev);
    return 0;
}

/* Builds commit i in w and measures it; -1 with e set on an error that stops the backfill. */
static int one_commit(struct revs *v, struct gitwt *w, size_t i, struct err *e)
{
    const struct revs_opts *o = v->o;
    double t = proc_now();
    char why[600] = "";
    revs_lock(&v->sync, false);
    int b = gitwt_build(w, v->log.hash[i], o->build, o->build_timeout, why, sizeof why, e);
    revs_unlock(&v->sync);
    if (b < 0)
        return -1;
    struct revs_commit c = {v->log.hash[i], v->log.date[i], v->log.subject[i]};
    struct revs_rows rows = {{NULL, NULL}, {0, 0}, 0, 0};
    if (b == 1 && !(v->why[i] = strdup(why)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    int rc = o->measure(o->ctx, w->cwd, &c, b == 1 ? why : NULL, &v->sync, &rows, e);
    pthread_mutex_lock(&v->sync.mu);
    /* an interrupt comes before the rows: a commit measured in part writes none */
    if (rc == 0 && proc_interrupted())
        rc = err_set(e, ERR_INTERRUPTED, "interrupted");
    if (rc == 0) {
        if (b == 1)
            v->state[i] = REVS_NOBUILD;
        rc = commit_done(v, i, &rows, proc_now() - t, e);
    }
    pthread_mutex_unlock(&v->sync.mu);
    free(rows.text[0]);
    free(rows.text[1]);
    return rc;
}

struct worker {
    struct revs *v;
    struct gitwt w;
};

static void *worker_run(void *arg)
{
    struct worker *k = arg;
    struct revs *v = k->v;
    for (;;) {
        pthread_mutex_lock(&v->sync.mu);
        bool stop = v->stop || proc_interrupted() || v->next >= v->npick;
        size_t i = stop ? 0 : v->pick[v->next++];
        pthread_mutex_unlock(&v->sync.mu);
        if (stop)
            return NULL;
        struct err e = {0};
        int rc = k->w.tmp ? 0 : gitwt_add(&k->w, &e);
        if (rc == 0)
            rc = one_commit(v, &k->w, i, &e);
        if (rc < 0) {
            pthread_mutex_lock(&v->sync.mu);
            if (!v->stop || e.kind == ERR_INTERRUPTED)
                v->err = e;
            v->stop = true;
            pthread_mutex_unlock(&v->sync.mu);
            return NULL;
        }
    }
}

/* The workers, each with a worktree of its own, until the queue is empty. */
static void run_workers(struct revs *v, int n)
{
    struct worker *k = calloc((size_t)n, sizeof *k);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    bool *started = calloc((size_t)n, sizeof *started);
    if (!k || !th || !started) {
        err_set(&v->err, ERR_SYSTEM, "out of memory");
        v->stop = true;
    }
    for (int j = 0; !v->stop && j < n; j++) {
        k[j].v = v;
        struct err e = {0};
        if (gitwt_open_in(&k[j].w, v->o->suite_dir, v->log.hash[v->pick[0]], &e) < 0) {
            pthread_mutex_lock(&v->sync.mu);
            v->err = e;
            v->stop = true;
            pthread_mutex_unlock(&v->sync.mu);
            break;
        }
        started[j] = pthread_create(&th[j], NULL, worker_run, &k[j]) == 0;
        if (!started[j])
            worker_run(&k[j]);
    }
    for (int j = 0; th && j < n; j++)
        if (started[j])
            pthread_join(th[j], NULL);
    for (int j = 0; k && j < n; j++) {   /* after an interrupt too: no worktree left */
        struct err ignored;
        gitwt_remove(&k[j].w, &ignored);
        gitwt_free(&k[j].w);
    }
    free(k);
    free(th);
    free(started);
}

/* The end: what was measured, skipped, and each commit that did not build. */
static int result(const struct revs *v, struct revs_result *r)
{
    *r = (struct revs_result){.done = v->done, .total = v->log.n, .seconds = proc_now() - v->t0,
                              .nfailed_series = v->nfailed_series, .stopped = v->stop,
                              .err = v->err};
    for (size_t i = 0; i < v->log.n; i++) {
        r->skipped += v->state[i] == REVS_SKIPPED;
        r->nnobuild += v->state[i] == REVS_NOBUILD;
    }
    if (r->nnobuild && !(r->nobuild = calloc(r->nnobuild, sizeof *r->nobuild)))
        return -1;
    for (size_t i = 0, k = 0; k < r->nnobuild && i < v->log.n; i++)
        if (v->state[i] == REVS_NOBUILD) {
            struct revs_nobuild *nb = &r->nobuild[k++];
            if (!(nb->hash = strdup(v->log.hash[i])) ||
                !(nb->subject = strdup(v->log.subject[i])) ||
                !(nb->why = strdup(v->why[i] ? v->why[i] : "")))
                return -1;
        }
    return 0;
}

void revs_result_free(struct revs_result *r)
{
    for (size_t i = 0; r->nobuild && i < r->nnobuild; i++) {
        free(r->nobuild[i].hash);
        free(r->nobuild[i].subject);
        free(r->nobuild[i].why);
    }
    free(r->nobuild);
    r->nobuild = NULL;
}

int revs_run(const struct revs_opts *o, struct revs_result *r, struct err *e)
{
    struct revs v = {.o = o, .t0 = proc_now()};
    char *top = NULL;
    memset(r, 0, sizeof *r);
    int rc = gitwt_toplevel(o->suite_dir, &top, e);
    if (rc != 0) {
        if (rc > 0)
            err_set(e, ERR_INPUT, "--revisions: the suite's directory '%s' is in no git "
                    "repository", o->suite_dir);
        return -1;
    }
    rc = -1;
    if (list_commits(&v, top, e) < 0 || pick_commits(&v, e) < 0)
        goto out;
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    /* a wall pass waiting is let in before new builds start: it does not wait for them all */
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&v.sync.rw, &ra);
    pthread_rwlockattr_destroy(&ra);
    pthread_mutex_init(&v.sync.mu, NULL);
    int jobs = o->jobs < (int)v.npick ? o->jobs : (int)v.npick;
    if (v.npick && o->start)
        o->start(o->pctx, v.npick, v.log.n, jobs);
    if (v.npick)
        run_workers(&v, jobs);
    rc = result(&v, r);
    if (rc < 0)
        err_set(e, ERR_SYSTEM, "out of memory");
    pthread_rwlock_destroy(&v.sync.rw);
    pthread_mutex_destroy(&v.sync.mu);
out:
    for (size_t i = 0; v.why && i < v.log.n; i++)
        free(v.why[i]);
    free(v.why);
    free(v.pick);
    free(v.state);
    gitwt_log_free(&v.log);
    free(top);
    return rc;
}
