/* bisect.h: tare bisect's search: the commits at which a metric moved, given a probe. */
#ifndef TARE_BISECT_H
#define TARE_BISECT_H

#include <stdbool.h>

#include "core/err.h"

/*
 * Measures commit i of the range (0 is the good end, n - 1 the bad end, in history order):
 * returns 0 with *value set, 1 when the commit cannot be measured (it does not build, its
 * command fails: it is skipped, as git bisect run's exit 125), or -1 to stop the search
 * (interrupted, or tare cannot go on), with e set.
 */
typedef int (*bisect_probe_fn)(void *ctx, int i, double *value, struct err *e);

struct bisect_opts {
    double threshold;     /* the change that counts as a move; <= 0: the default (below) */
    double threshold_rel; /* > 0: the threshold is this fraction of the good value instead */
    bool all_steps;       /* every step past the threshold, not only the one */
    bisect_probe_fn probe;
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
/* Frees what bisect_run allocated in r. */
void bisect_result_free(struct bisect_result *r);

#endif
