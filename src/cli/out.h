/* out.h: tables for people and for machines, numbers with units, JSON strings. */
#ifndef TARE_OUT_H
#define TARE_OUT_H

#include <stdio.h>

#include "cli/cli.h"

struct table {
    int ncols, nrows, cap;
    const char **headers;
    char **cells;             /* nrows * ncols, owned */
    unsigned left_mask;       /* bit c set: column c is left-aligned in text (names); else right */
};

void table_init(struct table *t, int ncols, const char *const *headers, unsigned left_mask);
/* Starts a row; then table_set fills its cells (unset cells print as empty). */
void table_row(struct table *t);
void table_set(struct table *t, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Text (aligned), TSV, CSV or markdown; JSON is each command's own. */
void table_print(const struct table *t, FILE *f, enum out_format fmt);
void table_free(struct table *t);

#define FMT_BUF_MIN 32   /* the least a buffer given to the fmt_ and _cell functions holds */

/* Formats into buf (at least 32 bytes) and returns it; "NA" for NAN. */
const char *fmt_seconds(char *buf, double s);          /* 1.23 s, 45.6 ms, 789 µs */
const char *fmt_kib(char *buf, double kib);            /* 512 KiB, 12.3 MiB, 1.50 GiB */
const char *fmt_count(char *buf, double n);            /* 1,234,567 */
const char *fmt_num(char *buf, double v);              /* machine form: %.9g or NA */

void json_str(FILE *f, const char *s);
/* One CSV field (RFC 4180): as it is, or in double quotes (quotes doubled) when it holds a
 * comma, a quote or a line break. */
void out_csv_field(FILE *f, const char *s);
void json_num(FILE *f, double v);                      /* null for NAN */

#endif
