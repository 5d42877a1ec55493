/* history.h: per-commit benchmark history files: TSV read by column name, appended safely,
 * and gathered into series (one per benchmark+lane) ordered by commit. */
#ifndef TARE_HISTORY_H
#define TARE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util/err.h"

/*
 * Metrics, by tare's column names. The seed's (mutsu's) files are read unchanged through a
 * fixed column mapping (hist_alias): mutsu_median_s -> median_s, mutsu_min_s -> min_s,
 * raku_median_s -> ref_median_s, ratio_mutsu_over_raku -> ratio, rakudo -> reference.
 */
enum hist_metric {
    HM_MEDIAN_S, HM_MIN_S, HM_REF_MEDIAN_S, HM_RATIO,
    HM_INSTRUCTIONS, HM_ALLOCATIONS, HM_BYTES, HM_PEAK_BYTES,
    /* tare count --cache-sim's simulated misses and cycles model */
    HM_L1I_MISSES, HM_L1D_MISSES, HM_LLI_MISSES, HM_LLD_MISSES, HM_EST_CYCLES,
    /* tare run --subtract's counts less a baseline command's */
    HM_NET_INSTRUCTIONS, HM_NET_ALLOCATIONS, HM_NET_BYTES,
    HM_COUNT
};
extern const char *const hist_metric_names[HM_COUNT];
/*
 * A program's own counters (tare count --metrics-from, core/util/metrics.h) are metrics too: any
 * column named metric.NAME (METRICS_PREFIX, NAME a counter's name), in a file of any kind,
 * read like a count: deterministic (the count threshold) unless a row of its series lists it
 * in metrics_varied, then judged as wall clock is, against its noise. They take the indexes
 * after tare's own, HM_COUNT + k (k < HIST_USER_MAX): a table numbers its own in column
 * order, a db the names of all its tables in the order first seen.
 */
#define HIST_USER_MAX 64
#define HM_MAX (HM_COUNT + HIST_USER_MAX)
/* Whether name is such a column: metric.NAME with a valid counter's name. */
bool hist_user_column(const char *name);
/* The columns besides the metrics, by the names the reader looks for (hist_table's c_*). */
enum hist_column {
    HC_DATE, HC_COMMIT, HC_BENCHMARK, HC_RUNS, HC_RUNNER, HC_REFERENCE, HC_TOOLCHAIN,
    HC_ENGINE,   /* tare count --engine: values of different engines are never compared */
    HC_VALGRIND_ARGS,   /* --valgrind-arg's, space-separated: nor values taken under others */
    HC_COMMIT_DATE,     /* the commit's committer date (UTC, ISO 8601), read from git */
    HC_SUBJECT,         /* the commit's subject line, read from git */
    HC_FAILURE,         /* why the row's metrics are NA (a build that failed, a run), or NA */
    HC_METRICS_VARIED,  /* the program's counters that differed between its runs (their
                         * names, comma-separated; "-" none): judged against their noise */
    HC_COUNT
};
extern const char *const hist_column_names[HC_COUNT];
/* The history files tare run writes: DIR/wall.tsv and DIR/count.tsv. */
enum hist_file { HIST_WALL, HIST_COUNT };
/* hist_write_header's flags: HIST_CACHE, count.tsv's cache simulation columns too;
 * HIST_NET, its net counts (tare run --subtract), before the cache columns; HIST_VGARGS, its
 * valgrind_args column (--valgrind-arg), before those; then, in either file, HIST_GIT the
 * commit's commit_date and subject, and HIST_FAILURE the failure column. */
enum { HIST_CACHE = 1, HIST_NET = 2, HIST_VGARGS = 4, HIST_GIT = 8, HIST_FAILURE = 16 };
/* Writes the header line of such a file to f, from the names above and the metrics' (wall:
 * date, commit, benchmark, median_s, min_s, ref_median_s, ratio, runs, runner, reference;
 * count: date, commit, benchmark, instructions, allocations, bytes, peak_bytes, toolchain,
 * engine, with HIST_NET net_instructions, net_allocations, net_bytes, and with HIST_CACHE
 * l1i_misses, l1d_misses, lli_misses, lld_misses, est_cycles).
 * Returns 0, or -1 when f refused the write. */
int hist_write_header(FILE *f, enum hist_file which, unsigned flags);
/* The same without its newline: a writer adds columns of its own after (the programs'
 * counters, metric.NAME). */
int hist_write_header_cols(FILE *f, enum hist_file which, unsigned flags);
/* Counts that reproduce run to run (alarm at a fixed threshold), as against wall clock; a
 * program's counter (m >= HM_COUNT) unless it varied (hist_deterministic). */
