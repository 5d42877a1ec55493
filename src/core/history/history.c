/* history.c: history TSV files: read by column name, appended safely, joined into series. */
#define _GNU_SOURCE
#include "core/history/history.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/input.h"
#include "core/util/metrics.h"
#include "core/util/proc.h"
#include "core/util/stats.h"

const char *const hist_metric_names[HM_COUNT] = {
    "median_s", "min_s", "ref_median_s", "ratio",
    "instructions", "allocations", "bytes", "peak_bytes",
    "l1i_misses", "l1d_misses", "lli_misses", "lld_misses", "est_cycles",
    "net_instructions", "net_allocations", "net_bytes",
};

const char *const hist_column_names[HC_COUNT] = {
    "date", "commit", "benchmark", "runs", "runner", "reference", "toolchain", "engine",
    "valgrind_args", "commit_date", "subject", "failure", "metrics_varied",
};

/* The columns of the files tare run writes, in order: a metric, or HM_COUNT + a column. */
static const int hist_file_columns[][11] = {
    [HIST_WALL] = {HM_COUNT + HC_DATE, HM_COUNT + HC_COMMIT, HM_COUNT + HC_BENCHMARK,
                   HM_MEDIAN_S, HM_MIN_S, HM_REF_MEDIAN_S, HM_RATIO, HM_COUNT + HC_RUNS,
                   HM_COUNT + HC_RUNNER, HM_COUNT + HC_REFERENCE, -1},
    [HIST_COUNT] = {HM_COUNT + HC_DATE, HM_COUNT + HC_COMMIT, HM_COUNT + HC_BENCHMARK,
                    HM_INSTRUCTIONS, HM_ALLOCATIONS, HM_BYTES, HM_PEAK_BYTES,
                    HM_COUNT + HC_TOOLCHAIN, HM_COUNT + HC_ENGINE, -1},
};
/* count.tsv's columns after those: with HIST_VGARGS the valgrind options, with HIST_NET the
 * net counts, with HIST_CACHE the cache simulation's. */
static const int hist_vgargs_columns[] = {HM_COUNT + HC_VALGRIND_ARGS, -1};
static const int hist_net_columns[] = {HM_NET_INSTRUCTIONS, HM_NET_ALLOCATIONS, HM_NET_BYTES, -1};
static const int hist_cache_columns[] = {HM_L1I_MISSES, HM_L1D_MISSES, HM_LLI_MISSES,
                                         HM_LLD_MISSES, HM_EST_CYCLES, -1};
/* Either file's, last: with HIST_GIT the commit's date and subject, with HIST_FAILURE why. */
static const int hist_git_columns[] = {HM_COUNT + HC_COMMIT_DATE, HM_COUNT + HC_SUBJECT, -1};
static const int hist_failure_columns[] = {HM_COUNT + HC_FAILURE, -1};

int hist_write_header(FILE *f, enum hist_file which, unsigned flags)
{
    return hist_write_header_cols(f, which, flags) < 0 || fputc('\n', f) == EOF ? -1 : 0;
}

int hist_write_header_cols(FILE *f, enum hist_file which, unsigned flags)
{
    bool count = which == HIST_COUNT;
    const int *part[6] = {hist_file_columns[which],
                          count && (flags & HIST_VGARGS) ? hist_vgargs_columns : NULL,
                          count && (flags & HIST_NET) ? hist_net_columns : NULL,
                          count && (flags & HIST_CACHE) ? hist_cache_columns : NULL,
                          flags & HIST_GIT ? hist_git_columns : NULL,
                          flags & HIST_FAILURE ? hist_failure_columns : NULL};
    const char *sep = "";
    for (int p = 0; p < 6; p++)
        for (const int *c = part[p]; c && *c >= 0; c++) {
            const char *name = *c < HM_COUNT ? hist_metric_names[*c]
                                             : hist_column_names[*c - HM_COUNT];
            if (fprintf(f, "%s%s", sep, name) < 0)
                return -1;
            sep = "\t";
        }
    return 0;
}

/* The seed's column names, read as tare's (documented in tare-history(1)). */
static const struct { const char *from, *to; } hist_alias[] = {
    {"mutsu_median_s", "median_s"},
    {"mutsu_min_s", "min_s"},
    {"raku_median_s", "ref_median_s"},
    {"ratio_mutsu_over_raku", "ratio"},
    {"rakudo", "reference"},
};

bool hist_metric_deterministic(int m)
{
    return m >= HM_INSTRUCTIONS;
}

bool hist_user_column(const char *name)
{
    size_t np = sizeof METRICS_PREFIX - 1;
    return strncmp(name, METRICS_PREFIX, np) == 0 &&
           metrics_name_valid(name + np, strlen(name + np));
}

bool hist_deterministic(const struct hist_series *s, int m)
{
    if (m < HM_COUNT)
        return hist_metric_deterministic(m);
    return !(s->varied >> (m - HM_COUNT) & 1);
}

const char *hist_db_metric_name(const struct hist_db *db, int m)
{
    return m < HM_COUNT ? hist_metric_names[m] : db->user[m - HM_COUNT];
}

int hist_db_metric_index(const struct hist_db *db, const char *name)
{
    int m = hist_metric_by_name(name);
    if (m >= 0)
        return m;
    size_t np = sizeof METRICS_PREFIX - 1;
    for (int k = 0; k < db->nuser; k++)
        if (strcmp(db->user[k], name) == 0 || strcmp(db->user[k] + np, name) == 0)
            return HM_COUNT + k;
    return -1;
}

const char *hist_canonical(const char *name)
{
    for (size_t i = 0; i < sizeof hist_alias / sizeof hist_alias[0]; i++)
        if (strcmp(name, hist_alias[i].from) == 0)
            return hist_alias[i].to;
    return name;
}

int hist_metric_by_name(const char *name)
{
    name = hist_canonical(name);
    for (int m = 0; m < HM_COUNT; m++)
        if (strcmp(name, hist_metric_names[m]) == 0)
            return m;
    return -1;
}

static int find_col(const struct hist_table *t, const char *canon)
{
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(hist_canonical(t->cols[c]), canon) == 0)
            return c;
    return -1;
}

void hist_table_free(struct hist_table *t)
{
    free(t->name);
    free(t->buf);
    free(t->cols);
    free(t->cells);
    free(t->line);
    free(t->val);
    memset(t, 0, sizeof *t);
}

/* Splits one line (NUL-terminated, no newline) at tabs into at most max cells; with
 * cells NULL it only counts them. */
static int split_tabs(char *s, char **cells, int max)
{
    int n = 0;
    if (!cells) {
        for (n = 1; *s; s++)
            n += *s == '\t';
        return n;
    }
    for (;;) {
        char *tab = strchr(s, '\t');
        if (n < max)
            cells[n] = s;
        n++;
        if (!tab)
            return n;
        *tab = '\0';
        s = tab + 1;
    }
}

/* A metric cell: a finite number, or NA / empty (NAN). */
static bool parse_number_cell(const char *s, double *out)
{
    *out = NAN;
    if (!*s || strcmp(s, "NA") == 0)
        return true;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* A count: decimal digits only (no sign, no exponent, no fraction) within 0 .. 2^64 - 1. */
static bool is_count(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    errno = 0;
    (void)strtoull(s, NULL, 10);
    return errno != ERANGE;
}

/* n digits at s, as a number within [lo, hi]; advances s. */
static bool digits(const char **s, int n, int lo, int hi)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*s)++) {
        if (**s < '0' || **s > '9')
            return false;
        v = v * 10 + (**s - '0');
    }
    return v >= lo && v <= hi;
}

/* An ISO 8601 date as tare writes it (2026-07-12T06:07:21Z), or a shorter form of one:
 * YYYY[-MM[-DD[Thh:mm[:ss[.f...]][Z|+hh:mm|-hh:mm]]]]. Dates order commits as text, so
 * anything else ("yesterday") would order them wrongly without a word. */
static bool is_date(const char *s)
{
    if (!digits(&s, 4, 0, 9999))
        return false;
    if (!*s)
        return true;
    if (*s++ != '-' || !digits(&s, 2, 1, 12))
        return false;
    if (!*s)
        return true;
    if (*s++ != '-' || !digits(&s, 2, 1, 31))
        return false;
    if (!*s)
        return true;
    if (*s++ != 'T' || !digits(&s, 2, 0, 23) || *s++ != ':' || !digits(&s, 2, 0, 59))
        return false;
    if (*s == ':') {
        s++;
        if (!digits(&s, 2, 0, 60))
            return false;
        if (*s == '.' || *s == ',') {
            s++;
            if (*s < '0' || *s > '9')
                return false;
            while (*s >= '0' && *s <= '9')
                s++;
        }
    }
    if (*s == 'Z')
        return s[1] == '\0';
    if (*s == '+' || *s == '-') {
        s++;
        return digits(&s, 2, 0, 23) && *s++ == ':' && digits(&s, 2, 0, 59) && !*s;
    }
    return !*s;
}

static bool is_na(const char *s)
{
    return !*s || strcmp(s, "NA") == 0;
}

/* Checks one metric cell and parses it into *v; NULL when good, else what is wrong. */
static const char *check_metric(int m, const char *cell, double *v)
{
    if (!parse_number_cell(cell, v))
        return "not a number";
    if (isnan(*v))
        return NULL;
    if (m >= HM_COUNT)   /* a program's counter: a count, or the median of counts */
        return *v < 0 ? "negative (a counter is 0 or more)" : NULL;
    if (hist_metric_deterministic(m))
        return is_count(cell) ? NULL : "not a count (a whole number from 0 to 2^64-1)";
    return *v < 0 ? "negative (times and ratios are 0 or more)" : NULL;
}

/* Parses buf (len bytes and room for one more), which t takes over. */
static int oom(const char *name, struct err *e)
{
    return err_set(e, ERR_SYSTEM, "'%s': out of memory", name);
}

/* The header, line 1 of a history at p: its columns, the metrics' slots, the row storage
 * for cap_rows rows; -1 with e set. */
