/* profile.h: the model of one or several callgrind/cachegrind profiles: functions merged by
 * (object, name), self and inclusive cost, call edges, per-line cost, allocation counts.
 *
 * Use (what `tare cg` and `tare count` do):
 *
 *     struct cg_profile *p = cg_profile_new();
 *     for each file: if (cg_read_file(p, path, NULL, &e) < 0) -> error (ERR_INPUT: bad file)
 *     if (cg_profile_finish(p, &e) < 0) -> error
 *     int ir = cg_event_index(p, "Ir");          // -1 if no file had that event
 *     uint64_t instructions = cg_total(p, ir);
 *     uint64_t allocations = cg_allocations(p);
 *     cg_profile_free(p);
 *
 * Several files read into one profile are summed (threads, dumps, parts). The library never
 * prints; a malformed file fails with "'FILE' line N: what" in the struct err (ERR_INPUT).
 */
#ifndef TARE_PROFILE_H
#define TARE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/arena.h"
#include "core/util/err.h"

#define CG_MAX_EVENTS 64

/* A function: all contexts callgrind wrote for it (recursion levels fib'2, --separate-callers
 * chains malloc'strdup'main) and all the files its inlined code came from, merged. */
struct cg_func {
    uint32_t obj;        /* string id of the object ("" for cachegrind files) */
    uint32_t name;       /* string id of the name without callgrind's suffixes */
    bool want_lines;     /* per-line cost is kept for this function */
    bool alloc_entry;    /* one of the libc allocator entry points */
    bool has_callers;    /* some other function calls it from outside its recursion */
    bool incl_bound;     /* its inclusive cost is an upper bound, not the exact figure */
    bool folded;         /* a PLT stub billed to the function it jumps to (no cost left) */
};

/* A call edge between two merged functions, summed over parts, files and contexts.
 * callgrind marks an activation of f made while f is already on the stack (f'2 .. f'N, with
 * its default --separate-recs=2 and above); the calls into such a marked context, and the
 * calls made from one, are counted apart, so that the calls into f's outermost level (depth
 * 1) are known: their costs add up to f's inclusive cost, without counting recursion twice. */
struct cg_edge {
    uint32_t caller, callee;   /* function indexes */
    uint64_t calls;
    uint64_t calls_rec;        /* of those, calls into a recursion-marked context of the callee */
    uint64_t calls_nest;       /* of those, calls from a recursion-marked context of the caller */
    uint64_t calls_both;       /* of those, calls from a marked context into a marked one */
    uint32_t stamp;            /* the last file (p->nfiles) that had this call */
    bool unmarked;             /* some file without any recursion mark had this call */
};

/* What a call edge is to its callee's inclusive cost (cg_edge_kind, after cg_profile_finish). */
enum cg_edge_kind {
    CG_EDGE_OUTER,       /* calls into the callee from outside its recursion: they add up */
    CG_EDGE_RECURSIVE,   /* a function calling itself: inside the calls above */
    CG_EDGE_CYCLE,       /* within a cycle of functions the profile's marks do not break */
};

/* Self cost of one source line of one function (only for functions with want_lines). */
struct cg_line {
    uint32_t func, file, line;
};

struct cg_profile {
    /* interned strings: ids index strs[] (offsets into pool) */
    char *pool;
    size_t pool_len, pool_cap;
    uint32_t *str_off;
    uint32_t nstr, str_cap;
    uint64_t *str_hash;        /* open addressing: cg_hash << 32 | string id + 1 (0 = empty) */
    uint32_t str_hash_cap;

    /* events, by name; every cost vector has nev entries */
    int nev;
    uint32_t ev_name[CG_MAX_EVENTS];   /* string ids */

    struct cg_func *funcs;
    uint64_t *self;            /* nfunc * nev */
    uint64_t *self_rec;        /* nfunc * nev: of self, the cost in recursion-marked contexts */
    uint64_t *incl;            /* nfunc * nev, filled by cg_profile_finish */
    uint32_t nfunc, func_cap;
    uint32_t *func_hash;       /* (obj, name) -> index + 1 */
    uint32_t func_hash_cap;

