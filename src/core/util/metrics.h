/* metrics.h: a measured program's own counters (the seed's MUTSU_VM_STATS): lines it prints
 * on stderr or stdout or writes to a file, or NAME VALUE lines it appends to the file named by
 * $TARE_METRICS_OUT; read after each native run, summed per name, summarised per series. */
#ifndef TARE_METRICS_H
#define TARE_METRICS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"
#include "core/util/proc.h"

#define METRICS_NAME_MAX 64      /* bytes of a counter's name */
#define METRICS_MAX 256          /* distinct counters a run may report; the rest are left out */
#define METRICS_LINE_MAX 4096    /* a longer line is not a counter */
/* The variable tare sets, in every native run it reads counters of, to a file where the
 * program may append "NAME VALUE" lines (<tare/scope.h>'s TARE_METRIC). */
#define METRICS_ENV "TARE_METRICS_OUT"
/* The prefix of a counter's column in TSV and history files: tare's own names never hold a
 * dot, so "metric.NAME" cannot clash with them. */
#define METRICS_PREFIX "metric."

/* Where the lines are read (--metrics-from). TARE_METRICS_OUT is read whatever this says. */
enum metrics_from {
    METRICS_FROM_NONE,   /* only $TARE_METRICS_OUT */
    METRICS_FROM_STDERR,
    METRICS_FROM_STDOUT,
    METRICS_FROM_FILE,   /* a file the program writes (emptied before each run) */
};

/* What the options say, and the compiled pattern. */
struct metrics_spec {
    enum metrics_from from;
    char *file;          /* METRICS_FROM_FILE's path (owned) */
    char *pattern;       /* --metrics-pattern (owned), or NULL: NAME: INTEGER or NAME=INTEGER */
    regex_t re;          /* compiled pattern, when pattern is set */
};

/* Sets *s from --metrics-from's argument (stderr, stdout, or a file's path) and the pattern
 * (NULL: the default): a POSIX extended regular expression with at least two groups, the
 * first the name and the second the value. 0, or -1 with e set (ERR_INPUT: "--metrics-pattern
 * 'x': ..."). metrics_spec_free frees it (also after a failure). */
int metrics_spec_init(struct metrics_spec *s, const char *from, const char *pattern,
                      struct err *e);
void metrics_spec_free(struct metrics_spec *s);
/* A suite file's key (file, line: for messages): metrics = stderr|stdout|FILE and
 * metrics-pattern = REGEX into *from and *pattern (malloc'd), checked as --metrics-from and
 * --metrics-pattern are. 1 taken, 0 another key, -1 with e set ("'file' line N: ...": empty,
 * given twice, a pattern that does not compile or lacks its groups). */
int metrics_ini_key(const char *file, unsigned long line, const char *key, const char *value,
                    char **from, char **pattern, struct err *e);
/* "stderr", "stdout", the file's path, or "" for none: what a person is told it read. */
const char *metrics_spec_source(const struct metrics_spec *s);

/* Whether name can be a counter's: 1 to METRICS_NAME_MAX bytes of letters, digits, '_', '.'
 * and '-', starting with a letter or '_'. */
bool metrics_name_valid(const char *name, size_t len);

/* One run's counters: each name once, the values of its lines summed (every process the
 * command starts may print its own). */
struct metrics_kv {
    char name[METRICS_NAME_MAX + 1];
    uint64_t value;
};
struct metrics_run {
    int n, cap;
    struct metrics_kv *kv;   /* in the order first seen */
    char bad[256];           /* the first line that was meant as a counter but was not one */
    bool lost;               /* out of memory, or past METRICS_MAX: some were left out */
};
/* Frees the run's counters (and zeroes it, ready again). */
void metrics_run_free(struct metrics_run *r);
/* Adds value to name's sum (a sum past 2^64 - 2 is a bad line); false when not taken. */
bool metrics_run_add(struct metrics_run *r, const char *name, uint64_t value);

/*
 * One line (len bytes, without its newline) read as a counter. 1: a counter, its name into
 * name and value into *v; 0: not a counter; -1: a line meant as one that is not (a value that
 * is not a whole number within 0 .. 2^64 - 2, a name too long or with other characters), why
 * into why. pair: the $TARE_METRICS_OUT format, "NAME VALUE" (every line is meant as one);
 * else the spec's pattern (NULL spec: the default one).
 */
