/* test_ab.c: tare ab's verdict rules (core/ab.h) held to made-up numbers, in milliseconds. */
#include <math.h>
#include <stdlib.h>

#include "core/ab.h"
#include "unit.h"

/* ---- the wall clock ---- */

/* n pairs: A takes 10 ms plus a little that differs run to run, B that times f[i % nf]. */
static enum ab_wall wall(size_t n, const double *f, size_t nf, struct stats_ab *r)
{
    double a[64], b[64];
    for (size_t i = 0; i < n; i++) {
        a[i] = 0.010 + 0.0001 * (double)(i % 5);
        b[i] = a[i] * f[i % nf];
    }
    CHECK(stats_paired_ratio(a, b, n, AB_ALPHA, 0.01, r) == 0);
    return ab_wall_kind(r);
}

static void test_wall(void)
{
    struct stats_ab r;
    CHECK_INT(wall(12, (double[]){2.0}, 1, &r), AB_WALL_SLOWER);
    CHECK_NEAR(r.ratio, 2.0, 1e-9);
    CHECK_INT(wall(12, (double[]){0.5}, 1, &r), AB_WALL_FASTER);
    /* Every pair 0.5% slower: the interval excludes 1, the change is under the 1% threshold. */
    CHECK_INT(wall(12, (double[]){1.005}, 1, &r), AB_WALL_UNDER_THRESHOLD);
    CHECK(r.significant);
    CHECK_INT(r.verdict, STATS_SAME);
    /* Pairs 10% either way: no detectable change. */
    CHECK_INT(wall(12, (double[]){1.1, 0.9}, 2, &r), AB_WALL_NO_CHANGE);
    /* Five pairs cannot make a 95% interval (P(T+ = 0) = 1/32 > 0.025): no verdict. */
    CHECK_INT(wall(5, (double[]){2.0}, 1, &r), AB_WALL_TOO_FEW);
    CHECK(isnan(r.ci_low));
}

/* ---- one count of both sides ---- */

static void judge(const double *a, const double *b, long n, struct ab_count *c)
{
    ab_count_judge(a, b, n, c);
}

static void test_count_judge(void)
{
    struct ab_count c;
    /* A program that does not vary: 5% more is more. */
    judge((double[]){1000000, 1000000}, (double[]){1050000, 1050000}, 2, &c);
    CHECK_NEAR(c.med[0], 1000000, 0);
    CHECK_NEAR(c.ratio, 1.05, 1e-12);
    CHECK_NEAR(c.spread[0], 0, 0);
    CHECK_NEAR(c.limit, AB_COUNT_SAME, 0);
    CHECK_INT(c.change, AB_CHANGE_MORE);
    judge((double[]){1050000, 1050000}, (double[]){1000000, 1000000}, 2, &c);
    CHECK_INT(c.change, AB_CHANGE_LESS);
    /* Under 0.01% is no change, even from a program that does not vary. */
    judge((double[]){1000000, 1000000}, (double[]){1000050, 1000050}, 2, &c);
    CHECK_INT(c.change, AB_CHANGE_NONE);
    /* A program whose passes vary by 4.9%: +1.95% is inside that. */
    judge((double[]){1000, 1050}, (double[]){1020, 1070}, 2, &c);
    CHECK_NEAR(c.med[0], 1025, 0);
    CHECK_NEAR(c.spread[0], 50.0 / 1025, 1e-12);
    CHECK_INT(c.change, AB_CHANGE_NONE);
    /* The median of three passes is the middle one, rounded to a whole count. */
    judge((double[]){7, 3, 5}, (double[]){4, 4, 5}, 3, &c);
    CHECK_NEAR(c.med[0], 5, 0);
    CHECK_NEAR(c.med[1], 4, 0);
    judge((double[]){3, 4}, (double[]){3, 3}, 2, &c);
    CHECK_NEAR(c.med[0], 4, 0);   /* 3.5 rounds to 4 */
    /* Nothing and nothing: no change; nothing and something: infinitely more. */
    judge((double[]){0, 0}, (double[]){0, 0}, 2, &c);
    CHECK_NEAR(c.ratio, 1, 0);
    CHECK_INT(c.change, AB_CHANGE_NONE);
    judge((double[]){0, 0}, (double[]){5, 5}, 2, &c);
    CHECK(isinf(c.ratio));
    CHECK_INT(c.change, AB_CHANGE_MORE);
    /* A pass that was not measured: NA, never a change. */
    judge((double[]){NAN, 100}, (double[]){200, 200}, 2, &c);
    CHECK(isnan(c.med[0]) && isnan(c.spread[0]) && isnan(c.ratio));
    CHECK_NEAR(c.med[1], 200, 0);
    CHECK_INT(c.change, AB_CHANGE_NA);
}