    struct cg_edge *edges;
    uint64_t *edge_cost;       /* nedge * nev: inclusive cost of those calls */
    uint64_t *edge_rec;        /* nedge * nev: of edge_cost, the calls into a marked context */
    uint64_t *edge_nest;       /* nedge * nev: of edge_cost, the calls from a marked context */
    uint64_t *edge_both;       /* nedge * nev: of edge_cost, the calls from a marked context into
                                  a marked one (with edge_rec and edge_nest: the four kinds of
                                  call between outermost and recursion levels,
                                  core/profile/flame.c) */
    unsigned char *edge_kind;  /* nedge: enum cg_edge_kind, filled by cg_profile_finish */
    uint32_t nedge, edge_cap;
    uint32_t *edge_hash;
    uint32_t edge_hash_cap;

    struct cg_line *lines;
    uint64_t *line_cost;       /* nline * nev */
    uint32_t nline, line_cap;
    uint32_t *line_hash;
    uint32_t line_hash_cap;

    uint64_t total[CG_MAX_EVENTS];   /* sum of all self cost lines (checked against totals:) */
    int nfiles, nparts;
    char *command;             /* the first file's cmd: (malloc'd), or NULL */
    int threads;               /* distinct thread: values seen, or 0 */
    int thread_seen[64];
    bool finished;
    int marked_files;          /* callgrind files with recursion marks ('2) in them */
    uint32_t folded;           /* PLT stubs folded into their targets by cg_profile_finish */
    uint32_t bounded;          /* functions whose inclusive cost is only a bound */
    uint64_t allocations;      /* filled by cg_profile_finish */
    bool contexts;             /* some name carried a --separate-callers chain */
    bool kept_callers;         /* read with keep_callers: no PLT stub folded (the contexts of a
                                  stub are folded, or not, as the profile read without them
                                  says: core/profile/flame.c does it there) */
    struct arena mem;          /* the tables above, once a large file is expected (huge set) */
};

/* ---- looking ahead: a reader that knows the keys of its next lookups asks for their
 * memory early (always inlined: GCC dropped the prefetches of a void helper it did not
 * inline, as a call without effect) ---- */

/* The hash of the edge and function tables' keys. */
static inline uint64_t cg_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* The slot of the string table a string of hash h is looked for in first. */
static inline __attribute__((always_inline)) void cg_prefetch_str(const struct cg_profile *p,
                                                                  uint32_t h)
{
    if (p->str_hash_cap)
        __builtin_prefetch(&p->str_hash[h & (p->str_hash_cap - 1)]);
}

/* The slot of the edge table the edge caller -> callee is looked for in first; with deep
 * (the slot itself read: asked for earlier), the edge it holds now and that edge's cost. */
static inline __attribute__((always_inline)) void cg_prefetch_edge(const struct cg_profile *p,
                                                                   uint32_t caller,
                                                                   uint32_t callee, bool deep)
{
    if (!p->edge_hash_cap)
        return;
    uint64_t k = (uint64_t)caller << 32 | callee;
    const uint32_t *slot = &p->edge_hash[cg_hash_u64(k) & (p->edge_hash_cap - 1)];
    if (!deep) {
        __builtin_prefetch(slot);
        return;
    }
    uint32_t x = *slot;
    if (x && x - 1 < p->nedge) {
        __builtin_prefetch(&p->edges[x - 1]);
        __builtin_prefetch(&p->edge_cost[(size_t)(x - 1) * p->nev]);
    }
}

/* Options for reading; NULL means none. */
struct cg_read_opts {
    /* keep per-line self cost of the functions whose name contains this text (NULL: none;
     * "" : every function) */
    const char *lines_for;
    /* ranges of the file lexed at once, in threads, while this thread replays them in order
     * (0: one per CPU this process may use, at most 8; 1: no threads); the
     * result is the same for any number */
    int threads;
    /* bytes per range (0: 512 KiB for up to three threads, 256 KiB for more); small ones
     * only to test the splitting */
    size_t chunk;
    /* tests only: lex every line with the general parser, not the loop made for the usual
     * lines; the result is the same */
    bool general_only;
    /* keep each --separate-callers context apart: a function's name is callgrind's with only
     * the recursion depth taken out ("deep'shared'left", not "deep"), so that the call edges
     * are those between contexts (for core/profile/flame.c's exact stacks) */
    bool keep_callers;
};