static int parse_header(struct hist_table *t, char *p, size_t cap_rows, const char *name,
                        struct err *e)
{
    if (!*p) {
        err_set(e, ERR_INPUT, "'%s' line 1: no header (an empty file or first line)", name);
        return -1;
    }
    int n = split_tabs(p, NULL, 0);
    t->cols = calloc(n, sizeof *t->cols);
    t->cells = calloc(cap_rows * n + 1, sizeof *t->cells);
    t->line = calloc(cap_rows + 1, sizeof *t->line);
    if (!t->cols || !t->cells || !t->line)
        return oom(name, e);
    t->ncols = split_tabs(p, t->cols, n);
    for (int c = 0; c < t->ncols; c++) {
        if (!*t->cols[c]) {
            err_set(e, ERR_INPUT, "'%s' line 1: column %d has no name", name, c + 1);
            return -1;
        }
        for (int d = 0; d < c; d++)
            if (strcmp(hist_canonical(t->cols[c]), hist_canonical(t->cols[d])) == 0) {
                err_set(e, ERR_INPUT, "'%s' line 1: column '%s' twice", name, t->cols[c]);
                return -1;
            }
    }
    t->c_date = find_col(t, hist_column_names[HC_DATE]);
    t->c_commit = find_col(t, hist_column_names[HC_COMMIT]);
    t->c_benchmark = find_col(t, hist_column_names[HC_BENCHMARK]);
    if (t->c_commit < 0 || t->c_benchmark < 0) {
        /* One column with commas in it: CSV (hyperfine's --export-csv, say). */
        bool csv = t->ncols == 1 && strchr(t->cols[0], ',');
        err_set(e, ERR_INPUT, "'%s' line 1: no '%s' column: not a history file%s", name,
                hist_column_names[t->c_commit < 0 ? HC_COMMIT : HC_BENCHMARK],
                csv ? " (this looks like CSV: a history file is TSV, tab-separated, "
                "with commit and benchmark columns; see tare-history(1))" : "");
        return -1;
    }
    /* Each row's values of the metrics the file has (not of every metric tare knows:
     * a 50 MB history once held 16 doubles a row, 13 of them NAN). */
    t->nmet = 0;
    for (int m = 0; m < HM_MAX; m++) {
        t->c_metric[m] = m < HM_COUNT ? find_col(t, hist_metric_names[m]) : -1;
        t->slot[m] = t->c_metric[m] >= 0 ? t->nmet++ : -1;
    }
    /* The program's counters, in column order. */
    for (int c = 0; c < t->ncols; c++) {
        if (!hist_user_column(t->cols[c]))
            continue;
        if (t->nuser == HIST_USER_MAX) {
            err_set(e, ERR_INPUT, "'%s' line 1: more than %d %sNAME columns", name,
                    HIST_USER_MAX, METRICS_PREFIX);
            return -1;
        }
        t->c_metric[HM_COUNT + t->nuser] = c;
        t->slot[HM_COUNT + t->nuser++] = t->nmet++;
    }
    t->c_varied = find_col(t, hist_column_names[HC_METRICS_VARIED]);
    t->val = malloc((cap_rows + 1) * (t->nmet ? t->nmet : 1) * sizeof *t->val);
    if (!t->val)
        return oom(name, e);
    t->c_runner = find_col(t, hist_column_names[HC_RUNNER]);
    t->c_reference = find_col(t, hist_column_names[HC_REFERENCE]);
    t->c_toolchain = find_col(t, hist_column_names[HC_TOOLCHAIN]);
    t->c_engine = find_col(t, hist_column_names[HC_ENGINE]);
    t->c_vg_args = find_col(t, hist_column_names[HC_VALGRIND_ARGS]);
    t->c_commit_date = find_col(t, hist_column_names[HC_COMMIT_DATE]);
    t->c_subject = find_col(t, hist_column_names[HC_SUBJECT]);
    t->c_failure = find_col(t, hist_column_names[HC_FAILURE]);
    t->c_runs = find_col(t, hist_column_names[HC_RUNS]);
    return 0;
}

/* A row, at line lineno: its cells split, its values checked; -1 with e set. */
static int parse_row(struct hist_table *t, char *p, size_t lineno, const char *name,
                     struct err *e)
{
    char **row = t->cells + t->nrows * t->ncols;
    int n = split_tabs(p, row, t->ncols);
    if (n > t->ncols) {
        err_set(e, ERR_INPUT, "'%s' line %zu: %d fields, the header has %d", name,
                lineno, n, t->ncols);
        return -1;
    }
    /* Columns are appended at the end, so an older row may be short: the rest is NA. */
    for (int c = n; c < t->ncols; c++)
        row[c] = "";
    if (!*row[t->c_commit] || !*row[t->c_benchmark]) {
        err_set(e, ERR_INPUT, "'%s' line %zu: empty %s", name, lineno,
                !*row[t->c_commit] ? "commit" : "benchmark");
        return -1;
    }
    double *val = t->val + t->nrows * t->nmet;
    for (int m = 0; m < HM_COUNT + t->nuser; m++) {
        int c = t->c_metric[m];
        if (c < 0)
            continue;
        double *v = &val[t->slot[m]];
        *v = NAN;
        const char *why = check_metric(m, row[c], v);
        if (why) {
            err_set(e, ERR_INPUT, "'%s' line %zu: column '%s': %s: '%.40s'",
                    name, lineno, t->cols[c], why, row[c]);
            return -1;
        }
    }
    if (t->c_runs >= 0 && !is_na(row[t->c_runs]) && !is_count(row[t->c_runs])) {
        err_set(e, ERR_INPUT, "'%s' line %zu: column 'runs': not a count (a whole "
                "number, 0 or more): '%.40s'", name, lineno, row[t->c_runs]);
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        int c = k ? t->c_commit_date : t->c_date;
        if (c >= 0 && !is_na(row[c]) && !is_date(row[c])) {
            err_set(e, ERR_INPUT, "'%s' line %zu: column '%s': not an ISO 8601 date "
                    "(2026-07-12T06:07:21Z): '%.40s'", name, lineno, t->cols[c],
                    row[c]);
            return -1;
        }
    }
    t->line[t->nrows++] = lineno;
    return 0;
}

static int parse_owned(const char *name, char *buf, size_t len, struct hist_table *t,
                       struct err *e)
{
    memset(t, 0, sizeof *t);
    t->buf = buf;
    t->name = strdup(name);
    if (!t->name)
        goto oom;
    t->buf[len] = '\0';
    if (memchr(t->buf, '\0', len)) {
        err_set(e, ERR_INPUT, "'%s': a NUL byte: not a text file", name);
        goto fail;
    }
    /* Count lines for the allocations. */
    size_t nlines = 1;
    for (size_t i = 0; i < len; i++)
        nlines += t->buf[i] == '\n';
    char *p = t->buf, *end = t->buf + len;
    size_t lineno = 0;
    size_t cap_rows = nlines;
    while (p < end || lineno == 0) {
        char *nl = memchr(p, '\n', end - p);
        char *next = nl ? nl + 1 : end;
        if (nl)
            *nl = '\0';
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r')
            p[l - 1] = '\0';
        lineno++;
        /* A line is whole only with its newline: without one, the writer was cut off and the
         * line may end mid-cell (1234 of 123456). */
        if (!nl && *p) {
            if (lineno == 1) {
                err_set(e, ERR_INPUT, "'%s' line 1: the header has no newline: a cut file", name);
                goto fail;
            }
            t->torn_line = lineno;
            break;
        }
        if (lineno == 1) {
            if (parse_header(t, p, cap_rows, name, e) < 0)
                goto fail;
        } else if (*p && parse_row(t, p, lineno, name, e) < 0) {
            goto fail;
        }
        p = next;
        if (!nl)
            break;
    }
    return 0;
oom:
    err_set(e, ERR_SYSTEM, "'%s': out of memory", name);
fail:
    hist_table_free(t);
    return -1;
}

int hist_parse(const char *name, const char *text, size_t len, struct hist_table *t, struct err *e)
{
    char *buf = malloc(len + 1);
    if (!buf) {
        memset(t, 0, sizeof *t);
        return err_set(e, ERR_SYSTEM, "'%s': out of memory", name);
    }
    memcpy(buf, text, len);
    return parse_owned(name, buf, len, t, e);
}

/* The whole file from its start (pread: merge may read one descriptor twice; a pipe is
 * read as it comes), with room for a terminating NUL. */
/* The whole file, bounded (input.h): a NUL, an endless input or a line past the limit is an
 * error naming the file and line, found as the block holding it is read. */
static int read_all(int fd, const char *name, char **out, size_t *len, struct err *e)
{
    return in_read_all(fd, name, IN_MAX_FILE, IN_MAX_LINE, out, len, e);
}

/* ---- the lock protocol (tare-history(1), LOCKING) ---- */

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* flock, waiting; a signal that interrupts the wait is an interruption, not an error. */
static int lock_fd(int fd, bool exclusive, const char *path, struct err *e)
{
    if (flock(fd, exclusive ? LOCK_EX : LOCK_SH) == 0)
        return 0;
    if (errno == EINTR)
        return err_set(e, ERR_INTERRUPTED, "interrupted waiting for the lock on '%s'", path);
    /* A file system without locks can still be read; it cannot be written safely. */
    if (!exclusive && (errno == ENOLCK || errno == EOPNOTSUPP))
        return 0;
    return err_errno(e, ERR_SYSTEM, errno, "cannot lock '%s'", path);
}

