/* out.h: tables for people and for machines, numbers with units, JSON strings. */
#ifndef TARE_OUT_H
#define TARE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"

struct table {
    int ncols, nrows, cap;
    const char **headers;
    char **cells;             /* nrows * ncols, owned */
    bool *red;                /* nrows * ncols: the cell is shown red (text only) */
    unsigned left_mask;       /* bit c set: column c is left-aligned in text (names); else right */
};

void table_init(struct table *t, int ncols, const char *const *headers, unsigned left_mask);
/* Starts a row; then table_set fills its cells (unset cells print as empty). */
void table_row(struct table *t);
void table_set(struct table *t, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The cell shown red in text (a failed status): the colour is the table's, never the
 * cell's bytes, which are shown as text like any other. */
void table_set_red(struct table *t, int col, const char *s);
/* Text (aligned), TSV, CSV or markdown (JSON: core/util/json.h). Every cell is written in
 * its text form (esc.h): control characters and bytes that are not UTF-8 visibly, \x1b. */
void table_print(const struct table *t, FILE *f, enum out_format fmt);
void table_free(struct table *t);

#define FMT_BUF_MIN 32   /* the least a buffer given to the fmt_ and _cell functions holds */

/* The unit of every time a measuring command prints (-u/--time-unit, hyperfine's): auto
 * picks one per value (fmt_seconds), the others hold for the whole output. */
enum out_unit { OUT_UNIT_AUTO, OUT_UNIT_S, OUT_UNIT_MS, OUT_UNIT_US };
extern enum out_unit out_time_unit;

/* Formats into buf (at least 32 bytes) and returns it; "NA" for NAN. */
const char *fmt_seconds(char *buf, double s);          /* 1.23 s, 45.6 ms, 789 µs */
const char *fmt_kib(char *buf, double kib);            /* 512 KiB, 12.3 MiB, 1.50 GiB */
const char *fmt_count(char *buf, double n);            /* 1,234,567 */
const char *fmt_num(char *buf, double v);              /* machine form: %.9g or NA */

/* s in its text form (esc.h: control characters and bytes that are not UTF-8 shown as \x1b),
 * for a name printed in a line for people: s itself when nothing is to change, else a copy
 * that lives until eight more calls (printf("%s %s", out_vis(a), out_vis(b)) is safe). */
const char *out_vis(const char *s);

struct jw;
/* Ends a document written with w: its last newline; a writer misused (a bug of tare) said on
 * stderr, "tare CMD: ...". */
void out_json_end(struct jw *w, const char *cmd);

#endif
