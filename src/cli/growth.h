/* growth.h: tare count over a numeric parameter: the exponent k of cost ~ n^k per series. */
#ifndef TARE_GROWTH_H
#define TARE_GROWTH_H

#include <stdio.h>

#include "cli/harness.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/count.h"

enum { GROWTH_INSTRUCTIONS, GROWTH_ALLOCATIONS, GROWTH_BYTES, GROWTH_NMETRICS };

/* One series (a command, lane and the other parameters' values) over one parameter. */
struct growth {
    char *series;                     /* "growth kind=square" */
    const char *param;                /* "n" */
    int nvalues;
    const char *from, *to;            /* its first and last values, as given */
    double k[GROWTH_NMETRICS], r2[GROWTH_NMETRICS];   /* NAN when not fitted */
    char why[GROWTH_NMETRICS][160];   /* why not fitted, or "" */
};

/* The fits of every series over every numeric parameter with 3 values or more (values all
 * numbers above 0); *n = 0 when there is none. -1 when out of memory. */
int growth_fit(const struct harness *h, const struct count_job *jobs, const struct target *t,
               int nt, struct growth **out, int *n);
void growth_free(struct growth *g, int n);
/* "growth of 'S' over n from 1000 to 2000 (3 values; ...):" and a line per metric. */
void growth_print_text(FILE *f, const struct growth *g, int n);
/* A second table after a blank line: series parameter values from to metric exponent r2. */
void growth_print_table(FILE *f, const struct growth *g, int n, enum out_format fmt);
/* The "growth" member (an array) at the end of count's JSON object. */
struct jw;
void growth_print_json(struct jw *w, const struct growth *g, int n);

#endif
