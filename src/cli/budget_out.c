/* budget_out.c: count budgets of a suite checked and said (budget_out.h). */
#include "cli/budget_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "core/util/input.h"
#include "core/engine/suite.h"

bool cli_budget_check(const char *cmd, const char *series, const struct budget *b,
                      const uint64_t cnt[BUDGET_N], char why[BUDGET_N][160])
{
    static const char *const label[BUDGET_N] = {"instructions", "allocations", "bytes",
                                                "peak_bytes"};
    bool over = false;
    for (int m = 0; m < BUDGET_N; m++) {
        if (why)
            why[m][0] = '\0';
        if (!budget_over(b, m, cnt[m]))
            continue;
        char got[FMT_BUF_MIN], max[FMT_BUF_MIN], msg[160];
        snprintf(msg, sizeof msg, "over budget: %s %s > %s %s (%+.2f%%)", label[m],
                 fmt_count(got, (double)cnt[m]), budget_keys[m], fmt_count(max, (double)b->max[m]),
                 b->max[m] ? 100.0 * ((double)cnt[m] / (double)b->max[m] - 1) : 100.0);
        cli_error(cmd, "'%s' %s", series, msg);
        if (why)
            snprintf(why[m], 160, "%s", msg);
        over = true;
    }
    return over;
}

int cli_budgets_load(const char *cmd, const char *path, struct budget **b, int *n)
{
    *b = NULL;
    *n = 0;
    char *text = NULL;
    size_t len;
    struct err e = {0};
    if (in_read_file(path, &text, &len, &e) < 0)   /* a NUL, a directory: refused */
        return cli_fail(cmd, &e);
    struct suite s;
    int rc = text ? suite_parse(path, text, ".", &s, &e) : -1;
    free(text);
    if (rc < 0)
        return e.msg[0] ? cli_fail(cmd, &e) : EXIT_USAGE;
    *b = s.budgets;
    *n = s.nbudgets;
    s.budgets = NULL;
    s.nbudgets = 0;
    suite_free(&s);
    return EXIT_OK;
}

void cli_budgets_free(struct budget *b, int n)
{
    for (int i = 0; i < n; i++)
        free(b[i].bench);
    free(b);
}

const struct budget *cli_budget_of_series(const struct budget *b, int n, const char *series)
{
    const char *plus = strchr(series, '+');
    size_t len = plus ? (size_t)(plus - series) : strlen(series);
    for (int i = 0; i < n; i++)
        if (strlen(b[i].bench) == len && strncmp(b[i].bench, series, len) == 0)
            return &b[i];
    return NULL;
}

double cli_budget_threshold_of(const char *series, void *ctx)
{
    const struct cli_budget_set *set = ctx;
    const struct budget *bg = cli_budget_of_series(set->b, set->n, series);
    return bg ? bg->threshold : 0;
}
