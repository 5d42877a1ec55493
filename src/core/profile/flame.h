/* flame.h: a profile's call stacks as a tree of frames (for flame graphs, folded stacks and the
 * `tare cg page`), built from the call edges of a finished cg_profile.
 *
 * Callgrind keeps call edges, not stacks; with its recursion marks (f'2: an activation of f made
 * while f is already on the stack) each function is two levels: its outermost activations and
 * its recursion levels. The tree is drawn from those levels so that its sums are the profile's
 * own numbers:
 *
 *   - the frames of a function together carry its self cost (`tare cg top`'s self), exactly:
 *     no cost is ever moved from one function to another;
 *   - the frames of a function that are not under another frame of the same function together
 *     carry its inclusive cost: its outermost level's frames are never under it, and its
 *     recursion levels always are (exact where the profile has recursion marks and the levels
 *     reached can be told apart, their calls depending on at most 32 functions' presence on
 *     the path; an estimate, flagged per function, where they cannot: tare-cg(1) STACKS).
 *
 * Recursion is collapsed as a user reads it: a function calling itself is one frame; A calling
 * B calling A again is drawn main;A;B;A(;B), the inner A (and B) holding every deeper level of
 * the recursion (their cost at all depths below the first), so that a cycle is drawn once, not
 * as a tower. Below a function with several callers the split of its callees' cost among its
 * frames is an estimate, in proportion to each frame's share (the frame's exact is false); the
 * recursion marks tell where a call can be made (a function's outermost level never under
 * itself, its recursion levels only under it), and the split follows that.
 *
 * With callgrind's --separate-callers=N, each function is written once per chain of up to N
 * callers ("deep'shared'left"). Read with keep_callers and given as opts ctx, those contexts are
 * the graph walked: every frame whose context has one caller context is then exact, so that
 * stacks up to N + 1 deep are exact however many callers their functions have.
 */
#ifndef TARE_FLAME_H
#define TARE_FLAME_H

#include <stdbool.h>
#include <stdint.h>

#include "core/util/err.h"
#include "core/profile/profile.h"

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

/* Per function of the profile, after a build (cg_flame.checked; where cut, see above): */
#define CG_FLAME_SELF_EST 1   /* its frames' self costs do not add up to its self cost */
#define CG_FLAME_INCL_EST 2   /* its outermost frames do not add up to its inclusive cost (or
                                 that cost is only a bound) */

struct cg_flame {
    int nev;
    uint32_t n, cap;
    struct cg_frame *frames;
    uint64_t *value;     /* n * nev: the frame's inclusive cost, per event */
    uint32_t merged;     /* frames merged into "other" frames, in all */
    uint64_t unreached;  /* of the total (first event), the cost no root function's calls hold */
    uint32_t context_depth;  /* built from contexts (opts ctx): the most callers one names */
    /* checked: the sums above were compared with the profile's: flag[f] (nfunc of them) says
     * which of function f's are not its own. Where frames were merged into "other" (cut),
     * the frames drawn hold less than the whole tree would, by at most what was merged: a
     * function is flagged only where its sums are off by more than that (surely an
     * estimate), and the others are exact or short by at most that much (cg_flame_check) */
    bool checked;
    bool cut;
    uint32_t nfunc;
    unsigned char *flag;
    uint32_t self_est, incl_est;   /* functions with each flag */
    uint32_t groups;     /* cycles drawn as one group of frames (their paths an estimate) */
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
 * values add up to the totals). Where the build was checked: the frames of every function not
 * flagged CG_FLAME_SELF_EST add up to its self cost, and the outermost ones of every function
 * not flagged CG_FLAME_INCL_EST to its inclusive cost (where cut: at most that, and short by
 * no more than the "other" frames not under its outermost frames hold). False and why where
 * one fails (a bug: the unit tests and the fuzz target ask). */
bool cg_flame_check(const struct cg_flame *fl, const struct cg_profile *p, char *why, size_t n);

#endif
