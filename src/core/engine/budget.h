/* budget.h: per-benchmark thresholds and budgets of a suite file ([bench NAME] sections):
 * threshold = PCT, max_instructions = N, max_allocations = N, max_bytes = N, max_peak_bytes = N. */
#ifndef TARE_BUDGET_H
#define TARE_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/util/err.h"

enum { BUDGET_INSTRUCTIONS, BUDGET_ALLOCATIONS, BUDGET_BYTES, BUDGET_PEAK_BYTES, BUDGET_N };
/* "max_instructions", ...: the keys, in the order of the counts. */
extern const char *const budget_keys[BUDGET_N];

#define BUDGET_NONE UINT64_MAX   /* no budget for this count */

struct budget {
    char *bench;               /* the benchmark's name (every lane of it) */
    /* metrics = stderr|stdout|FILE, metrics-pattern = REGEX: where this benchmark's program
     * prints its own counters (core/util/metrics.h), over the lane's and the suite's; or NULL */
    char *metrics_from, *metrics_pattern;
    double threshold;          /* relative (0.01 for 1%), or 0: history check's default */
    uint64_t max[BUDGET_N];    /* BUDGET_NONE where none is set */
    unsigned long line;        /* the section's line, for messages */
};

struct ini_section;
/*
 * Reads one [bench NAME] section of suite file name into *b (b->bench malloc'd, and the
 * metrics keys; budget_free frees them). Errors say
 * "'name' line N: ...": an unknown key, a key given twice, a threshold that is not a
 * percentage above 0 and below 1000, a budget that is not a whole number. 0, or -1.
 */
int budget_section(const char *name, const struct ini_section *sec, struct budget *b,
                   struct err *e);

/* Frees what budget_section allocated in *b. */
void budget_free(struct budget *b);

/* Whether count (UINT64_MAX: not counted) of kind m (BUDGET_*) is over b's budget for it: a
 * count at its budget is not over. False when b is NULL or sets no budget for m. */
bool budget_over(const struct budget *b, int m, uint64_t count);

/* The budget of benchmark bench among b[0..n), or NULL. */
const struct budget *budget_find(const struct budget *b, int n, const char *bench);

#endif
