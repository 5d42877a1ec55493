/* test_ab_metrics.c: tare ab's verdict on the programs' own counters, with made-up readings:
 * a step past both spreads is one, a counter that varies is judged with its spread, and no
 * verdict comes from one reading, nor for a counter one side lacks. */
#include <math.h>
#include <stdlib.h>

#include "core/engine/ab_metrics.h"
#include "unit.h"

/* A side of nruns runs; counter name takes v[run] (absent where v is 0). */
static void side(struct metrics *ms, int nruns, const char *const *names,
                 const unsigned long long v[][8], int nnames)
{
    struct err e = {0};
    *ms = (struct metrics){0};
    for (int r = 0; r < nruns; r++) {
        struct metrics_run run = {0};
        for (int k = 0; k < nnames; k++)
            if (v[k][r])
                metrics_run_add(&run, names[k], v[k][r]);
        CHECK_INT(metrics_add_run(ms, &run, &e), 0);
        metrics_run_free(&run);
    }
    metrics_finish(ms);
}

static const struct ab_metric *find(const struct ab_metrics *am, const char *name)
{
    for (int i = 0; i < am->n; i++)
        if (strcmp(am->m[i].name, name) == 0)
            return &am->m[i];
    return NULL;
}

int main(void)
{
    static const char *const names[] = {"pulls", "calls", "clock", "onlya", "sometimes"};
    static const unsigned long long a[][8] = {
        {3000, 3000, 3000, 3000}, {50, 50, 50, 50}, {100, 150, 120, 130}, {9, 9, 9, 9},
        {4, 0, 4, 4}};
    static const unsigned long long b[][8] = {
        {3300, 3300, 3300, 3300}, {50, 50, 50, 50}, {140, 110, 125, 135}, {0, 0, 0, 0},
        {4, 4, 4, 4}};
    struct metrics ma, mb;
    side(&ma, 4, names, a, 5);
    side(&mb, 4, names, b, 5);
    struct ab_metrics am;
    struct err e = {0};
    CHECK_INT(ab_metrics_judge(&ma, &mb, &am, &e), 0);
    CHECK_INT(am.n, 5);
    const struct ab_metric *m = find(&am, "pulls");
    CHECK(m && m->c.change == AB_CHANGE_MORE && !m->why);
    CHECK_NEAR(m ? m->c.ratio : 0, 1.1, 1e-12);
    CHECK_NEAR(m ? m->c.med[0] : 0, 3000, 0);
    CHECK_NEAR(m ? m->c.med[1] : 0, 3300, 0);
    m = find(&am, "calls");
    CHECK(m && m->c.change == AB_CHANGE_NONE);
    /* The clock: medians 125 and 130 (+4%), spreads 40% and 24%, but it varies and 4 readings
     * a side are too few to judge it with its spread: unknown, and why. */
    m = find(&am, "clock");
    CHECK(m && m->c.change == AB_CHANGE_UNKNOWN && m->varied[0] && m->varied[1]);
    CHECK(m && m->why && strstr(m->why, "6 readings a side") != NULL);
    CHECK_NEAR(m ? m->c.spread[0] : 0, 50.0 / 125, 1e-12);
    CHECK_NEAR(m ? m->c.lo[0] : 0, 100, 0);
    CHECK_NEAR(m ? m->c.hi[1] : 0, 140, 0);
    m = find(&am, "onlya");
    CHECK(m && m->c.change == AB_CHANGE_NA && strcmp(m->why, "only in A") == 0);
    m = find(&am, "sometimes");
    CHECK(m && m->c.change == AB_CHANGE_NA && strcmp(m->why, "not in every run of A") == 0);
    ab_metrics_free(&am);
    metrics_free(&ma);
    metrics_free(&mb);

    /* One reading a side: no verdict, however far apart. */
    static const unsigned long long one_a[][8] = {{10}}, one_b[][8] = {{20}};
    side(&ma, 1, names, one_a, 1);
    side(&mb, 1, names, one_b, 1);
    CHECK_INT(ab_metrics_judge(&ma, &mb, &am, &e), 0);
    CHECK(am.n == 1 && am.m[0].c.change == AB_CHANGE_NA);
    CHECK(am.n == 1 && strstr(am.m[0].why, "one reading a side") != NULL);
    ab_metrics_free(&am);
    metrics_free(&ma);
    metrics_free(&mb);

    /* Six readings a side: a clock whose readings of B all lie past A's by more than the
     * widest range (3) is a change, deterministic or not; one whose readings of B overlap A's
     * is the same, whatever its medians (+2%). */
    static const unsigned long long ca[][8] = {{100, 101, 102, 100, 103, 101}},
                                    cb[][8] = {{200, 202, 201, 199, 200, 201}},
                                    oa[][8] = {{100, 110, 105, 95, 102, 99}},
                                    ob[][8] = {{104, 112, 103, 98, 106, 101}};
    side(&ma, 6, names + 2, ca, 1);
    side(&mb, 6, names + 2, cb, 1);
    CHECK_INT(ab_metrics_judge(&ma, &mb, &am, &e), 0);
    CHECK(am.n == 1 && am.m[0].c.change == AB_CHANGE_MORE && am.m[0].varied[0] && !am.m[0].why);
    ab_metrics_free(&am);
    metrics_free(&ma);
    metrics_free(&mb);
    side(&ma, 6, names + 2, oa, 1);
    side(&mb, 6, names + 2, ob, 1);
    CHECK_INT(ab_metrics_judge(&ma, &mb, &am, &e), 0);
    CHECK(am.n == 1 && am.m[0].c.change == AB_CHANGE_NONE && am.m[0].varied[1]);
    CHECK(am.n == 1 && fabs(am.m[0].c.ratio - 1) > AB_COUNT_SAME);
    ab_metrics_free(&am);
    metrics_free(&ma);
    metrics_free(&mb);
    return unit_done("test_ab_metrics");
}
