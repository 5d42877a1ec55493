/* stats.c: median, MAD, quantiles, mean and spread, on copies so callers keep their order. */
#include "core/util/stats.h"

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

/* ---- paired A/B: signed-rank distribution, Hodges-Lehmann, verdict ---- */

double stats_normal_z(double alpha)
{
    /* Bisection on erfc: 80 halvings reach double precision, and nothing here is hot. */
    double lo = 0, hi = 40;
    for (int i = 0; i < 80; i++) {
        double mid = (lo + hi) / 2;
        if (erfc(mid / M_SQRT2) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Lower tail P(T+ <= t) for t = 0..tmax, by the recurrence p_n(t) = (p_{n-1}(t) +
 * p_{n-1}(t - n)) / 2, then summed; kept as probabilities so 2^n never overflows. */
static double *signed_rank_lower(size_t n, long tmax)
{
    double *p = calloc(tmax + 1, sizeof *p);
    if (!p)
        return NULL;
    p[0] = 1;
    for (size_t k = 1; k <= n; k++)
        for (long t = tmax; t >= 0; t--)
            p[t] = (p[t] + (t >= (long)k ? p[t - k] : 0)) / 2;
    for (long t = 1; t <= tmax; t++)
        p[t] += p[t - 1];
    return p;
}

static double signed_rank_normal(size_t n, long t)
{
    double mean = n * (n + 1) / 4.0, var = n * (n + 1) * (2.0 * n + 1) / 24.0;
    return 0.5 * erfc(-((t + 0.5) - mean) / sqrt(2 * var));
}

double stats_signed_rank_cdf(size_t n, long t)
{
    long total = (long)(n * (n + 1) / 2);
    if (t < 0)
        return 0;
    if (t >= total)
        return 1;
    if (n > STATS_SR_EXACT_MAX)
        return signed_rank_normal(n, t);
    /* Symmetric about total / 2: compute the smaller tail only. */
    bool upper = t > total / 2;
    long tt = upper ? total - t - 1 : t;
    double *p = signed_rank_lower(n, tt);
    if (!p)
        return NAN;
    double v = p[tt];
    free(p);
    return upper ? 1 - v : v;
}

long stats_signed_rank_critical(size_t n, double alpha)
{
    if (n == 0 || !(alpha > 0 && alpha < 1))
        return -1;
    long total = (long)(n * (n + 1) / 2);
    long half = total / 2;
    if (n > STATS_SR_EXACT_MAX) {
        double z = stats_normal_z(alpha);
        double mean = total / 2.0, sd = sqrt(n * (n + 1) * (2.0 * n + 1) / 24.0);
        long d = (long)floor(mean - z * sd - 0.5);
        while (d >= 0 && signed_rank_normal(n, d) > alpha / 2)
            d--;
        while (d + 1 < half && signed_rank_normal(n, d + 1) <= alpha / 2)
            d++;
        return d;
    }
    double *p = signed_rank_lower(n, half);
    if (!p)
        return -1;
    long d = -1;
    while (d + 1 <= half && p[d + 1] <= alpha / 2)
        d++;
    free(p);
    return d;
}

int stats_hodges_lehmann(const double *x, size_t n, double alpha, struct stats_hl *out)
{
    *out = (struct stats_hl){n, NAN, NAN, NAN, NAN, NAN};
    if (n == 0)
        return -1;
    size_t total = n * (n + 1) / 2;
    double *w = malloc(total * sizeof *w);
    if (!w)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[k++] = (x[i] + x[j]) / 2;
    stats_sort(w, total);
    out->estimate = quantile_sorted(w, total, 0.5);
    out->median = stats_median(x, n);
    long d = stats_signed_rank_critical(n, alpha);
    if (d < 0) {
        out->low = -INFINITY;
        out->high = INFINITY;
    } else {
        out->low = w[d];                 /* W(d+1), 1-based */
        out->high = w[total - 1 - d];    /* W(N-d) */
        out->confidence = 1 - 2 * stats_signed_rank_cdf(n, d);
    }
    free(w);
    return 0;
}

const char *stats_verdict_name(enum stats_verdict v)
{
    return v == STATS_FASTER ? "faster" : v == STATS_SLOWER ? "slower" : "same";
}

int stats_paired_ratio(const double *a, const double *b, size_t n, double alpha,
                       double threshold, struct stats_ab *out)
{
    memset(out, 0, sizeof *out);
    out->pairs = n;
    out->ratio = out->ci_low = out->ci_high = out->confidence = NAN;
    out->median_ratio = out->resolution = out->detectable = NAN;
    if (n == 0)
        return -1;
    /* In logs, a ratio's noise is symmetric enough for the signed-rank interval, and
     * B/A and A/B are the same statement. */
    double *d = malloc(n * sizeof *d);
    if (!d)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!(a[i] > 0 && b[i] > 0)) {
            free(d);
            return -1;
        }
        d[i] = log(b[i] / a[i]);
    }
    struct stats_hl hl;
    int rc = stats_hodges_lehmann(d, n, alpha, &hl);
    free(d);
    if (rc < 0)
        return -1;
    out->ratio = exp(hl.estimate);
    /* Too few pairs for the confidence asked: no interval at all, not [0, inf). */
    out->ci_low = isinf(hl.low) ? NAN : exp(hl.low);
    out->ci_high = isinf(hl.high) ? NAN : exp(hl.high);
    out->confidence = hl.confidence;
    out->median_ratio = exp(hl.median);
    double hw = fmax(hl.estimate - hl.low, hl.high - hl.estimate);
    out->resolution = isinf(hw) ? INFINITY : expm1(hw);
    out->detectable = fmax(out->resolution, threshold);
    out->significant = out->ci_low > 1 || out->ci_high < 1;
    if (out->ci_low > 1 && out->ratio >= 1 + threshold)
        out->verdict = STATS_SLOWER;
    else if (out->ci_high < 1 && out->ratio <= 1 - threshold)
        out->verdict = STATS_FASTER;
    else
        out->verdict = STATS_SAME;
    out->settled = out->verdict != STATS_SAME ||
                   (out->ci_low > 1 - threshold && out->ci_high < 1 + threshold);
    return 0;
}

int stats_power_fit(const double *x, const double *y, size_t n, double *k, double *r2)
{
    *k = *r2 = NAN;
    if (n < 2)
        return -1;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0) || !(y[i] > 0) || !isfinite(x[i]) || !isfinite(y[i]))
            return -1;
        mx += log(x[i]);
        my += log(y[i]);
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = log(x[i]) - mx, dy = log(y[i]) - my;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if (!(sxx > 0))
        return -1;
    *k = sxy / sxx;
    double res = 0;   /* the residuals summed directly: syy - k sxy loses digits near 1 */
    for (size_t i = 0; i < n; i++) {
        double r = log(y[i]) - my - *k * (log(x[i]) - mx);
        res += r * r;
    }
    *r2 = syy > 0 ? 1 - res / syy : 1;
    if (*r2 < 0)
        *r2 = 0;
    return 0;
}

