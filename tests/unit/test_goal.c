/* test_goal.c: core/engine/goal.c's slice notation and the required-multiple arithmetic, with
 * made-up figures whose answers follow by hand. */
#include <math.h>

#include "core/engine/goal.h"
#include "unit.h"

static void test_parse(void)
{
    double m = 0;
    CHECK(goal_parse_slice("3%", &m));
    CHECK_NEAR(m, 1.03, 1e-12);
    CHECK(goal_parse_slice("3", &m));
    CHECK_NEAR(m, 1.03, 1e-12);
    CHECK(goal_parse_slice("-1.5%", &m));
    CHECK_NEAR(m, 0.985, 1e-12);
    CHECK(goal_parse_slice("1.04x", &m));
    CHECK_NEAR(m, 1.04, 1e-12);
    CHECK(goal_parse_slice("1.04\xc3\x97", &m));   /* 1.04× */
    CHECK_NEAR(m, 1.04, 1e-12);
    CHECK(!goal_parse_slice("-100%", &m));          /* no slice takes everything away */
    CHECK(!goal_parse_slice("0x", &m));
    CHECK(!goal_parse_slice("3%%", &m));
    CHECK(!goal_parse_slice("fast", &m));
    CHECK(!goal_parse_slice("", &m));
}

static void test_compute(void)
{
    struct goal g;
    /* 100 -> 50 in 3% slices: a 2x, ln 2 / ln 1.03 = 23.45 slices, so 24 */
    double m[] = {1.03, 1.025};
    goal_compute(100, 50, 1.03, m, 2, &g);
    CHECK(g.lower_better);
    CHECK_NEAR(g.need, 2.0, 1e-12);
    CHECK_NEAR(g.exact, log(2) / log(1.03), 1e-9);
    CHECK_INT(g.slices, 24);
    CHECK_NEAR(g.got, 1.03 * 1.025, 1e-12);
    CHECK_NEAR(g.frac, log(1.03 * 1.025) / log(2), 1e-12);
    CHECK_NEAR(g.remaining, 2 / (1.03 * 1.025), 1e-12);
    CHECK_INT(g.rem_slices, 22);   /* ln 1.894 / ln 1.03 = 21.6 */
    /* a throughput: higher is better */
    goal_compute(10, 20, 1.03, NULL, 0, &g);
    CHECK(!g.lower_better);
    CHECK_NEAR(g.need, 2.0, 1e-12);
    CHECK_NEAR(g.got, 1.0, 1e-12);
    CHECK_NEAR(g.frac, 0.0, 1e-12);
    /* exactly two doublings: 2 slices, not 3 from a rounding hair */
    goal_compute(4, 1, 2, NULL, 0, &g);
    CHECK_INT(g.slices, 2);
    /* already there: no slices, no fraction */
    goal_compute(5, 5, 1.03, NULL, 0, &g);
    CHECK_INT(g.slices, 0);
    CHECK(isnan(g.frac));
    /* measured past the goal: reached, nothing remaining */
    double big[] = {3.0};
    goal_compute(100, 50, 1.03, big, 1, &g);
    CHECK(g.remaining < 1);
    CHECK_INT(g.rem_slices, 0);
    CHECK(g.frac > 1);
}

int main(void)
{
    test_parse();
    test_compute();
    return unit_done("test_goal");
}
