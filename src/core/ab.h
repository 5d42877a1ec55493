/* ab.h: tare ab in the library: paired interleaved runs of two commands, their interval, the
 * optional deterministic pass, and every verdict on them, as a result a command prints. */
#ifndef TARE_AB_H
#define TARE_AB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/count.h"
#include "core/counters.h"
#include "core/err.h"
#include "core/gitwt.h"
#include "core/session.h"
#include "core/stats.h"

#define AB_ALPHA 0.05   /* the A/B's error rate, shared out among its looks */

/*
 * The rules, pure functions of numbers (tests/unit/test_ab.c holds them to made-up ones).
 */

/* What the wall clock says (stats_paired_ratio's verdict, with the reason for "same"). */
enum ab_wall {
    AB_WALL_TOO_FEW,          /* too few pairs for any interval: no verdict */
    AB_WALL_SLOWER,
    AB_WALL_FASTER,
    AB_WALL_UNDER_THRESHOLD,  /* the interval excludes 1, the change is under the threshold */
    AB_WALL_NO_CHANGE,        /* the interval holds 1 */
};
/* The kind of r's verdict. */
enum ab_wall ab_wall_kind(const struct stats_ab *r);

/* The counts of the deterministic pass: tare count's four, then --cache-sim's simulated
 * misses by kind, their sum (the cache verdict's figure) and the cycles model. */
enum ab_field {
    AB_INSTR, AB_ALLOC, AB_BYTES, AB_PEAK, AB_L1I, AB_L1D, AB_LLI, AB_LLD, AB_MISSES,
    AB_CYCLES, AB_NFIELD
};
#define AB_NPLAIN 4   /* the fields without --cache-sim */
/* Their names in the JSON: "instructions", ..., "misses", "est_cycles". */
extern const char *const ab_field_names[AB_NFIELD];

/* Counts of a program that does not vary that differ by more than this are a change in the
 * work done (the bound tare count --check-warm holds two passes of one command to). */
#define AB_COUNT_SAME 0.0001

enum ab_change { AB_CHANGE_NA, AB_CHANGE_NONE, AB_CHANGE_MORE, AB_CHANGE_LESS };

/* One count of both sides, judged. */
struct ab_count {
    double med[2];      /* A's and B's median pass, rounded to a whole count; NAN: not measured */
    double spread[2];   /* (max - min) / median of a side's passes; NAN: not measured */
    double ratio;       /* B over A: 1 for two equal counts (0 and 0 too), NAN when one is NA */
    double limit;       /* the least change that is one: above both spreads and COUNT_SAME */
    enum ab_change change;
};
/*
 * Judges one count from each side's n passes, a[0..n) and b[0..n) (NAN: not measured; then
 * the side's figures are NAN and the change NA): the medians, the spreads, and a change only
 * where B/A moved by more than both sides' spreads and AB_COUNT_SAME.
 */
void ab_count_judge(const double *a, const double *b, long n, struct ab_count *out);

/* What the counts show of the work done (instructions and allocations). */
enum ab_work { AB_WORK_NA, AB_WORK_SAME, AB_WORK_MORE, AB_WORK_LESS, AB_WORK_DIFFERENT };
/* "same", "more", "less", "different"; NULL for NA (the JSON's word). */
const char *ab_work_name(enum ab_work w);
/* The verdict on the work from the instructions' and allocations' judgements of n passes
 * each, its line for people into buf ("counts: B does more work: ..."); "" for NA. */
enum ab_work ab_work_verdict(const struct ab_count *instr, const struct ab_count *alloc, long n,
                             char *buf, size_t size);

/* --cache-sim: the verdict on all the misses together (more, less, same: count's rule), with
 * the kinds that moved, the instructions and the cycles model beside them; NA (with a line
 * saying so) when a side's misses were not counted. c: every field, judged. */
enum ab_change ab_cache_verdict(const struct ab_count c[AB_NFIELD], char *buf, size_t size);

/*
 * The deterministic counts are the evidence, the wall clock the reading (the seed's section
 * 6): what the two say together. cache_sim: whether c holds the simulated misses.
 */
enum ab_reading {
    AB_READING_NONE,          /* nothing to say: no counts or no interval, or they agree */
    AB_READING_CLOCK_FLAT,    /* the counts moved, the wall clock did not */
    AB_READING_COUNTS_FLAT,   /* the wall clock moved, the counts did not */
    AB_READING_OPPOSITE,      /* the two moved in opposite directions */
};
/* The reading of c (every field judged) against the wall clock's verdict, its line into buf
 * ("" for NONE). */
enum ab_reading ab_reading(const struct ab_count c[AB_NFIELD], bool cache_sim,
                           const struct stats_ab *wall, char *buf, size_t size);