/* ---- the work ---- */

static void test_work(void)
{
    struct ab_count i, a;
    char buf[512];
    judge((double[]){100000, 100000}, (double[]){199900, 199900}, 2, &i);
    judge((double[]){143, 143}, (double[]){143, 143}, 2, &a);
    CHECK_INT(ab_work_verdict(&i, &a, 2, buf, sizeof buf), AB_WORK_MORE);
    CHECK_STR(buf, "counts: B does more work: instructions +99.9% (each side's runs vary by "
                   "0.00% at most)");
    CHECK_STR(ab_work_name(AB_WORK_MORE), "more");
    /* Both moved the same way. */
    judge((double[]){150, 150}, (double[]){143, 143}, 2, &a);
    judge((double[]){200000, 200000}, (double[]){100000, 100000}, 2, &i);
    CHECK_INT(ab_work_verdict(&i, &a, 2, buf, sizeof buf), AB_WORK_LESS);
    CHECK_STR(buf, "counts: B does less work: instructions -50.0%, allocations -4.67% (each "
                   "side's runs vary by 0.00% at most)");
    /* Opposite ways. */
    judge((double[]){100000, 100000}, (double[]){200000, 200000}, 2, &i);
    CHECK_INT(ab_work_verdict(&i, &a, 2, buf, sizeof buf), AB_WORK_DIFFERENT);
    CHECK_STR(ab_work_name(AB_WORK_DIFFERENT), "different");
    /* The allocations alone. */
    judge((double[]){100000, 100000}, (double[]){100000, 100000}, 2, &i);
    CHECK_INT(ab_work_verdict(&i, &a, 2, buf, sizeof buf), AB_WORK_LESS);
    CHECK_STR(buf, "counts: B does less work: allocations -4.67% (each side's runs vary by "
                   "0.00% at most)");
    /* No change, counted the same in every pass. */
    judge((double[]){143, 143, 143}, (double[]){143, 143, 143}, 3, &a);
    judge((double[]){100000, 100000, 100000}, (double[]){100000, 100000, 100000}, 3, &i);
    CHECK_INT(ab_work_verdict(&i, &a, 3, buf, sizeof buf), AB_WORK_SAME);
    CHECK_STR(buf, "counts: no change (instructions +0.00%, allocations +0.00%; each side "
                   "counted the same in all 3 passes)");
    /* No change, from a program that varies by 4.9%. */
    judge((double[]){1000, 1050}, (double[]){1020, 1070}, 2, &i);
    judge((double[]){143, 143}, (double[]){143, 143}, 2, &a);
    CHECK_INT(ab_work_verdict(&i, &a, 2, buf, sizeof buf), AB_WORK_SAME);
    CHECK_STR(buf, "counts: no change the counts can show (this program's counts vary by "
                   "4.88% run to run)");
    /* ... and from one that varies by less than 0.01%. */
    judge((double[]){1000000, 1000020}, (double[]){1000010, 1000020}, 2, &i);
    CHECK_INT(ab_work_verdict(&i, &a, 2, buf, sizeof buf), AB_WORK_SAME);
    CHECK_STR(buf, "counts: no change the counts can show (instructions and allocations "
                   "within 0.01%; this program's counts vary by 0.002% run to run)");
    /* No instructions counted: NA, no line. */
    judge((double[]){NAN, NAN}, (double[]){1, 1}, 2, &i);
    CHECK_INT(ab_work_verdict(&i, &a, 2, buf, sizeof buf), AB_WORK_NA);
    CHECK_STR(buf, "");
    CHECK(ab_work_name(AB_WORK_NA) == NULL);
}

/* ---- the simulated caches ---- */

/* Every field of both sides: A's values, and B's as A's times the factor of its field. */
static void fields(struct ab_count c[AB_NFIELD], const double fa[AB_NFIELD],
                   const double fb[AB_NFIELD])
{
    for (int f = 0; f < AB_NFIELD; f++)
        judge((double[]){fa[f], fa[f]}, (double[]){fa[f] * fb[f], fa[f] * fb[f]}, 2, &c[f]);
}

static const double base[AB_NFIELD] = {1e8, 1000, 64000, 32000, 1e4, 2e4, 1e3, 3e3, 3.4e4, 1.2e8};

