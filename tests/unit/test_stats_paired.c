/* test_stats_paired.c: the signed-rank distribution, Hodges-Lehmann and the A/B verdict. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/util/stats.h"
#include "unit.h"

/* P(T+ <= t) by enumerating all 2^n sign patterns: the definition itself. */
static double brute_cdf(int n, long t)
{
    long hits = 0;
    for (long mask = 0; mask < (1L << n); mask++) {
        long s = 0;
        for (int r = 1; r <= n; r++)
            if (mask & (1L << (r - 1)))
                s += r;
        hits += s <= t;
    }
    return (double)hits / (double)(1L << n);
}

/* A small deterministic generator (xorshift64*), so every run checks the same data. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}
static double gauss(void)
{
    double u = uniform(), v = uniform();
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_cdf(void)
{
    for (int n = 1; n <= 12; n++) {
        long total = n * (n + 1) / 2;
        int bad = 0;
        for (long t = -1; t <= total + 1; t++)
            if (fabs(stats_signed_rank_cdf(n, t) - brute_cdf(n, t)) > 1e-12)
                bad++;
        CHECK_INT(bad, 0);
    }
    /* n = 10: P(T+ <= 8) = 25/1024, the textbook two-sided 5% critical value. */
    CHECK_NEAR(stats_signed_rank_cdf(10, 8), 25.0 / 1024, 1e-15);
}

static void test_critical(void)
{
    /* Published two-sided 5% critical values of Wilcoxon's T, n = 6..20. */
    static const long table[] = {0, 2, 3, 5, 8, 10, 13, 17, 21, 25, 29, 34, 40, 46, 52};
    for (int n = 6; n <= 20; n++)
        CHECK_INT(stats_signed_rank_critical(n, 0.05), table[n - 6]);
    /* Five values cannot give a 95% interval: P(T+ = 0) = 1/32 > 2.5%. */
    CHECK_INT(stats_signed_rank_critical(5, 0.05), -1);
    CHECK_INT(stats_signed_rank_critical(0, 0.05), -1);
    /* 1% two-sided, n = 20: 37 (table). */
    CHECK_INT(stats_signed_rank_critical(20, 0.01), 37);
    /* Where the exact recurrence hands over to the normal approximation, the critical
     * value keeps growing by the same step (within 2). */
    long c399 = stats_signed_rank_critical(STATS_SR_EXACT_MAX - 1, 0.05);
    long c400 = stats_signed_rank_critical(STATS_SR_EXACT_MAX, 0.05);
    long c401 = stats_signed_rank_critical(STATS_SR_EXACT_MAX + 1, 0.05);
    CHECK(labs((c401 - c400) - (c400 - c399)) <= 2);
    CHECK_NEAR(stats_normal_z(0.05), 1.959963985, 1e-8);
    CHECK_NEAR(stats_normal_z(0.01), 2.575829304, 1e-8);
}

static void test_hodges_lehmann(void)
{
    struct stats_hl hl;
    double x3[] = {3, 1, 2};
    CHECK_INT(stats_hodges_lehmann(x3, 3, 0.05, &hl), 0);
    CHECK_NEAR(hl.estimate, 2, 1e-12);
    CHECK(isinf(hl.low) && isinf(hl.high) && isnan(hl.confidence));
    /* Walsh averages of {-1, 2, 4, 7}: -1 .5 1.5 2 3 3 4 4.5 5.5 7, median 3. */
    double x4[] = {-1, 2, 4, 7};
    stats_hodges_lehmann(x4, 4, 0.05, &hl);
    CHECK_NEAR(hl.estimate, 3, 1e-12);
    CHECK_NEAR(hl.median, 3, 1e-12);

    /* n = 20: the interval is the 53rd and 158th of the 210 sorted Walsh averages. */
    double x[20], w[210];
    for (int i = 0; i < 20; i++)
        x[i] = gauss() + (i % 3 == 0 ? 4 : 0);
    int k = 0;
    for (int i = 0; i < 20; i++)
        for (int j = i; j < 20; j++)
            w[k++] = (x[i] + x[j]) / 2;
    qsort(w, 210, sizeof *w, cmp);
    stats_hodges_lehmann(x, 20, 0.05, &hl);
    CHECK_NEAR(hl.low, w[52], 0);
    CHECK_NEAR(hl.high, w[157], 0);
    CHECK_NEAR(hl.estimate, (w[104] + w[105]) / 2, 1e-12);
    CHECK_NEAR(hl.confidence, 1 - 2 * brute_cdf(20, 52), 1e-9);
    CHECK(hl.confidence >= 0.95);

    /* Shifting the data shifts everything by the same amount. */
    double y[20];
    for (int i = 0; i < 20; i++)
        y[i] = x[i] + 10;
    struct stats_hl hy;
    stats_hodges_lehmann(y, 20, 0.05, &hy);
    CHECK_NEAR(hy.estimate - hl.estimate, 10, 1e-9);
    CHECK_NEAR(hy.low - hl.low, 10, 1e-9);
    CHECK_NEAR(hy.high - hl.high, 10, 1e-9);
    CHECK_INT(stats_hodges_lehmann(x, 0, 0.05, &hl), -1);
}

/* Synthetic pairs: A = base * noise, B = base * ratio * noise, the order alternating
 * with a position effect (the second run of a pair 2% faster), like a warm cache. */
