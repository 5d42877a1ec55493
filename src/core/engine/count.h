/* count.h: deterministic counts of a command: instructions and allocations from one callgrind
 * pass, bytes and peak heap from a native run under the counting allocator. */
#ifndef TARE_COUNT_H
#define TARE_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/util/err.h"
#include "core/util/metrics.h"
#include "core/util/proc.h"
#include "core/engine/session.h"

enum count_status {
    COUNT_OK,
    COUNT_FAILED,     /* a run exited non-zero or crashed, natively or under valgrind */
    COUNT_TIMEOUT,
    COUNT_UNSTABLE,   /* --check-warm: two callgrind passes disagreed by more than 0.01% */
};

#define COUNT_NA UINT64_MAX   /* a count that was not measured */
/* The time limit of one run under callgrind unless told otherwise, in seconds: callgrind runs
 * a program 20-100 times slower than natively. */
#define COUNT_TIMEOUT_S 1800

struct count_job {
    /* in */
    const char *name;         /* series name, also names a kept profile */
    char *const *argv;
    char *const *env;         /* lane variables, or NULL */
    const char *cwd;          /* where it runs, or NULL: tare's own directory */
    /* Hooks (session.h's), run natively with the lane's environment, never under valgrind or
     * the counting allocator: setup and cleanup once (TARE_ITERATION 0), prepare and conclude
     * around every run: -1 the warm-up, then 1, 2, ... the callgrind pass(es) and the
     * allocator's run. A hook that fails makes the job COUNT_FAILED (or TIMEOUT). */
    struct session_cmds setup, prepare, conclude, cleanup;
    /* Where this job's program prints its counters (a suite's per benchmark or lane), or
     * NULL: count_opts.metrics. */
    const struct metrics_spec *metrics_from;
    /* out */
    enum count_status status;
    uint64_t instructions, allocations;   /* COUNT_NA when not measured */
    uint64_t bytes, peak_bytes;           /* COUNT_NA without the counting allocator */
    uint64_t instructions2, allocations2; /* the second pass of --check-warm */
    /* A region's counts (--toggle-collect or the marks), from a callgrind pass of its own:
     * COUNT_NA when no region was asked for, or it was never entered (region_why says). */
    uint64_t region_instructions, region_allocations;
    char region_why[128];
    /* --cache-sim: simulated misses (COUNT_NA without it) and the cycles model
     * est_cycles = Ir + 10 x (l1i + l1d misses) + 100 x (lli + lld misses). */
    uint64_t l1i_misses, l1d_misses, lli_misses, lld_misses, est_cycles;
    /* --subtract: these counts less a baseline command's (count_subtract); COUNT_NA when
     * not asked, when either is NA, or when the baseline's is the larger. */
    uint64_t net_instructions, net_allocations, net_bytes;
    uint64_t base_instructions, base_allocations, base_bytes;   /* the baseline's, as taken */
    char why[1024];                        /* what failed, for a person */
    char note[512];                        /* why bytes are NA though the rest is ok, or "" */
    char tail[PROC_STDERR_TAIL];          /* the end of the failing run's stderr */
    double seconds;                       /* how long this job took, all passes */
    /* The program's own counters (core/util/metrics.h), read in its native runs, never under
     * valgrind: the warm-up and the counting allocator's run (without the allocator, a plain
     * native run instead, when the warm-up reported any): two readings, so a counter that
     * differs between them is marked varied. Empty when it reported none; the job owns it
     * (count_job_free). Start from a zeroed job. */
    struct metrics metrics;
};

/* What counts the instructions (--engine). */
enum count_engine {
    COUNT_CALLGRIND,    /* instructions and allocations from callgrind (call edges) */
    COUNT_CACHEGRIND,   /* instructions from cachegrind (faster, no call graph); allocations
                         * from the native run under the counting allocator */
};

