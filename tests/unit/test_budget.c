/* test_budget.c: [bench NAME] sections of suite text read into thresholds and budgets, bad
 * lines refused with the file and the line, and a count at its budget vs one over it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/budget.h"
#include "core/engine/suite.h"
#include "unit.h"

/* e.msg against a whole expected message (CHECK_STR would warn on its 1 KiB size). */
#define CHECK_MSG(want) do { \
        if (strcmp(e.msg, want) != 0) \
            printf("  got message: %s\n", e.msg); \
        CHECK(strcmp(e.msg, want) == 0); \
    } while (0)

#define HEAD "[suite]\ncommand = ./prog\nbenchmarks = b/*.txt\n"   /* lines 1-3 */

static void test_good(void)
{
    struct suite s;
    struct err e = {0};
    const char *text = HEAD
        "\n"
        "[bench fib]\n"                                /* line 5 */
        "threshold = 1.5%\n"
        "max_instructions = 180000\n"
        "max_allocations = 0\n"
        "; a comment between keys\n"
        "max_peak_bytes = 18446744073709551614\n"     /* the largest budget there is */
        "\n"
        "[bench  tak\t]\n"                             /* line 12: spaces before the name */
        "threshold = 2\n"                              /* a percentage without its sign */
        "max_bytes = +4096\n";
    CHECK_INT(suite_parse("s.ini", text, ".", &s, &e), 0);
    CHECK_INT(s.nbudgets, 2);
    if (s.nbudgets != 2) {
        printf("  error: %s\n", e.msg);
        return;
    }
    const struct budget *fib = budget_find(s.budgets, s.nbudgets, "fib");
    const struct budget *tak = budget_find(s.budgets, s.nbudgets, "tak");
    CHECK(fib == &s.budgets[0]);
    CHECK(tak == &s.budgets[1]);
    CHECK(budget_find(s.budgets, s.nbudgets, "fi") == NULL);
    CHECK(budget_find(s.budgets, s.nbudgets, "fib+jit") == NULL);
    CHECK_STR(fib->bench, "fib");
    CHECK_INT(fib->line, 5);
    CHECK_NEAR(fib->threshold, 0.015, 1e-15);
    CHECK(fib->max[BUDGET_INSTRUCTIONS] == 180000);
    CHECK(fib->max[BUDGET_ALLOCATIONS] == 0);
    CHECK(fib->max[BUDGET_BYTES] == BUDGET_NONE);
    CHECK(fib->max[BUDGET_PEAK_BYTES] == UINT64_MAX - 1);
    CHECK_STR(tak->bench, "tak");
    CHECK_INT(tak->line, 12);
    CHECK_NEAR(tak->threshold, 0.02, 1e-15);
    CHECK(tak->max[BUDGET_BYTES] == 4096);
    CHECK(tak->max[BUDGET_INSTRUCTIONS] == BUDGET_NONE);
    CHECK_STR(budget_keys[BUDGET_PEAK_BYTES], "max_peak_bytes");

    /* at its budget is not over, one more is; no budget, no count or no section never are */
    CHECK(!budget_over(fib, BUDGET_INSTRUCTIONS, 180000));
    CHECK(budget_over(fib, BUDGET_INSTRUCTIONS, 180001));
    CHECK(!budget_over(fib, BUDGET_INSTRUCTIONS, 0));
    CHECK(!budget_over(fib, BUDGET_ALLOCATIONS, 0));
    CHECK(budget_over(fib, BUDGET_ALLOCATIONS, 1));
    CHECK(!budget_over(fib, BUDGET_PEAK_BYTES, UINT64_MAX - 1));
    CHECK(!budget_over(fib, BUDGET_PEAK_BYTES, UINT64_MAX));     /* not counted */
    CHECK(!budget_over(fib, BUDGET_INSTRUCTIONS, UINT64_MAX));
    CHECK(!budget_over(fib, BUDGET_BYTES, 1u << 30));
    CHECK(!budget_over(NULL, BUDGET_INSTRUCTIONS, 1u << 30));
    CHECK(!budget_over(fib, BUDGET_N, 1u << 30));
    CHECK(!budget_over(tak, BUDGET_BYTES, 4096));
    CHECK(budget_over(tak, BUDGET_BYTES, 4097));
    suite_free(&s);

    /* a suite without [bench] sections has no budgets */
    CHECK_INT(suite_parse("s.ini", HEAD, ".", &s, &e), 0);
    CHECK_INT(s.nbudgets, 0);
    CHECK(budget_find(s.budgets, s.nbudgets, "fib") == NULL);
    suite_free(&s);
}

