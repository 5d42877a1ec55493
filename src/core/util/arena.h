/* arena.h: memory for tables looked up in no order (the callgrind reader's id table, a
 * profile's hash tables, functions and edges), cut from regions of 2 MiB aligned to 2 MiB.
 * With `huge` set, each region is offered to the kernel's transparent huge pages
 * (madvise(MADV_HUGEPAGE); refused where there are none, and then a region fills page by page
 * as malloc's memory does): one TLB entry for 2 MiB, not 512, where a walk of the page tables
 * costs most, in a virtual machine. Blocks are given back all at once, with the arena.
 * (A huge page is 2 MiB to clear when first touched: for large inputs only.) */
#ifndef TARE_ARENA_H
#define TARE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARENA_REGION ((size_t)2 << 20)

struct arena {
    struct arena_map {
        char *at;
        size_t len;
        bool own;               /* one block's own mapping, not a region cut up */
    } *maps;                    /* every mapping made, for arena_owns() and arena_free() */
    uint32_t nmaps, cap;
    char *next, *end;           /* what is left of the last region */
    bool huge;                  /* offer new regions to huge pages */
};

/* n bytes, 64-byte aligned, not zeroed (fresh regions are zero; reused memory is not: there
 * is none); a block longer than a region gets a mapping of its own. NULL: no memory. */
void *arena_alloc(struct arena *a, size_t n);
/* Whether p points into memory of a. */
bool arena_owns(const struct arena *a, const void *p);
/* A block of a that is no longer used: unmapped if it had a mapping of its own (a large table
 * outgrown), else left for arena_free(). */
void arena_release(struct arena *a, void *p);
/* Unmaps everything; a is empty again (huge is kept). */
void arena_free(struct arena *a);

#endif