bool hist_metric_deterministic(int m);
/* The metric a column name stands for (after the mapping), or -1. */
int hist_metric_by_name(const char *name);
/* Makes a rename in path's directory durable: fsyncs the directory (best effort: some file
 * systems refuse). */
void hist_sync_dir(const char *path);
/* Whether tare reads a column of this name (after the mapping): a metric, or one of
 * hist_column_names. */
bool hist_column_known(const char *name);
/* The canonical name of a column: the mapping applied, or name itself. */
const char *hist_canonical(const char *name);

/* One history file, parsed: the header and every row's cells, in file order. */
struct hist_table {
    char *name;          /* the file name, for messages */
    char *buf;           /* the text, split in place */
    int ncols;
    char **cols;         /* header cells (into buf) */
    size_t nrows;
    char **cells;        /* nrows * ncols; a short row's missing trailing cells are "" */
    size_t *line;        /* each row's line number */
    double *val;         /* nrows * nmet metric values (slot[m]), parsed once; NAN for NA */
    int c_date, c_commit, c_benchmark;   /* column indexes; date may be -1 */
    int c_metric[HM_MAX];                /* -1 where the file has no such column */
    int nuser;                           /* its metric.NAME columns: c_metric[HM_COUNT + k] */
    int nmet;                            /* the metrics the file has: val's row width */
    int slot[HM_MAX];                    /* metric m's place in a row of val, or -1 */
    int c_varied;                        /* metrics_varied, or -1 */
    int c_runner, c_reference, c_toolchain, c_runs;
    int c_engine;        /* what counted (tare count --engine); rows of another engine than
                          * callgrind are series of their own, NAME@ENGINE: never compared */
    int c_vg_args;       /* the valgrind options given (tare run --valgrind-arg); rows taken
                          * with some are series of their own, NAME [ARGS]: never compared */
    int c_commit_date, c_subject, c_failure;   /* the commit's date and subject; why NA */
    size_t torn_line; /* a last line without its newline (a writer cut off): skipped; 0 if none */
};

/* Parses text (not NUL-terminated; len bytes) as a history file called name. Errors say
 * "'name' line N: ...". Every cell a history must not hold is an error: a metric that is not
 * a number, a negative time or ratio, a count that is not a whole number within 0 .. 2^64-1,
 * runs that are not a count, a date that is not ISO 8601. A last line without its newline is
 * a row cut off mid-write: it is skipped and its number left in torn_line (the header cut
 * off is an error). */
int hist_parse(const char *name, const char *text, size_t len, struct hist_table *t, struct err *e);
/* Reads path under a shared lock (see hist_lock_open). */
int hist_read(const char *path, struct hist_table *t, struct err *e);
/* Reads and parses the file open on fd, from its start; name is for messages. */
int hist_read_fd(int fd, const char *name, struct hist_table *t, struct err *e);

/*
 * The lock protocol of history files (tare-history(1), LOCKING), which every writer follows:
 * flock(2) on the history file itself, exclusive to write, shared to read. A writer that
 * replaces the file (merge renames a new one over it) does so while it holds the lock on the
 * old one; so whoever waited on the old file finds, once it holds the lock, that the path
 * names another file, and opens and locks that one instead. A process that holds more than
 * one lock at a time takes them in (device, inode) order.
 *
 * Opens path with oflags (O_CLOEXEC added; mode 0644 if created) and locks it, exclusive or
 * shared, waiting; returns the descriptor (close it to unlock), or -1 with e set
 * (ERR_INTERRUPTED when a signal handler interrupted the wait).
 */
int hist_lock_open(const char *path, int oflags, bool exclusive, struct err *e);

/* Many files locked at once: for merge the inputs shared and OUT (when it exists) exclusive;
 * for a transaction (hist_append_files) every file exclusive, made when missing. */
struct hist_lockset {
    int n;         /* inputs, plus one for OUT */
    int *fd;       /* per path; a file named twice shares one; -1 for an OUT not there yet */
    bool *created; /* hist_lockset_open_write: made (empty) here to be locked, else NULL */
};
/* Opens and locks paths[0..n) and out (may be NULL), in the protocol's order, until each
 * path names the file locked. Read each with hist_read_fd(ls->fd[i]). */
int hist_lockset_open(struct hist_lockset *ls, char **paths, int n, const char *out,
                      struct err *e);
/* The same for writers of several files: every path locked exclusive, created (0644) when
 * missing, ls->created saying which were. */
