/* test_bisect.c: tare bisect's search against made-up histories with known steps. */
#include <math.h>
#include <stdlib.h>

#include "core/history/bisect.h"
#include "unit.h"

/* A history: a value per commit, commits that "do not build", and a count of probes of each. */
struct hist {
    int n;
    double v[200];
    bool broken[200];
    int probed[200];
    int stop_after;   /* the probe returns -1 (as on Ctrl-C) after this many; 0: never */
    int calls;
};

static int probe(void *ctx, int i, double *value, struct err *e)
{
    struct hist *h = ctx;
    h->calls++;
    if (h->stop_after && h->calls > h->stop_after)
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    h->probed[i]++;
    if (h->broken[i])
        return 1;
    *value = h->v[i];
    return 0;
}

/* n commits at base, +step from commit `at` on, +step2 from `at2` on (at2 < 0: none). */
static void make(struct hist *h, int n, double base, int at, double step, int at2, double step2)
{
    memset(h, 0, sizeof *h);
    h->n = n;
    for (int i = 0; i < n; i++)
        h->v[i] = base + (i >= at ? step : 0) + (at2 >= 0 && i >= at2 ? step2 : 0);
}

static int run(struct hist *h, bool all, double threshold, struct bisect_result *r,
               struct err *e)
{
    struct bisect_opts o = {.threshold = threshold, .all_steps = all, .probe = probe, .ctx = h};
    return bisect_run(h->n, &o, r, e);
}

static int batch_max;   /* the most commits one probe_many call was given */

static int probe_many(void *ctx, const int *idx, int k, double *values, int *rcs,
                      struct err *e)
{
    if (k > batch_max)
        batch_max = k;
    for (int j = 0; j < k; j++) {
        rcs[j] = probe(ctx, idx[j], &values[j], e);
        if (rcs[j] < 0)
            return -1;
    }
    return 0;
}

static int run_k(struct hist *h, int jobs, struct bisect_result *r, struct err *e)
{
    struct bisect_opts o = {.probe = probe, .probe_many = probe_many, .jobs = jobs, .ctx = h};
    batch_max = 0;
    return bisect_run(h->n, &o, r, e);
}

static bool probed_once(const struct hist *h)
{
    for (int i = 0; i < h->n; i++)
        if (h->probed[i] > 1)
            return false;
    return true;
}

