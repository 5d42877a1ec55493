/* count.h: deterministic counts of a command: instructions and allocations from one callgrind
 * pass, bytes and peak heap from a native run under the counting allocator. */
#ifndef TARE_COUNT_H
#define TARE_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/proc.h"
#include "core/session.h"

enum count_status {
    COUNT_OK,
    COUNT_FAILED,     /* a run exited non-zero or crashed, natively or under valgrind */
    COUNT_TIMEOUT,
    COUNT_UNSTABLE,   /* --check-warm: two callgrind passes disagreed by more than 0.01% */
};

#define COUNT_NA UINT64_MAX   /* a count that was not measured */

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
    /* out */
    enum count_status status;
    uint64_t instructions, allocations;   /* COUNT_NA when not measured */
    uint64_t bytes, peak_bytes;           /* COUNT_NA without the counting allocator */
    uint64_t instructions2, allocations2; /* the second pass of --check-warm */
    char why[1024];                        /* what failed, for a person */
    char note[512];                        /* why bytes are NA though the rest is ok, or "" */
    char tail[PROC_STDERR_TAIL];          /* the end of the failing run's stderr */
    double seconds;                       /* how long this job took, all passes */
};

struct count_opts {
    int jobs;                 /* how many commands at once (counts do not depend on load) */
    double timeout_s;         /* per run, native or under valgrind; 0: none */
    const char *keep_dir;     /* keep each callgrind profile here as NAME.callgrind.out, or NULL */
    bool check_warm;          /* two callgrind passes, compared */
    bool show_output;
    const char *stdin_path;   /* every run's stdin, or NULL: /dev/null */
    const char *stdout_path;  /* every run's stdout, appended to, or NULL */
    const char *valgrind;     /* the valgrind binary */
    const char *alloc_lib;    /* libtare-alloc.so for bytes and peak, or NULL: those stay NA */
    /* Called (serialised) when a job starts and when it ends; may be NULL. */
    void (*progress)(void *ctx, const struct count_job *job, bool finished, int done, int total);
    void *ctx;
};

/* Finds valgrind on PATH (or $TARE_VALGRIND); ERR_UNSUPPORTED naming the package if absent. */
int count_find_valgrind(char *path, size_t size, struct err *e);

/*
 * Measures every job, opts->jobs at a time. Each job: one native warm-up run (not measured),
 * one callgrind run (two with check_warm), one native run under the counting allocator when
 * alloc_lib is set; all with address-space randomisation off. A job that fails is marked in
 * its status and why; the return is -1 only when tare cannot go on (interrupted, no temp dir).
 */
int count_run(struct count_job *jobs, int n, const struct count_opts *opts, struct err *e);

/* Whether name is one of the four metrics: instructions, allocations, bytes, peak_bytes. */
bool count_metric_valid(const char *name);
/* The job's count of that metric, COUNT_NA when it was not measured or name is unknown. */
uint64_t count_job_metric(const struct count_job *job, const char *name);

#endif
