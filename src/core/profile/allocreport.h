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
 *
 * With stacks recorded (TARE_ALLOC_STACKS), the report line also has stacks=K maps=M sites=S
 * unwind=auto|fp|dwarf unwinder=libunwind|none by_fp=N by_dwarf=N peak_requested=N, and the
 * scope lines are followed by
 *
 *   tare-alloc-map 1 pid=P start=HEX end=HEX offset=HEX inode=N path=PATH     (M of these)
 *   tare-alloc-site 1 pid=P id=N label=L                                      (S of these)
 *   tare-alloc-stack 1 pid=P allocations=N bytes=N temporaries=N peak_bytes=N
 *       leaked_bytes=N frames=F,F,...                                         (K of these)
 *
 * maps are the executable mappings of /proc/PID/maps at the report; sites the scope labels
 * by id. A stack's frames are innermost first: return addresses in hex, sN for the scope of
 * site N, "cut" where the stack was cut (too deep), "many" for the stacks past the library's
 * table. by_fp and by_dwarf count the stacks taken by frame pointers and by libunwind;
 * peak_requested is the peak of requested bytes live, the moment peak_bytes of the stack
 * lines describes (heaptrack's peak); bytes, peak_bytes and leaked_bytes of a stack are
 * requested bytes. (The frames-per-line limit is 65,536.)
 */
#ifndef TARE_ALLOCREPORT_H
#define TARE_ALLOCREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

struct alloc_scope {
    char *label;
    uint64_t entries, allocs_incl, allocs_excl, bytes_incl, bytes_excl;
};

struct alloc_map {
    uint64_t start, end, offset, inode;
    char *path;
};

struct alloc_site {
    uint64_t id;
    char *label;
};

/* Frames that are no address (see above). */
#define ALLOC_FRAME_SCOPE 0xfffe000000000000ull     /* | the site id */
#define ALLOC_FRAME_CUT 0xffff000000000001ull
#define ALLOC_FRAME_MANY 0xffff000000000002ull
#define ALLOC_MAX_FRAMES 65536

struct alloc_stack {
    uint64_t allocations, bytes, temporaries, peak_bytes, leaked_bytes;
    uint64_t *frames;         /* innermost first */
    size_t nframes;
};

struct alloc_proc {
    long pid, ppid;
    char end[8];              /* exit, _exit, exec */
    char status[16];          /* ok, own-malloc */
    char *exe;
    uint64_t allocations, frees, bytes, peak_bytes, peak_slack, threads;
    struct alloc_scope *scopes;
    size_t nscopes;
    /* with stacks recorded (has_stacks): */
    bool has_stacks;
    char unwind[8];           /* auto, fp, dwarf */
    bool unwinder;            /* libunwind was loaded */
    uint64_t by_fp, by_dwarf, peak_requested;
    struct alloc_map *maps;
    size_t nmaps;
    struct alloc_site *sites;
    size_t nsites;
    struct alloc_stack *stacks;
    size_t nstacks;
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