struct count_opts {
    int jobs;                 /* how many commands at once (counts do not depend on load) */
    double timeout_s;         /* per run, native or under valgrind; 0: none */
    const char *keep_dir;     /* keep each callgrind profile here as NAME.callgrind.out, or NULL */
    bool check_warm;          /* two callgrind passes, compared */
    bool show_output;
    const char *stdin_path;   /* every run's stdin, or NULL: /dev/null */
    const char *stdout_path;  /* every run's stdout, appended to, or NULL */
    bool stdout_pipe;         /* every run's stdout read through a pipe, thrown away */
    const char *valgrind;     /* the valgrind binary */
    const char *alloc_lib;    /* libtare-alloc.so for bytes and peak, or NULL: those stay NA */
    /* The allocator's run records stacks too and keeps them as DIR/NAME.stacks.tsv (the
     * saved table of tare alloc --stacks: every stack, by allocations), or NULL. */
    const char *stacks_dir;
    /* A region: callgrind's --toggle-collect=FUNC for each of these, or with marks the
     * program's TARE_COUNT_START/STOP (--collect-atstart=no, TARE_COUNT_REGION=marks set). */
    char *const *toggle;
    int ntoggle;
    bool marks;
    enum count_engine engine;
    bool cache_sim;           /* the tool's cache simulation in its passes (--cache-sim=yes) */
    /* More valgrind options (--valgrind-arg), after tare's own in every valgrind pass. */
    char *const *vg_args;
    int nvg_args;
    /* Where the program's own counters are read (--metrics-from); NULL: only what it writes
     * to $TARE_METRICS_OUT, which every native run gets. */
    const struct metrics_spec *metrics;
    /* Called (serialised) when a job starts and when it ends; may be NULL. */
    void (*progress)(void *ctx, const struct count_job *job, bool finished, int done, int total);
    void *ctx;
};

/* "callgrind" or "cachegrind". */
const char *count_engine_name(enum count_engine engine);
/* The engine a name ("callgrind", "cachegrind") stands for into *engine: 0, or -1 when it is
 * neither (what tare count --engine and a suite's engine = take). */
int count_engine_parse(const char *name, enum count_engine *engine);
/* Whether arg can be passed to valgrind (--valgrind-arg, a suite's valgrind-arg =): an option
 * ("--..."), not one that tare sets and reads back (the tool, the output file). 0, or -1 with
 * why (ERR_INPUT: "takes a valgrind option ..." or "tare sets --tool=... itself ..."). */
int count_vg_arg_check(const char *arg, struct err *e);

/* Finds valgrind on PATH (or $TARE_VALGRIND); ERR_UNSUPPORTED naming the package if absent. */
int count_find_valgrind(char *path, size_t size, struct err *e);

/*
 * Measures every job, opts->jobs at a time. Each job: one native warm-up run (not measured),
 * one callgrind run (two with check_warm), one native run under the counting allocator when
 * alloc_lib is set; all with address-space randomisation off. With COUNT_CACHEGRIND the
 * valgrind runs are cachegrind's, and allocations come from the counting allocator's run. A
 * region (toggle or marks) adds one callgrind pass that collects inside the region only. A
 * job that fails is marked in its status and why; the return is -1 only when tare cannot go
 * on (interrupted, no temp dir).
 */
int count_run(struct count_job *jobs, int n, const struct count_opts *opts, struct err *e);

/* Frees what count_run put in the job (its counters). */
void count_job_free(struct count_job *j);

/* Whether name is a metric of a job: instructions, allocations, bytes, peak_bytes, or a
 * counter of the program's own (core/util/metrics.h), as metric.NAME or NAME alone. */
bool count_metric_valid(const char *name);
/* The counter's NAME that a metric name stands for, or NULL for tare's own four (or no
 * counter's name). NAME alone may not be a name of tare's metrics (wall, median_s, ratio,
 * ...): such a counter is metric.NAME. */
const char *count_counter_name(const char *metric);
/* The job's count of that metric, COUNT_NA when it was not measured or name is unknown; a
 * counter's only where it was the same in the job's runs. */
uint64_t count_job_metric(const struct count_job *job, const char *name);
/* Why a counter's count_job_metric is NA ("the program reported no counter 'x'", "its
 * counter 'x' varied between runs (a .. b): ..."), into buf; "" when it is not NA. */
const char *count_counter_why(const struct count_job *job, const char *name, char *buf,
                              size_t n);
/* raw - base, or COUNT_NA when either is COUNT_NA or base > raw (never a negative, nor a 0
 * made up). */
uint64_t count_net(uint64_t raw, uint64_t base);
/* Fills j's net_* from j's counts less base's (a baseline counted in the same count_run). */
void count_subtract(struct count_job *j, const struct count_job *base);

#endif
