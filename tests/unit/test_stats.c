/* test_stats.c: order statistics on samples whose answers follow from their definitions. */
#include <math.h>

#include "core/util/stats.h"
#include "unit.h"

int main(void)
{
    double odd[] = {5, 1, 4, 2, 3};
    CHECK_NEAR(stats_median(odd, 5), 3, 0);
    CHECK_NEAR(odd[0], 5, 0);   /* the input keeps its order */
    double even[] = {4, 1, 3, 2};
    CHECK_NEAR(stats_median(even, 4), 2.5, 1e-12);
    double one[] = {7};
    CHECK_NEAR(stats_median(one, 1), 7, 0);
    CHECK_NEAR(stats_mad(one, 1), 0, 0);
    CHECK_NEAR(stats_stddev(one, 1), 0, 0);
    CHECK(isnan(stats_median(NULL, 0)));
    CHECK(isnan(stats_mad(NULL, 0)));
    CHECK(isnan(stats_min(NULL, 0)));

    /* MAD of 1..9: median 5, deviations 4 3 2 1 0 1 2 3 4 -> median 2. */
    double nine[] = {9, 1, 8, 2, 7, 3, 6, 4, 5};
    CHECK_NEAR(stats_mad(nine, 9), 2, 0);
    CHECK_NEAR(stats_min(nine, 9), 1, 0);
    CHECK_NEAR(stats_max(nine, 9), 9, 0);
    CHECK_NEAR(stats_mean(nine, 9), 5, 1e-12);
    /* sum of squared deviations 60, over n - 1 = 8 */
    CHECK_NEAR(stats_stddev(nine, 9), sqrt(60.0 / 8), 1e-12);

    /* An outlier moves the mean but not the median or the MAD much: why tare uses them. */
    double outlier[] = {10, 10, 11, 10, 1000};
    CHECK_NEAR(stats_median(outlier, 5), 10, 0);
    CHECK_NEAR(stats_mad(outlier, 5), 0, 0);
    CHECK(stats_mean(outlier, 5) > 200);

    /* Type-7 quantiles: h = (n - 1) q. */
    double q[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    CHECK_NEAR(stats_quantile(q, 11, 0), 1, 0);
    CHECK_NEAR(stats_quantile(q, 11, 1), 11, 0);
    CHECK_NEAR(stats_quantile(q, 11, 0.9), 10, 1e-12);
    CHECK_NEAR(stats_quantile(q, 11, 0.25), 3.5, 1e-12);
    CHECK_NEAR(stats_quantile(even, 4, 0.9), 3.7, 1e-12);

    /* Larger than the on-stack buffer. */
    double big[1001];
    for (int i = 0; i < 1001; i++)
        big[i] = 1000 - i;
    CHECK_NEAR(stats_median(big, 1001), 500, 0);
    CHECK_NEAR(stats_mad(big, 1001), 250, 0);

    /* Growth: exact powers come out exact, whatever the constant. */
    {
        double x[] = {1000, 2000, 3000, 4000, 8000}, y1[5], y2[5], y0[5];
        for (int i = 0; i < 5; i++) {
            y1[i] = 7 * x[i];
            y2[i] = 0.5 * x[i] * x[i];
            y0[i] = 42;
        }
        double k, r2;
        CHECK_INT(stats_power_fit(x, y1, 5, &k, &r2), 0);
        CHECK_NEAR(k, 1, 1e-12);
        CHECK_NEAR(r2, 1, 1e-12);
        CHECK_INT(stats_power_fit(x, y2, 5, &k, &r2), 0);
        CHECK_NEAR(k, 2, 1e-12);
        CHECK_NEAR(r2, 1, 1e-12);
        CHECK_INT(stats_power_fit(x, y0, 5, &k, &r2), 0);
        CHECK_NEAR(k, 0, 1e-12);
        CHECK_NEAR(r2, 1, 0);
        /* By hand, in base 2 (the slope does not depend on the base): log x = 0 1 2,
         * log y = 0 2 3; slope ((-1)(-5/3) + (1)(4/3)) / 2 = 3/2; fitted 1/6 5/3 19/6,
         * residuals -1/6 1/3 -1/6: SSres 1/6 over SStot 14/3, R^2 = 27/28. */
        double hx[] = {1, 2, 4}, hy[] = {1, 4, 8};
        CHECK_INT(stats_power_fit(hx, hy, 3, &k, &r2), 0);
        CHECK_NEAR(k, 1.5, 1e-12);
        CHECK_NEAR(r2, 27.0 / 28, 1e-12);
        /* No fit: one point, a zero count, every x the same. */
        CHECK_INT(stats_power_fit(hx, hy, 1, &k, &r2), -1);
        CHECK(isnan(k));
        double zy[] = {1, 0, 8}, sx[] = {3, 3, 3};
        CHECK_INT(stats_power_fit(hx, zy, 3, &k, &r2), -1);
        CHECK_INT(stats_power_fit(sx, hy, 3, &k, &r2), -1);
    }
    return unit_done("test_stats");
}
