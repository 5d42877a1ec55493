/* export.h: results in the formats CI tools read: bencher's BMF JSON, github-action-benchmark's
 * customSmallerIsBetter array, JUnit XML. Commands fill a set of records; this writes them. */
#ifndef TARE_EXPORT_H
#define TARE_EXPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/util/err.h"

enum export_format { EXPORT_BMF, EXPORT_GAB, EXPORT_JUNIT, EXPORT_NFORMATS };
/* "bmf", "gab", "junit": the option names' tails (--export-bmf ...). */
extern const char *const export_format_names[EXPORT_NFORMATS];

/* What became of one measure: a JUnit test case's outcome. */
enum export_state {
    EXPORT_PASS,        /* measured (or checked) and fine */
    EXPORT_FAILED,      /* the measurement failed: the value is NA */
    EXPORT_REGRESSED,   /* a regression (or a budget exceeded) */
    EXPORT_SKIPPED,     /* not checked (history check: too few points, ...) */
};

/* One series' measure. Strings are copied by export_add. */
struct export_rec {
    const char *bench;      /* the series' name */
    const char *measure;    /* tare's metric name: median_s, ratio, instructions, ... */
    double value;           /* NAN for NA: then left out of BMF and gab, never written as 0 */
    double lo, hi;          /* the interval or spread around value; NAN when there is none */
    const char *range_what; /* what lo..hi is ("median - MAD .. median + MAD", "95% CI") */
    long runs;              /* the runs (or pairs) behind value; 0 when it is not a run count */
    enum export_state state;
    const char *note;       /* why it failed, regressed or was skipped; NULL when none */
};

/* A growing list of records, named for the JUnit test suite ("tare wall"). */
struct export_set {
    char *suite;
    struct export_rec *r;
    size_t n, cap;
};

/* Starts an empty set; 0, or -1 with e set when out of memory. */
int export_init(struct export_set *s, const char *suite, struct err *e);
/* Appends a copy of r (its strings copied); 0, or -1 with e set when out of memory. */
int export_add(struct export_set *s, const struct export_rec *r, struct err *e);
void export_free(struct export_set *s);

/* The unit a measure is in ("s", "instructions", "bytes", "ratio"), from its name. */
const char *export_unit(const char *measure);

/*
 * Writes the set to path in one format: a temporary beside it renamed into place, so the
 * file is whole or not there. Records whose value is NA are left out of BMF and gab (those
 * formats have no NA) and counted in *left_out (may be NULL); JUnit keeps them as failing
 * test cases. 0, or -1 with e set (ERR_INPUT when the file cannot be written,
 * ERR_INTERRUPTED when a signal came first).
 */
int export_write(const struct export_set *s, enum export_format fmt, const char *path,
                 size_t *left_out, struct err *e);

/* Room for the name of a file's temporary (PATH.tmp.PID). */
#define EXPORT_TMP_MAX (PATH_MAX + 32)
/* A file written whole or not at all, in two steps: export_file_open opens the temporary
 * beside path (its name into tmp, EXPORT_TMP_MAX bytes) for writing, or NULL with e set;
 * export_file_commit closes f and renames the temporary onto path, or removes it after a
 * write error or an interrupt. 0, or -1 with e set (ERR_INPUT, ERR_INTERRUPTED). A path
 * that exists and is not a regular file (/dev/stdout, a pipe) is written directly (tmp
 * empty): no temporary can replace it, and a write error is still an error. */
FILE *export_file_open(const char *path, char *tmp, struct err *e);
int export_file_commit(FILE *f, const char *tmp, const char *path, struct err *e);

/* Appends text[0..len) to path (made if missing) all or nothing: one write of it all at the
 * end; when it cannot all be written (a full disk, a file size limit), a regular file is cut
 * back to its old size, so no cut block stays. 0, or -1 with e set (ERR_INPUT). */
int export_append_whole(const char *path, const char *text, size_t len, struct err *e);

#endif