/* 1 when path still names the file fd is open on, 0 when it was replaced or removed. */
static int still_named(int fd, const char *path, struct err *e)
{
    struct stat a, b;
    if (fstat(fd, &a) < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot stat '%s'", path);
    if (stat(path, &b) < 0) {
        if (errno == ENOENT)
            return 0;
        return err_errno(e, ERR_SYSTEM, errno, "cannot stat '%s'", path);
    }
    return same_file(&a, &b);
}

int hist_lock_open(const char *path, int oflags, bool exclusive, struct err *e)
{
    for (;;) {
        int fd = in_open(path, oflags, e);   /* no directory; a FIFO waited on, read only */
        if (fd < 0)
            return -1;
        int ok = lock_fd(fd, exclusive, path, e);
        if (ok == 0)
            ok = still_named(fd, path, e);
        if (ok == 1)
            return fd;
        close(fd);
        if (ok < 0)
            return -1;
        /* Replaced (a merge renamed a new file into place) or removed while we waited. */
    }
}

int hist_read_fd(int fd, const char *name, struct hist_table *t, struct err *e)
{
    char *buf;
    size_t len;
    memset(t, 0, sizeof *t);
    if (read_all(fd, name, &buf, &len, e) < 0)
        return -1;
    return parse_owned(name, buf, len, t, e);
}

int hist_read(const char *path, struct hist_table *t, struct err *e)
{
    memset(t, 0, sizeof *t);
    int fd = hist_lock_open(path, O_RDONLY, false, e);
    if (fd < 0)
        return -1;
    int rc = hist_read_fd(fd, path, t, e);
    close(fd);   /* releases the lock */
    return rc;
}

static int cmp_lockent(const void *a, const void *b)
{
    const struct stat *x = a, *y = b;
    if (x->st_dev != y->st_dev)
        return x->st_dev < y->st_dev ? -1 : 1;
    return x->st_ino < y->st_ino ? -1 : x->st_ino > y->st_ino;
}

void hist_lockset_close(struct hist_lockset *ls)
{
    for (int i = 0; i < ls->n; i++)
        if (ls->fd && ls->fd[i] >= 0) {
            int fd = ls->fd[i];
            for (int j = i; j < ls->n; j++)   /* a file named twice shares one descriptor */
                if (ls->fd[j] == fd)
                    ls->fd[j] = -1;
            close(fd);
        }
    if (ls->fd)
        for (int i = 0; i < ls->n; i++)
            ls->fd[i] = -1;
}

void hist_lockset_free(struct hist_lockset *ls)
{
    hist_lockset_close(ls);
    free(ls->fd);
    free(ls->created);
    ls->fd = NULL;
    ls->created = NULL;
    ls->n = 0;
}

/* Opens p to be locked: a writer's (ls->created) made when missing, and said to be. */
static int lockset_open_one(struct hist_lockset *ls, int i, const char *p)
{
    if (!ls->created)
        return open(p, O_RDONLY | O_CLOEXEC);
    int fd = open(p, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ls->created[i] = fd >= 0;
    return fd >= 0 || errno != EEXIST ? fd : open(p, O_RDONLY | O_CLOEXEC);
}

/* One attempt: 1 when every path is locked and still names its file, 0 to try again. */
static int lockset_try(struct hist_lockset *ls, char **paths, int n, const char *out,
                       struct stat *st, struct err *e)
{
    int nf = out ? n + 1 : n;
    for (int i = 0; i < nf; i++) {
        const char *p = i < n ? paths[i] : out;
        struct stat pst;
        int fd;
        if (stat(p, &pst) == 0 && !S_ISREG(pst.st_mode)) {
            if ((fd = in_open(p, O_RDONLY, e)) < 0)   /* a directory, a FIFO: input.h's rules */
                return -1;
        } else {
            fd = lockset_open_one(ls, i, p);
            if (fd < 0 && i == n && errno == ENOENT)
                continue;   /* no OUT yet: nothing in it to keep; the rename makes it */
            if (fd < 0)
                return err_errno(e, errno == ENOENT || errno == EACCES || errno == EISDIR
                                 ? ERR_INPUT : ERR_SYSTEM, errno, "cannot open '%s'", p);
        }
        ls->fd[i] = fd;
        if (fstat(fd, &st[i]) < 0)
            return err_errno(e, ERR_SYSTEM, errno, "cannot stat '%s'", p);
        /* A file named twice: one descriptor, or its two locks would wait on each other. */
        for (int j = 0; j < i; j++)
            if (ls->fd[j] >= 0 && same_file(&st[i], &st[j])) {
                close(fd);
                ls->fd[i] = ls->fd[j];
                break;
            }
    }
    /* Every tare process that holds more than one lock takes them in (device, inode) order,
     * so two merges that read each other's output cannot wait on each other. */
    int *order = malloc((nf + 1) * sizeof *order), no = 0;
    if (!order)
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int i = 0; i < nf; i++) {
        bool first = ls->fd[i] >= 0;
        for (int j = 0; j < i && first; j++)
            first = ls->fd[j] != ls->fd[i];
        if (first)
            order[no++] = i;
    }
    for (int a = 1; a < no; a++)   /* a handful of files: insertion sort */
        for (int b = a; b > 0 && cmp_lockent(&st[order[b - 1]], &st[order[b]]) > 0; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int k = 0; k < no; k++) {
        int i = order[k];
        bool ex = ls->created || (out && ls->fd[n] >= 0 && ls->fd[i] == ls->fd[n]);
        if (lock_fd(ls->fd[i], ex, i < n ? paths[i] : out, e) < 0) {
            free(order);
            return -1;
        }
    }
    free(order);
    for (int i = 0; i < nf; i++) {
        const char *p = i < n ? paths[i] : out;
        int ok;
        if (ls->fd[i] >= 0) {
            ok = still_named(ls->fd[i], p, e);
        } else {
            struct stat x;   /* OUT made by someone else meanwhile: lock that one */
            ok = stat(p, &x) < 0 && errno == ENOENT;
        }
        if (ok <= 0)
            return ok;
    }
    return 1;
}

/* Both: a writer's set (write) locks every path exclusive, made when missing. */
static int lockset_open(struct hist_lockset *ls, char **paths, int n, const char *out,
                        bool write, struct err *e)
{
    ls->n = out ? n + 1 : n;
    ls->fd = malloc((n + 1) * sizeof *ls->fd);
    ls->created = write ? calloc(n + 1, sizeof *ls->created) : NULL;
    struct stat *st = calloc(n + 1, sizeof *st);
    if (!ls->fd || !st || (write && !ls->created)) {
        free(st);
        hist_lockset_free(ls);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    for (;;) {
        for (int i = 0; i <= n; i++)
            ls->fd[i] = -1;
        int ok = lockset_try(ls, paths, n, out, st, e);
        if (ok == 1)
            break;
        hist_lockset_close(ls);
        for (int i = 0; ok < 0 && write && i < n; i++)
            if (ls->created[i])
                unlink(paths[i]);   /* made only to be locked */
        if (ok < 0) {
            hist_lockset_free(ls);
            free(st);
            return -1;
        }
        /* Something was replaced while we waited: open and lock again. */
    }
    free(st);
    return 0;
}

int hist_lockset_open(struct hist_lockset *ls, char **paths, int n, const char *out,
                      struct err *e)
{
    return lockset_open(ls, paths, n, out, false, e);
}

int hist_lockset_open_write(struct hist_lockset *ls, char **paths, int n, struct err *e)
{
    return lockset_open(ls, paths, n, NULL, true, e);
}

double hist_value(const struct hist_table *t, size_t row, int m)
{
    return t->slot[m] < 0 ? NAN : t->val[row * t->nmet + t->slot[m]];
}

const char *hist_table_metric_name(const struct hist_table *t, int m)
{
    return m < HM_COUNT ? hist_metric_names[m] : t->cols[t->c_metric[m]];
}

/* ---- append ---- */

struct sbuf { char *p; size_t n, cap; };

static int sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q)
            return -1;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= w;
    }
    return 0;
}

/* Reads the file's first line (its header) into *hdr; "" for an empty file. */
static int read_header(int fd, off_t size, char **hdr)
{
    size_t cap = 4096;
    char *buf = NULL;
    for (;;) {
        char *b = realloc(buf, cap + 1);
        if (!b) {
            free(buf);
            return -1;
        }
        buf = b;
        ssize_t r = pread(fd, buf, cap, 0);
        if (r < 0) {
            free(buf);
            return -1;
        }
        buf[r] = '\0';
        char *nl = memchr(buf, '\n', r);
        if (nl || (off_t)r >= size) {
            if (nl)
                *nl = '\0';
            size_t l = strlen(buf);
            if (l && buf[l - 1] == '\r')
                buf[l - 1] = '\0';
            *hdr = buf;
            return 0;
        }
        cap *= 2;
    }
}

bool hist_column_known(const char *name)
{
    if (hist_metric_by_name(name) >= 0 || hist_user_column(name))
        return true;
    for (int c = 0; c < HC_COUNT; c++)
        if (strcmp(hist_canonical(name), hist_column_names[c]) == 0)
            return true;
    return false;
}

/* The input's rows in the file's nf columns (map[c]: the input's column for the file's c, or
 * -1: NA). */
static int add_rows(struct sbuf *b, const struct hist_table *in, const int *map, int nf)
{
    for (size_t r = 0; r < in->nrows; r++)
        for (int c = 0; c < nf; c++) {
            const char *s = map[c] >= 0 ? hist_cell(in, r, map[c]) : "NA";
            if (!*s)
                s = "NA";
            if (sb_add(b, s, strlen(s)) < 0 || sb_add(b, c + 1 < nf ? "\t" : "\n", 1) < 0)
                return -1;
        }
    return 0;
}

void hist_sync_dir(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return;
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash == dir) {
        d = "/";
    } else if (slash) {
        *slash = '\0';
        d = dir;
    }
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        if (fsync(fd) < 0) { /* best effort */ }
        close(fd);
    }
    free(dir);
}

/* Writes len bytes of text to a new file tmp (mode), after the first keep bytes of the file
 * open on from (keep 0: none), synced. 0, or -1 with e set and tmp removed. */
static int write_copy(const char *tmp, mode_t mode, int from, off_t keep, const char *text,
                      size_t len, struct err *e)
{
    int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (out < 0)
        return err_errno(e, errno == EACCES || errno == ENOENT ? ERR_INPUT : ERR_SYSTEM, errno,
                         "cannot create '%s'", tmp);
    int rc = 0;
    char buf[65536];
    for (off_t at = 0; rc == 0 && at < keep;) {
        size_t want = keep - at < (off_t)sizeof buf ? (size_t)(keep - at) : sizeof buf;
        ssize_t got = pread(from, buf, want, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            rc = err_errno(e, ERR_SYSTEM, got < 0 ? errno : EIO, "cannot read the file "
                           "copied to '%s'", tmp);
            break;
        }
        if (write_all(out, buf, (size_t)got) < 0)
            rc = err_errno(e, ERR_SYSTEM, errno, "cannot write '%s'", tmp);
        at += got;
    }
    if (rc == 0 && (write_all(out, text, len) < 0 || fsync(out) < 0))
        rc = err_errno(e, ERR_SYSTEM, errno, "cannot write '%s'", tmp);
    if (close(out) < 0 && rc == 0)
        rc = err_errno(e, ERR_SYSTEM, errno, "cannot write '%s'", tmp);
    if (rc < 0)
        unlink(tmp);
    return rc;
}

