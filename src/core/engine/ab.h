/* ab.h: tare ab in the library: paired interleaved runs of two commands, their interval, the
 * optional deterministic pass, and every verdict on them, as a result a command prints. */
#ifndef TARE_AB_H
#define TARE_AB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/engine/count.h"
#include "core/engine/counters.h"
#include "core/util/err.h"
#include "core/git/gitwt.h"
#include "core/engine/session.h"
#include "core/util/stats.h"

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
/* The passes of each side a verdict on counts that vary takes (tare ab --count takes them
 * when it sees the counts vary): with fewer, two sides' passes of one program too often lie
 * apart by chance. */
#define AB_COUNT_VARY_RUNS 6

enum ab_change {
    AB_CHANGE_NA,        /* a side did not measure it */
    AB_CHANGE_NONE,
    AB_CHANGE_MORE,
    AB_CHANGE_LESS,
    AB_CHANGE_UNKNOWN,   /* the spread cannot be known: one pass of each side, or a count that
                          * varies with fewer than AB_COUNT_VARY_RUNS passes */
};
/* "none", "more", "less", "unknown"; NULL for NA (the JSON's words). */
const char *ab_change_name(enum ab_change c);

/* One count of both sides, judged. */
struct ab_count {
    long n;             /* passes of each side */
    double med[2];      /* A's and B's median pass, rounded to a whole count; NAN: not measured */
    double spread[2];   /* (max - min) / median of a side's passes; NAN: not measured */
    double lo[2], hi[2];   /* the least and the most of a side's passes */
    double ratio;       /* B over A: 1 for two equal counts (0 and 0 too), NAN when one is NA */
    enum ab_change change;
};
/*
 * Judges one count from each side's n passes, a[0..n) and b[0..n) (a NAN: not measured; then
 * the side's figures are NAN and the change NA). A change is B/A past AB_COUNT_SAME and, where
 * the count varies (a side's passes differ, or varies: the program's other counts do), every
 * pass of B beyond every pass of A by more than the widest range of a side's passes, which
 * takes AB_COUNT_VARY_RUNS passes (fewer: UNKNOWN). One pass of each: UNKNOWN.
 */
void ab_count_judge(const double *a, const double *b, long n, bool varies, struct ab_count *out);

/* What the counts show of the work done (instructions and allocations). */
enum ab_work {
    AB_WORK_NA, AB_WORK_SAME, AB_WORK_MORE, AB_WORK_LESS, AB_WORK_DIFFERENT, AB_WORK_UNKNOWN
};
/* "same", "more", "less", "different", "unknown"; NULL for NA (the JSON's word). */
const char *ab_work_name(enum ab_work w);
/* The verdict on the work from the instructions' and allocations' judgements, its line for
 * people into buf ("counts: B does more work: ...", naming each count judged and its spread);
 * "" for NA. */
enum ab_work ab_work_verdict(const struct ab_count *instr, const struct ab_count *alloc,
                             char *buf, size_t size);

/* --cache-sim: the verdict on all the misses together (more, less, same: count's rule), with
 * the kinds that moved, the instructions and the cycles model beside them; NA (with a line
 * saying so) when a side's misses were not counted. c: every field, judged. */
enum ab_change ab_cache_verdict(const struct ab_count c[AB_NFIELD], char *buf, size_t size);

/*
 * The deterministic counts are the evidence, the wall clock the reading (the seed's section
 * 6): what the two say together. The clock moved when its interval excludes 1 (a change
 * under the threshold is still one way or the other); with the counts flat, only past the
 * threshold (as the clock's own verdict).
 */
enum ab_reading {
    AB_READING_NONE,          /* nothing to compare (no counts, no clock), or nothing moved */
    AB_READING_AGREE,         /* the counts and the clock moved the same way */
    AB_READING_CLOCK_FLAT,    /* the counts moved, the clock did not */
    AB_READING_COUNTS_FLAT,   /* the clock moved past its threshold, the counts did not */
    AB_READING_OPPOSITE,      /* less work but slower, or more work but faster */
};
/* "agree", "clock_flat", "counts_flat", "opposite"; NULL for NONE. */
const char *ab_reading_name(enum ab_reading r);

/* What the reading is made of: plain numbers, so that any command with a count change and a
 * clock ratio can ask. */
struct ab_reading_in {
    enum ab_change work;      /* which way the work moved: MORE, LESS, NONE (NA, UNKNOWN: none) */
    const char *counts;       /* the counts in words: "instructions -2.91%, allocations +0.00%" */
    enum ab_change misses;    /* --cache-sim's verdict on the simulated misses, NA without */
    double misses_ratio;
    bool clock;               /* false: no clock, or too few pairs for an interval */
    double ratio, lo, hi;     /* the clock's B/A and its interval */
    double threshold;         /* the least change the clock's verdict calls faster or slower */
    /* A clock judged otherwise (a history's fence rather than an interval): its direction
     * (+1 slower, -1 faster, 0 within its noise) and its change in words, in place of ratio,
     * lo, hi and threshold; NULL: the interval. */
    const char *clock_words;
    int clock_dir;
    const char *who;          /* who does the work: "B" (NULL), "this commit", ... */
};
/* The reading and its line into buf ("" for NONE). */
enum ab_reading ab_reading(const struct ab_reading_in *in, char *buf, size_t size);

/*
 * The same reading of a history at a commit (tare report): for series si of c, the
 * instructions' change over its step (from the point before the step to the commit) against
 * the series' own noise (the larger of AB_COUNT_SAME and the 90th percentile of its
 * commit-to-commit changes before the step), beside the clock's verdict at the commit (the
 * ratio's where check alarms on it, else median_s's: a step, or within its fence). Its
 * line into buf with "this commit" (or "the step from `SHA`") doing the work; NONE where
 * the series has no instructions or no clock judged (pending, NA, too few points).
 */
struct hist_db;
struct hist_check;
enum ab_reading ab_reading_at(const struct hist_db *db, const struct hist_check *c, size_t si,
                              char *buf, size_t size);

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
    /* The programs' own counters (core/util/metrics.h), read in every timed run (and, through
     * copt.metrics, the count pass's native runs), or NULL. */
    const struct metrics_spec *metrics;
    /* Git mode: A runs in a temporary worktree of git (opened, not yet added; made and
     * removed here), B in the working tree; build, when set, builds both first. */
    struct gitwt *git;
    const char *build;
    /* --count: count_runs callgrind passes of each side after the pairs (at least
     * AB_COUNT_VARY_RUNS when the counts vary and count_runs > 1), in rounds of one pass of
     * A and one of B side by side, each round a second of the clock after the last. copt: the
     * engine, cache_sim, vg_args, valgrind and alloc_lib (NULL: bytes and peak NA); the rest
     * is set here. */
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
    long count_runs;          /* passes of each side made */
    bool varies;              /* a count differed between a side's passes */
    double count_wait_s;      /* the time spent waiting for the clock's next second */
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
    /* Git mode: each side's directory by its link beside the worktree, and its environment
     * overrides with PWD that path (ab.c git_paths); NULL otherwise. */
    char *tree_cwd[2];
    char **tree_env[2];
    char *tree_pwd[2];
    /* The engine's, kept for the series' memory. */
    struct session_plan plan;
    struct session_looks seq;
    struct session sess;
    const struct ab_opts *o;
    double t_start;
    long count_done, count_total;   /* the count pass's progress, in passes */
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