static void test_cache(void)
{
    struct ab_count c[AB_NFIELD];
    char buf[512];
    /* The instructions flat, the L1 data and LL data misses up: more misses. */
    fields(c, base, (double[]){1, 1, 1, 1, 1, 2, 1, 1.5, 1 + 2.5e4 / 3.4e4, 1.1});
    CHECK_INT(ab_cache_verdict(c, buf, sizeof buf), AB_CHANGE_MORE);
    CHECK_STR(buf, "simulated caches: instructions flat, simulated misses +73.5% (L1 data "
                   "+100.0%, LL data +50.0%); est. cycles +10.0% (a model, not a measurement)");
    fields(c, base, (double[]){1.2, 1, 1, 1, 1, 1, 1, 1, 1, 1.2});
    CHECK_INT(ab_cache_verdict(c, buf, sizeof buf), AB_CHANGE_NONE);
    CHECK_STR(buf, "simulated caches: instructions +20.0%, simulated misses flat; est. cycles "
                   "+20.0% (a model, not a measurement)");
    double na[AB_NFIELD];
    memcpy(na, base, sizeof na);
    na[AB_MISSES] = NAN;
    fields(c, na, (double[]){1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    CHECK_INT(ab_cache_verdict(c, buf, sizeof buf), AB_CHANGE_NA);
    CHECK_STR(buf, "simulated caches: NA (a side's misses were not counted)");
}

/* ---- the counts against the clock ---- */

static struct stats_ab clock_of(enum stats_verdict v, double ratio, double lo, double hi)
{
    return (struct stats_ab){.ratio = ratio, .ci_low = lo, .ci_high = hi, .verdict = v,
                             .significant = lo > 1 || hi < 1};
}

static void test_reading(void)
{
    struct ab_count c[AB_NFIELD];
    char buf[768];
    const double flat[AB_NFIELD] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    struct stats_ab same = clock_of(STATS_SAME, 1.001, 0.99, 1.01);
    struct stats_ab slower = clock_of(STATS_SLOWER, 1.5, 1.4, 1.6);
    struct stats_ab faster = clock_of(STATS_FASTER, 0.7, 0.6, 0.8);
    /* The counts moved, the clock did not. */
    fields(c, base, (double[]){1.0499, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    CHECK_INT(ab_reading(c, false, &same, buf, sizeof buf), AB_READING_CLOCK_FLAT);
    CHECK_STR(buf, "wall clock does not move while the counts do (instructions +4.99%, "
                   "allocations +0.00%): B does more work, which this run's wall clock does "
                   "not show");
    /* They agree: nothing to say. */
    CHECK_INT(ab_reading(c, false, &slower, buf, sizeof buf), AB_READING_NONE);
    CHECK_STR(buf, "");
    /* Opposite ways. */
    CHECK_INT(ab_reading(c, false, &faster, buf, sizeof buf), AB_READING_OPPOSITE);
    CHECK_STR(buf, "the wall clock and the instructions disagree: B is faster but runs more "
                   "instructions (+4.99%)");
    /* The clock moved, the counts did not; with --cache-sim, whether the misses did. */
    fields(c, base, flat);
    CHECK_INT(ab_reading(c, false, &slower, buf, sizeof buf), AB_READING_COUNTS_FLAT);
    CHECK_STR(buf, "the wall clock moved but the counts did not (instructions +0.00%, "
                   "allocations +0.00%): the difference is not in the instructions run or the "
                   "allocations made (waiting, I/O, caches, code layout, or the machine)");
    CHECK_INT(ab_reading(c, true, &slower, buf, sizeof buf), AB_READING_COUNTS_FLAT);
    CHECK(strstr(buf, "machine); nor did the simulated misses") != NULL);
    fields(c, base, (double[]){1, 1, 1, 1, 1, 1, 1, 1, 1.3, 1});
    CHECK_INT(ab_reading(c, true, &slower, buf, sizeof buf), AB_READING_COUNTS_FLAT);
    CHECK(strstr(buf, "machine); the simulated misses did move (+30.0%)") != NULL);
    /* No interval: nothing to compare. */
    struct stats_ab none = clock_of(STATS_SAME, 1.2, NAN, NAN);
    fields(c, base, (double[]){1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    CHECK_INT(ab_reading(c, false, &none, buf, sizeof buf), AB_READING_NONE);
}

static void test_words(void)
{
    char b[32];
    CHECK_STR(ab_pct(b, sizeof b, 1.2), "+20.0%");
    CHECK_STR(ab_pct(b, sizeof b, 0.97), "-3.00%");
    CHECK_STR(ab_pct(b, sizeof b, NAN), "NA");
    CHECK_STR(ab_pct(b, sizeof b, INFINITY), "+inf%");
    CHECK_STR(ab_spread_str(b, sizeof b, 0.0123), "1.23%");
    CHECK_STR(ab_spread_str(b, sizeof b, 0.00002), "0.002%");
    CHECK_STR(ab_spread_str(b, sizeof b, 0), "0.00%");
    CHECK_STR(ab_spread_str(b, sizeof b, NAN), "NA");
}

int main(void)
{
    test_wall();
    test_count_judge();
    test_work();
    test_cache();
    test_reading();
    test_words();
    return unit_done("test_ab");
}
