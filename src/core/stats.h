/* stats.h: order statistics for small samples of measurements. NAN when there is no data. */
#ifndef TARE_STATS_H
#define TARE_STATS_H

#include <stddef.h>

void stats_sort(double *x, size_t n);
double stats_median(const double *x, size_t n);
/* Quantile q in [0,1], linear interpolation between order statistics (R's type 7). */
double stats_quantile(const double *x, size_t n, double q);
/* Median absolute deviation from the median, unscaled. */
double stats_mad(const double *x, size_t n);
double stats_min(const double *x, size_t n);
double stats_max(const double *x, size_t n);
double stats_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1); 0 for one value. */
double stats_stddev(const double *x, size_t n);

#endif
