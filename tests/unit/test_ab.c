/* test_ab.c: tare ab's verdict rules (core/engine/ab.h) held to made-up numbers, in milliseconds.
 * */
#include <math.h>
#include <stdlib.h>

#include "core/engine/ab.h"
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
    ab_count_judge(a, b, n, false, c);
}

static void test_count_judge(void)
{
    struct ab_count c;
    /* A program that does not vary: 5% more is more. */
    judge((double[]){1000000, 1000000}, (double[]){1050000, 1050000}, 2, &c);
    CHECK_NEAR(c.med[0], 1000000, 0);
    CHECK_NEAR(c.ratio, 1.05, 1e-12);
    CHECK_NEAR(c.spread[0], 0, 0);
    CHECK_INT(c.n, 2);
    CHECK_INT(c.change, AB_CHANGE_MORE);
    CHECK_STR(ab_change_name(c.change), "more");
    judge((double[]){1050000, 1050000}, (double[]){1000000, 1000000}, 2, &c);
    CHECK_INT(c.change, AB_CHANGE_LESS);
    /* Under 0.01% is no change, even from a program that does not vary. */
    judge((double[]){1000000, 1000000}, (double[]){1000050, 1000050}, 2, &c);
    CHECK_INT(c.change, AB_CHANGE_NONE);
    /* ... but past it, it is. */
    judge((double[]){1000000, 1000000}, (double[]){1000150, 1000150}, 2, &c);
    CHECK_INT(c.change, AB_CHANGE_MORE);
    /* The median of three passes is the middle one, rounded to a whole count. */
    judge((double[]){7, 3, 5}, (double[]){4, 4, 5}, 3, &c);
    CHECK_NEAR(c.med[0], 5, 0);
    CHECK_NEAR(c.lo[0], 3, 0);
    CHECK_NEAR(c.hi[0], 7, 0);
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
    CHECK(ab_change_name(c.change) == NULL);
    /* One pass of each: the spread cannot be known, so no verdict, however large the change. */
    judge((double[]){1000}, (double[]){2000}, 1, &c);
    CHECK_INT(c.change, AB_CHANGE_UNKNOWN);
    CHECK_STR(ab_change_name(c.change), "unknown");
    CHECK_NEAR(c.ratio, 2, 0);
}

/* Counts that vary from pass to pass (a seed from the clock or the pid): a change only where
 * every pass of B lies beyond every pass of A by more than the widest range of a side. */
static void test_count_varies(void)
{
    struct ab_count c;
    /* Two passes that vary are too few for a verdict. */
    judge((double[]){1000, 1050}, (double[]){1500, 1550}, 2, &c);
    CHECK_INT(c.change, AB_CHANGE_UNKNOWN);
    CHECK_NEAR(c.spread[0], 50.0 / 1025, 1e-12);
    /* Constant on both sides, but the program's other counts vary: as unknown. */
    ab_count_judge((double[]){143, 143}, (double[]){150, 150}, 2, true, &c);
    CHECK_INT(c.change, AB_CHANGE_UNKNOWN);
    /* Six passes: B above A by 400 with ranges of 50 (the jitter of a seeded program). */
    const double a[6] = {1000, 1050, 1010, 1040, 1020, 1030};
    const double b6[6] = {1450, 1400, 1440, 1410, 1430, 1420};
    judge(a, b6, 6, &c);
    CHECK_INT(c.change, AB_CHANGE_MORE);
    judge(b6, a, 6, &c);
    CHECK_INT(c.change, AB_CHANGE_LESS);
    /* Apart by exactly the widest range (1100 - 1050 = 50): not more than it, no change. */
    const double b7[6] = {1100, 1150, 1110, 1140, 1120, 1130};
    judge(a, b7, 6, &c);
    CHECK_INT(c.change, AB_CHANGE_NONE);
    /* One past it is. */
    const double b8[6] = {1101, 1151, 1111, 1141, 1121, 1131};
    judge(a, b8, 6, &c);
    CHECK_INT(c.change, AB_CHANGE_MORE);
    /* The medians apart by more than either range, the passes overlapping: no change (the
     * rule that medians past the spreads made A/A on Lua "more work" in 2 runs of 3). */
    const double c1[6] = {1000, 1001, 1002, 1003, 1004, 1100};
    const double c2[6] = {1004, 1005, 1006, 1007, 1008, 1009};
    judge(c1, c2, 6, &c);
    CHECK_INT(c.change, AB_CHANGE_NONE);
    /* A/A of a seeded program, every permutation of twelve draws split six and six: a false
     * "more" or "less" needs the two sides wholly apart, here never. */
    const double draws[12] = {91, 64, 127, 100, 77, 118, 83, 109, 66, 95, 122, 71};
    int wrong = 0;
    for (unsigned m = 0; m < 1u << 12; m++) {
        if (__builtin_popcount(m) != 6)
            continue;
        double x[6], y[6];
        int nx = 0, ny = 0;
        for (int i = 0; i < 12; i++) {
            if (m >> i & 1)
                x[nx++] = draws[i];
            else
                y[ny++] = draws[i];
        }
        judge(x, y, 6, &c);
        wrong += c.change != AB_CHANGE_NONE;
    }
    CHECK_INT(wrong, 0);
}

