/* budget_out.h: a suite's count budgets checked against a series' counts, and said. */
#ifndef TARE_BUDGET_OUT_H
#define TARE_BUDGET_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/engine/budget.h"

/* Says on stderr each count of series (instructions, allocations, bytes, peak_bytes: cnt[],
 * UINT64_MAX for NA) over its budget in b, with the exact figures; why[m] (size n each, may
 * be NULL) gets the same words per count, "" where within. True when one is over. */
bool cli_budget_check(const char *cmd, const char *series, const struct budget *b,
                      const uint64_t cnt[BUDGET_N], char why[BUDGET_N][160]);

/* The [bench NAME] sections of suite file path (read, not globbed), for --suite: *b and *n
 * (free with cli_budgets_free). EXIT_OK, or the exit status of the error (said). */
int cli_budgets_load(const char *cmd, const char *path, struct budget **b, int *n);
void cli_budgets_free(struct budget *b, int n);
/* The budget of a history series "BENCH" or "BENCH+LANE" among b[0..n), or NULL. */
const struct budget *cli_budget_of_series(const struct budget *b, int n, const char *series);
/* The budgets loaded for --suite, as history check's per-series thresholds: give
 * cli_budget_threshold_of as hist_check_opts.threshold_of and a cli_budget_set as its ctx. */
struct cli_budget_set {
    const struct budget *b;
    int n;
};
double cli_budget_threshold_of(const char *series, void *ctx);

#endif
