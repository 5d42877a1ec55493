/* allocstacks.h: allocations by call stack, from libtare-alloc's stack lines (allocreport.h)
 * or from a saved table: named, added up by stack, sorted, compared.
 *
 * A table holds one row per distinct stack of frame names (outermost first), with the five
 * measures: allocations, bytes (requested), temporaries (blocks freed by the next event after
 * their allocation), peak_bytes (requested bytes live at the process's peak of requested
 * bytes) and leaked_bytes (never freed by the process that allocated them). Frames are named
 * after the run: by function from the ELF symbols of the mapped object (elfsym.h), else
 * "OBJECT+0xVADDR"; a scope of <tare/scope.h> is "[scope LABEL]". Rows of several processes
 * add up; when they come from more than one program, each stack starts with the program's
 * name.
 *
 * The TSV form (astk_write_tsv, astk_read_tsv) is the saved form: the columns stack,
 * allocations, bytes, temporaries, peak_bytes, leaked_bytes (any order, others ignored), the
 * frames joined by ';'. A name is written by the rule of every output (esc.h: control
 * characters and bytes that are not UTF-8 as \xNN), and a ';' in it as \x3b, which the
 * reader turns back into ';' (the other escapes stay as text: a name with a tab reads back
 * with the four characters \x09).
 */
#ifndef TARE_ALLOCSTACKS_H
#define TARE_ALLOCSTACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/profile/allocreport.h"
#include "core/util/err.h"

enum astk_measure {
    ASTK_ALLOCS,
    ASTK_BYTES,
    ASTK_TEMPS,
    ASTK_PEAK,
    ASTK_LEAKED,
    ASTK_NMEASURES
};

/* "allocations", "bytes", "temporaries", "peak_bytes", "leaked_bytes". */
const char *astk_measure_name(int m);
/* The measure a name stands for (also "peak" and "leaked"): 0, or -1 when none. */
int astk_measure_parse(const char *s, int *m);

struct astk_row {
    uint32_t off, n;          /* frames: fr[off .. off + n), name ids, outermost first */
    uint64_t v[ASTK_NMEASURES];
};

struct astk_table {
    char **names;             /* frame names by id */
    uint32_t nnames, names_cap;
    uint32_t *fr;             /* the rows' frames */
    size_t nfr, fr_cap;
    struct astk_row *rows;
    size_t nrows, rows_cap;
    uint64_t total[ASTK_NMEASURES];
    /* what the rows came from (from a report; zero from a TSV) */
    size_t nprocs;
    uint64_t by_fp, by_dwarf;  /* stacks taken by frame pointers and by libunwind */
    uint64_t no_stack;         /* allocations counted with no stack ("[no stack]" row) */
    bool no_unwinder;          /* a process wanted libunwind and had none */
    unsigned changed;          /* objects changed since the run: named by address */
    unsigned unreadable;       /* objects that could not be read: named by address */
    /* private: the name and stack indexes; the names as written, made as asked for */
    char **esc;
    uint32_t nesc;
    uint32_t *name_idx, name_mask;
    uint32_t *row_idx;
    size_t row_mask;
};

/* Names a frame address of process p into buf; the default (NULL in opts) reads the ELF
 * symbols of the mapped files, once each. */
typedef const char *(*astk_namer)(void *ctx, const struct alloc_proc *p, uint64_t addr,
                                  char *buf, size_t n);

struct astk_opts {
    long ppid;                /* the reports of processes with this parent, or every one (< 0) */
    astk_namer namer;         /* NULL: the ELF symbols */
    void *namer_ctx;
};

/* The table of the stack lines of r's processes (those that have them; allocations of a
 * process without them are one "[no stack]" row): 0, or -1 with e set. */
int astk_from_report(const struct alloc_report *r, const struct astk_opts *o,
                     struct astk_table *t, struct err *e);

/* Adds v to the row of the stack names[0..n) (outermost first), made when new. */
int astk_add(struct astk_table *t, const char *const *names, size_t n,
             const uint64_t v[ASTK_NMEASURES], struct err *e);

/* Sorts the rows by measure m, largest first, ties by the stack's text. */
void astk_sort(struct astk_table *t, int m);

/* The stack of a row as text, frames joined by sep, names written as in the TSV; malloc'd. */
char *astk_stack_text(const struct astk_table *t, const struct astk_row *row, const char *sep);
/* The same innermost frame first, at most max frames, then sep and "..." where there are
 * more (for people: "leaf < caller < ..."). */
char *astk_stack_text_inner(const struct astk_table *t, const struct astk_row *row,
                            const char *sep, uint32_t max);

/* Writes the TSV form: a header and every row (in the table's order). */
void astk_write_tsv(const struct astk_table *t, FILE *f, size_t limit);

/* Parses a TSV of the form above (name for messages: "FILE"): 0, or -1 with e set
 * (ERR_INPUT, "NAME line N: ..."). A stack twice is an error. */
int astk_parse_tsv(const char *text, size_t len, const char *name, struct astk_table *t,
                   struct err *e);
int astk_read_tsv(const char *path, struct astk_table *t, struct err *e);

/* Frees what t holds (t itself is the caller's). */
void astk_free(struct astk_table *t);

/* One stack of a comparison: its values in before and in after (0 where absent). */
struct astk_delta {
    uint32_t row_before, row_after;   /* UINT32_MAX where absent */
    uint64_t before[ASTK_NMEASURES], after[ASTK_NMEASURES];
};

/* The stacks of a and b, matched by their names, sorted by the change of measure m, largest
 * first (by absolute value; then by the stack's text). *out is malloc'd. */
int astk_diff(const struct astk_table *a, const struct astk_table *b, int m,
              struct astk_delta **out, size_t *n, struct err *e);

#endif