/* Writes text to a new file beside path and renames it over path, signals held off from the
 * first byte to the rename (an interrupt leaves the old file or the new one, and no copy). */
static int replace_file(int fd, const char *path, const char *text, size_t len, struct err *e)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot stat '%s'", path);
    const char *slash = strrchr(path, '/');
    char *tmp;
    if (asprintf(&tmp, "%.*s.%s.widen.%d", slash ? (int)(slash - path + 1) : 0, path,
                 slash ? slash + 1 : path, (int)getpid()) < 0)
        return err_set(e, ERR_SYSTEM, "out of memory");
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    int rc = write_copy(tmp, st.st_mode & 07777, fd, 0, text, len, e);
    if (rc == 0 && rename(tmp, path) < 0) {
        rc = err_errno(e, ERR_SYSTEM, errno, "cannot rename '%s' to '%s'", tmp, path);
        unlink(tmp);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        hist_sync_dir(path);
    free(tmp);
    return rc;
}

/* What appending rows to a file takes: its first keep bytes kept (a torn last line cut off),
 * then add; or, the file widened (rewrite), add is the whole new file. */
struct append_plan {
    off_t size, keep;
    bool rewrite;
    struct sbuf add;
};

/*
 * Rows with columns the file lacks (tare's own: a suite that turned the cache simulation on):
 * the file is checked whole, then written again with those columns added at the end of its
 * header, NA in every older row, and the rows after; the copy is renamed over the file. The
 * lock stays on the old file, so writers waiting on it find it replaced and open the new one
 * (the lock protocol's "checked again once locked"). map[c]: the input's column for the file's
 * column c (or -1); extra: the input's columns the file lacks, nextra of them. The new file
 * goes to p->add.
 */
static int plan_widened(int fd, const char *path, const struct hist_table *in, const int *map,
                        int nf, const int *extra, int nextra, struct append_plan *p,
                        struct err *e)
{
    char *raw = NULL;
    size_t rawlen;
    int rc = -1;
    struct hist_table old;
    struct sbuf *b = &p->add;
    int n2 = nf + nextra;
    int *map2 = calloc(n2, sizeof *map2);
    if (!map2 || read_all(fd, path, &raw, &rawlen, e) < 0) {
        if (!map2)
            err_set(e, ERR_SYSTEM, "out of memory");
        free(map2);
        free(raw);
        return -1;
    }
    if ((off_t)rawlen > p->keep)
        rawlen = (size_t)p->keep;   /* without the torn last line */
    p->rewrite = true;
    if (hist_parse(path, raw, rawlen, &old, e) < 0) {
        err_prefix(e, "cannot add the new columns (nothing written)");
        goto out;
    }
    memcpy(map2, map, nf * sizeof *map2);
    memcpy(map2 + nf, extra, nextra * sizeof *map2);
    /* The header: the file's, then the new columns. */
    const char *q = raw, *end = raw + rawlen;
    const char *nl = memchr(q, '\n', end - q);
    size_t hl = nl ? (size_t)(nl - q) : (size_t)(end - q);
    if (hl && q[hl - 1] == '\r')
        hl--;
    if (sb_add(b, q, hl) < 0)
        goto oom;
    for (int c = nf; c < n2; c++)
        if (sb_add(b, "\t", 1) < 0 || sb_add(b, in->cols[map2[c]], strlen(in->cols[map2[c]])) < 0)
            goto oom;
    if (sb_add(b, "\n", 1) < 0)
        goto oom;
    /* Every older row as it was, NA in the new columns (and in any it was short of). */
    for (q = nl ? nl + 1 : end; q < end;) {
        nl = memchr(q, '\n', end - q);
        size_t l = nl ? (size_t)(nl - q) : (size_t)(end - q);
        size_t keep = l && q[l - 1] == '\r' ? l - 1 : l;
        if (sb_add(b, q, keep) < 0)
            goto oom;
        if (keep) {
            int fields = 1;
            for (size_t i = 0; i < keep; i++)
                fields += q[i] == '\t';
            for (; fields < n2; fields++)
                if (sb_add(b, "\tNA", 3) < 0)
                    goto oom;
        }
        if (sb_add(b, "\n", 1) < 0)
            goto oom;
        q = nl ? nl + 1 : end;
    }
    if (add_rows(b, in, map2, n2) < 0)
        goto oom;
    rc = 0;
    goto out;
oom:
    err_set(e, ERR_SYSTEM, "'%s': out of memory", path);
out:
    hist_table_free(&old);
    free(map2);
    free(raw);
    return rc;
}

/* Where a torn last line (a writer killed mid-row; not tare, which holds signals off) begins:
 * p->keep, so the rows added start on a line of their own. */
static int plan_cut(int fd, const char *path, struct append_plan *p, struct err *e)
{
    p->keep = p->size;
    if (p->size == 0)
        return 0;
    char last;
    if (pread(fd, &last, 1, p->size - 1) != 1)
        return err_errno(e, ERR_SYSTEM, errno, "cannot read '%s'", path);
    if (last == '\n')
        return 0;
    off_t cut = p->size - 1;
    char c;
    while (cut > 0 && pread(fd, &c, 1, cut - 1) == 1 && c != '\n')
        cut--;
    /* Only a header without its newline: it may be cut mid-name. */
    if (cut == 0)
        return err_set(e, ERR_INPUT, "'%s' line 1: the header has no newline: a cut file", path);
    p->keep = cut;
    return 0;
}

/* The one write path's plan: in's rows as the file open (and locked) on fd takes them. The
 * file is created with in's header if new or empty; otherwise the rows' columns are matched
 * to the file's by canonical name, a column the file lacks widens it when tare knows it
 * (plan_widened) and is an error when not, and one the rows lack is written NA. */
static int plan_append(int fd, const char *path, const struct hist_table *in,
                       struct append_plan *p, struct err *e)
{
    memset(p, 0, sizeof *p);
    int rc = -1;
    char *hdr = NULL;
    int *map = NULL, *extra = NULL;
    char **fcols = NULL;
    struct stat st;
    if (fstat(fd, &st) < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot stat '%s'", path);
    p->size = st.st_size;
    if (plan_cut(fd, path, p, e) < 0)
        return -1;
    int nf;
    if (p->keep == 0) {
        nf = in->ncols;
        fcols = calloc(nf, sizeof *fcols);
        map = calloc(nf, sizeof *map);
        if (!fcols || !map)
            goto oom;
        for (int c = 0; c < nf; c++) {
            map[c] = c;
            if (sb_add(&p->add, in->cols[c], strlen(in->cols[c])) < 0 ||
                sb_add(&p->add, c + 1 < nf ? "\t" : "\n", 1) < 0)
                goto oom;
        }
    } else {
        if (read_header(fd, p->keep, &hdr) < 0) {
            err_errno(e, ERR_SYSTEM, errno, "cannot read '%s'", path);
            goto out;
        }
        nf = split_tabs(hdr, NULL, 0);
        fcols = calloc(nf, sizeof *fcols);
        map = calloc(nf, sizeof *map);
        if (!fcols || !map)
            goto oom;
        split_tabs(hdr, fcols, nf);
        for (int c = 0; c < nf; c++) {
            map[c] = -1;
            for (int k = 0; k < in->ncols; k++)
                if (strcmp(hist_canonical(fcols[c]), hist_canonical(in->cols[k])) == 0)
                    map[c] = k;
        }
        int nextra = 0;
        if (!(extra = calloc(in->ncols, sizeof *extra)))
            goto oom;
        for (int k = 0; k < in->ncols; k++) {
            bool found = false;
            for (int c = 0; c < nf; c++)
                found |= map[c] == k;
            if (found)
                continue;
            /* A column tare knows widens the file; any other is likely a typo. */
            if (!hist_column_known(in->cols[k])) {
                err_set(e, ERR_INPUT, "column '%s' is not in '%s', nor one tare knows (see "
                        "tare-history(1)): nothing written", in->cols[k], path);
                goto out;
            }
            extra[nextra++] = k;
        }
        if (nextra) {
            rc = plan_widened(fd, path, in, map, nf, extra, nextra, p, e);
            goto out;
        }
    }
    if (add_rows(&p->add, in, map, nf) < 0)
        goto oom;
    rc = 0;
    goto out;
oom:
    err_set(e, ERR_SYSTEM, "'%s': out of memory", path);
out:
    free(hdr);
    free(map);
    free(extra);
    free(fcols);
    return rc;
}

/* Parses rows given to append ("<stdin>" in messages): whole rows only. */
static int parse_rows(const char *text, size_t len, struct hist_table *in, struct err *e)
{
    if (hist_parse("<stdin>", text, len, in, e) < 0)
        return -1;
    if (in->torn_line) {
        /* The producer may have been killed mid-row: appending the rest would be a lie. */
        err_set(e, ERR_INPUT, "'<stdin>' line %zu: no newline at its end: a cut row "
                "(nothing written)", in->torn_line);
        hist_table_free(in);
        return -1;
    }
    return 0;
}

long hist_append(const char *path, const char *text, size_t len, struct err *e)
{
    struct hist_table in;
    if (parse_rows(text, len, &in, e) < 0)
        return -1;
    int fd = hist_lock_open(path, O_RDWR | O_CREAT | O_APPEND, true, e);
    if (fd < 0) {
        hist_table_free(&in);
        return -1;
    }
    long rc = -1;
    struct append_plan p = {0};
    if (plan_append(fd, path, &in, &p, e) < 0)
        goto out;
    if (p.rewrite) {
        if (replace_file(fd, path, p.add.p, p.add.n, e) == 0)
            rc = (long)in.nrows;
        goto out;
    }
    /* One write of whole rows; signals held so an interrupt cannot split it. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    if (p.keep < p.size && ftruncate(fd, p.keep) < 0) {
        err_errno(e, ERR_SYSTEM, errno, "cannot repair '%s'", path);
    } else if (write_all(fd, p.add.p, p.add.n) < 0) {
        int saved = errno;
        if (ftruncate(fd, p.keep) < 0) { /* best effort: take the partial rows back */ }
        err_errno(e, ERR_SYSTEM, saved, "cannot write '%s'", path);
    } else if (fsync(fd) < 0) {
        err_errno(e, ERR_SYSTEM, errno, "cannot sync '%s'", path);
    } else {
        rc = (long)in.nrows;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
out:
    close(fd);   /* releases the lock */
    free(p.add.p);
    hist_table_free(&in);
    return rc;
}