/* An empty profile (NULL on no memory), and freeing one. */
struct cg_profile *cg_profile_new(void);
void cg_profile_free(struct cg_profile *p);

/* Reads one callgrind or cachegrind file into p, adding to what is there. Streaming: memory
 * grows with the number of functions and edges, not with the file. Errors: ERR_SYSTEM (cannot
 * open/read), ERR_INPUT ("'PATH' line N: what" — malformed, truncated, totals not matching). */
int cg_read_file(struct cg_profile *p, const char *path, const struct cg_read_opts *o,
                 struct err *e);
/* Same, from memory; name is used in messages. */
int cg_read_mem(struct cg_profile *p, const char *name, const char *data, size_t len,
                const struct cg_read_opts *o, struct err *e);

/* Folds PLT stubs into their targets, computes inclusive costs and the allocation count;
 * call once after the last read.
 *
 * PLT stubs: a function callgrind names by an address in object "???" whose calls all go to
 * one other function, as many as it is called, is a stub in front of that function, not a
 * function to a user: its cost, callers and lines are billed to its target.
 *
 * Inclusive cost: where every file of the profile carries callgrind's recursion marks, the
 * inclusive cost of f is the sum of the costs of the calls into its outermost level (depth 1),
 * from any caller; exact. Where some file has none (--separate-recs=1, or no recursion at
 * all), a function on a cycle of calls seen in such a file (a strongly connected component
 * of more than one function) gets the least bound it can prove -- the calls into the cycle
 * from outside, and the calls into f from other functions -- and incl_bound. A direct
 * recursion alone is exact either way. No inclusive cost is above the program's total: one
 * that would be (a profile inconsistent in itself) is the total, marked as a bound. */
int cg_profile_finish(struct cg_profile *p, struct err *e);
/* The model's invariants after cg_profile_finish: the self costs add up to the total; no
 * inclusive cost is above it; the outer calls into a function whose inclusive cost is exact
 * add up to it. False and why where one fails (a bug: tests and the fuzz target ask). */
bool cg_profile_check(const struct cg_profile *p, char *why, size_t n);

/* The strongly connected components of the graph whose vertex v has the edges to
 * adj[off[v] .. off[v + 1]): comp[v] for each of the n vertices, numbered in reverse
 * topological order (a component's successors have lower numbers); returns how many, or -1
 * out of memory. Shared by the profile's cycles and the flame graph's levels. */
long cg_graph_scc(uint32_t n, const uint32_t *off, const uint32_t *adj, uint32_t *comp);

/* The index of an event by name ("Ir"), or -1. */
int cg_event_index(const struct cg_profile *p, const char *name);
const char *cg_event_name(const struct cg_profile *p, int ev);
/* The program's total of event ev: the sum of every self cost line of every part and file. */
uint64_t cg_total(const struct cg_profile *p, int ev);
/* Calls into the libc allocator entry points (malloc, calloc, realloc, reallocarray,
 * aligned_alloc, posix_memalign, memalign, valloc, pvalloc) from functions that are not
 * themselves entry points: realloc(NULL, n), which calls malloc inside glibc, counts once. */
uint64_t cg_allocations(const struct cg_profile *p);
/* The function (obj, name) — obj NULL: the first of that name — or UINT32_MAX. */
uint32_t cg_find(const struct cg_profile *p, const char *obj, const char *name);
/* The edge caller -> callee (function indexes), or UINT32_MAX. */
uint32_t cg_find_edge(const struct cg_profile *p, uint32_t caller, uint32_t callee);
/* Allocation counts by call site: the function that called an allocator entry point. A call
 * through a PLT stub that callgrind names by its address (0x...) and that calls nothing but one
 * entry point is billed to the stub's callers, each for the calls it made into the stub.
 * Returns the number of sites (*out malloc'd, sorted by nothing), or -1 out of memory. */
struct cg_site {
    uint32_t func;
    uint64_t allocations;
};
/* See above: the call sites of allocations. */
long cg_alloc_sites(const struct cg_profile *p, struct cg_site **out);
/* Functions x and y by cost of event ev (self, or inclusive), most costly first, then by name,
 * then by object: a total order (<0, 0, >0 as for qsort). */