/* "+20.1%", "-3.0%", "NA", "+inf%": a ratio as a change (two decimals under 10%). */
const char *ab_pct(char *buf, size_t size, double ratio);
/* A spread as a percentage: two decimals, or two figures under 0.01%; "NA", "inf%". */
const char *ab_spread_str(char *buf, size_t size, double spread);

/*
 * The run.
 */

/* One side: a command and where it runs. */
struct ab_side {
    const char *name;         /* for people: "parent 0123abcd", or the command */
    const char *command;      /* as a person would type it */
    char *const *argv;
    char *const *env;         /* "VAR=VALUE" on top of the inherited environment, or NULL */
    const char *cwd;          /* or NULL: the current directory (git mode sets A's) */
};

struct ab_opts {
    struct ab_side side[2];   /* A, B */
    long pairs, warmup;       /* pairs of measured runs; runs of each before, not counted */
    bool until;               /* --until-decided: looks at pairs, 2 pairs, 4 ... max_pairs */
    long max_pairs;
    double max_time_s;        /* with until: stop looking after this long; 0: never */
    double threshold;         /* the least change called faster or slower (a fraction) */
    double timeout_s;         /* kill a run after this long; 0: never */
    int pin_cpu;              /* -1: no pinning */
    struct session_cmds setup, prepare, conclude, cleanup;   /* hooks of both sides */
    const char *stdin_path, *stdout_path;                     /* or NULL */
    bool show_output;
    struct ctr_set *ctr;      /* count these in every run (--counters), or NULL */
    /* Git mode: A runs in a temporary worktree of git (opened, not yet added; made and
     * removed here), B in the working tree; build, when set, builds both first. */
    struct gitwt *git;
    const char *build;
    /* --count: count_runs callgrind passes of each side after the pairs. copt: the engine,
     * cache_sim, vg_args, valgrind and alloc_lib (NULL: bytes and peak NA); the rest is set
     * here. */
    bool count;
    long count_runs;
    struct count_opts copt;
    /* What is going on, for a progress line ("pair 3/20", "counting under callgrind, 1/4
     * done"), with the seconds since that phase began; what NULL: the line is done. */
    void (*progress)(void *ctx, const char *what, double seconds);
    void *ctx;
};

/* pairs 20, warmup 1, max_pairs 200, threshold 1%, no pinning, count_runs 2; the rest 0. */
void ab_opts_init(struct ab_opts *o);

struct ab_result {
    struct session_series series[2];   /* A, B: the times, counters, failure records */
    long n;                   /* pairs measured */
    int looks, planned_looks;
    enum session_stop stopped;
    struct stats_ab wall;
    /* --count */
    bool counted;             /* the deterministic pass ran (a side may have failed) */
    long count_runs;
    struct count_job *cjob;   /* A's count_runs passes, then B's */
    const struct count_job *bad[2];   /* each side's first failed pass, or NULL */
    struct ab_count count[AB_NFIELD];
    enum ab_work work;
    char work_line[512];
    enum ab_change cache;     /* AB_CHANGE_NA without --cache-sim */
    char cache_line[512];     /* "" without --cache-sim */
    enum ab_reading reading;
    char reading_line[768];
    /* Why it failed, when ab_run returns -1: the build that failed and its stderr's end, and
     * git mode's hint at a file A's worktree lacks. */
    bool build_failed;
    char build_which[256];
    char build_tail[PROC_STDERR_TAIL];
    char hint[1024];
    char rm_error[1024];      /* git mode: why the worktree could not be removed, or "" */
    /* The engine's, kept for the series' memory. */
    struct session_plan plan;
    struct session_looks seq;
    struct session sess;
    const struct ab_opts *o;
    double t_start;
};

/*
 * Git mode's worktree made and built, the warm-up and the pairs in alternating order (A B,
 * B A, ...), looked at after `pairs` pairs (with until at 2x, 4x ... each look spending
 * AB_ALPHA / looks), the count pass, the verdicts, the worktree removed. 0, or -1 with e set:
 * a run failed (ERR_MEASURE: the side and why; a pair needs both), a build failed
 * (build_failed), interrupted, or tare cannot go on. A side whose counting failed is not a
 * failure here: its counts are NAN and bad[] says why. r is not to be copied; free it with
 * ab_result_free, whatever ab_run returned.
 */
int ab_run(const struct ab_opts *o, struct ab_result *r, struct err *e);
void ab_result_free(struct ab_result *r);

/* "pairs" (a fixed count), or with until "decided", "max-time", "max-pairs". */
const char *ab_stopped_name(const struct ab_result *r);

#endif
