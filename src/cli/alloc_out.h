/* alloc_out.h: tare alloc's stack tables shown: text for people, TSV, JSON, folded stacks, and
 * the comparison of two tables. */
#ifndef TARE_ALLOC_OUT_H
#define TARE_ALLOC_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "core/profile/allocstacks.h"
#include "core/util/json.h"

/* The top n rows (0: all) of t, sorted by measure by, as a table for people: the measures,
 * then the stack innermost frame first ("leaf < caller < main"), long stacks shortened. */
void alloc_out_text(FILE *f, const struct astk_table *t, int by, size_t n);
/* The JSON object of the table, as the next value of w: {"by": ..., "stacks": N, "by_fp": N,
 * "by_dwarf": N, "no_stack": N, "totals": {...}, "rows": [{"stack": [outermost, ...,
 * innermost], "allocations": N, ...}, ...]} (the top n rows; 0: all). */
void alloc_out_json(struct jw *w, const struct astk_table *t, int by, size_t n);
/* One line per stack with a non-zero value of measure by: "a;b;c VALUE" (flamegraph.pl,
 * speedscope), every stack. */
void alloc_out_folded(FILE *f, const struct astk_table *t, int by);
/* The changes from a to b in measure by (astk_diff's order), the first n (0: all). */
void alloc_out_diff(FILE *f, int fmt, const struct astk_table *a, const struct astk_table *b,
                    const struct astk_delta *d, size_t nd, int by, size_t n);

#endif
