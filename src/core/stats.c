/* stats.c: median, MAD, quantiles, mean and spread, on copies so callers keep their order. */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_sort(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
}

static double quantile_sorted(const double *s, size_t n, double q)
{
    double h = (n - 1) * q;
    size_t lo = (size_t)floor(h);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return s[lo] + (h - lo) * (s[hi] - s[lo]);
}

double stats_quantile(const double *x, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double small[64];
    double *s = n <= 64 ? small : malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    stats_sort(s, n);
    double v = quantile_sorted(s, n, q);
    if (s != small)
        free(s);
    return v;
}

double stats_median(const double *x, size_t n)
{
    return stats_quantile(x, n, 0.5);
}

double stats_mad(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double m = stats_median(x, n);
    double small[64];
    double *d = n <= 64 ? small : malloc(n * sizeof *d);
    if (!d)
        return NAN;
    for (size_t i = 0; i < n; i++)
        d[i] = fabs(x[i] - m);
    double v = stats_median(d, n);
    if (d != small)
        free(d);
    return v;
}

double stats_min(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double v = x[0];
    for (size_t i = 1; i < n; i++)
        if (x[i] < v)
            v = x[i];
    return v;
}

double stats_max(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double v = x[0];
    for (size_t i = 1; i < n; i++)
        if (x[i] > v)
            v = x[i];
    return v;
}

double stats_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / n;
}

double stats_stddev(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    if (n == 1)
        return 0;
    double m = stats_mean(x, n), s = 0;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (n - 1));
}