/* ---- several files as one transaction ---- */

/* One file of the transaction: where it is, its copy and its second name, its rows. */
struct txfile {
    char *path, *tmp, *old;   /* DIR/NAME, DIR/.NAME.tmp.PID, DIR/.NAME.old.PID */
    struct hist_table in;
};

static int tx_names(struct txfile *f, const char *path)
{
    /* A history kept behind a symbolic link is written where the link points. */
    f->path = realpath(path, NULL);
    if (!f->path && !(f->path = strdup(path)))
        return -1;
    const char *slash = strrchr(f->path, '/');
    int dl = slash ? (int)(slash - f->path) : 1;
    const char *d = slash ? f->path : ".", *base = slash ? slash + 1 : f->path;
    if (asprintf(&f->tmp, "%.*s/.%s.tmp.%d", dl, d, base, (int)getpid()) < 0) {
        f->tmp = NULL;
        return -1;
    }
    if (asprintf(&f->old, "%.*s/.%s.old.%d", dl, d, base, (int)getpid()) < 0) {
        f->old = NULL;
        return -1;
    }
    return 0;
}

/* Every copy renamed over its file, the first put back when a later rename fails. */
static int tx_rename(struct txfile *f, int n, struct err *e)
{
    /* The old file kept under a second name, to be put back if the next rename fails. */
    bool can_undo = n < 2 || link(f[0].path, f[0].old) == 0;
    for (int i = 0; i < n; i++) {
        if (rename(f[i].tmp, f[i].path) == 0)
            continue;
        int err = errno;
        if (i > 0 && can_undo && rename(f[0].old, f[0].path) == 0)
            return err_errno(e, ERR_SYSTEM, err, "cannot rename '%s' to '%s' (no rows written "
                             "to either file)", f[i].tmp, f[i].path);
        return err_errno(e, ERR_SYSTEM, err, "cannot rename '%s' to '%s'%s", f[i].tmp,
                         f[i].path, i > 0 ? " (the rows are in the first file only)"
                                          : " (no rows written)");
    }
    for (int i = 0; i < n; i++)   /* the renames, durable */
        hist_sync_dir(f[i].path);
    return 0;
}

int hist_append_files(const struct hist_rows *files, int n, struct err *e)
{
    struct txfile *f = calloc(n + 1, sizeof *f);
    char **paths = calloc(n + 1, sizeof *paths);
    struct hist_lockset ls = {0};
    int rc = -1, locked = -1;
    if (!f || !paths) {
        err_set(e, ERR_SYSTEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        if (tx_names(&f[i], files[i].path) < 0) {
            err_set(e, ERR_SYSTEM, "out of memory");
            goto out;
        }
        paths[i] = f[i].path;
    }
    for (int i = 0; i < n; i++)
        if (parse_rows(files[i].text, files[i].len, &f[i].in, e) < 0)
            goto out;
    if ((locked = hist_lockset_open_write(&ls, paths, n, e)) < 0)
        goto out;
    for (int i = 0; i < n; i++) {
        struct append_plan p = {0};
        struct stat st;
        int fd = ls.fd[i];
        int ok = fstat(fd, &st) < 0 ? err_errno(e, ERR_SYSTEM, errno, "cannot stat '%s'",
                                                 f[i].path)
                                    : plan_append(fd, f[i].path, &f[i].in, &p, e);
        if (ok == 0)
            ok = write_copy(f[i].tmp, st.st_mode & 07777, fd, p.rewrite ? 0 : p.keep, p.add.p,
                            p.add.n, e);
        free(p.add.p);
        if (ok < 0)
            goto out;
    }
    /* The last moment to stop with nothing written. */
    if (proc_interrupted()) {
        err_set(e, ERR_INTERRUPTED, "interrupted: no rows written");
        goto out;
    }
    rc = tx_rename(f, n, e);
out:
    for (int i = 0; f && i < n; i++) {
        if (f[i].tmp)
            unlink(f[i].tmp);
        if (f[i].old)
            unlink(f[i].old);
        if (rc < 0 && locked == 0 && ls.created[i])
            unlink(f[i].path);   /* made only to be locked */
        free(f[i].path);
        free(f[i].tmp);
        free(f[i].old);
        hist_table_free(&f[i].in);
    }
    hist_lockset_free(&ls);
    free(f);
    free(paths);
    return rc;
}

/* ---- series ---- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

void hist_db_init(struct hist_db *db)
{
    memset(db, 0, sizeof *db);
}

int hist_db_warn(struct hist_db *db, const char *fmt, ...)
{
    char **w = realloc(db->warn, (db->nwarn + 1) * sizeof *w);
    if (!w)
        return -1;
    db->warn = w;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&w[db->nwarn], fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    db->nwarn++;
    return 0;
}

void hist_db_free(struct hist_db *db)
{
    for (size_t i = 0; i < db->nwarn; i++)
        free(db->warn[i]);
    free(db->warn);
    for (size_t i = 0; i < db->ncommits; i++) {
        free(db->commit[i]);
        free(db->date[i]);
        free(db->cdate[i]);
        free(db->subject[i]);
    }
    free(db->commit);
    free(db->date);
    free(db->cdate);
    free(db->subject);
    for (size_t i = 0; i < db->nseries; i++) {
        struct hist_series *s = &db->series[i];
        free(s->name);
        free(s->commit);
        for (size_t k = 0; s->failure && k < s->n; k++)
            free(s->failure[k]);
        free(s->failure);
        for (int m = 0; m < HM_MAX; m++)
            if (s->v[m] != db->nan_fill)
                free(s->v[m]);
    }
    for (int k = 0; k < db->nuser; k++)
        free(db->user[k]);
    free(db->nan_fill);
    free(db->series);
    free(db->chash);
    free(db->shash);
    free(db->phash_key);
    free(db->phash_val);
    memset(db, 0, sizeof *db);
}

/* Open-addressed string sets: slots hold index + 1, 0 is empty. Built for n keys at a
 * size that keeps them at most half full (at least twice the old size, to grow), so the
 * probe loops always find an empty slot. */
static int strset_build(size_t **tab, size_t *cap, char **keys, size_t n)
{
    size_t ncap = *cap ? *cap * 2 : 1024;
    while (ncap < 2 * (n + 1))
        ncap *= 2;
    size_t *t = calloc(ncap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t h = hash_str(keys[i]) & (ncap - 1);
        while (t[h])
            h = (h + 1) & (ncap - 1);
        t[h] = i + 1;
    }
    free(*tab);
    *tab = t;
    *cap = ncap;
    return 0;
}

static long commit_index(const struct hist_db *db, const char *sha)
{
    if (!db->chash_cap)
        return -1;
    size_t h = hash_str(sha) & (db->chash_cap - 1);
    while (db->chash[h]) {
        if (strcmp(db->commit[db->chash[h] - 1], sha) == 0)
            return (long)db->chash[h] - 1;
        h = (h + 1) & (db->chash_cap - 1);
    }
    return -1;
}

static long series_index(const struct hist_db *db, const char *name)
{
    if (!db->shash_cap)
        return -1;
    size_t h = hash_str(name) & (db->shash_cap - 1);
    while (db->shash[h]) {
        if (strcmp(db->series[db->shash[h] - 1].name, name) == 0)
            return (long)db->shash[h] - 1;
        h = (h + 1) & (db->shash_cap - 1);
    }
    return -1;
}

/* Sets *slot to s (a copy) when it is "" and s is not empty or NA: the first one seen. */
static int fill_once(char **slot, const char *s)
{
    if (**slot || is_na(s))
        return 0;
    char *c = strdup(s);
    if (!c)
        return -1;
    free(*slot);
    *slot = c;
    return 0;
}

static long add_commit(struct hist_db *db, const char *sha, const char *date, const char *cdate,
                       const char *subject)
{
    long i = commit_index(db, sha);
    if (i >= 0)
        return fill_once(&db->cdate[i], cdate) < 0 || fill_once(&db->subject[i], subject) < 0
                   ? -1 : i;
    if (db->ncommits == db->commit_cap) {
        size_t cap = db->commit_cap ? db->commit_cap * 2 : 256;
        char ***arr[4] = {&db->commit, &db->date, &db->cdate, &db->subject};
        for (int k = 0; k < 4; k++) {
            char **c = realloc(*arr[k], cap * sizeof *c);
            if (!c)
                return -1;
            *arr[k] = c;
        }
        db->commit_cap = cap;
    }
    if ((db->ncommits + 1) * 2 > db->chash_cap) {
        /* grow first, while the keys array is consistent */
        size_t *t = NULL, cap = db->chash_cap;
        if (strset_build(&t, &cap, db->commit, db->ncommits) < 0)
            return -1;
        free(db->chash);
        db->chash = t;
        db->chash_cap = cap;
    }
    char *c = strdup(sha), *d = strdup(date), *cd = strdup(is_na(cdate) ? "" : cdate);
    char *sj = strdup(is_na(subject) ? "" : subject);
    if (!c || !d || !cd || !sj) {
        free(c);
        free(d);
        free(cd);
        free(sj);
        return -1;
    }
    db->commit[db->ncommits] = c;
    db->date[db->ncommits] = d;
    db->cdate[db->ncommits] = cd;
    db->subject[db->ncommits] = sj;
    size_t h = hash_str(sha) & (db->chash_cap - 1);
    while (db->chash[h])
        h = (h + 1) & (db->chash_cap - 1);
    db->chash[h] = db->ncommits + 1;
    return (long)db->ncommits++;
}

static int shash_rebuild(struct hist_db *db, size_t cap)
{
    size_t *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < db->nseries; i++) {
        size_t h = hash_str(db->series[i].name) & (cap - 1);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = i + 1;
    }
    free(db->shash);
    db->shash = t;
    db->shash_cap = cap;
    return 0;
}

