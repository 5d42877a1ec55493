/* flame.h: a profile's call stacks as a tree of frames (for flame graphs, folded stacks and the
 * `tare cg page`), built from the call edges of a finished cg_profile.
 *
 * Callgrind keeps call edges, not stacks. A frame's value is exact where every function on
 * its path above it has one caller (all its cost is on this path); below a function with
 * several callers, the cost of its callees is split among its frames in proportion to their
 * share of its inclusive cost: an estimate (the frame's exact is false). Recursion is cut:
 * a function's calls into itself, and calls back into a function already on the path, are no
 * new frames; their cost is inside the frame already on the path (with callgrind's recursion
 * marks, exactly: a recursive function is one frame with its whole inclusive cost).
 *
 * With callgrind's --separate-callers=N, each function is written once per chain of up to N
 * callers ("deep'shared'left"), and each call edge is between such contexts. Read with
 * keep_callers and given as opts ctx, those contexts are the graph walked: the same rule then
 * makes every frame whose context has one caller context exact, so that stacks up to N + 1
 * deep are exact however many callers their functions have; deeper, the split is the same
 * estimate, among contexts instead of functions.
 */
#ifndef TARE_FLAME_H
#define TARE_FLAME_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/profile.h"

#define CG_FRAME_ROOT UINT32_MAX           /* the program: frame 0, its value the total */
#define CG_FRAME_OTHER (UINT32_MAX - 1)    /* callees below the threshold, merged */

/* One frame: a function called along one path. Frames are in depth-first order (a frame's
 * descendants follow it), children biggest first (by the first event). */
struct cg_frame {
    uint32_t func;      /* function index, CG_FRAME_ROOT or CG_FRAME_OTHER */
    uint32_t parent;    /* frame index (UINT32_MAX for the root) */
    uint32_t depth;     /* 0 for the root */
    uint32_t merged;    /* CG_FRAME_OTHER: how many callees it stands for */
    bool exact;         /* the value is the profile's own, not an estimate */
};

struct cg_flame {
    int nev;
    uint32_t n, cap;
    struct cg_frame *frames;
    uint64_t *value;     /* n * nev: the frame's inclusive cost, per event */
    uint32_t merged;     /* frames merged into "other" frames, in all */
    uint64_t unreached;  /* of the total (first event), the cost no root function's calls hold */
    uint32_t context_depth;  /* built from contexts (opts ctx): the most callers one names */
};

/* Options of cg_flame_build. */
struct cg_flame_opts {
    /* a callee whose frame would be under this fraction of the total, for every event, is
     * merged with its parent's other small callees into one CG_FRAME_OTHER frame (0: none is) */
    double min_frac;
    /* the most frames (0: 4,000,000); more: ERR_INPUT, with a word to raise min_frac */
    uint32_t max_frames;
    /* the deepest path (0: 1,000); the callees of a frame that deep are merged into other */
    uint32_t max_depth;
    /* the same files read with keep_callers (cg_read_opts), or NULL: where they have
     * --separate-callers contexts, the frames follow the calls between contexts, not between
     * functions: exact down to the depth of the contexts (see above), an estimate below */
    const struct cg_profile *ctx;
};

/* Builds the frame tree of p (finished): frame 0 is the program (its value the total), its
 * children the functions no other calls (the entry points, thread starts), biggest first.
 * Returns 0, or -1 with e set (ERR_SYSTEM: no memory; ERR_INPUT: too many frames). */
int cg_flame_build(const struct cg_profile *p, const struct cg_flame_opts *o,
                   struct cg_flame *fl, struct err *e);
/* Frees the frames (fl itself is the caller's). */
void cg_flame_free(struct cg_flame *fl);
/* A frame's value of event ev, and its self value (its value less its children's). */
static inline uint64_t cg_frame_value(const struct cg_flame *fl, uint32_t i, int ev)
{
    return fl->value[(size_t)i * fl->nev + ev];
}
/* The self value of each frame for event ev into self[0..n) (the value less the children's). */
void cg_flame_self(const struct cg_flame *fl, int ev, uint64_t *self);

/* The tree's invariants: frame 0 is the root with the program's totals; each frame comes
 * after its parent, one deeper; no frame's children add up to more than it (so the self
 * values add up to the totals); no function twice on one path. False and why where one
 * fails (a bug: the unit tests and the fuzz target ask). */
bool cg_flame_check(const struct cg_flame *fl, const struct cg_profile *p, char *why, size_t n);

#endif
