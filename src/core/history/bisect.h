/* bisect.h: tare bisect's search: the commits at which a metric moved, given a probe. */
#ifndef TARE_BISECT_H
#define TARE_BISECT_H

#include <stdbool.h>

#include "core/util/err.h"

/*
 * Measures commit i of the range (0 is the good end, n - 1 the bad end, in history order):
 * returns 0 with *value set, 1 when the commit cannot be measured (it does not build, its
 * command fails: it is skipped, as git bisect run's exit 125), or -1 to stop the search
 * (interrupted, or tare cannot go on), with e set.
 */
typedef int (*bisect_probe_fn)(void *ctx, int i, double *value, struct err *e);

/*
 * Measures the k commits idx[0..k-1] at once (each as bisect_probe_fn would): sets rcs[j] to
 * 0 with values[j] set, or 1 when idx[j] is skipped; returns 0, or -1 to stop the search with
 * e set.
 */
/* The most probes a k-ary search makes at once (bisect_opts.jobs). */
#define BISECT_JOBS_MAX 16

typedef int (*bisect_probe_many_fn)(void *ctx, const int *idx, int k, double *values,
                                    int *rcs, struct err *e);

struct bisect_opts {
    double threshold;     /* the change that counts as a move; <= 0: the default (below) */
    double threshold_rel; /* > 0: the threshold is this fraction of the good value instead */
    bool all_steps;       /* every step past the threshold, not only the one */
    bisect_probe_fn probe;
    bisect_probe_many_fn probe_many; /* with jobs > 1 (not all_steps): k probes at once */
    int jobs;             /* > 1: k-ary search, up to jobs cut points probed at once */
    void *ctx;
};

enum bisect_state { BISECT_UNKNOWN, BISECT_MEASURED, BISECT_SKIPPED };

struct bisect_step {
    int before;           /* the last commit measured not to have moved: the parent when exact */
    int first;            /* the first commit measured to have moved */
    double before_value, after_value;
    bool exact;           /* first == before + 1; false when skipped commits hide which one */
};

struct bisect_result {
    int n;
    enum bisect_state *state;   /* per commit */
    double *value;              /* per commit, where measured */
    double threshold;           /* the threshold the search used */
    struct bisect_step *steps;  /* in history order */
    int nsteps;
    int probes;                 /* commits probed, the skipped ones among them */
    int skipped;
};

/*
 * Probes the two ends, then bisects. A commit "moved" when its value differs from the good
 * end's, in the direction of the bad end's, by more than the threshold: by default half of
 * the whole change, and at least 1% of the good value. With all_steps, each segment whose
 * ends differ by more than the threshold (default 1% of the good value) is split until the
 * steps are single commits; a segment whose ends agree is taken to hold no step (a rise and
 * an equal fall inside one are not seen). A skipped commit is stepped around: the nearest
 * unprobed commit to the middle is probed instead; when only skipped commits are left
 * between a moved and an unmoved one, the step is given as that range (exact false).
 * Never probes a commit twice. Returns 0 (nsteps 0 when nothing moved past the threshold);
 * -1 with e set when an end cannot be measured (ERR_MEASURE) or the probe stopped the search.
 * r is filled either way (free it with bisect_result_free).
 */
int bisect_run(int n, const struct bisect_opts *o, struct bisect_result *r, struct err *e);
/*
 * With jobs > 1 and probe_many, the single search is k-ary instead: both ends at once, then
 * up to jobs commits spread evenly over the part still open, probed at once, each round
 * narrowing it to the gap between the last one that did not move and the first that did.
 * The most builds it takes is bisect_max_builds.
 */
/* The most probes a search without skipped commits takes for a range of n commits (good
 * included), jobs at a time: 2 for the ends, then per round min(jobs, m) where m commits are
 * still open, which leaves ceil((m - jobs) / (jobs + 1)). */
int bisect_max_builds(int n, int jobs);
/* Frees what bisect_run allocated in r. */
void bisect_result_free(struct bisect_result *r);

#endif
