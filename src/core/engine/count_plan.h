/* count_plan.h: tare count's series as count_run jobs, and its rules over their counts: the
 * --subtract baselines by lane, and the --fail-above/--fail-below verdict git bisect run
 * reads. */
#ifndef TARE_COUNT_PLAN_H
#define TARE_COUNT_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/engine/count.h"
#include "core/engine/harness.h"
#include "core/engine/series.h"

/* One job per series t[0..n) (names, argv, env borrowed): the first nhooked (the measured
 * series, series k in h's combination k % ncombo) with their hooks; the rest (--subtract's
 * baselines) with none: hooks prepare a benchmark, not its start-up. NULL out of memory. */
struct count_job *count_jobs_make(const struct series *t, int n, int nhooked,
                                  const struct harness *h);

/* --subtract CMD's baselines: one series per lane (baseline[+LANE]) of spec, appended to
 * *t (*n grows). 0, or -1 with e set. */
int count_add_baselines(const struct series_spec *spec, const char *cmd, struct series **t,
                        int *n, struct err *e);
/* Each measured series jobs[0..nt) less its lane's baseline jobs[nt..nall) (series are
 * command-major, then lane, then parameter combination: series i is lane (i / ncombo) %
 * nlanes). */
void count_subtract_lanes(struct count_job *jobs, int nt, int nall, int ncombo);

/* The --fail-above/--fail-below verdict of one series: bits of what its metric did. */
enum {
    COUNT_LIMIT_ABOVE = 1,    /* above the --fail-above limit */
    COUNT_LIMIT_BELOW = 2,    /* below the --fail-below limit */
    COUNT_LIMIT_NA = 4,       /* no such count (failed, or not measured): skip the commit */
};
struct count_limits {
    const char *metric;       /* count_job_metric's name */
    bool above, below;        /* which limits were given */
    uint64_t above_n, below_n;
};
/* The verdict bits of j (0: within the limits), its metric's count in *v. */
int count_limit_check(const struct count_job *j, const struct count_limits *l, uint64_t *v);

#endif