int hist_lockset_open_write(struct hist_lockset *ls, char **paths, int n, struct err *e);
/* Closes every descriptor (and so unlocks); hist_lockset_free also frees the set. */
void hist_lockset_close(struct hist_lockset *ls);
void hist_lockset_free(struct hist_lockset *ls);
void hist_table_free(struct hist_table *t);
static inline const char *hist_cell(const struct hist_table *t, size_t row, int col)
{
    return col < 0 ? "" : t->cells[row * t->ncols + col];
}
/* A metric cell as a number: NAN for NA or empty. */
double hist_value(const struct hist_table *t, size_t row, int m);
/* A metric's column name in the table: hist_metric_names[m], or its metric.NAME column. */
const char *hist_table_metric_name(const struct hist_table *t, int m);

/*
 * Appends rows to path under the exclusive lock (hist_lock_open), as one write, then fsync. text is
 * a header line then rows (TSV). The file is created with that header if new or empty; otherwise
 * the rows' columns are matched to the file's by (canonical) name, a column the file lacks is an
 * error, and one the rows lack is written as NA. A torn last line left by a writer that was
 * killed is cut off first. Signals are held off while writing, so Ctrl-C cannot split a row.
 * Returns the number of rows appended, or -1.
 */
long hist_append(const char *path, const char *text, size_t len, struct err *e);

/* One file's rows for hist_append_files: a header line then rows, as hist_append takes them. */
struct hist_rows {
    const char *path;
    const char *text;
    size_t len;
};
/*
 * Appends rows to several history files as one transaction (tare run's wall.tsv and
 * count.tsv): every file locked (hist_lockset_open_write), each one's next content built as
 * hist_append would make it (columns matched, a torn last line cut, the file widened) in a
 * copy beside it (.NAME.tmp.PID, synced), and only when every copy is whole are they renamed
 * over the files, the first put back if a later rename fails. A failure, or an interrupt
 * (proc_interrupted) before the renames, leaves every file as it was and no copy behind. A
 * path that is a symbolic link is written where it points. 0, or -1 with e set.
 */
int hist_append_files(const struct hist_rows *files, int n, struct err *e);

/*
 * Merges history files (shards) into out (history_merge.c): the union of their columns by
 * canonical name in first-seen order, the rows in commit order (then by series, then as given),
 * a cell a file lacks written NA, a row identical to the one before it in that order (a shard
 * merged again) written once. Every input is locked shared and out exclusive
 * (hist_lockset_open) until out is replaced: the rows go to out.tmp.PID, synced, then renamed
 * onto out, so out is the old file or the new one. tmp_named (may be NULL) is called with the
 * temporary file's name before it is created and with NULL once it is gone (with SIGINT,
 * SIGTERM and SIGHUP held across the rename), so that a signal handler can remove it; it
 * returns -1 to refuse a name (too long for it). torn (may be NULL) gets, per input, the line
 * of a torn last row left out, or 0; it is filled as files are read, also when a later one
 * fails. Returns the rows written, or -1 with e set.
 */
long hist_merge(char **paths, int n, const char *out, int (*tmp_named)(const char *path),
                size_t *torn, struct err *e);

/* Series gathered from one or more tables: rows joined by (commit, benchmark). */
struct hist_series {
    char *name;          /* benchmark column: "bench" or "bench+lane" */
    size_t n, cap;
    size_t *commit;      /* index into db commits, ascending commit order */
    double *v[HM_MAX];   /* n values each; NAN where absent */
    uint64_t varied;     /* bit k: its program's counter HM_COUNT + k varied in some row */
    char **failure;      /* n reasons a point is NA (the failure column), NULL each where none;
                          * NULL when no table had the column */
};

struct hist_db {
    size_t ncommits, commit_cap;
    char **commit, **date;    /* in commit order (earliest first: see hist_db_finish) */
    char **cdate, **subject;  /* per commit: its commit date and subject, "" where unknown */
    size_t nseries, series_cap;
    struct hist_series *series;
    bool has[HM_MAX];         /* some series has some value of this metric */
    int nuser;                /* the programs' counters: metrics HM_COUNT .. HM_COUNT+nuser */
    char *user[HIST_USER_MAX];   /* their columns' names, metric.NAME */
    /* internal: the metrics some table had a column of (their arrays exist in every series);
     * after hist_db_finish the others' arrays are all nan_fill, shared, all NAN */
    bool col[HM_MAX];
    double *nan_fill;
    size_t nan_cap;
    /* internal lookup tables */
    size_t chash_cap, shash_cap, phash_cap;
    size_t *chash, *shash;
    unsigned long long *phash_key;
    size_t *phash_val;
    size_t npoints;
    bool sorted;
    char **warn;              /* what the reader skipped, one message each, for the CLI to print */
    size_t nwarn;
};

