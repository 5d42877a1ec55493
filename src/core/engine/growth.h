/* growth.h: tare count over a numeric parameter: the exponent k of cost ~ n^k per series,
 * fitted by least squares on log-log (stats_power_fit). */
#ifndef TARE_GROWTH_H
#define TARE_GROWTH_H

#include "core/engine/count.h"
#include "core/engine/harness.h"
#include "core/engine/series.h"

enum { GROWTH_INSTRUCTIONS, GROWTH_ALLOCATIONS, GROWTH_BYTES, GROWTH_NMETRICS };
/* "instructions", "allocations", "bytes". */
extern const char *const growth_metric_names[GROWTH_NMETRICS];

/* One series (a command, lane and the other parameters' values) over one parameter. */
struct growth {
    char *series;                     /* "growth kind=square" */
    const char *param;                /* "n" */
    int nvalues;
    const char *from, *to;            /* its first and last values, as given */
    double k[GROWTH_NMETRICS], r2[GROWTH_NMETRICS];   /* NAN when not fitted */
    char why[GROWTH_NMETRICS][160];   /* why not fitted, or "" */
};

/* The fits of every series over every numeric parameter with 3 values or more (values all
 * numbers above 0), from the counts jobs[0..nt) of the series t[0..nt) that harness_series
 * made; *n = 0 when there is none. -1 when out of memory. */
int growth_fit(const struct harness *h, const struct count_job *jobs, const struct series *t,
               int nt, struct growth **out, int *n);
void growth_free(struct growth *g, int n);

#endif
