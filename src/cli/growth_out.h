/* growth_out.h: how tare count shows its growth fits (core/engine/growth.h). */
#ifndef TARE_GROWTH_OUT_H
#define TARE_GROWTH_OUT_H

#include <stdio.h>

#include "cli/out.h"
#include "core/engine/growth.h"

/* "growth of 'S' over n from 1000 to 2000 (3 values; ...):" and a line per metric. */
void growth_print_text(FILE *f, const struct growth *g, int n);
/* A second table after a blank line: series parameter values from to metric exponent r2. */
void growth_print_table(FILE *f, const struct growth *g, int n, enum out_format fmt);
/* The "growth" member (an array) at the end of count's JSON object. */
struct jw;
void growth_print_json(struct jw *w, const struct growth *g, int n);

#endif