static double position_effect = 0.98;
static void make_pairs(double *a, double *b, int n, double ratio, double sigma)
{
    for (int i = 0; i < n; i++) {
        double base = 0.1 * (1 + 0.3 * uniform());      /* drift between pairs */
        double second = position_effect;
        a[i] = base * exp(sigma * gauss()) * (i % 2 ? second : 1);
        b[i] = base * ratio * exp(sigma * gauss()) * (i % 2 ? 1 : second);
    }
}

static void test_verdicts(void)
{
    struct stats_ab r;
    double a[200], b[200];
    /* Identical times: ratio exactly 1, a zero-width interval, same and settled. */
    for (int i = 0; i < 20; i++)
        a[i] = b[i] = 0.05 + 0.001 * i;
    CHECK_INT(stats_paired_ratio(a, b, 20, 0.05, 0.01, &r), 0);
    CHECK_NEAR(r.ratio, 1, 1e-12);
    CHECK_NEAR(r.ci_low, 1, 1e-12);
    CHECK_NEAR(r.ci_high, 1, 1e-12);
    CHECK_INT(r.verdict, STATS_SAME);
    CHECK(!r.significant && r.settled);
    CHECK_NEAR(r.detectable, 0.01, 1e-12);

    /* B exactly 1.2 A: slower, ratio 1.2. */
    for (int i = 0; i < 20; i++)
        b[i] = a[i] * 1.2;
    stats_paired_ratio(a, b, 20, 0.05, 0.01, &r);
    CHECK_NEAR(r.ratio, 1.2, 1e-12);
    CHECK_INT(r.verdict, STATS_SLOWER);
    CHECK_STR(stats_verdict_name(r.verdict), "slower");

    /* A 0.5% change measured with 0.1% noise: real, but under the 1% threshold. */
    for (int i = 0; i < 20; i++)
        b[i] = a[i] * 1.005 * (1 + 0.001 * ((i * 7) % 5 - 2));
    stats_paired_ratio(a, b, 20, 0.05, 0.01, &r);
    CHECK(r.significant);
    CHECK_INT(r.verdict, STATS_SAME);
    CHECK(r.settled);                  /* the whole interval is inside +-1% */
    stats_paired_ratio(a, b, 20, 0.05, 0.001, &r);
    CHECK_INT(r.verdict, STATS_SLOWER);

    /* 10% faster under 5% noise. */
    make_pairs(a, b, 20, 0.9, 0.05);
    stats_paired_ratio(a, b, 20, 0.05, 0.01, &r);
    CHECK_INT(r.verdict, STATS_FASTER);
    CHECK(r.ci_low < 0.9 * 1.001 + 0.05 && r.ci_high > 0.9 * 0.95);

    /* Three pairs cannot make a 95% interval: none, and never a verdict. */
    stats_paired_ratio(a, b, 3, 0.05, 0.01, &r);
    CHECK(isnan(r.ci_low) && isnan(r.ci_high) && isinf(r.detectable));
    CHECK_INT(r.verdict, STATS_SAME);
    CHECK(!r.settled && !r.significant);

    /* Bad input: a time that is not positive. */
    a[3] = 0;
    CHECK_INT(stats_paired_ratio(a, b, 20, 0.05, 0.01, &r), -1);
    CHECK(isnan(r.ratio));
}

/* Over many synthetic runs, the interval covers the true ratio about 95% of the time and
 * identical commands are called faster or slower at most about 5% of the time. */
static void coverage(double effect, double *cov, double *fp, double *power)
{
    const int trials = 2000;
    double a[20], b[20];
    int covered = 0, false_pos = 0, detected3 = 0;
    struct stats_ab r;
    position_effect = effect;
    for (int t = 0; t < trials; t++) {
        make_pairs(a, b, 20, 1.2, 0.03);
        stats_paired_ratio(a, b, 20, 0.05, 0.01, &r);
        covered += r.ci_low <= 1.2 && 1.2 <= r.ci_high;
        make_pairs(a, b, 20, 1.0, 0.03);
        stats_paired_ratio(a, b, 20, 0.05, 0.01, &r);
        false_pos += r.verdict != STATS_SAME;
        make_pairs(a, b, 20, 1.03, 0.02);
        stats_paired_ratio(a, b, 20, 0.05, 0.01, &r);
        detected3 += r.verdict == STATS_SLOWER;
    }
    *cov = (double)covered / trials;
    *fp = (double)false_pos / trials;
    *power = (double)detected3 / trials;
    printf("# position effect %.2f: coverage %.4f, A/A false positives %.4f, "
           "3%% change found %.4f (20 pairs)\n", effect, *cov, *fp, *power);
}

static void test_coverage(void)
{
    double cov, fp, power;
    /* i.i.d. pairs: the exact confidence, 1 - 2 P(T+ <= 52) = 0.9516, within 3 binomial
     * standard deviations of 2000 trials. */
    coverage(1.0, &cov, &fp, &power);
    CHECK(cov > 0.9516 - 0.015 && cov < 0.9516 + 0.015);
    CHECK(fp < 0.0484 + 0.015);
    /* 2% noise per run (2.8% per ratio): a 3% change has a standardised effect of about
     * 1.06, which 20 pairs find about 98% of the time in theory (t-test power at ARE 0.955). */
    CHECK(power > 0.9);
    /* A position effect that alternates with the order adds spread but no bias: the
     * interval only gets more conservative. */
    coverage(0.98, &cov, &fp, &power);
    CHECK(cov > 0.9516 - 0.015);
    CHECK(fp < 0.0484 + 0.015);
}

int main(void)
{
    test_cdf();
    test_critical();
    test_hodges_lehmann();
    test_verdicts();
    test_coverage();
    return unit_done("test_stats_paired");
}