static long add_series(struct hist_db *db, const char *name)
{
    long i = series_index(db, name);
    if (i >= 0)
        return i;
    if (db->nseries == db->series_cap) {
        size_t cap = db->series_cap ? db->series_cap * 2 : 32;
        struct hist_series *s = realloc(db->series, cap * sizeof *s);
        if (!s)
            return -1;
        db->series = s;
        db->series_cap = cap;
    }
    struct hist_series *s = &db->series[db->nseries];
    memset(s, 0, sizeof *s);
    if (!(s->name = strdup(name)))
        return -1;
    db->nseries++;
    if (db->nseries * 2 > db->shash_cap &&
        shash_rebuild(db, db->shash_cap ? db->shash_cap * 2 : 64) < 0) {
        db->nseries--;
        free(s->name);
        return -1;
    }
    if (db->nseries * 2 <= db->shash_cap) {
        /* not rebuilt: insert */
        if (series_index(db, name) < 0) {
            size_t h = hash_str(name) & (db->shash_cap - 1);
            while (db->shash[h])
                h = (h + 1) & (db->shash_cap - 1);
            db->shash[h] = db->nseries;
        }
    }
    return (long)db->nseries - 1;
}

/* Point index of (series, commit), adding the point if new; -1 on no memory. */
static long point_index(struct hist_db *db, long si, long ci)
{
    uint64_t key = ((uint64_t)si << 32) | (uint64_t)ci;
    if ((db->npoints + 1) * 2 > db->phash_cap) {
        size_t ncap = db->phash_cap ? db->phash_cap * 2 : 4096;
        unsigned long long *k = malloc(ncap * sizeof *k);
        size_t *v = malloc(ncap * sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return -1;
        }
        memset(v, 0xff, ncap * sizeof *v);
        for (size_t i = 0; i < db->phash_cap; i++)
            if (db->phash_val[i] != SIZE_MAX) {
                size_t h = hash_u64(db->phash_key[i]) & (ncap - 1);
                while (v[h] != SIZE_MAX)
                    h = (h + 1) & (ncap - 1);
                k[h] = db->phash_key[i];
                v[h] = db->phash_val[i];
            }
        free(db->phash_key);
        free(db->phash_val);
        db->phash_key = k;
        db->phash_val = v;
        db->phash_cap = ncap;
    }
    size_t h = hash_u64(key) & (db->phash_cap - 1);
    while (db->phash_val[h] != SIZE_MAX) {
        if (db->phash_key[h] == key)
            return (long)db->phash_val[h];
        h = (h + 1) & (db->phash_cap - 1);
    }
    struct hist_series *s = &db->series[si];
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        size_t *c = realloc(s->commit, cap * sizeof *c);
        if (!c)
            return -1;
        s->commit = c;
        if (s->failure) {
            char **f = realloc(s->failure, cap * sizeof *f);
            if (!f)
                return -1;
            s->failure = f;
        }
        for (int m = 0; m < HM_MAX; m++) {
            if (!db->col[m])
                continue;   /* no table has it: nan_fill stands for it once finished */
            double *v = realloc(s->v[m], cap * sizeof *v);
            if (!v)
                return -1;
            s->v[m] = v;
        }
        s->cap = cap;
        if (cap > db->nan_cap) {
            double *f = realloc(db->nan_fill, cap * sizeof *f);
            if (!f)
                return -1;
            for (size_t i = db->nan_cap; i < cap; i++)
                f[i] = NAN;
            db->nan_fill = f;
            db->nan_cap = cap;
        }
    }
    s->commit[s->n] = (size_t)ci;
    if (s->failure)
        s->failure[s->n] = NULL;
    for (int m = 0; m < HM_MAX; m++)
        if (db->col[m])
            s->v[m][s->n] = NAN;
    db->phash_key[h] = key;
    db->phash_val[h] = s->n;
    db->npoints++;
    return (long)s->n++;
}

/* A row's series: its benchmark, or BENCHMARK@ENGINE for counts another engine than callgrind
 * (the default, and what rows without an engine column were) took, and BENCHMARK [ARGS] (or
 * BENCHMARK@ENGINE [ARGS]) for counts taken with valgrind options. */
static long add_series_engine(struct hist_db *db, const struct hist_table *t, size_t r)
{
    const char *bench = hist_cell(t, r, t->c_benchmark);
    const char *eng = t->c_engine >= 0 ? hist_cell(t, r, t->c_engine) : "";
    const char *vg = t->c_vg_args >= 0 ? hist_cell(t, r, t->c_vg_args) : "";
    bool plain_eng = !*eng || strcmp(eng, "NA") == 0 || strcmp(eng, "callgrind") == 0;
    bool no_vg = !*vg || strcmp(vg, "NA") == 0;
    if (plain_eng && no_vg)
        return add_series(db, bench);
    /* Counts taken under other valgrind options (another simulated cache) differ as much as
     * another engine's: a series of their own, named with them. */
    char *key = NULL;
    if (asprintf(&key, "%s%s%s%s%s%s", bench, plain_eng ? "" : "@", plain_eng ? "" : eng,
                 no_vg ? "" : " [", no_vg ? "" : vg, no_vg ? "" : "]") < 0)
        return -1;
    long si = add_series(db, key);
    free(key);
    return si;
}

/* The arrays of metric m in every series so far, all NAN: a table with its column came. */
static int add_metric_arrays(struct hist_db *db, int m)
{
    for (size_t si = 0; si < db->nseries; si++) {
        struct hist_series *s = &db->series[si];
        s->v[m] = malloc((s->cap ? s->cap : 1) * sizeof *s->v[m]);
        if (!s->v[m])
            return -1;
        for (size_t i = 0; i < s->n; i++)
            s->v[m][i] = NAN;
    }
    db->col[m] = true;
    return 0;
}

/* The db's metric for the table's m: tare's own as they are, a counter's by its name (added
 * when new); -1 with e set past HIST_USER_MAX or out of memory. */
static int db_metric(struct hist_db *db, const struct hist_table *t, int m, struct err *e)
{
    if (m < HM_COUNT)
        return m;
    const char *name = hist_table_metric_name(t, m);
    for (int k = 0; k < db->nuser; k++)
        if (strcmp(db->user[k], name) == 0)
            return HM_COUNT + k;
    if (db->nuser == HIST_USER_MAX)
        return err_set(e, ERR_INPUT, "'%s': more than %d %sNAME columns in the files together",
                       t->name, HIST_USER_MAX, METRICS_PREFIX);
    if (!(db->user[db->nuser] = strdup(name)))
        return err_set(e, ERR_SYSTEM, "'%s': out of memory", t->name);
    return HM_COUNT + db->nuser++;
}

/* Row r's metrics_varied (names, comma-separated) as bits of its series' varied. */
static void mark_varied(struct hist_db *db, const struct hist_table *t, size_t r, long si)
{
    const char *list = hist_cell(t, r, t->c_varied);
    if (is_na(list) || strcmp(list, "-") == 0)
        return;
    char col[sizeof METRICS_PREFIX + METRICS_NAME_MAX + 1];
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len <= METRICS_NAME_MAX) {
            snprintf(col, sizeof col, "%s%.*s", METRICS_PREFIX, (int)len, p);
            for (int k = 0; k < db->nuser; k++)
                if (strcmp(db->user[k], col) == 0)
                    db->series[si].varied |= (uint64_t)1 << k;
        }
        p += len + (p[len] == ',');
    }
}

/* A row's failure cell for point pi: kept (the first one) when the row says why it is NA;
 * dropped when a later row of the point (a rerun) measured something and says nothing. */
static int add_failure(struct hist_series *s, size_t pi, const char *why, bool measured)
{
    if (is_na(why)) {
        if (measured && s->failure) {
            free(s->failure[pi]);
            s->failure[pi] = NULL;
        }
        return 0;
    }
    if (!s->failure && !(s->failure = calloc(s->cap ? s->cap : 1, sizeof *s->failure)))
        return -1;
    if (s->failure[pi])
        return 0;
    return (s->failure[pi] = strdup(why)) ? 0 : -1;
}

const char *hist_failure(const struct hist_series *s, size_t i)
{
    return s->failure && i < s->n ? s->failure[i] : NULL;
}

int hist_db_add(struct hist_db *db, const struct hist_table *t, struct err *e)
{
    /* Added to after finishing: the shared arrays are no series' own until finished again. */
    for (size_t si = 0; db->sorted && si < db->nseries; si++)
        for (int m = 0; m < HM_MAX; m++)
            if (db->series[si].v[m] == db->nan_fill)
                db->series[si].v[m] = NULL;
    db->sorted = false;
    int dm[HM_MAX];   /* the table's metric m is the db's dm[m] */
    for (int m = 0; m < HM_COUNT + t->nuser; m++) {
        if (t->c_metric[m] < 0)
            continue;
        if ((dm[m] = db_metric(db, t, m, e)) < 0)
            return -1;
        if (!db->col[dm[m]] && add_metric_arrays(db, dm[m]) < 0)
            return err_set(e, ERR_SYSTEM, "'%s': out of memory", t->name);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        long ci = add_commit(db, hist_cell(t, r, t->c_commit), hist_cell(t, r, t->c_date),
                             hist_cell(t, r, t->c_commit_date), hist_cell(t, r, t->c_subject));
        long si = ci < 0 ? -1 : add_series_engine(db, t, r);
        long pi = si < 0 ? -1 : point_index(db, si, ci);
        if (pi < 0)
            return err_set(e, ERR_SYSTEM, "'%s': out of memory", t->name);
        bool measured = false;
        for (int m = 0; m < HM_COUNT + t->nuser; m++) {
            if (t->c_metric[m] < 0)
                continue;
            double v = hist_value(t, r, m);
            double *to = &db->series[si].v[dm[m]][pi];
            /* A later row for the same commit and series (a rerun) wins. */
            if (!isnan(v) || isnan(*to)) {
                *to = v;
                if (!isnan(v))
                    db->has[dm[m]] = measured = true;
            }
        }
        if (t->c_varied >= 0)
            mark_varied(db, t, r, si);
        if (add_failure(&db->series[si], (size_t)pi, hist_cell(t, r, t->c_failure), measured) < 0)
            return err_set(e, ERR_SYSTEM, "'%s': out of memory", t->name);
    }
    return 0;
}

/* The date a commit is ordered by: its commit date where a row had one, else the run's. */
static const char *order_date(const struct hist_db *db, size_t i)
{
    return db->cdate[i][0] ? db->cdate[i] : db->date[i];
}

static int cmp_commit(const void *a, const void *b, void *ctx)
{
    const struct hist_db *sort_db = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(order_date(sort_db, x), order_date(sort_db, y));
    if (c)
        return c;
    return x < y ? -1 : x > y;
}

struct pt { size_t rank, idx; };