/* Each bad text is refused with ERR_INPUT and exactly its message. */
static void bad(const char *text, const char *want)
{
    struct suite s;
    struct err e = {0};
    CHECK_INT(suite_parse("s.ini", text, ".", &s, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK_MSG(want);
}

static void test_bad(void)
{
    bad(HEAD "[bench]\nthreshold = 1%\n", "'s.ini' line 4: [bench] needs a name: [bench NAME]");
    bad(HEAD "[bench w]\nmax_instructions = lots\n",
        "'s.ini' line 5: bad max_instructions 'lots': want a whole number");
    bad(HEAD "[bench w]\nmax_allocations = -1\n",
        "'s.ini' line 5: bad max_allocations '-1': want a whole number");
    bad(HEAD "[bench w]\nmax_bytes = 1.5\n",
        "'s.ini' line 5: bad max_bytes '1.5': want a whole number");
    bad(HEAD "[bench w]\nmax_bytes = 0x10\n",
        "'s.ini' line 5: bad max_bytes '0x10': want a whole number");
    /* UINT64_MAX means "no budget", so it cannot be one; one more is out of range */
    bad(HEAD "[bench w]\nmax_peak_bytes = 18446744073709551615\n",
        "'s.ini' line 5: bad max_peak_bytes '18446744073709551615': want a whole number");
    bad(HEAD "[bench w]\nmax_peak_bytes = 18446744073709551616\n",
        "'s.ini' line 5: bad max_peak_bytes '18446744073709551616': want a whole number");
    bad(HEAD "[bench w]\n\nmax_cycles = 5\n",
        "'s.ini' line 6: unknown key 'max_cycles' in [bench w] (want threshold, "
        "max_instructions, max_allocations, max_bytes, max_peak_bytes, metrics or "
        "metrics-pattern)");
    bad(HEAD "[bench w]\nthreshold = 0\n",
        "'s.ini' line 5: bad threshold '0': want a percentage above 0, such as 1%");
    bad(HEAD "[bench w]\nthreshold = -1%\n",
        "'s.ini' line 5: bad threshold '-1%': want a percentage above 0, such as 1%");
    bad(HEAD "[bench w]\nthreshold = 1000%\n",
        "'s.ini' line 5: bad threshold '1000%': want a percentage above 0, such as 1%");
    bad(HEAD "[bench w]\nthreshold = 1 %\n",
        "'s.ini' line 5: bad threshold '1 %': want a percentage above 0, such as 1%");
    bad(HEAD "[bench w]\nthreshold = 1%%\n",
        "'s.ini' line 5: bad threshold '1%%': want a percentage above 0, such as 1%");
    bad(HEAD "[bench w]\nthreshold = nan\n",
        "'s.ini' line 5: bad threshold 'nan': want a percentage above 0, such as 1%");
    bad(HEAD "[bench w]\nthreshold = %\n",
        "'s.ini' line 5: bad threshold '%': want a percentage above 0, such as 1%");
    /* a key twice is the INI reader's error, naming both lines' first */
    struct suite s;
    struct err e = {0};
    CHECK_INT(suite_parse("s.ini", HEAD "[bench w]\nthreshold = 1%\nthreshold = 2%\n", ".", &s,
                          &e), -1);
    CHECK(strstr(e.msg, "'s.ini' line 6:") == e.msg);
    /* the same benchmark in two sections (the INI reader sees two names) */
    bad(HEAD "[bench w]\nthreshold = 1%\n[bench  w]\nmax_bytes = 1\n",
        "'s.ini' line 6: [bench w] again (first at line 4)");
    /* an error after a good section leaves nothing behind (ASan checks the frees) */
    bad(HEAD "[bench a]\nmax_bytes = 1\n[bench b]\nmax_bytes = x\n",
        "'s.ini' line 7: bad max_bytes 'x': want a whole number");
}

int main(void)
{
    test_good();
    test_bad();
    return unit_done("test_budget");
}
