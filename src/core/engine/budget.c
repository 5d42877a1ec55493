/* budget.c: [bench NAME] sections of a suite file: thresholds and count budgets (budget.h). */
#define _GNU_SOURCE
#include "core/engine/budget.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/ini.h"
#include "core/util/metrics.h"

const char *const budget_keys[BUDGET_N] = {"max_instructions", "max_allocations", "max_bytes",
                                           "max_peak_bytes"};

static int read_section(const char *name, const struct ini_section *sec, struct budget *b,
                        struct err *e)
{
    *b = (struct budget){.line = sec->line};
    for (int k = 0; k < BUDGET_N; k++)
        b->max[k] = BUDGET_NONE;
    const char *bn = sec->name + 5;   /* after "bench" */
    while (*bn == ' ' || *bn == '\t')
        bn++;
    if (!*bn)
        return err_set(e, ERR_INPUT, "'%s' line %lu: [bench] needs a name: [bench NAME]", name,
                       sec->line);
    bool seen_threshold = false;
    for (size_t i = 0; i < sec->nkeys; i++) {
        const struct ini_key *k = &sec->keys[i];
        char *end;
        int mk = metrics_ini_key(name, k->line, k->key, k->value, &b->metrics_from,
                                 &b->metrics_pattern, e);
        if (mk < 0)
            return -1;
        if (mk > 0)
            continue;
        if (strcmp(k->key, "threshold") == 0) {
            errno = 0;
            double v = strtod(k->value, &end);
            if (end != k->value && *end == '%')
                end++;
            if (seen_threshold)
                return err_set(e, ERR_INPUT, "'%s' line %lu: threshold again in [bench %s]",
                               name, k->line, bn);
            if (errno || end == k->value || *end || !(v > 0) || v >= 1000)
                return err_set(e, ERR_INPUT, "'%s' line %lu: bad threshold '%s': want a "
                               "percentage above 0, such as 1%%", name, k->line, k->value);
            b->threshold = v / 100;
            seen_threshold = true;
            continue;
        }
        int m = 0;
        while (m < BUDGET_N && strcmp(k->key, budget_keys[m]) != 0)
            m++;
        if (m == BUDGET_N) {
            return err_set(e, ERR_INPUT, "'%s' line %lu: unknown key '%s' in [bench %s] (want "
                           "threshold, max_instructions, max_allocations, max_bytes, "
                           "max_peak_bytes, metrics or metrics-pattern)", name, k->line, k->key,
                           bn);
        }
        if (b->max[m] != BUDGET_NONE)
            return err_set(e, ERR_INPUT, "'%s' line %lu: %s again in [bench %s]", name,
                           k->line, k->key, bn);
        errno = 0;
        unsigned long long v = strtoull(k->value, &end, 10);
        if (errno || end == k->value || *end || k->value[0] == '-' || v >= BUDGET_NONE)
            return err_set(e, ERR_INPUT, "'%s' line %lu: bad %s '%s': want a whole number",
                           name, k->line, k->key, k->value);
        b->max[m] = v;
    }
    if (!(b->bench = strdup(bn)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    return 0;
}

int budget_section(const char *name, const struct ini_section *sec, struct budget *b,
                   struct err *e)
{
    int rc = read_section(name, sec, b, e);
    if (rc < 0)
        budget_free(b);
    return rc;
}

void budget_free(struct budget *b)
{
    free(b->bench);
    free(b->metrics_from);
    free(b->metrics_pattern);
    b->bench = b->metrics_from = b->metrics_pattern = NULL;
}

bool budget_over(const struct budget *b, int m, uint64_t count)
{
    return b && m >= 0 && m < BUDGET_N && b->max[m] != BUDGET_NONE && count != UINT64_MAX &&
           count > b->max[m];
}

const struct budget *budget_find(const struct budget *b, int n, const char *bench)
{
    for (int i = 0; i < n; i++)
        if (strcmp(b[i].bench, bench) == 0)
            return &b[i];
    return NULL;
}