static int cmp_pt(const void *a, const void *b)
{
    const struct pt *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Every series' points in the order of their commits' new ranks; p, tmp and ftmp hold as
 * many as the longest series. */
static void reorder_points(struct hist_db *db, const size_t *rank, struct pt *p, double *tmp,
                           char **ftmp)
{
    for (size_t si = 0; si < db->nseries; si++) {
        struct hist_series *s = &db->series[si];
        for (size_t i = 0; i < s->n; i++)
            p[i] = (struct pt){rank[s->commit[i]], i};
        qsort(p, s->n, sizeof *p, cmp_pt);
        for (int m = 0; m < HM_MAX; m++) {
            if (!db->col[m])
                continue;
            for (size_t i = 0; i < s->n; i++)
                tmp[i] = s->v[m][p[i].idx];
            memcpy(s->v[m], tmp, s->n * sizeof *tmp);
        }
        if (s->failure) {
            for (size_t i = 0; i < s->n; i++)
                ftmp[i] = s->failure[p[i].idx];
            memcpy(s->failure, ftmp, s->n * sizeof *ftmp);
        }
        for (size_t i = 0; i < s->n; i++)
            s->commit[i] = p[i].rank;
    }
}

/* Puts commit order[k] at place k: the commits' arrays and every series' points. -1 on no
 * memory, the db left as it was. */
static int db_reorder(struct hist_db *db, const size_t *order)
{
    size_t n = db->ncommits, maxn = 0;
    for (size_t si = 0; si < db->nseries; si++)
        if (db->series[si].n > maxn)
            maxn = db->series[si].n;
    size_t *rank = malloc((n + 1) * sizeof *rank);
    struct pt *p = malloc((maxn + 1) * sizeof *p);
    double *tmp = malloc((maxn + 1) * sizeof *tmp);
    char **ftmp = malloc((maxn + 1) * sizeof *ftmp);
    char **arr[4] = {NULL, NULL, NULL, NULL};
    char ***cur[4] = {&db->commit, &db->date, &db->cdate, &db->subject};
    bool ok = rank && p && tmp && ftmp;
    for (int k = 0; k < 4; k++)
        ok = (arr[k] = malloc((n + 1) * sizeof *arr[k])) && ok;
    if (!ok) {
        for (int k = 0; k < 4; k++)
            free(arr[k]);
        free(rank);
        free(p);
        free(tmp);
        free(ftmp);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        rank[order[i]] = i;
        for (int k = 0; k < 4; k++)
            arr[k][i] = (*cur[k])[order[i]];
    }
    for (int k = 0; k < 4; k++) {
        free(*cur[k]);
        *cur[k] = arr[k];
    }
    reorder_points(db, rank, p, tmp, ftmp);
    /* The commit lookup table indexes the old order: built again. */
    free(db->chash);
    db->chash = NULL;
    db->chash_cap = 0;
    db->commit_cap = n + 1;
    if (strset_build(&db->chash, &db->chash_cap, db->commit, db->ncommits) < 0)
        db->chash_cap = 0;   /* no memory: commits are then found by the prefix scan */
    free(rank);
    free(p);
    free(tmp);
    free(ftmp);
    return 0;
}

void hist_db_finish(struct hist_db *db)
{
    if (db->sorted)
        return;
    db->sorted = true;
    /* A metric no table had: every series reads the shared NANs (at least as many as any
     * series has points), rather than an array of its own. */
    for (size_t si = 0; si < db->nseries; si++)
        for (int m = 0; m < HM_MAX; m++)
            if (!db->col[m])
                db->series[si].v[m] = db->nan_fill;
    size_t n = db->ncommits;
    size_t *order = malloc((n + 1) * sizeof *order);
    if (order) {
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        /* Date order (ISO 8601 sorts as text); equal or missing dates keep file order. */
        qsort_r(order, n, sizeof *order, cmp_commit, db);
        if (db_reorder(db, order) < 0) { /* no memory: left in first-seen order */ }
        free(order);
    }
    /* The point lookup table is of no use once finished. */
    free(db->phash_key);
    free(db->phash_val);
    db->phash_key = NULL;
    db->phash_val = NULL;
    db->phash_cap = 0;
    db->npoints = 0;
}

/* ---- git order ---- */

static int cmp_log_hash(const void *a, const void *b, void *ctx)
{
    const struct hist_gitlog *log = ctx;
    return strcmp(log->hash[*(const size_t *)a], log->hash[*(const size_t *)b]);
}

/* The log index of sha, its full hash or a unique prefix of 7 characters or more, or -1; by
 * holds the log's indexes sorted by hash. */
static long log_find(const struct hist_gitlog *log, const size_t *by, const char *sha)
{
    size_t l = strlen(sha), lo = 0, hi = log->n;
    if (l < 7)
        return -1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(log->hash[by[mid]], sha) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == log->n || strncmp(log->hash[by[lo]], sha, l) != 0)
        return -1;
    if (log->hash[by[lo]][l] && lo + 1 < log->n && strncmp(log->hash[by[lo + 1]], sha, l) == 0)
        return -1;   /* a prefix of two commits */
    return (long)by[lo];
}