/* An empty db; then hist_db_add each table (-1 and e set on no memory), hist_db_finish. */
void hist_db_init(struct hist_db *db);
int hist_db_add(struct hist_db *db, const struct hist_table *t, struct err *e);
/* Orders commits and every series' points, by date: a commit's commit date where a row has
 * one, else the first date (of the run) seen; equal dates keep the order first seen. Call
 * after the last add. */
void hist_db_finish(struct hist_db *db);

/* A repository's first-parent history, for hist_db_order_git: commits newest first (the tip
 * first), each with its commit date (UTC ISO 8601) and subject. */
struct hist_gitlog {
    size_t n;
    char **hash, **date, **subject;
};
/* What hist_db_order_git found. */
struct hist_order {
    size_t known;    /* the history's commits in the first-parent history */
    size_t unknown;  /* the others: placed among them by date */
};
/*
 * Orders a finished db by a repository's first-parent history (oldest first, the tip last),
 * its commits the log does not hold placed among them by date (their commit date where a row
 * has one, else the run's: before the first log commit dated later). A history commit matches
 * a log commit by its full hash, or a unique prefix of 7 characters or more. Known commits
 * get their date and subject from the log where the rows have none. When the log knows none
 * of them, the db is left in date order (out->known 0). -1 with e set on no memory.
 */
int hist_db_order_git(struct hist_db *db, const struct hist_gitlog *log, struct hist_order *out,
                      struct err *e);
