/* timing.h: what a timed series' runs say (tare wall): its summary figures, whether its first
 * run was cold, and each series against a base (the reference, else the fastest) as a ratio
 * with an interval and a verdict: pure functions of the engine's records (core/engine/session.h),
 * hyperfine's relative_speed the model. */
#ifndef TARE_TIMING_H
#define TARE_TIMING_H

#include <stdbool.h>

#include "core/engine/session.h"

/* A series' figures; NAN (rss_kb -1) when it failed or has no runs. */
struct timing_summary {
    double median, min, max, mad, user, sys, mean, stddev;
    long rss_kb;
};
/* The median, min, max, MAD, mean and deviation of the wall times, the medians of user and
 * sys time, the largest max RSS. */
struct timing_summary timing_summarize(const struct session_series *s);

/* A first run is cold when it is past the others' median by more than TIMING_COLD_MADS of
 * their spread (MAD) and by more than TIMING_COLD_RATIO: the spread alone would flag a steady
 * command's tiny jitter, the ratio alone a noisy command's ordinary run. */
#define TIMING_COLD_MADS 3
#define TIMING_COLD_RATIO 1.10

enum timing_cold {
    TIMING_WARM,          /* nothing to say */
    TIMING_COLD_WARMUP,   /* the warm-up run was cold (and was not counted) */
    TIMING_COLD_FIRST,    /* no warm-up: the first measured run looks cold, and was counted */
};
/* Whether s's first run was cold; *first and *median the two times compared (the warm-up
 * against the median, or the first run against the others' median). */
enum timing_cold timing_cold(const struct session_series *s, double *first, double *median);

/* One series against the base: the ratio of medians, and the 95% interval of the ratio from
 * the Hodges-Lehmann shift of log times (Mann-Whitney). */
struct timing_relative {
    bool done;                  /* compared (ok, not the base itself) */
    double ratio;               /* median over the base's median */
    double shift;               /* exp of the Hodges-Lehmann shift of log times */
    double low, high, confidence;   /* the interval of the ratio; NAN without one */
    const char *verdict;        /* "faster", "slower", "same" (no difference the runs can show) */
    const char *none;           /* why there is no interval, or NULL */
};

#define TIMING_RELATIVE_ALPHA 0.05

/* s against base into *r: verdict "slower" when the interval is above 1, "faster" below,
 * else "same"; no interval (none says why) with under 4 runs a side or too many. */
void timing_relative_one(const struct session_series *s, const struct session_series *base,
                         struct timing_relative *r);
/*
 * Two or more series of s[0..n) measured: the base (ref when it is given and measured, else
 * the fastest median) and every other measured series against it, into *rel (malloc'd, n
 * entries) and *base. Both NULL when there is nothing to compare (or out of memory).
 */
void timing_relative_all(const struct session_series *s, int n,
                         const struct session_series *ref, struct timing_relative **rel,
                         const struct session_series **base);

#endif