/* ---- the work ---- */

static void test_work(void)
{
    struct ab_count i, a;
    char buf[512];
    judge((double[]){100000, 100000}, (double[]){199900, 199900}, 2, &i);
    judge((double[]){143, 143}, (double[]){143, 143}, 2, &a);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_MORE);
    CHECK_STR(buf, "counts: B does more work: instructions +99.9% (across each side's 2 passes "
                   "instructions vary by 0.00% at most)");
    CHECK_STR(ab_work_name(AB_WORK_MORE), "more");
    /* Both moved the same way: both named, with their spreads. */
    judge((double[]){150, 150}, (double[]){143, 143}, 2, &a);
    judge((double[]){200000, 200000}, (double[]){100000, 100000}, 2, &i);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_LESS);
    CHECK_STR(buf, "counts: B does less work: instructions -50.0%, allocations -4.67% (across "
                   "each side's 2 passes instructions vary by 0.00% at most, allocations by "
                   "0.00%)");
    /* Opposite ways. */
    judge((double[]){100000, 100000}, (double[]){200000, 200000}, 2, &i);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_DIFFERENT);
    CHECK_STR(ab_work_name(AB_WORK_DIFFERENT), "different");
    /* The allocations alone: the line names the allocations' spread, not the instructions'. */
    const double ia[6] = {100000, 100900, 100100, 100800, 100200, 100700};
    const double ib[6] = {100400, 100500, 100300, 100600, 100450, 100550};
    const double aa[6] = {150, 150, 150, 150, 150, 150}, ab6[6] = {143, 143, 143, 143, 143, 143};
    ab_count_judge(ia, ib, 6, true, &i);
    ab_count_judge(aa, ab6, 6, true, &a);
    CHECK_INT(i.change, AB_CHANGE_NONE);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_LESS);
    CHECK_STR(buf, "counts: B does less work: allocations -4.67% (across each side's 6 passes "
                   "allocations vary by 0.00% at most)");
    /* No change, counted the same in every pass. */
    judge((double[]){143, 143, 143}, (double[]){143, 143, 143}, 3, &a);
    judge((double[]){100000, 100000, 100000}, (double[]){100000, 100000, 100000}, 3, &i);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_SAME);
    CHECK_STR(buf, "counts: no change (instructions +0.00%, allocations +0.00%; each side "
                   "counted the same in all 3 passes)");
    /* No change, from a program that varies. */
    judge((double[]){143, 143, 143, 143, 143, 143}, (double[]){143, 143, 143, 143, 143, 143}, 6,
          &a);
    ab_count_judge(ia, ib, 6, true, &i);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_SAME);
    CHECK_STR(buf, "counts: no change the counts can show (instructions +0.02%, allocations "
                   "+0.00%; across each side's 6 passes instructions vary by 0.90% at most, "
                   "allocations by 0.00%)");
    /* One pass: no verdict, said why. */
    judge((double[]){100000}, (double[]){150000}, 1, &i);
    judge((double[]){143}, (double[]){143}, 1, &a);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_UNKNOWN);
    CHECK_STR(buf, "counts: no verdict (instructions +50.0%, allocations +0.00%): one pass of "
                   "each side cannot show how much this program's counts vary run to run "
                   "(--count-runs 2 or more)");
    CHECK_STR(ab_work_name(AB_WORK_UNKNOWN), "unknown");
    /* Two passes that vary: no verdict either. */
    judge((double[]){1000, 1050}, (double[]){1500, 1550}, 2, &i);
    judge((double[]){143, 143}, (double[]){143, 143}, 2, &a);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_UNKNOWN);
    CHECK_STR(buf, "counts: no verdict (instructions +48.8%, allocations +0.00%): this "
                   "program's counts vary (across each side's 2 passes instructions vary by "
                   "4.88% at most, allocations by 0.00%), and a verdict on counts that vary "
                   "takes 6 passes of each side");
    /* No instructions counted: NA, no line. */
    judge((double[]){NAN, NAN}, (double[]){1, 1}, 2, &i);
    CHECK_INT(ab_work_verdict(&i, &a, buf, sizeof buf), AB_WORK_NA);
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

