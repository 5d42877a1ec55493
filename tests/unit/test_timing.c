/* test_timing.c: core/engine/timing.c's summary, cold first run and relative verdicts, with made-up
 * run times. */
#include <math.h>
#include <stdlib.h>

#include "core/engine/timing.h"
#include "unit.h"

/* A measured series of n runs with the times t (user, sys 0; max RSS 100 KiB). */
static struct session_series series(double *t, int n, double warm)
{
    static double zero[64];
    static long rss[64];
    for (int i = 0; i < 64; i++)
        rss[i] = 100;
    return (struct session_series){.name = "s", .state = SESSION_OK, .n = n, .wall_s = t,
                                   .user_s = zero, .sys_s = zero, .max_rss_kb = rss,
                                   .warm_first = warm};
}

static void test_summary(void)
{
    double t[] = {1.0, 3.0, 2.0, 2.0, 10.0};
    struct session_series s = series(t, 5, NAN);
    struct timing_summary m = timing_summarize(&s);
    CHECK_NEAR(m.median, 2.0, 1e-12);
    CHECK_NEAR(m.min, 1.0, 1e-12);
    CHECK_NEAR(m.max, 10.0, 1e-12);
    CHECK_NEAR(m.mad, 1.0, 1e-12);
    CHECK_NEAR(m.mean, 3.6, 1e-12);
    CHECK_INT(m.rss_kb, 100);
    s.state = SESSION_FAILED;   /* a failed series has no figures, never 0 */
    m = timing_summarize(&s);
    CHECK(isnan(m.median) && isnan(m.min));
    CHECK_INT(m.rss_kb, -1);
}

static void test_cold(void)
{
    double t[] = {1.00, 1.01, 0.99, 1.00, 1.02};
    double first, median;
    /* a warm-up at 2 s against a median of 1 s: cold */
    struct session_series s = series(t, 5, 2.0);
    CHECK_INT(timing_cold(&s, &first, &median), TIMING_COLD_WARMUP);
    CHECK_NEAR(first, 2.0, 1e-12);
    CHECK_NEAR(median, 1.0, 1e-12);
    /* 1.05 s: past 3 MADs of a tight spread but under 10% above: not cold */
    s.warm_first = 1.05;
    CHECK_INT(timing_cold(&s, &first, &median), TIMING_WARM);
    /* no warm-up: the first run against the others */
    double u[] = {1.5, 1.0, 1.01, 0.99, 1.0};
    s = series(u, 5, NAN);
    CHECK_INT(timing_cold(&s, &first, &median), TIMING_COLD_FIRST);
    CHECK_NEAR(first, 1.5, 1e-12);
    CHECK_NEAR(median, 1.0, 1e-12);
    /* a noisy command's first run: 20% above but within 3 MADs */
    double v[] = {1.2, 0.7, 1.3, 1.0, 0.6};
    s = series(v, 5, NAN);
    CHECK_INT(timing_cold(&s, &first, &median), TIMING_WARM);
    s = series(u, 2, NAN);   /* too few runs to say */
    CHECK_INT(timing_cold(&s, &first, &median), TIMING_WARM);
}

static void test_relative(void)
{
    double a[] = {1.00, 1.01, 0.99, 1.02, 0.98, 1.00};
    double b[] = {2.00, 2.02, 1.98, 2.04, 1.96, 2.00};
    double c[] = {1.01, 0.99, 1.00, 1.02, 0.98, 1.00};
    struct session_series s[3] = {series(a, 6, NAN), series(b, 6, NAN), series(c, 6, NAN)};
    struct timing_relative *rel = NULL;
    const struct session_series *base = NULL;
    timing_relative_all(s, 3, NULL, &rel, &base);
    CHECK(rel != NULL);
    CHECK(base == &s[0] || base == &s[2]);   /* a fastest median: 1.00 both */
    CHECK(!rel[base - s].done);
    CHECK(rel[1].done);
    CHECK_NEAR(rel[1].ratio, 2.0, 1e-9);
    CHECK_STR(rel[1].verdict, "slower");
    CHECK(rel[1].low > 1.9 && rel[1].high < 2.1);
    int other = base == &s[0] ? 2 : 0;
    CHECK_STR(rel[other].verdict, "same");
    free(rel);
    /* against the reference s[1]: the others are faster */
    timing_relative_all(s, 3, &s[1], &rel, &base);
    CHECK(base == &s[1]);
    CHECK_STR(rel[0].verdict, "faster");
    CHECK_NEAR(rel[0].ratio, 0.5, 1e-9);
    free(rel);
    /* three runs a side: a ratio, no interval */
    struct session_series few[2] = {series(a, 3, NAN), series(b, 3, NAN)};
    timing_relative_all(few, 2, NULL, &rel, &base);
    CHECK(rel != NULL && rel[1].done);
    CHECK_STR(rel[1].none, "too few runs for an interval: 4 or more each");
    CHECK_STR(rel[1].verdict, "same");
    CHECK(isnan(rel[1].low));
    free(rel);
    /* one series measured (the other failed): nothing to compare */
    few[1].state = SESSION_FAILED;
    timing_relative_all(few, 2, NULL, &rel, &base);
    CHECK(rel == NULL && base == NULL);
}

int main(void)
{
    test_summary();
    test_cold();
    test_relative();
    return unit_done("test_timing");
}
