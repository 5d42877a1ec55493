/* count_out.h: how the commands that run the deterministic pass (count, run) show it. */
#ifndef TARE_COUNT_OUT_H
#define TARE_COUNT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/count.h"

/* The progress line on a terminal; pass as count_opts.progress with a count_progress ctx. */
struct count_progress {
    bool on;
    double t0;
};
void count_progress_print(void *ctx, const struct count_job *job, bool finished, int done,
                          int total);

/* A count as a cell: NA when not measured (never 0); with thousands separators for people. */
const char *count_cell(char *buf, uint64_t v, bool human);
/* A count in JSON: null when not measured. */
void count_json(FILE *f, uint64_t v);

#endif