/* A reading of work (which way) against a clock of B/A ratio in [lo, hi], 1% threshold. */
static enum ab_reading reading(enum ab_change work, double ratio, double lo, double hi,
                               char *buf, size_t n)
{
    struct ab_reading_in in = {.work = work, .counts = "instructions -2.91%",
                               .misses = AB_CHANGE_NA, .clock = true, .ratio = ratio, .lo = lo,
                               .hi = hi, .threshold = 0.01};
    return ab_reading(&in, buf, n);
}

static void test_reading(void)
{
    char buf[768];
    /* Counts down, clock down: they agree. */
    CHECK_INT(reading(AB_CHANGE_LESS, 0.988, 0.9799, 0.996, buf, sizeof buf), AB_READING_AGREE);
    CHECK_STR(buf, "the counts and the clock agree: B does less work (instructions -2.91%) and "
                   "is faster: -1.20% (-2.01 .. -0.40%)");
    CHECK_STR(ab_reading_name(AB_READING_AGREE), "agree");
    /* Counts down, clock flat. */
    CHECK_INT(reading(AB_CHANGE_LESS, 1.002, 0.99, 1.013, buf, sizeof buf),
              AB_READING_CLOCK_FLAT);
    CHECK_STR(buf, "wall clock does not move while the counts do (instructions -2.91%): B does "
                   "less work, which this run's wall clock does not show");
    /* Counts down, clock up: the bisect --confirm, B/A 1.0099 in 1.0041 .. 1.0152,
     * under the 1% threshold and still up. */
    CHECK_INT(reading(AB_CHANGE_LESS, 1.0099, 1.0041, 1.0152, buf, sizeof buf),
              AB_READING_OPPOSITE);
    CHECK_STR(buf, "B does less work (instructions -2.91%) but is slower: +0.99% (+0.41 .. "
                   "+1.52%); look at cache behaviour: `--cache-sim`");
    CHECK_STR(ab_reading_name(AB_READING_OPPOSITE), "opposite");
    /* The mirror cases. */
    CHECK_INT(reading(AB_CHANGE_MORE, 1.012, 1.004, 1.02, buf, sizeof buf), AB_READING_AGREE);
    CHECK_STR(buf, "the counts and the clock agree: B does more work (instructions -2.91%) and "
                   "is slower: +1.20% (+0.40 .. +2.00%)");
    CHECK_INT(reading(AB_CHANGE_MORE, 0.999, 0.98, 1.02, buf, sizeof buf),
              AB_READING_CLOCK_FLAT);
    CHECK(strstr(buf, "B does more work, which this run's wall clock does not show") != NULL);
    CHECK_INT(reading(AB_CHANGE_MORE, 0.95, 0.85, 0.98, buf, sizeof buf), AB_READING_OPPOSITE);
    CHECK_STR(buf, "B does more work (instructions -2.91%) but is faster: -5.00% (-15.0 .. "
                   "-2.00%); look at cache behaviour: `--cache-sim`");
    /* Counts flat: the clock said only past its threshold (its own verdict). */
    CHECK_INT(reading(AB_CHANGE_NONE, 1.5, 1.4, 1.6, buf, sizeof buf), AB_READING_COUNTS_FLAT);
    CHECK_STR(buf, "the wall clock moved but the counts did not (instructions -2.91%): the "
                   "difference is not in the instructions run or the allocations made "
                   "(waiting, I/O, caches, code layout, or the machine)");
    CHECK_INT(reading(AB_CHANGE_NONE, 0.7, 0.6, 0.8, buf, sizeof buf), AB_READING_COUNTS_FLAT);
    CHECK_INT(reading(AB_CHANGE_NONE, 1.005, 1.001, 1.009, buf, sizeof buf), AB_READING_NONE);
    CHECK_STR(buf, "");
    CHECK_INT(reading(AB_CHANGE_NONE, 1.01, 0.99, 1.03, buf, sizeof buf), AB_READING_NONE);
    CHECK(ab_reading_name(AB_READING_NONE) == NULL);
    /* Nothing to compare: counts NA or unknown, no clock, no interval. */
    CHECK_INT(reading(AB_CHANGE_NA, 1.5, 1.4, 1.6, buf, sizeof buf), AB_READING_NONE);
    CHECK_INT(reading(AB_CHANGE_UNKNOWN, 1.5, 1.4, 1.6, buf, sizeof buf), AB_READING_NONE);
    CHECK_INT(reading(AB_CHANGE_LESS, 1.5, NAN, NAN, buf, sizeof buf), AB_READING_NONE);
    struct ab_reading_in none = {.work = AB_CHANGE_LESS, .counts = "x", .clock = false};
    CHECK_INT(ab_reading(&none, buf, sizeof buf), AB_READING_NONE);
    /* With --cache-sim, what the simulated misses did instead of the hint. */
    struct ab_reading_in sim = {.work = AB_CHANGE_LESS, .counts = "instructions -2.91%",
                                .misses = AB_CHANGE_MORE, .misses_ratio = 1.3, .clock = true,
                                .ratio = 1.0099, .lo = 1.0041, .hi = 1.0152, .threshold = 0.01};
    CHECK_INT(ab_reading(&sim, buf, sizeof buf), AB_READING_OPPOSITE);
    CHECK_STR(buf, "B does less work (instructions -2.91%) but is slower: +0.99% (+0.41 .. "
                   "+1.52%); the simulated misses did move (+30.0%)");
    sim.misses = AB_CHANGE_NONE;
    CHECK_INT(ab_reading(&sim, buf, sizeof buf), AB_READING_OPPOSITE);
    CHECK(strstr(buf, "+1.52%); the simulated misses did not move") != NULL);
    sim.work = AB_CHANGE_NONE;
    sim.ratio = 1.5, sim.lo = 1.4, sim.hi = 1.6;
    CHECK_INT(ab_reading(&sim, buf, sizeof buf), AB_READING_COUNTS_FLAT);
    CHECK(strstr(buf, "machine); nor did the simulated misses") != NULL);
    sim.misses = AB_CHANGE_LESS, sim.misses_ratio = 0.5;
    CHECK_INT(ab_reading(&sim, buf, sizeof buf), AB_READING_COUNTS_FLAT);
    CHECK(strstr(buf, "machine); the simulated misses did move (-50.0%)") != NULL);
}

