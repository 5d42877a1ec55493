/* test_harness.c: core/engine/harness.c's parameters, combinations, hooks, series and run counts,
 * and core/engine/growth.c's fits, with made-up values and counts. */
#include <math.h>
#include <stdlib.h>

#include "core/engine/growth.h"
#include "core/engine/harness.h"
#include "unit.h"

static struct harness new_harness(void)
{
    struct harness h;
    struct err e = {0};
    CHECK_INT(harness_init(&h, 8, &e), 0);
    return h;
}

static void test_scan(void)
{
    struct harness h = new_harness();
    struct err e = {0};
    struct harness_param *p = harness_add_param(&h, "--parameter-scan", "x", &e);
    CHECK(p != NULL);
    p->scan[0] = "0";
    p->scan[1] = "1";
    h.step = "0.1";
    CHECK_INT(harness_expand(&h, NULL, &e), 0);
    /* 0 to 1 by 0.1 ends at 1 despite binary fractions, and 0.3 is not 0.30000000000000004 */
    CHECK_INT(p->n, 11);
    CHECK_INT(h.ncombo, 11);
    CHECK_STR(p->values[3], "0.3");
    CHECK_STR(p->values[10], "1");
    CHECK_STR(h.combo[10].label, "x=1");
    harness_free(&h);

    h = new_harness();
    p = harness_add_param(&h, "--parameter-scan", "x", &e);
    p->scan[0] = "5";
    p->scan[1] = "1";
    CHECK_INT(harness_expand(&h, NULL, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK_STR(e.msg, "bad --parameter-scan x 5 1: want numbers MIN <= MAX");
    harness_free(&h);

    h = new_harness();
    p = harness_add_param(&h, "--parameter-scan", "x", &e);
    p->scan[0] = "1";
    p->scan[1] = "100000";
    CHECK_INT(harness_expand(&h, NULL, &e), -1);
    CHECK_STR(e.msg, "--parameter-scan x 1 100000 makes 100000 values; at most 10000");
    harness_free(&h);

    /* a step without a scan */
    h = new_harness();
    p = harness_add_param(&h, "--parameter-list", "x", &e);
    p->list = "a,b";
    h.step = "2";
    CHECK_INT(harness_expand(&h, NULL, &e), -1);
    CHECK_STR(e.msg, "--parameter-step-size wants a --parameter-scan");
    harness_free(&h);
}

static void test_names(void)
{
    struct harness h = new_harness();
    struct err e = {0};
    CHECK(harness_add_param(&h, "--parameter-list", "a-b", &e) == NULL);
    CHECK_STR(e.msg, "bad parameter name 'a-b' for --parameter-list: use letters, digits and '_'");
    CHECK(harness_add_param(&h, "--parameter-list", "n", &e) != NULL);
    CHECK(harness_add_param(&h, "--parameter-scan", "n", &e) == NULL);
    CHECK_STR(e.msg, "parameter 'n' given twice");
    harness_free(&h);
}

/* Two lists: the first varies slowest; hooks and commands get each combination's values. */
static void test_combos(void)
{
    struct harness h = new_harness();
    struct err e = {0};
    struct harness_param *a = harness_add_param(&h, "--parameter-list", "a", &e);
    a->list = "1,2";
    struct harness_param *b = harness_add_param(&h, "--parameter-list", "b", &e);
    b->list = "x,y,z";
    h.hook_str[HARNESS_PREPARE][h.nhook[HARNESS_PREPARE]++] = "touch {a}{b}";
    CHECK_INT(harness_expand(&h, NULL, &e), 0);
    CHECK_INT(h.ncombo, 6);
    CHECK_STR(h.combo[0].label, "a=1 b=x");
    CHECK_STR(h.combo[1].label, "a=1 b=y");
    CHECK_STR(h.combo[3].label, "a=2 b=x");
    CHECK_STR(h.combo[5].label, "a=2 b=z");
    char *s = harness_subst(&h, 4, "run {a} {b} {c} {a");
    CHECK_STR(s, "run 2 y {c} {a");
    free(s);
    struct session_cmds c[HARNESS_NHOOKS];
    harness_cmds(&h, 5, c);
    CHECK_INT(c[HARNESS_PREPARE].n, 1);
    CHECK_STR(c[HARNESS_PREPARE].argv[0][1], "2z");
    CHECK_INT(c[HARNESS_SETUP].n, 0);
    CHECK_STR(harness_param_in(&h, "x {b}"), "b");
    CHECK(harness_param_in(&h, "x {bb}") == NULL);
    char *cmds[] = {"prog {a}"};
    CHECK(harness_param_unused(&h, cmds, 1) == NULL);   /* b is in the hook */
    h.nhook[HARNESS_PREPARE] = 0;
    CHECK_STR(harness_param_unused(&h, cmds, 1), "b");
    h.nhook[HARNESS_PREPARE] = 1;

    /* series: the raw series' names, each combination's label after them */
    struct series_spec spec = {0};
    char *raw_cmds[] = {"prog {a} {b}"}, *names[] = {"p"};
    spec.names = names;
    spec.nnames = 1;
    struct series *raw = NULL, *t = NULL;
    int nraw = 0, nt = 0;
    CHECK_INT(series_build(&spec, raw_cmds, 1, false, &raw, &nraw, &e), 0);
    CHECK_INT(harness_series(&h, &spec, raw_cmds, 1, false, raw, nraw, &t, &nt, &e), 0);
    CHECK_INT(nt, 6);
    CHECK_STR(t[2].name, "p a=1 b=z");
    CHECK_STR(t[2].argv[1], "1");
    CHECK_STR(t[2].argv[2], "z");
    series_free(raw, nraw);
    free(raw);
    series_free(t, nt);
    free(t);
    harness_free(&h);
}

static void test_runs(void)
{
    struct harness h = new_harness();
    struct err e = {0};
    long runs = 7;
    CHECK_INT(harness_runs(&h, &runs, &e), 0);
    CHECK_INT(runs, 7);
    h.min_runs = 3;
    CHECK_INT(harness_runs(&h, &runs, &e), 0);
    CHECK_INT(runs, 3);
    runs = 7;
    h.min_runs = 0;
    h.max_runs = 5;
    CHECK_INT(harness_runs(&h, &runs, &e), 0);
    CHECK_INT(runs, 5);
    h.min_runs = 6;
    CHECK_INT(harness_runs(&h, &runs, &e), -1);
    CHECK_STR(e.msg, "--min-runs 6 is above --max-runs 5");
    h.min_runs = 0;
    h.runs_given = true;
    CHECK_INT(harness_runs(&h, &runs, &e), -1);
    harness_free(&h);
}

/* Counts that grow as n^2 (instructions) and n (allocations) over n = 10, 20, 40. */
static void test_growth(void)
{
    struct harness h = new_harness();
    struct err e = {0};
    struct harness_param *p = harness_add_param(&h, "--parameter-list", "n", &e);
    p->list = "10,20,40";
    CHECK_INT(harness_expand(&h, NULL, &e), 0);
    struct count_job jobs[3] = {{0}};
    struct series t[3] = {{.name = "sq n=10"}, {.name = "sq n=20"}, {.name = "sq n=40"}};
    for (int i = 0; i < 3; i++) {
        double n = 10 << i;
        jobs[i].status = COUNT_OK;
        jobs[i].instructions = (uint64_t)(5 * n * n);
        jobs[i].allocations = (uint64_t)(3 * n);
        jobs[i].bytes = COUNT_NA;
    }
    struct growth *g = NULL;
    int ng = 0;
    CHECK_INT(growth_fit(&h, jobs, t, 3, &g, &ng), 0);
    CHECK_INT(ng, 1);
    CHECK_STR(g[0].series, "sq");
    CHECK_NEAR(g[0].k[GROWTH_INSTRUCTIONS], 2.0, 1e-9);
    CHECK_NEAR(g[0].k[GROWTH_ALLOCATIONS], 1.0, 1e-9);
    CHECK(isnan(g[0].k[GROWTH_BYTES]));
    CHECK_STR(g[0].why[GROWTH_BYTES], "NA at n=10");
    growth_free(g, ng);
    harness_free(&h);
}

int main(void)
{
    test_scan();
    test_names();
    test_combos();
    test_runs();
    test_growth();
    return unit_done("test_harness");
}