int main(void)
{
    struct hist h;
    struct bisect_result r;
    struct err e = {0};

    /* The repository: 40 commits, +5% at commit 23 (index 22), +2% at 31 (index 30). */
    make(&h, 40, 1000000, 22, 50000, 30, 20000);
    CHECK_INT(run(&h, false, 0, &r, &e), 0);
    CHECK_INT(r.nsteps, 1);
    CHECK_INT(r.steps[0].first, 22);
    CHECK_INT(r.steps[0].before, 21);
    CHECK(r.steps[0].exact);
    CHECK_NEAR(r.steps[0].before_value, 1000000, 0);
    CHECK_NEAR(r.steps[0].after_value, 1050000, 0);
    CHECK_NEAR(r.threshold, 35000, 1e-6);   /* half of the 7% total */
    CHECK(r.probes <= 8);                   /* ceil(log2(40)) + 2 */
    CHECK(probed_once(&h));
    bisect_result_free(&r);

    /* A threshold under the small step's size and above the big one's finds the first step
     * that crosses it from the good end: commit 31 only once the total passes it. */
    make(&h, 40, 1000000, 22, 50000, 30, 20000);
    CHECK_INT(run(&h, false, 60000, &r, &e), 0);
    CHECK_INT(r.nsteps, 1);
    CHECK_INT(r.steps[0].first, 30);
    bisect_result_free(&r);

    /* A threshold as a fraction of good: 6% of 1,000,000 is 60,000, so commit 31 again. */
    make(&h, 40, 1000000, 22, 50000, 30, 20000);
    {
        struct bisect_opts o = {.threshold_rel = 0.06, .probe = probe, .ctx = &h};
        CHECK_INT(bisect_run(h.n, &o, &r, &e), 0);
        CHECK_NEAR(r.threshold, 60000, 1e-6);
        CHECK_INT(r.nsteps, 1);
        CHECK_INT(r.nsteps ? r.steps[0].first : -1, 30);
        bisect_result_free(&r);
    }

    /* Every position of one step, in ranges of 2 to 120 commits: found, within the bound. */
    bool all_found = true, all_bounded = true;
    for (int n = 2; n <= 120; n++)
        for (int at = 1; at < n; at++) {
            make(&h, n, 500, at, -100, -1, 0);
            if (run(&h, false, 0, &r, &e) != 0 || r.nsteps != 1 || r.steps[0].first != at)
                all_found = false;
            if (r.probes > (int)ceil(log2(n - 1)) + 2 || !probed_once(&h))
                all_bounded = false;
            bisect_result_free(&r);
        }
    CHECK(all_found);
    CHECK(all_bounded);

    /* A commit that does not build at the middle is skipped and stepped around. */
    make(&h, 24, 1000, 22, 50, -1, 0);
    h.broken[11] = true;
    CHECK_INT(run(&h, false, 0, &r, &e), 0);
    CHECK_INT(r.nsteps, 1);
    CHECK_INT(r.steps[0].first, 22);
    CHECK(r.steps[0].exact);
    CHECK_INT(h.probed[11], 1);
    CHECK_INT(r.state[11], BISECT_SKIPPED);
    CHECK_INT(r.skipped, 1);
    CHECK(r.probes <= 8);
    CHECK(probed_once(&h));
    bisect_result_free(&r);

    /* Skipped commits right before the step: the step is the range they leave. */
    make(&h, 40, 1000, 22, 50, -1, 0);
    for (int i = 19; i <= 21; i++)
        h.broken[i] = true;
    CHECK_INT(run(&h, false, 0, &r, &e), 0);
    CHECK_INT(r.nsteps, 1);
    CHECK(!r.steps[0].exact);
    CHECK_INT(r.steps[0].first, 22);
    CHECK_INT(r.steps[0].before, 18);
    CHECK(probed_once(&h));
    bisect_result_free(&r);

    /* Nothing past 1%: no step, and nothing probed but the ends. */
    make(&h, 40, 1000, 10, 9, -1, 0);
    CHECK_INT(run(&h, false, 0, &r, &e), 0);
    CHECK_INT(r.nsteps, 0);
    CHECK_INT(r.probes, 2);
    bisect_result_free(&r);

    /* --all-steps: both steps with their sizes, over a drift of 0.01% a commit that is none. */
    make(&h, 40, 1000000, 22, 50000, 30, 20000);
    for (int i = 0; i < 40; i++)
        h.v[i] += 100.0 * i;
    CHECK_INT(run(&h, true, 0, &r, &e), 0);
    CHECK_NEAR(r.threshold, 10000, 1e-6);
    CHECK_INT(r.nsteps, 2);
    if (r.nsteps == 2) {
        CHECK_INT(r.steps[0].first, 22);
        CHECK_NEAR(r.steps[0].after_value - r.steps[0].before_value, 50100, 1e-6);
        CHECK_INT(r.steps[1].first, 30);
        CHECK_NEAR(r.steps[1].after_value - r.steps[1].before_value, 20100, 1e-6);
    }
    CHECK(probed_once(&h));
    CHECK(r.probes < 40);
    bisect_result_free(&r);

    /* A step up then down: all-steps finds both where the ends differ. */
    make(&h, 30, 1000, 5, 100, 20, -50);
    CHECK_INT(run(&h, true, 0, &r, &e), 0);
    CHECK_INT(r.nsteps, 2);
    if (r.nsteps == 2) {
        CHECK_INT(r.steps[0].first, 5);
        CHECK_INT(r.steps[1].first, 20);
        CHECK_NEAR(r.steps[1].after_value, 1050, 0);
    }
    bisect_result_free(&r);

    /* The ends: a good end that cannot be measured is an error; so is a one-commit range. */
    make(&h, 10, 1000, 5, 100, -1, 0);
    h.broken[0] = true;
    CHECK_INT(run(&h, false, 0, &r, &e), -1);
    CHECK_INT(e.kind, ERR_MEASURE);
    CHECK_INT(r.probes, 1);
    bisect_result_free(&r);
    make(&h, 10, 1000, 5, 100, -1, 0);
    h.broken[9] = true;
    CHECK_INT(run(&h, false, 0, &r, &e), -1);
    CHECK_STR(e.msg, "the bad end cannot be measured");
    bisect_result_free(&r);
    make(&h, 1, 1000, 5, 100, -1, 0);
    CHECK_INT(run(&h, false, 0, &r, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    bisect_result_free(&r);

    /* k-ary (--jobs): every step position in every range length up to 60, 2 to 4 at once,
     * finds the step, probes no commit twice, never more than jobs at once, and within
     * bisect_max_builds. */
    bool k_ok = true;
    for (int jobs = 2; jobs <= 4; jobs++)
        for (int n = 2; n <= 60; n++)
            for (int at = 1; at < n; at++) {
                make(&h, n, 1000, at, 100, -1, 0);
                int rc = run_k(&h, jobs, &r, &e);
                if (rc != 0 || r.nsteps != 1 || r.steps[0].first != at ||
                    !r.steps[0].exact || !probed_once(&h) || batch_max > jobs ||
                    r.probes > bisect_max_builds(n, jobs) || r.probes != h.calls)
                    k_ok = false;
                bisect_result_free(&r);
            }
    CHECK(k_ok);
    /* The bound itself, by hand: 40 commits, 2 at once: 2 + 2 + 2 + 2 + 1 (38 open, then
     * 12, 4, 1); 1 at once it is the binary search's ceil(log2(39)) + 2. */
    CHECK_INT(bisect_max_builds(40, 2), 9);
    CHECK_INT(bisect_max_builds(40, 1), 8);
    CHECK_INT(bisect_max_builds(2, 3), 2);
    /* The repository, 2 at once: commit 23 in 9 builds; a commit that does not build
     * is stepped around, and one next to the step leaves the range. */
    make(&h, 40, 1000000, 22, 50000, 30, 20000);
    h.broken[11] = true;
    CHECK_INT(run_k(&h, 2, &r, &e), 0);
    CHECK_INT(r.steps[0].first, 22);
    CHECK(r.steps[0].exact);
    CHECK(probed_once(&h));
    bisect_result_free(&r);
    make(&h, 40, 1000, 22, 100, -1, 0);
    h.broken[21] = true;
    CHECK_INT(run_k(&h, 3, &r, &e), 0);
    CHECK_INT(r.steps[0].before, 20);
    CHECK_INT(r.steps[0].first, 22);
    CHECK(!r.steps[0].exact);
    bisect_result_free(&r);
    /* Stopped mid-search (Ctrl-C): -1 at once. */
    make(&h, 40, 1000, 22, 50, -1, 0);
    h.stop_after = 3;
    CHECK_INT(run_k(&h, 2, &r, &e), -1);
    CHECK_INT(e.kind, ERR_INTERRUPTED);
    CHECK_INT(h.calls, 4);
    bisect_result_free(&r);

    /* A probe that stops the search (Ctrl-C) stops it at once. */
    make(&h, 40, 1000, 22, 50, -1, 0);
    h.stop_after = 3;
    CHECK_INT(run(&h, false, 0, &r, &e), -1);
    CHECK_INT(e.kind, ERR_INTERRUPTED);
    CHECK_INT(h.calls, 4);
    bisect_result_free(&r);
    return unit_done("test_bisect");
}