/* The reason point i of series s is NA (the failure column), or NULL. */
const char *hist_failure(const struct hist_series *s, size_t i);
void hist_db_free(struct hist_db *db);
/* Adds a warning to db->warn; -1 on no memory. */
int hist_db_warn(struct hist_db *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The metrics of db: HM_COUNT + its counters (loop m from 0 to this). */
static inline int hist_db_nmetrics(const struct hist_db *db)
{
    return HM_COUNT + db->nuser;
}
/* Metric m's name: hist_metric_names[m], or a counter's metric.NAME. */
const char *hist_db_metric_name(const struct hist_db *db, int m);
/* The metric a name stands for: tare's (after the mapping), or a counter's, as metric.NAME or
 * as NAME alone where that is no metric of tare's; -1 when none. */
int hist_db_metric_index(const struct hist_db *db, const char *name);
/* Whether metric m of series s is judged as a count (a fixed threshold): tare's counts, and a
 * program's counter that never varied between runs (metrics_varied). */
bool hist_deterministic(const struct hist_series *s, int m);
/* Commit index for a full hash or a unique prefix (at least 4 characters), or -1 with e set. */
long hist_db_find_commit(const struct hist_db *db, const char *sha, struct err *e);

/* |relative change| between consecutive values (NANs skipped) of one series' metric. */
size_t hist_changes(const struct hist_series *s, int m, double *out);
/* The series' own noise of metric m: quantile q of its |changes| between consecutive values
 * of the points before end, the change into point skip left out (SIZE_MAX: none); NAN with
 * no change, or no memory. */
double hist_change_quantile(const struct hist_series *s, int m, size_t end, size_t skip, double q);

/* Points a wall-clock step needs before it: 3 with too few before them to have a deviation,
 * then the 10 deviations the fence is learned from (see tare-history(1)). */
#define HIST_MIN_BEFORE 13

/* Why a point was not tested, so that no report says "no regressions" for it. */
enum hist_untested {
    HIST_TESTED,
    HIST_NO_VALUE,       /* NA (or no row) at this point */
    HIST_NO_EARLIER,     /* deterministic: no earlier value to compare with */
    HIST_EARLIER_ZERO,   /* deterministic: the earlier value is 0, a change has no ratio */
    HIST_TOO_FEW,        /* wall clock: points < needed */
};

/* The regression test of one series' metric at one step (see tare-history(1)). */
struct hist_step {
    bool found;          /* a confirmed step */
    bool pending;        /* the newest points are past the fence but not yet persistent */
    size_t at;           /* point index of the step */
    double before, after, change, fence;
    enum hist_untested untested;
    size_t points, needed;   /* HIST_TOO_FEW: the values so far, and the least tested */
};
struct hist_check_opts {
    double det_threshold;   /* relative, e.g. 0.02 */
    int persist;            /* wall steps must hold this many points */
    int window;             /* points in the "before" window */
    int noise_n;            /* past statistics the fence is learned from */
    /* A series' own count threshold (a suite's [bench NAME] threshold =), or 0 for
     * det_threshold; NULL: none has one. Used by hist_judge and hist_check_commit. */
    double (*threshold_of)(const char *series, void *ctx);
    void *threshold_ctx;
};
/* The defaults of check, report, trend and bisect (tare-history(1)): counts at 2%, a
 * wall-clock step held 3 commits, a 10-commit "before" window, a fence from 60 deviations. */
#define HIST_CHECK_DEFAULTS \
    {.det_threshold = 0.02, .persist = 3, .window = 10, .noise_n = 60}
/* Tests the step that point index i confirms: for deterministic metrics the change from the
 * previous value to point i; for wall-clock ones a step at i - persist + 1. */
void hist_check_point(const struct hist_series *s, int m, size_t i,
                      const struct hist_check_opts *o, struct hist_step *out);

/* The confirmed steps at every point, as a check after each commit would have reported them:
 * out[i] (s->n entries) describes the step that point i confirms. Returns how many. */
size_t hist_scan(const struct hist_series *s, int m, const struct hist_check_opts *o,
                 struct hist_step *out);

/* What the test says of one metric of one series at one point. */
enum hist_verdict {
    HIST_SAME,          /* tested: within the threshold or the fence */
    HIST_REGRESSION,    /* a confirmed step up */
    HIST_IMPROVEMENT,   /* a confirmed step down */
    HIST_PENDING,       /* wall clock: past the fence, not yet persistent */
    HIST_ECHO,          /* wall clock: tested, but a step reported before still holds */
    HIST_NA,            /* no value at the point: the measurement failed */
    HIST_UNTESTED,      /* a value, but nothing to test it against (st.untested says why) */
};

/* One metric of one series judged at one point: what check, report, trend and the CI files
 * print. */
struct hist_judgement {
    size_t series;           /* index in db->series (hist_check_commit) */
    int metric;
    size_t point;            /* the series' point judged */
    enum hist_verdict verdict;
    double now, prev;        /* the value at the point, and at the point before (NAN: none) */
    struct hist_step st;     /* what was compared: before, after, change, and st.fence, the
                              * fence or (counts) the threshold used; untested and why */
    size_t step_point;       /* a step's (or pending step's) first point; else point */
    const char *failure;     /* HIST_NA: why, from the failure column (into the db), or NULL */
};

/* Judges metric m of series s at point (s->n > point), as history check does: a count
 * against the previous value at the threshold (the series' own when o->threshold_of gives
 * one), wall clock against its fence. */
void hist_judge(const struct hist_series *s, int m, size_t point, const struct hist_check_opts *o,
                struct hist_judgement *j);

/* Every metric check alarms on (hist_alarms) of every series with a row at one commit, in
 * series then metric order, a metric the series never had left out; and the tallies. */
struct hist_check {
    size_t commit;           /* the commit checked: index in db->commit */
    struct hist_judgement *j;
    size_t n;
    size_t nseries;          /* series with a row at the commit */
    size_t nabsent;          /* series without one: not checked */
    size_t ntested;          /* judgements tested (SAME, ECHO, steps, pending) */
    size_t nreg, nimp, npend;
    size_t nna;              /* HIST_NA: failed measurements */
    size_t nskip;            /* HIST_UNTESTED */
};
/* Checks commit ci of db (finished). 0, or -1 with e set (no memory). */
int hist_check_commit(const struct hist_db *db, size_t ci, const struct hist_check_opts *o,
                      struct hist_check *out, struct err *e);
void hist_check_free(struct hist_check *c);
/* Why a judgement was not tested, for a person ("" when it was): the long form ("no earlier
 * value to compare with", "too few points: 12 of the 16 a step test needs"), or the terse
 * one of report's table ("no earlier value", "too few points: 12 of 16"). */
const char *hist_untested_why(const struct hist_step *st, bool terse, char *buf, size_t n);

/* Whether check alarms on metric m of series s. Not on ref_median_s (the reference's own
 * time). Not on median_s or min_s when the series has a ratio to a same-machine reference:
 * a runner that changes speed moves every series' seconds at once (the seed's history has
 * several such days), and the ratio cancels it. */
bool hist_alarms(const struct hist_series *s, int m);

/* Reads every file into a fresh db and finishes it. A torn last row is skipped with a
 * warning in db->warn naming the file and line. */
int hist_db_load(struct hist_db *db, char **paths, int n, struct err *e);

#endif