int cg_cmp_cost(const struct cg_profile *p, int ev, bool inclusive, uint32_t x, uint32_t y);
/*
 * The functions with some cost of event ev (self or inclusive), those whose name contains grep
 * where grep is not NULL, most costly first by self (inclusive: inclusive) cost, then by name,
 * then by object; only the first n where n > 0. Returns how many (*out malloc'd: function
 * indexes), or -1 out of memory.
 */
long cg_top_funcs(const struct cg_profile *p, int ev, bool inclusive, const char *grep,
                  uint32_t n, uint32_t **out);
/* What cg_profile_diff compares: self cost, inclusive cost, or allocation counts by call site. */
enum cg_diff_by { CG_DIFF_SELF, CG_DIFF_INCLUSIVE, CG_DIFF_ALLOCS };
/* One row of a diff: a function (or call site) of either side, matched by name and the object's
 * base name (two builds in two work trees are one program). */
struct cg_diff_row {
    const char *name, *obj;     /* borrowed from the side that had it first (before, else after) */
    bool has_a, has_b;          /* present before / after */
    bool bound_a, bound_b;      /* CG_DIFF_INCLUSIVE: that side's cost is an upper bound */
    uint64_t a, b;              /* cost before and after (0 where absent) */
};
/* cg_profile_diff (below), with functions matched by name and the key of their object:
 * key_a[id] for an object of pa whose string id is id, key_b[id] for pb; equal keys are one
 * object (profile_match.h makes them). NULL keys: by the object's file name, as
 * cg_profile_diff. */
long cg_profile_diff_keyed(const struct cg_profile *pa, int ea, const struct cg_profile *pb,
                           int eb, enum cg_diff_by by, const uint32_t *key_a,
                           const uint32_t *key_b, struct cg_diff_row **out);
/*
 * Before (pa, event ea) against after (pb, event eb): every function with a cost on either side
 * (by CG_DIFF_ALLOCS: every allocation call site), biggest absolute change first, then by name,
 * then by object. Returns the number of rows (*out malloc'd; names borrowed from pa and pb), or
 * -1 out of memory.
 */
long cg_profile_diff(const struct cg_profile *pa, int ea, const struct cg_profile *pb, int eb,
                     enum cg_diff_by by, struct cg_diff_row **out);
/* The rows of a function's callers (or callees), as `tare cg callers` (callees) and the page's
 * function view show them: the calls that add up to its inclusive cost (outer: into its
 * outermost level from outside its recursion; callees: made by its outermost level) apart
 * from those inside them -- a function's calls into itself (recursive), calls made within a
 * cycle the profile cannot break (cycle, callers), calls into its recursion levels
 * (recursive, callers) or made by them (nested, callees). */
enum cg_row_kind { CG_ROW_OUTER, CG_ROW_RECURSIVE, CG_ROW_CYCLE, CG_ROW_NESTED };
struct cg_call_row {
    uint32_t edge, other;       /* the edge, and the function at its other end */
    enum cg_row_kind kind;
    uint64_t calls;
};
/* The rows of edges es[0..ne) (all into the function, callers, or out of it), unsorted, into
 * rows (room for 2 * ne); returns how many. */
uint32_t cg_call_rows(const struct cg_profile *p, const uint32_t *es, uint32_t ne, bool callers,
                      struct cg_call_row *rows);
/* The cost (event ev) of a row of cg_call_rows (callers as given there). */
uint64_t cg_call_row_cost(const struct cg_profile *p, const struct cg_call_row *r, bool callers,
                          int ev);
/* True if a and b hold the same model (functions, calls, lines, costs, in the same order);
 * else false and why. For tests: a file read in any number of ranges must give one answer. */
bool cg_profile_same(const struct cg_profile *a, const struct cg_profile *b, char *why, size_t n);
/* True if a function of this name (versioned or __libc_ form allowed) is an allocator entry point.
 */
bool cg_is_alloc_entry(const char *name);