/* A clock judged by a fence (a history's report): its direction and words given, no interval;
 * who names the side. */
static void test_reading_judged(void)
{
    char buf[768];
    struct ab_reading_in in = {.work = AB_CHANGE_LESS, .counts = "instructions -3.00%",
                               .misses = AB_CHANGE_NA, .clock = true, .ratio = NAN, .lo = NAN,
                               .hi = NAN, .clock_words = "wall clock +18.0% (fence 17.8%)",
                               .clock_dir = 1, .who = "this commit"};
    CHECK_INT(ab_reading(&in, buf, sizeof buf), AB_READING_OPPOSITE);
    CHECK_STR(buf, "this commit does less work (instructions -3.00%) but is slower: wall clock "
                   "+18.0% (fence 17.8%); look at cache behaviour: `--cache-sim`");
    in.clock_dir = -1;
    CHECK_INT(ab_reading(&in, buf, sizeof buf), AB_READING_AGREE);
    CHECK_STR(buf, "the counts and the clock agree: this commit does less work (instructions "
                   "-3.00%) and is faster: wall clock +18.0% (fence 17.8%)");
    in.clock_dir = 0;
    CHECK_INT(ab_reading(&in, buf, sizeof buf), AB_READING_CLOCK_FLAT);
    CHECK_STR(buf, "wall clock does not move while the counts do (instructions -3.00%): this "
                   "commit does less work, which the wall clock does not show");
    in.work = AB_CHANGE_NONE;
    CHECK_INT(ab_reading(&in, buf, sizeof buf), AB_READING_NONE);   /* nothing moved */
    in.clock_dir = 1;
    CHECK_INT(ab_reading(&in, buf, sizeof buf), AB_READING_COUNTS_FLAT);
    in.work = AB_CHANGE_NA;
    CHECK_INT(ab_reading(&in, buf, sizeof buf), AB_READING_NONE);
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
    test_count_varies();
    test_work();
    test_cache();
    test_reading();
    test_reading_judged();
    test_words();
    return unit_done("test_ab");
}