static int cmp_pos_desc(const void *a, const void *b, void *ctx)
{
    const long *pos = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (pos[x] != pos[y])
        return pos[x] > pos[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The new order: the known commits oldest first (the log is newest first), each unknown one
 * (in the db's date order) before the first known one the log dates later. known: room for
 * the db's commits. */
static void git_order(const struct hist_db *db, const struct hist_gitlog *log, long *pos,
                      size_t *known, size_t *order)
{
    size_t n = db->ncommits, nk = 0, k = 0, u = 0;
    for (size_t i = 0; i < n; i++)
        if (pos[i] >= 0)
            known[nk++] = i;
    qsort_r(known, nk, sizeof *known, cmp_pos_desc, pos);
    for (size_t j = 0; j < nk; j++) {
        const char *when = log->date[pos[known[j]]];
        for (; u < n && (pos[u] >= 0 || strcmp(order_date(db, u), when) < 0); u++)
            if (pos[u] < 0)
                order[k++] = u;
        order[k++] = known[j];
    }
    for (; u < n; u++)
        if (pos[u] < 0)
            order[k++] = u;
}

int hist_db_order_git(struct hist_db *db, const struct hist_gitlog *log, struct hist_order *out,
                      struct err *e)
{
    size_t n = db->ncommits;
    *out = (struct hist_order){0};
    size_t *by = malloc((log->n + 1) * sizeof *by), *order = malloc((n + 1) * sizeof *order);
    long *pos = malloc((n + 1) * sizeof *pos);
    size_t *known = malloc((n + 1) * sizeof *known);
    int rc = -1;
    if (!by || !order || !pos || !known) {
        err_set(e, ERR_SYSTEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < log->n; i++)
        by[i] = i;
    qsort_r(by, log->n, sizeof *by, cmp_log_hash, (void *)log);
    for (size_t i = 0; i < n; i++) {
        pos[i] = log_find(log, by, db->commit[i]);
        out->known += pos[i] >= 0;
    }
    out->unknown = n - out->known;
    rc = 0;
    if (!out->known)
        goto out;   /* the log knows none of them: date order */
    for (size_t i = 0; i < n; i++)
        if (pos[i] >= 0 && (fill_once(&db->cdate[i], log->date[pos[i]]) < 0 ||
                            fill_once(&db->subject[i], log->subject[pos[i]]) < 0)) {
            rc = err_set(e, ERR_SYSTEM, "out of memory");
            goto out;
        }
    git_order(db, log, pos, known, order);
    if (db_reorder(db, order) < 0)
        rc = err_set(e, ERR_SYSTEM, "out of memory");
out:
    free(by);
    free(order);
    free(pos);
    free(known);
    return rc;
}

long hist_db_find_commit(const struct hist_db *db, const char *sha, struct err *e)
{
    long i = commit_index(db, sha);
    if (i >= 0)
        return i;
    size_t l = strlen(sha);
    if (l < 4)
        return err_set(e, ERR_INPUT, "commit '%s': give at least 4 characters", sha);
    long found = -1;
    for (size_t k = 0; k < db->ncommits; k++)
        if (strncmp(db->commit[k], sha, l) == 0) {
            if (found >= 0)
                return err_set(e, ERR_INPUT, "commit '%s' is ambiguous", sha);
            found = (long)k;
        }
    if (found < 0)
        return err_set(e, ERR_INPUT, "commit '%s' is not in the history", sha);
    return found;
}

size_t hist_changes(const struct hist_series *s, int m, double *out)
{
    size_t n = 0;
    double prev = NAN;
    for (size_t i = 0; i < s->n; i++) {
        double v = s->v[m][i];
        if (isnan(v))
            continue;
        if (!isnan(prev) && prev != 0)
            out[n++] = fabs(v / prev - 1);
        prev = v;
    }
    return n;
}

double hist_change_quantile(const struct hist_series *s, int m, size_t end, size_t skip, double q)
{
    if (end > s->n)
        end = s->n;
    double *ch = malloc((end + 1) * sizeof *ch), prev = NAN, out = NAN;
    size_t n = 0;
    for (size_t k = 0; ch && k < end; k++) {
        double v = s->v[m][k];
        if (isnan(v))
            continue;
        if (!isnan(prev) && prev != 0 && k != skip)
            ch[n++] = fabs(v / prev - 1);
        prev = v;
    }
    if (n) {
        stats_sort(ch, n);
        out = stats_quantile(ch, n, q);
    }
    free(ch);
    return out;
}

/* ---- the regression test ---- */

/* Small arrays (windows of tens of values) sorted in place: insertion sort beats qsort's
 * call per comparison here, and this is the inner loop of a scan over every commit. */
static void small_sort(double *x, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t j = i;
        while (j > 0 && x[j - 1] > v) {
            x[j] = x[j - 1];
            j--;
        }
        x[j] = v;
    }
}

/* Quantile q of sorted s (R's type 7, as stats_quantile). */
static double sorted_q(const double *s, size_t n, double q)
{
    double h = (n - 1) * q;
    size_t lo = (size_t)floor(h);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return s[lo] + (h - lo) * (s[hi] - s[lo]);
}

/* Median of x[0..n) via scratch (x kept). */
static double small_median(const double *x, size_t n, double *scratch)
{
    if (n == 0)
        return NAN;
    memcpy(scratch, x, n * sizeof *x);
    small_sort(scratch, n);
    return sorted_q(scratch, n, 0.5);
}

/* One series' metric with its NAs dropped, and each value's deviation from the median of
 * the window before it. */
struct wall_ctx {
    double *x, *dev, *scratch;
    size_t *at, n;
};

static void wall_free(struct wall_ctx *c)
{
    free(c->x);
    free(c->dev);
    free(c->scratch);
    free(c->at);
}

static int wall_prepare(const struct hist_series *s, int m, size_t upto, int w, struct wall_ctx *c)
{
    memset(c, 0, sizeof *c);
    size_t cap = upto + 1;
    c->x = malloc(cap * sizeof *c->x);
    c->dev = malloc(cap * sizeof *c->dev);
    c->scratch = malloc(cap * sizeof *c->scratch);
    c->at = malloc(cap * sizeof *c->at);
    if (!c->x || !c->dev || !c->scratch || !c->at) {
        wall_free(c);
        return -1;
    }
    for (size_t k = 0; k <= upto && k < s->n; k++)
        if (!isnan(s->v[m][k])) {
            c->x[c->n] = s->v[m][k];
            c->at[c->n++] = k;
        }
    for (size_t k = 0; k < c->n; k++) {
        c->dev[k] = NAN;
        if (k < 3)
            continue;
        size_t lo = k > (size_t)w ? k - w : 0;
        double b = small_median(c->x + lo, k - lo, c->scratch);
        if (b > 0)
            c->dev[k] = fabs(c->x[k] / b - 1);
    }
    return 0;
}

/*
 * The wall-clock test (tare-history(1) explains it): a step at compact index j, confirmed by
 * the L points x[j..j+L-1]:
 *   fence  = Q3 + 2 IQR of |deviation| of the last noise_n points before j, each point's
 *            deviation taken from the median of the window before it (floor 1%);
 *   before = median of the window before j, after = median of x[j..j+L-1];
 *   a step when every one of the L points lies beyond the fence on the same side (so their
 *   median does too), and the point before j does not (so the step is placed at j). The
 *   caller also drops a step whose before window holds an earlier step (the echo of a step
 *   while the window still straddles it).
 */
static bool wall_step(struct wall_ctx *c, size_t j, size_t L, const struct hist_check_opts *o,
                      struct hist_step *st)
{
    const double *x = c->x;
    if (j < HIST_MIN_BEFORE || j + L > c->n)
        return false;   /* too little history to learn the noise from */
    double devs[256];
    size_t nd = 0, nn = o->noise_n > 256 ? 256 : (size_t)o->noise_n;
    for (size_t k = j > nn ? j - nn : 0; k < j; k++)
        if (!isnan(c->dev[k]))
            devs[nd++] = c->dev[k];
    if (nd < 10)
        return false;
    small_sort(devs, nd);
    double q1 = sorted_q(devs, nd, 0.25), q3 = sorted_q(devs, nd, 0.75);
    double fence = q3 + 2 * (q3 - q1);
    if (fence < 0.01)
        fence = 0.01;
    size_t lo = j > (size_t)o->window ? j - o->window : 0;
    double before = small_median(x + lo, j - lo, c->scratch);
    /* Values written to few digits (a ratio of 0.04 to two decimals) move by whole steps of
     * their last digit; one and a half such steps is the least change that can be told. */
    double quantum = INFINITY;
    for (size_t k = (j > nn ? j - nn : 0) + 1; k < j; k++) {
        double d = fabs(x[k] - x[k - 1]);
        if (d > 0 && d < quantum)
            quantum = d;
    }
    if (isfinite(quantum) && before > 0 && fence < 1.5 * quantum / before)
        fence = 1.5 * quantum / before;
    double after = small_median(x + j, L, c->scratch);
    if (!(before > 0))
        return false;
    double change = after / before - 1;
    st->before = before;
    st->after = after;
    st->change = change;
    st->fence = fence;
    if (!(fabs(change) > fence))
        return false;
    double sgn = change > 0 ? 1 : -1;
    for (size_t k = j; k < j + L; k++)
        if (!((x[k] / before - 1) * sgn > fence))
            return false;
    if ((x[j - 1] / before - 1) * sgn > fence)
        return false;
    return true;
}

/* Whether the earlier step st still holds at compact index k: x[k] beyond its fence on its
 * side. Only a step that still holds makes an echo; with --persist 1 every outlier is a
 * "step", and one that fell back must not hide a real step after it. */
static bool step_holds(const struct wall_ctx *c, size_t k, const struct hist_step *st)
{
    double sgn = st->change > 0 ? 1 : -1;
    return (c->x[k] / st->before - 1) * sgn > st->fence;
}

static void det_step(const struct hist_series *s, int m, size_t i, double threshold,
                     struct hist_step *out)
{
    double prev = NAN;
    for (size_t k = i; k-- > 0;)
        if (!isnan(s->v[m][k])) {
            prev = s->v[m][k];
            break;
        }
    if (isnan(prev) || (prev == 0 && s->v[m][i] != 0)) {
        out->untested = isnan(prev) ? HIST_NO_EARLIER : HIST_EARLIER_ZERO;
        return;
    }
    if (prev == 0) {   /* 0 and 0: no change */
        out->untested = HIST_TESTED;
        out->before = out->after = out->change = 0;
        out->fence = threshold;
        out->at = i;
        return;
    }
    out->untested = HIST_TESTED;
    out->before = prev;
    out->after = s->v[m][i];
    out->change = out->after / prev - 1;
    out->fence = threshold;
    out->at = i;
    out->found = fabs(out->change) > threshold;
}

static void step_clear(struct hist_step *st)
{
    memset(st, 0, sizeof *st);
    st->before = st->after = st->change = st->fence = NAN;
    st->untested = HIST_NO_VALUE;
}

void hist_check_point(const struct hist_series *s, int m, size_t i,
                      const struct hist_check_opts *o, struct hist_step *out)
{
    step_clear(out);
    if (i >= s->n || isnan(s->v[m][i]))
        return;
    if (hist_deterministic(s, m)) {
        det_step(s, m, i, o->det_threshold, out);
        return;
    }
    struct wall_ctx c;
    if (wall_prepare(s, m, i, o->window, &c) < 0)
        return;
    size_t n = c.n;
    size_t P = o->persist > 0 ? (size_t)o->persist : 1;
    out->untested = n >= HIST_MIN_BEFORE + P ? HIST_TESTED : HIST_TOO_FEW;
    out->points = n;
    out->needed = HIST_MIN_BEFORE + P;
    if (n >= P) {
        struct hist_step st = {0}, earlier;
        bool echo = false;
        for (size_t k = 1; k <= (size_t)o->window && k <= n - P && !echo; k++)
            echo = wall_step(&c, n - P - k, P, o, &earlier) && step_holds(&c, n - P - 1, &earlier);
        if (!echo && wall_step(&c, n - P, P, o, &st)) {
            *out = st;
            out->untested = HIST_TESTED;
            out->found = true;
            out->at = c.at[n - P];
            goto done;
        }
        if (!echo && out->untested == HIST_TESTED && st.fence > 0) {
            /* Tested and within the fence: the change and the fence, for a report that
             * shows the judged change (the trend page's chips). */
            out->before = st.before;
            out->after = st.after;
            out->change = st.change;
            out->fence = st.fence;
            out->at = c.at[n - P];
        }
    }
    /* Not confirmed: is a step starting among the newest points, awaiting persistence? */
    for (size_t L = P - 1; L >= 1 && n >= L; L--) {
        struct hist_step st = {0};
        if (wall_step(&c, n - L, L, o, &st)) {
            st.untested = out->untested;
            st.points = out->points;
            st.needed = out->needed;
            *out = st;
            out->pending = true;
            out->at = c.at[n - L];
            break;
        }
    }
done:
    wall_free(&c);
}

size_t hist_scan(const struct hist_series *s, int m, const struct hist_check_opts *o,
                 struct hist_step *out)
{
    size_t found = 0;
    for (size_t i = 0; i < s->n; i++)
        step_clear(&out[i]);
    if (hist_deterministic(s, m)) {
        for (size_t i = 0; i < s->n; i++)
            if (!isnan(s->v[m][i])) {
                det_step(s, m, i, o->det_threshold, &out[i]);
                found += out[i].found;
            }
        return found;
    }
    if (s->n == 0)
        return 0;
    struct wall_ctx c;
    if (wall_prepare(s, m, s->n - 1, o->window, &c) < 0)
        return 0;
    size_t P = o->persist > 0 ? (size_t)o->persist : 1;
    bool *raw = calloc(c.n + 1, sizeof *raw);
    struct hist_step *st = calloc(c.n + 1, sizeof *st);
    if (raw && st) {
        for (size_t j = 0; j + P <= c.n; j++)
            raw[j] = wall_step(&c, j, P, o, &st[j]);
        for (size_t j = 0; j + P <= c.n; j++) {
            if (!raw[j])
                continue;
            bool echo = false;
            for (size_t k = 1; k <= (size_t)o->window && k <= j && !echo; k++)
                echo = raw[j - k] && step_holds(&c, j - 1, &st[j - k]);
            if (echo)
                continue;
            size_t i = c.at[j + P - 1];
            out[i] = st[j];
            out[i].found = true;
            out[i].at = c.at[j];
            found++;
        }
    }
    free(raw);
    free(st);
    wall_free(&c);
    return found;
}

bool hist_alarms(const struct hist_series *s, int m)
{
    if (m == HM_REF_MEDIAN_S)
        return false;
    if (m == HM_MEDIAN_S || m == HM_MIN_S)
        for (size_t i = 0; i < s->n; i++)
            if (!isnan(s->v[HM_RATIO][i]))
                return false;
    return true;
}

int hist_db_load(struct hist_db *db, char **paths, int n, struct err *e)
{
    hist_db_init(db);
    for (int i = 0; i < n; i++) {
        struct hist_table t;
        if (hist_read(paths[i], &t, e) < 0) {
            hist_db_free(db);
            return -1;
        }
        if (t.torn_line && hist_db_warn(db, "'%s' line %zu: no newline at its end: a row cut "
                                        "off mid-write, skipped", paths[i], t.torn_line) < 0) {
            hist_table_free(&t);
            hist_db_free(db);
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
        int rc = hist_db_add(db, &t, e);
        hist_table_free(&t);
        if (rc < 0) {
            hist_db_free(db);
            return -1;
        }
    }
    hist_db_finish(db);
    return 0;
}
