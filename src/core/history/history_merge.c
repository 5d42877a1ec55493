/* history_merge.c: history files (shards) merged into one: column union, commit order,
 * duplicate rows once, written to a temporary file and renamed into place. */
#define _GNU_SOURCE
#include "core/history/history.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mrow { const struct hist_table *t; size_t r, file, seq, rank; };

/* What a merge holds between reading and writing. */
struct merge {
    int nf;
    struct hist_table *t;
    struct hist_db db;
    const char **cols;   /* the output columns: canonical names, first-seen order */
    int ncols;
    int *map;            /* map[file * ncols + j]: that file's column for output column j, or -1 */
    struct mrow *rows;
    size_t nr;
};

static int cmp_mrow(const void *a, const void *b)
{
    const struct mrow *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    /* Within a commit by series, so a row given twice sits next to itself. */
    int c =
        strcmp(hist_cell(x->t, x->r, x->t->c_benchmark), hist_cell(y->t, y->r, y->t->c_benchmark));
    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int no_memory(struct err *e)
{
    return err_set(e, ERR_SYSTEM, "out of memory");
}

/* Every input read (from its locked descriptor) and joined by commit. */
static int merge_read(struct merge *m, const struct hist_lockset *ls, char **paths,
                      size_t *torn, size_t *total, struct err *e)
{
    *total = 0;
    for (int i = 0; i < m->nf; i++) {
        if (hist_read_fd(ls->fd[i], paths[i], &m->t[i], e) < 0)
            return -1;
        *total += m->t[i].nrows;
        /* A torn row is left out of OUT: never rewritten as a whole one. */
        if (torn)
            torn[i] = m->t[i].torn_line;
        if (hist_db_add(&m->db, &m->t[i], e) < 0)
            return -1;
    }
    hist_db_finish(&m->db);
    return 0;
}

/* The union of the columns by tare's names, in first-seen order, and each file's column for
 * each of them. */
static int merge_columns(struct merge *m, struct err *e)
{
    for (int i = 0; i < m->nf; i++)
        for (int k = 0; k < m->t[i].ncols; k++) {
            const char *name = hist_canonical(m->t[i].cols[k]);
            bool seen = false;
            for (int j = 0; j < m->ncols; j++)
                seen |= strcmp(m->cols[j], name) == 0;
            if (!seen) {
                const char **nc = realloc(m->cols, (m->ncols + 1) * sizeof *nc);
                if (!nc)
                    return no_memory(e);
                m->cols = nc;
                m->cols[m->ncols++] = name;
            }
        }
    m->map = calloc((size_t)m->nf * m->ncols + 1, sizeof *m->map);
    if (!m->map)
        return no_memory(e);
    for (int i = 0; i < m->nf; i++)
        for (int j = 0; j < m->ncols; j++) {
            m->map[i * m->ncols + j] = -1;
            for (int k = 0; k < m->t[i].ncols; k++)
                if (strcmp(hist_canonical(m->t[i].cols[k]), m->cols[j]) == 0)
                    m->map[i * m->ncols + j] = k;
        }
    return 0;
}

/* Every row, in commit order, then by series, then as given. */
static int merge_sort(struct merge *m, size_t total, struct err *e)
{
    m->rows = calloc(total + 1, sizeof *m->rows);
    if (!m->rows)
        return no_memory(e);
    struct err ignored;
    for (int i = 0; i < m->nf; i++)
        for (size_t r = 0; r < m->t[i].nrows; r++) {
            const struct hist_table *t = &m->t[i];
            long k = hist_db_find_commit(&m->db, hist_cell(t, r, t->c_commit), &ignored);
            m->rows[m->nr] = (struct mrow){t, r, (size_t)i, m->nr, (size_t)(k < 0 ? 0 : k)};
            m->nr++;
        }
    qsort(m->rows, m->nr, sizeof *m->rows, cmp_mrow);
    return 0;
}

/* The header, then each row (absent cells NA), an identical row twice (a shard merged again)
 * once. Returns the rows written, or -1 with e set. */
static long merge_write(const struct merge *m, FILE *f, struct err *e)
{
    for (int j = 0; j < m->ncols; j++)
        fprintf(f, "%s%c", m->cols[j], j + 1 < m->ncols ? '\t' : '\n');
    char *prev = NULL;
    long written = 0;
    for (size_t r = 0; r < m->nr; r++) {
        char *line = NULL;
        size_t len = 0;
        FILE *mf = open_memstream(&line, &len);
        if (!mf) {
            free(prev);
            return no_memory(e);
        }
        for (int j = 0; j < m->ncols; j++) {
            int k = m->map[m->rows[r].file * m->ncols + j];
            const char *s = k >= 0 ? hist_cell(m->rows[r].t, m->rows[r].r, k) : "";
            fprintf(mf, "%s%c", *s ? s : "NA", j + 1 < m->ncols ? '\t' : '\n');
        }
        if (fclose(mf) != 0 || !line) {
            free(line);
            free(prev);
            return no_memory(e);
        }
        if (!prev || strcmp(prev, line) != 0) {
            fputs(line, f);
            written++;
        }
        free(prev);
        prev = line;
    }
    free(prev);
    return written;
}

static void signals_held(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

static int no_tmp_hook(const char *path)
{
    (void)path;
    return 0;
}

/* The rows written to OUT.tmp.PID, synced, then renamed onto out. */
static long merge_replace(const struct merge *m, const char *out, int (*tmp_named)(const char *),
                          struct err *e)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp.%d", out, (int)getpid()) < 0)
        return no_memory(e);
    if (tmp_named(tmp) < 0) {
        err_set(e, ERR_INPUT, "'%s': name too long", out);
        free(tmp);
        return -1;
    }
    long written = -1;
    int tfd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    FILE *f = tfd < 0 ? NULL : fdopen(tfd, "w");
    if (!f) {
        err_errno(e, ERR_SYSTEM, errno, "cannot create '%s'", tmp);
        if (tfd >= 0) {
            close(tfd);
            unlink(tmp);
        }
        goto out;
    }
    written = merge_write(m, f, e);
    if (written < 0) {
        fclose(f);
        unlink(tmp);
        goto out;
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0) {
        err_errno(e, ERR_SYSTEM, errno, "cannot write '%s'", tmp);
        unlink(tmp);
        written = -1;
        goto out;
    }
    /* Signals held from the rename until the hook no longer names the temporary file: OUT is
     * then the old file or the new one, never a partial one, and nothing is left behind. */
    sigset_t hold, old;
    signals_held(&hold);
    sigprocmask(SIG_BLOCK, &hold, &old);
    if (rename(tmp, out) < 0) {
        int saved = errno;
        unlink(tmp);
        tmp_named(NULL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        err_errno(e, ERR_SYSTEM, saved, "cannot rename '%s' to '%s'", tmp, out);
        written = -1;
        goto out;
    }
    tmp_named(NULL);
    sigprocmask(SIG_SETMASK, &old, NULL);
    hist_sync_dir(out);
out:
    tmp_named(NULL);
    free(tmp);
    return written;
}

long hist_merge(char **paths, int n, const char *out, int (*tmp_named)(const char *path),
                size_t *torn, struct err *e)
{
    struct merge m = {.nf = n};
    hist_db_init(&m.db);
    struct hist_lockset ls = {0};
    long written = -1;
    size_t total = 0;
    if (!tmp_named)
        tmp_named = no_tmp_hook;
    m.t = calloc(n > 0 ? n : 1, sizeof *m.t);
    if (!m.t) {
        no_memory(e);
        goto out;
    }
    /* Every input locked shared and OUT exclusive until OUT is replaced: rows appended to an
     * input meanwhile wait for the lock, then go into the new OUT (tare-history(1)). */
    if (hist_lockset_open(&ls, paths, n, out, e) < 0)
        goto out;
    if (merge_read(&m, &ls, paths, torn, &total, e) < 0 || merge_columns(&m, e) < 0 ||
        merge_sort(&m, total, e) < 0)
        goto out;
    written = merge_replace(&m, out, tmp_named, e);
out:
    hist_lockset_free(&ls);   /* after the rename: waiting writers then find the new OUT */
    free(m.rows);
    free(m.map);
    free(m.cols);
    for (int i = 0; m.t && i < n; i++)
        hist_table_free(&m.t[i]);
    free(m.t);
    hist_db_free(&m.db);
    return written;
}
