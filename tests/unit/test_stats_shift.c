/* test_stats_shift.c: the two-sample Mann-Whitney distribution, its critical values and the
 * Hodges-Lehmann shift, against brute force over every ordering and the printed tables. */
#include <math.h>
#include <stdlib.h>

#include "core/util/stats.h"
#include "unit.h"

/* P(U <= u) by brute force: every way to place m x's among m + n ranks, U counting the
 * (x, y) pairs with the x above. */
static double brute_cdf(int m, int n, long u)
{
    long hit = 0, all = 0;
    for (unsigned long mask = 0; mask < 1ul << (m + n); mask++) {
        if (__builtin_popcountl(mask) != m)
            continue;
        long U = 0, ys = 0;
        for (int r = 0; r < m + n; r++) {   /* ranks ascending: an x is above the y's before */
            if (mask >> r & 1)
                U += ys;
            else
                ys++;
        }
        all++;
        hit += U <= u;
    }
    return (double)hit / all;
}

int main(void)
{
    /* The exact distribution, every u, against brute force. */
    int sizes[][2] = {{1, 1}, {1, 4}, {3, 3}, {4, 5}, {5, 4}, {6, 7}, {8, 8}, {2, 11}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int m = sizes[s][0], n = sizes[s][1];
        int bad = 0;
        for (long u = -1; u <= m * n; u++)
            bad += fabs(stats_mann_whitney_cdf(m, n, u) - brute_cdf(m, n, u)) > 1e-12;
        CHECK_INT(bad, 0);
    }

    /* Critical values of the two-sided 5% test, as the printed Mann-Whitney tables give
     * them (reject when U <= c): 5,5: 2; 6,6: 5; 7,7: 8; 8,8: 13; 10,10: 23; 5,10: 8;
     * and 4,4: 0, the smallest equal samples with an interval; 3,3 has none. */
    CHECK_INT(stats_mann_whitney_critical(5, 5, 0.05), 2);
    CHECK_INT(stats_mann_whitney_critical(6, 6, 0.05), 5);
    CHECK_INT(stats_mann_whitney_critical(7, 7, 0.05), 8);
    CHECK_INT(stats_mann_whitney_critical(8, 8, 0.05), 13);
    CHECK_INT(stats_mann_whitney_critical(10, 10, 0.05), 23);
    CHECK_INT(stats_mann_whitney_critical(5, 10, 0.05), 8);
    CHECK_INT(stats_mann_whitney_critical(10, 5, 0.05), 8);
    CHECK_INT(stats_mann_whitney_critical(4, 4, 0.05), 0);
    CHECK_INT(stats_mann_whitney_critical(3, 3, 0.05), -1);
    /* 20,20: 127 in the tables; 50,50 (the last exact size) against the normal
     * approximation's, which takes over beyond: within one. */
    CHECK_INT(stats_mann_whitney_critical(20, 20, 0.05), 127);
    long exact = stats_mann_whitney_critical(50, 50, 0.05);
    double mean = 1250, sd = sqrt(2500.0 * 101 / 12);
    CHECK(labs(exact - (long)floor(mean - stats_normal_z(0.05) * sd - 0.5)) <= 1);
    long approx = stats_mann_whitney_critical(60, 60, 0.05);
    CHECK(stats_mann_whitney_cdf(60, 60, approx) <= 0.025);
    CHECK(stats_mann_whitney_cdf(60, 60, approx + 1) > 0.025);

    /* The shift: y = x + 10 exactly, 4 and 4 values. Differences 7 .. 13, median 10; c = 0
     * (P(U <= 0) = 1/70), so the interval is the smallest and largest difference, with
     * confidence 1 - 2/70. */
    struct stats_shift sh;
    double x[] = {3, 1, 4, 2}, y[] = {13, 11, 14, 12};
    CHECK_INT(stats_hl_shift(x, 4, y, 4, 0.05, &sh), 0);
    CHECK_NEAR(sh.estimate, 10, 0);
    CHECK_NEAR(sh.low, 7, 0);
    CHECK_NEAR(sh.high, 13, 0);
    CHECK_NEAR(sh.confidence, 1 - 2.0 / 70, 1e-12);
    /* Odd count of differences: 1 x 3, the middle one; no interval for so few. */
    double x1[] = {0}, y3[] = {5, 1, 3};
    CHECK_INT(stats_hl_shift(x1, 1, y3, 3, 0.05, &sh), 0);
    CHECK_NEAR(sh.estimate, 3, 0);
    CHECK(isinf(sh.low) && sh.low < 0 && isinf(sh.high));
    CHECK(isnan(sh.confidence));
    /* 7 and 9 values: the interval is D(c+1) .. D(mn-c) of the sorted differences, c from
     * the exact distribution, checked by counting here. */
    double a[7], b[9], d[63];
    for (int i = 0; i < 7; i++)
        a[i] = 1 + 0.37 * ((i * 5) % 7);
    for (int j = 0; j < 9; j++)
        b[j] = 2.1 + 0.29 * ((j * 4) % 9);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 9; j++)
            d[i * 9 + j] = b[j] - a[i];
    stats_sort(d, 63);
    long c = stats_mann_whitney_critical(7, 9, 0.05);
    CHECK(brute_cdf(7, 9, c) <= 0.025 && brute_cdf(7, 9, c + 1) > 0.025);
    CHECK_INT(stats_hl_shift(a, 7, b, 9, 0.05, &sh), 0);
    CHECK_NEAR(sh.estimate, d[31], 0);
    CHECK_NEAR(sh.low, d[c], 0);
    CHECK_NEAR(sh.high, d[62 - c], 0);
    CHECK(sh.confidence >= 0.95);
    /* Nothing to compare. */
    CHECK_INT(stats_hl_shift(a, 0, b, 9, 0.05, &sh), -1);
    CHECK(isnan(sh.estimate));
    return unit_done("test_stats_shift");
}
