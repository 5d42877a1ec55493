/* ab_metrics.h: tare ab's verdict on the programs' own counters (core/util/metrics.h): each counter
 * of the two sides judged as tare ab judges a count (ab_count_judge). */
#ifndef TARE_AB_METRICS_H
#define TARE_AB_METRICS_H

#include "core/engine/ab.h"
#include "core/util/metrics.h"

/* One counter of both sides. */
struct ab_metric {
    char name[METRICS_NAME_MAX + 1];
    struct ab_count c;     /* medians, spreads, ranges, B/A, change; NA or UNKNOWN where why
                            * says */
    int n[2];              /* each side's readings of it */
    bool varied[2];        /* not the same in every reading of the side */
    const char *why;       /* why no verdict ("only in A", "one reading a side: no spread to
                            * judge against", ...), or NULL */
};
struct ab_metrics {
    int n;
    struct ab_metric *m;   /* A's counters in A's order, then those only B has */
};

/*
 * Judges every counter of a (side A's readings, metrics_finish'ed) against b's as ab_count_judge
 * judges a count: one the same in every reading changes with B/A past AB_COUNT_SAME; one that
 * varies only where every reading of B lies beyond every reading of A by more than the widest
 * side's range, in AB_COUNT_VARY_RUNS readings a side (fewer: UNKNOWN, why says), so it is
 * judged with its spread. No verdict (NA, with why) for a counter one side lacks, one missing
 * from some of a side's runs, or with fewer than two readings a side: never a verdict from one
 * run. 0, or -1 when out of memory.
 */
int ab_metrics_judge(const struct metrics *a, const struct metrics *b, struct ab_metrics *out,
                     struct err *e);
void ab_metrics_free(struct ab_metrics *m);

#endif