int metrics_parse_line(const struct metrics_spec *s, bool pair, const char *line, size_t len,
                       char name[METRICS_NAME_MAX + 1], uint64_t *v, char *why, size_t whylen);

/* Lines assembled from chunks (a stream), each parsed into a run as it completes. */
struct metrics_feed {
    const struct metrics_spec *spec;
    bool pair;
    struct metrics_run *run;
    char line[METRICS_LINE_MAX];
    size_t len;
    bool overlong;           /* the current line passed METRICS_LINE_MAX: not a counter */
};
/* Starts a stream of lines into run: pair, $TARE_METRICS_OUT's format; else s's pattern. */
void metrics_feed_init(struct metrics_feed *f, const struct metrics_spec *s, bool pair,
                       struct metrics_run *run);
/* The next n bytes of the stream, cut anywhere. */
void metrics_feed(struct metrics_feed *f, const char *buf, size_t n);
/* The last line, when it has no newline. */
void metrics_feed_end(struct metrics_feed *f);
/* A proc_opts.stderr_sink or stdout_sink: arg is a struct metrics_feed. */
void metrics_feed_sink(void *arg, const char *buf, size_t n);

/*
 * Around one native run: metrics_capture_begin sets o's environment (env plus
 * TARE_METRICS_OUT, a new empty file in dir), its stderr sink (from stderr) or stdout sink
 * (from stdout with o->stdout_pipe) or stdout file (from stdout: o->stdout_path, or a file
 * of tare's in dir), and empties the spec's file;
 * metrics_capture_end reads what the run left into run and removes tare's files. A relative
 * --metrics-from FILE is taken in cwd (the command's). 0, or -1 with e set (no file, no memory).
 */
struct metrics_capture {
    const struct metrics_spec *spec;
    struct metrics_run *run;
    struct metrics_feed feed;    /* the stream fed as it comes: stderr, or stdout's pipe */
    bool fed;                    /* feed is in use */
    char **env;                  /* what o->env_set points to */
    char env_path[4096];         /* $TARE_METRICS_OUT */
    char out_path[4096];         /* the stdout read from, or "" */
    bool out_ours;               /* out_path is tare's own file (removed at the end) */
    long long out_off;           /* where this run's stdout starts in out_path */
    char file[4096];             /* --metrics-from FILE, resolved */
};
/* Before the run (see above). */
int metrics_capture_begin(struct metrics_capture *c, const struct metrics_spec *s,
                          const char *dir, char *const *env, const char *cwd,
                          struct proc_opts *o, struct metrics_run *run, struct err *e);
/* After it, whatever its status: the counters read, tare's files removed. */
void metrics_capture_end(struct metrics_capture *c);

/* A series' counters over its runs: per name, every run's value. */
struct metric {
    char name[METRICS_NAME_MAX + 1];
    uint64_t *v;                 /* the runs' values (metrics_finish sorts them) */
    int nv, cap;
    /* metrics_finish: */
    uint64_t min, max;
    double median;
    bool varied;                 /* not the same in every run (or absent from some) */
};
struct metrics {
    int nruns;                   /* runs read */
    int n;
    struct metric *m;
    char note[320];              /* the first bad line, or what was left out; "" */
};
/* Adds one run's counters: -1 when out of memory (e set). */
int metrics_add_run(struct metrics *ms, const struct metrics_run *r, struct err *e);
/* Adds every reading of src (another series' counters, a second pass of the same command) to
 * dst's, runs and all: -1 when out of memory (e set). */
int metrics_merge(struct metrics *dst, const struct metrics *src, struct err *e);
/* Sets each counter's min, max, median and varied. */
void metrics_finish(struct metrics *ms);
void metrics_free(struct metrics *ms);
/* The counter called name, or NULL. */
const struct metric *metrics_find(const struct metrics *ms, const char *name);
/* Whether a counter was checked for run-to-run change: read in two runs or more. */
static inline bool metrics_checked(const struct metrics *ms)
{
    return ms->nruns >= 2;
}

#endif
