/* stats.h: order statistics for small samples of measurements. NAN when there is no data. */
#ifndef TARE_STATS_H
#define TARE_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* Sorts x ascending; the median of x (sorted or not), NAN for none. */
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


/*
 * Paired A/B analysis: the Wilcoxon signed-rank statistic, the Hodges-Lehmann estimator
 * with its exact distribution-free interval, and the three-valued verdict of `tare ab`.
 */

/* P(T+ <= t) for the signed-rank statistic of n values with no ties: exact (a recurrence
 * over the 2^n sign patterns) up to n = STATS_SR_EXACT_MAX, a normal approximation with
 * continuity correction beyond. */
#define STATS_SR_EXACT_MAX 400
double stats_signed_rank_cdf(size_t n, long t);
/*
 * The largest d with P(T+ <= d) <= alpha / 2, so that the interval [W(d+1), W(N-d)] over
 * the N = n(n+1)/2 sorted Walsh averages covers the centre with probability
 * 1 - 2 P(T+ <= d) >= 1 - alpha. -1 when n is too small for any such interval.
 */
long stats_signed_rank_critical(size_t n, double alpha);

struct stats_hl {
    size_t n;
    double estimate;    /* Hodges-Lehmann: the median of the n(n+1)/2 Walsh averages */
    double low, high;   /* the interval; -INFINITY / INFINITY when n is too small */
    double confidence;  /* what the interval achieves exactly (>= 1 - alpha), NAN if none */
    double median;      /* the plain median of the values, for comparison */
};
/* Walsh averages (x[i] + x[j]) / 2, i <= j, their median and the signed-rank interval.
 * Assumes the values are symmetric about their centre. -1 (and NANs) when n is 0 or
 * memory runs out. */
int stats_hodges_lehmann(const double *x, size_t n, double alpha, struct stats_hl *out);

enum stats_verdict { STATS_SAME = 0, STATS_FASTER, STATS_SLOWER };

struct stats_ab {
    size_t pairs;
    double ratio;          /* B over A: exp of the Hodges-Lehmann estimate of log(B/A) */
    double ci_low, ci_high; /* NAN when there are too few pairs for any interval */
    double confidence;     /* achieved by the interval */
    double median_ratio;   /* the plain median of the per-pair ratios */
    double resolution;     /* the interval's wider half, as a fraction: the smallest change
                              whose interval would have cleared 1 with this run's noise;
                              INFINITY without an interval */
    double detectable;     /* max(resolution, threshold): the smallest change this run
                              could have called faster or slower */
    bool significant;      /* the interval excludes 1 */
    bool settled;          /* a verdict, or the whole interval within +-threshold of 1 */
    enum stats_verdict verdict;
};
/*
 * Analyses pairs of times a[i] (A) and b[i] (B) > 0: faster or slower only when the
 * interval of B/A excludes 1 and the estimate moved by at least threshold (a fraction),
 * otherwise same. alpha is 1 - the confidence asked for (0.05 for 95%).
 */
int stats_paired_ratio(const double *a, const double *b, size_t n, double alpha,
                       double threshold, struct stats_ab *out);
const char *stats_verdict_name(enum stats_verdict v);

/*
 * Two independent samples (tare wall's relative speed): the Mann-Whitney statistic U (pairs
 * with x above y), the Hodges-Lehmann shift of y against x with its distribution-free
 * interval.
 */

/* P(U <= u) for samples of m and n values with no ties: exact (a recurrence over the
 * orderings) while m n <= STATS_MW_EXACT_MAX, a normal approximation with continuity
 * correction beyond. */
#define STATS_MW_EXACT_MAX 2500
double stats_mann_whitney_cdf(size_t m, size_t n, long u);
/* The largest c with P(U <= c) <= alpha / 2, so that [D(c+1), D(mn-c)] over the m n sorted
 * differences y_j - x_i covers the shift with probability 1 - 2 P(U <= c) >= 1 - alpha;
 * -1 when the samples are too small for any such interval. */
long stats_mann_whitney_critical(size_t m, size_t n, double alpha);

/* The most differences stats_hl_shift sorts (32 MiB of them). */
#define STATS_SHIFT_MAX ((size_t)1 << 22)
struct stats_shift {
    size_t m, n;
    double estimate;    /* Hodges-Lehmann: the median of the m n differences y_j - x_i */
    double low, high;   /* the interval; -INFINITY / INFINITY when the samples are too small */
    double confidence;  /* what the interval achieves exactly (>= 1 - alpha), NAN if none */
};
/* The shift of y against x (y = x + shift) with its Mann-Whitney interval. -1 (and NANs)
 * when a sample is empty, m n is above STATS_SHIFT_MAX or memory runs out. */
int stats_hl_shift(const double *x, size_t m, const double *y, size_t n, double alpha,
                   struct stats_shift *out);

/*
 * Growth: the exponent k of y ~ c x^k, fitted by least squares on (log x, log y), and the
 * fit's R^2 (1 when every point lies on the line, a constant y included). -1 when there are
 * fewer than 2 points, a value is not finite and above 0, or every x is the same.
 */
int stats_power_fit(const double *x, const double *y, size_t n, double *k, double *r2);

/* The two-sided normal quantile: z with P(|Z| > z) = alpha. */
double stats_normal_z(double alpha);

#endif
