/* allocreport.h: reads the reports libtare-alloc.so writes, and sums them per process tree.
 *
 * The format (version 1) is line-based, one report per process image, each report written
 * with a single write(2) so that reports from concurrent processes never interleave:
 *
 *   tare-alloc 1 pid=P ppid=P end=E status=S allocations=N frees=N bytes=N peak_bytes=N
 *       peak_slack=N threads=N scopes=K exe=PATH
 *   tare-alloc-scope 1 pid=P label=L entries=N allocs_incl=N allocs_excl=N bytes_incl=N
 *       bytes_excl=N                                   (K of these follow their report line)
 *
 * (each on one line). Fields are KEY=VALUE separated by single spaces, in any order; keys a
 * reader does not know are ignored, so later versions may add fields. Numbers are unsigned
 * decimal. end is exit, _exit or exec (the image was replaced: the same pid reports again).
 * status is ok, or own-malloc (the executable defines malloc: its allocations were not
 * seen). Text values (exe, label) have every byte outside '!'..'~' and '%' written as %XX.
 * peak_bytes is the highest total of live blocks' usable sizes; the true peak lies within
 * peak_bytes ± peak_slack. Lines that do not start with "tare-alloc" are not reports and
 * are skipped (the report may share stderr with the program's own output).
 */
#ifndef TARE_ALLOCREPORT_H
#define TARE_ALLOCREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct alloc_scope {
    char *label;
    uint64_t entries, allocs_incl, allocs_excl, bytes_incl, bytes_excl;
};

struct alloc_proc {
    long pid, ppid;
    char end[8];              /* exit, _exit, exec */
    char status[16];          /* ok, own-malloc */
    char *exe;
    uint64_t allocations, frees, bytes, peak_bytes, peak_slack, threads;
    struct alloc_scope *scopes;
    size_t nscopes;
};

struct alloc_report {
    struct alloc_proc *procs;
    size_t nprocs;
};

/* Parses text (len bytes, need not end in a NUL). On error (ERR_INPUT, "line N: ...")
 * r is left empty. */
int allocreport_parse(const char *text, size_t len, struct alloc_report *r, struct err *e);
int allocreport_read_file(const char *path, struct alloc_report *r, struct err *e);
void allocreport_free(struct alloc_report *r);

/* Totals over the reports of the processes whose ppid is `ppid` (the images a command's
 * own pid went through), or over every report when ppid < 0: allocations, frees and bytes
 * add up; peak_bytes is the largest single process's peak (and peak_slack its slack);
 * scopes are merged by label and sorted by exclusive allocations, most first. */
struct alloc_totals {
    size_t nprocs;
    uint64_t allocations, frees, bytes, peak_bytes, peak_slack;
    struct alloc_scope *scopes;   /* labels borrowed from the report */
    size_t nscopes;
    const struct alloc_proc *own_malloc;   /* the first report with status own-malloc */
};

/* Fills t as said above; the caller frees it with allocreport_totals_free. */
int allocreport_sum(const struct alloc_report *r, long ppid, struct alloc_totals *t,
                    struct err *e);
void allocreport_totals_free(struct alloc_totals *t);

#endif