/* P(U = u) for u = 0 .. t: P_{i,j}(u) = i/(i+j) P_{i-1,j}(u-j) + j/(i+j) P_{i,j-1}(u) (the
 * largest value is one of x's, above all j of y's, or one of y's); NULL: out of memory. */
static double *mann_whitney_lower(size_t m, size_t n, long t)
{
    size_t w = (size_t)t + 1;
    double *p = calloc((m + 1) * w, sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i <= m; i++)
        p[i * w] = 1;   /* no y: U is 0 */
    for (size_t j = 1; j <= n; j++)
        for (size_t i = 1; i <= m; i++) {
            double a = (double)i / (i + j), b = (double)j / (i + j);
            for (long u = t; u >= 0; u--) {
                double from = u >= (long)j ? p[(i - 1) * w + u - j] : 0;
                p[i * w + u] = a * from + b * p[i * w + u];
            }
        }
    memmove(p, p + m * w, w * sizeof *p);
    return p;
}

static double mann_whitney_normal(size_t m, size_t n, long u)
{
    double mean = m * (double)n / 2, sd = sqrt(m * (double)n * (m + n + 1) / 12.0);
    return 0.5 * erfc(-((u + 0.5 - mean) / sd) / M_SQRT2);
}

double stats_mann_whitney_cdf(size_t m, size_t n, long u)
{
    long total = (long)(m * n);
    if (u < 0)
        return 0;
    if (u >= total)
        return 1;
    if (m * n > STATS_MW_EXACT_MAX)
        return mann_whitney_normal(m, n, u);
    bool upper = u > total / 2;   /* symmetric about mn / 2: the smaller tail only */
    long uu = upper ? total - u - 1 : u;
    double *p = mann_whitney_lower(m, n, uu);
    if (!p)
        return NAN;
    double c = 0;
    for (long i = 0; i <= uu; i++)
        c += p[i];
    free(p);
    return upper ? 1 - c : c;
}

long stats_mann_whitney_critical(size_t m, size_t n, double alpha)
{
    if (m == 0 || n == 0 || !(alpha > 0 && alpha < 1))
        return -1;
    long half = (long)(m * n / 2);
    if (m * n > STATS_MW_EXACT_MAX) {
        double mean = m * (double)n / 2, sd = sqrt(m * (double)n * (m + n + 1) / 12.0);
        long c = (long)floor(mean - stats_normal_z(alpha) * sd - 0.5);
        while (c >= 0 && mann_whitney_normal(m, n, c) > alpha / 2)
            c--;
        while (c + 1 < half && mann_whitney_normal(m, n, c + 1) <= alpha / 2)
            c++;
        return c;
    }
    double *p = mann_whitney_lower(m, n, half);
    if (!p)
        return -1;
    long c = -1;
    double cum = 0;
    for (long u = 0; u <= half; u++) {
        cum += p[u];
        if (cum > alpha / 2)
            break;
        c = u;
    }
    free(p);
    return c;
}

int stats_hl_shift(const double *x, size_t m, const double *y, size_t n, double alpha,
                   struct stats_shift *out)
{
    *out = (struct stats_shift){.m = m, .n = n, .estimate = NAN, .low = NAN, .high = NAN,
                                .confidence = NAN};
    if (m == 0 || n == 0 || m > STATS_SHIFT_MAX / n)
        return -1;
    size_t k = m * n;
    double *d = malloc(k * sizeof *d);
    if (!d)
        return -1;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            d[i * n + j] = y[j] - x[i];
    stats_sort(d, k);
    out->estimate = k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2;
    long c = stats_mann_whitney_critical(m, n, alpha);
    if (c < 0) {
        out->low = -INFINITY;
        out->high = INFINITY;
    } else {
        out->low = d[c];
        out->high = d[k - 1 - c];
        out->confidence = 1 - 2 * stats_mann_whitney_cdf(m, n, c);
    }
    free(d);
    return 0;
}
