/* alloctree.h: a stack table (allocstacks.h) as a tree of frames for a flame graph, with its
 * functions and the calls between them; of one table, or of AFTER compared with BEFORE.
 *
 * The stacks are exact, so the tree is too: a frame stands for one path of names from the
 * root, its value in each measure is the sum of the rows whose stack starts with that path,
 * and its own (self) value is the row that ends there. Nothing is estimated or merged. */
#ifndef TARE_ALLOCTREE_H
#define TARE_ALLOCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/profile/allocstacks.h"
#include "core/util/err.h"

#define ATREE_ROOT UINT32_MAX   /* the name of the root frame ("all") */

struct atree_frame {
    uint32_t name;                   /* an index into names, ATREE_ROOT for frame 0 */
    uint32_t depth;                  /* 0 for the root; a frame's parent is the last frame
                                        before it with depth one less */
    uint64_t v[ASTK_NMEASURES];      /* AFTER's rows through this path */
    uint64_t before[ASTK_NMEASURES]; /* BEFORE's row that ends at this path (0: none) */
    bool in_before;                  /* BEFORE has this path (as a stack or a stack's start) */
};

struct atree_func {                  /* one per name, by name index */
    uint64_t self[ASTK_NMEASURES];   /* AFTER's rows whose innermost frame it is */
    uint64_t incl[ASTK_NMEASURES];   /* AFTER's rows it is in (once a row, recursion or not) */
    uint64_t bself[ASTK_NMEASURES], bincl[ASTK_NMEASURES];   /* the same in BEFORE */
    bool in_after, in_before;        /* in a row of AFTER, of BEFORE */
};

struct atree_edge {                  /* a caller directly above a callee in AFTER's stacks */
    uint32_t caller, callee;         /* name indexes (never the same name) */
    uint64_t stacks;                 /* AFTER's rows with the pair (once a row) */
    uint64_t v[ASTK_NMEASURES];      /* the sum of those rows */
};

struct atree {
    const char **names;              /* both tables' names, sorted (strcmp), each once; they
                                        point into the tables, which must outlive the tree */
    uint32_t nnames;
    struct atree_frame *frames;      /* AFTER's paths, depth first; siblings by name */
    size_t nframes;
    struct atree_func *funcs;        /* nnames of them */
    struct atree_edge *edges;
    size_t nedges;
    uint64_t total[ASTK_NMEASURES], btotal[ASTK_NMEASURES];
};

/* The tree of after (compared with before, or NULL): 0, or -1 with e set (out of memory). */
int atree_build(const struct astk_table *after, const struct astk_table *before,
                struct atree *t, struct err *e);
void atree_free(struct atree *t);

#endif