/* The string of pool id; function f's self and inclusive costs (nev events each). */
static inline const char *cg_str(const struct cg_profile *p, uint32_t id)
{
    return p->pool + p->str_off[id];
}
static inline const uint64_t *cg_self(const struct cg_profile *p, uint32_t f)
{
    return p->self + (size_t)f * p->nev;
}
static inline const uint64_t *cg_incl(const struct cg_profile *p, uint32_t f)
{
    return p->incl + (size_t)f * p->nev;
}
/* The cost of all the calls of edge ed (event ev), with those nested inside others of them. */
static inline uint64_t cg_edge_all(const struct cg_profile *p, uint32_t ed, int ev)
{
    return p->edge_cost[(size_t)ed * p->nev + ev];
}
/* Whether edge ed is an outer, recursive or cycle edge (enum cg_edge_kind). */
static inline enum cg_edge_kind cg_edge_kind(const struct cg_profile *p, uint32_t ed)
{
    return (enum cg_edge_kind)p->edge_kind[ed];
}
/* The calls of edge ed from outside its callee's recursion, and their cost: what it adds to
 * the callee's inclusive cost (0 for a recursive or cycle edge). */
static inline uint64_t cg_edge_outer_calls(const struct cg_profile *p, uint32_t ed)
{
    const struct cg_edge *x = &p->edges[ed];
    return p->edge_kind[ed] == CG_EDGE_OUTER ? x->calls - x->calls_rec : 0;
}
static inline uint64_t cg_edge_outer_cost(const struct cg_profile *p, uint32_t ed, int ev)
{
    size_t k = (size_t)ed * p->nev + ev;
    return p->edge_kind[ed] == CG_EDGE_OUTER ? p->edge_cost[k] - p->edge_rec[k] : 0;
}
/* The calls of edge ed made by its caller's outermost level (not from inside its recursion),
 * and their cost. */
static inline uint64_t cg_edge_top_calls(const struct cg_profile *p, uint32_t ed)
{
    return p->edges[ed].calls - p->edges[ed].calls_nest;
}
static inline uint64_t cg_edge_top_cost(const struct cg_profile *p, uint32_t ed, int ev)
{
    size_t k = (size_t)ed * p->nev + ev;
    return p->edge_cost[k] - p->edge_nest[k];
}

/* Builders the reader uses (also usable to make a profile by hand). */
uint32_t cg_intern(struct cg_profile *p, const char *s, size_t len);
/* The hash cg_intern uses, and cg_intern with it known (s has no NUL in its len bytes and
 * h == cg_hash(s, len)): the reader's lexer threads hash the names it interns. */
uint32_t cg_hash(const char *s, size_t len);
/* cg_hash() in *h, and true where s[0..len) has no NUL byte (false: *h is not to be used). */
bool cg_hash_text(const char *s, size_t len, uint32_t *h);
uint32_t cg_intern_hashed(struct cg_profile *p, const char *s, size_t len, uint32_t h);
/* Finds (creating) the function (obj, name); name is already stripped. UINT32_MAX: no memory. */
uint32_t cg_func_get(struct cg_profile *p, uint32_t obj, uint32_t name,
                     const struct cg_read_opts *o);
/* Finds (creating) the edge caller->callee; UINT32_MAX: no memory. */
uint32_t cg_edge_get(struct cg_profile *p, uint32_t caller, uint32_t callee);
/* Finds (creating) the line record; UINT32_MAX: no memory. */
uint32_t cg_line_get(struct cg_profile *p, uint32_t func, uint32_t file, uint32_t line);
/* A hint before reading about `bytes` of profile: the hash tables of strings, functions and
 * call edges are made at the size such a profile needs, not grown to it (each growth rehashes
 * the whole table: a 27 MB profile grew them four to six times). The sizes are from the cc1
 * profile of bench/bench_cg.sh (a name or a function for each 4 KiB or so, an edge for each
 * 1 KiB), and go no further than its (16,384, 16,384 and 65,536 slots, 448 KiB together): a
 * larger file most often repeats its names (several parts, several runs). Where memory is
 * short, a table stays as it was, to grow as usual. From a file of CG_HUGE_BYTES on, the tables
 * made from then on are in huge pages (arena.h). */
#define CG_HUGE_BYTES ((uint64_t)8 << 20)
void cg_profile_expect(struct cg_profile *p, uint64_t bytes);
/* Adds an event by name, growing every cost vector; returns its index, or -1 (too many/no memory).
 */
int cg_event_add(struct cg_profile *p, uint32_t name);
/* The length of a callgrind function name without its recursion suffix ('2) and
 * --separate-callers chain ('caller'caller...); *rec set when a recursion suffix was there. */
size_t cg_strip_name(const char *s, size_t len, bool *rec);

#endif
