/* flame.c: the tree of call stacks (frames) of a profile, from its call edges: what folded
 * stacks, flame graphs and `tare cg page` draw. See flame.h for what is exact and what is not.
 *
 * How: each function is split into its levels (outermost, recursion); each call edge into up
 * to four columns between levels (callgrind's marks tell them apart). A level whose calls can
 * or cannot be made depending on which functions are already on the path (its outermost level
 * under itself: never; its recursion levels outside it: never) has one state per kind of path
 * that reaches it, told from its callers where the marks prove which; each column of such a
 * level is given to the states where it can be made (where their shares of the callers' calls
 * hold too little for it, more of those calls is moved to them from the callers' other
 * states: settle_masses). The states and the columns between them
 * form a graph whose cycles (a recursion among recursion levels, or a cycle the marks do not
 * break) are drawn as groups; each state or group is then a unit with a fixed content (self
 * costs and calls out), and every frame of a unit gets its share of that content, rounded so
 * that the frames of a unit together get exactly its content: the sums of flame.h follow. */
#include "core/profile/flame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define MAXT 32        /* functions whose presence one level's calls depend on, at most */
/* (more is no cure: on Debian's CPython, the levels of its eval cycle depend on up to 663
 * of 678 functions; following only the 16 or 32 costliest everywhere made 51,000 states in
 * place of 2,700, MAXST overflowing at 262 levels, 5x the time, and left 578 or 639
 * functions' outermost frames an estimate in place of 668: issue 33) */
#define MAXST 64      /* states of one level, at most */
#define ROUNDS 200    /* rounds of the states' masses at most (then their jitter settled), */
#define ROUND_WORK 4000000    /* and about this much work (states, calls, shares) in all */
#define CTX_MAX 16      /* contexts of a function that recursed kept apart, at most */
#define BITS_MAX ((size_t)64 << 20)   /* memory for the presence sets; more: no states */

enum when { W_ALWAYS, W_NEVER, W_PRESENT, W_ABSENT };

struct level {
    uint32_t base;          /* function of the profile (the frame's name) */
    uint32_t c0, nc;        /* its columns (calls out): col[c0 .. c0 + nc) */
    uint32_t i0, ni;        /* the columns into it: incol[i0 .. i0 + ni) */
    uint32_t s0, ns;        /* its states: st[s0 .. s0 + ns) */
    uint32_t t[MAXT];       /* the functions (presence indexes) its states tell apart */
    uint8_t nt;
    bool deep;              /* a recursion level */
    bool live;              /* has a cost or a call */
    bool recur;             /* an outermost level that can recur (no marks tell): no states */
    bool certain;           /* its callers tell its states apart */
    bool reached;           /* reached from a level nobody calls */
};

struct column {
    uint32_t from, to;      /* levels */
    uint8_t when, bit;      /* where it can be made, at `from` (enum when; bit of from's t) */
};

struct state {
    uint32_t level, sig, unit;
    bool unknown;           /* what is on the path is not known: its calls drawn anywhere */
    uint32_t next;          /* the next state of its level, or NONE */
    uint32_t t0, nt;        /* its calls (one per column of its level): tr[t0 .. t0 + nt) */
    uint32_t pos;           /* its place among its unit's members */
    uint32_t ue0, nue;      /* its entries among its unit's (ue[unit's e0 + ue0 ..)) */
    uint32_t e0, ne;        /* its entries: columns given to it, then its self cost */
};

struct trans {               /* a state's call through one column */
    uint32_t col, target;
    bool ok;                /* can be made in that state */
};

struct uentry {
    uint32_t member;        /* the state it is of */
    uint32_t col;           /* column, or NONE: the member's self cost */
    uint32_t target;        /* the state the call reaches, or NONE */
    uint32_t tfunc;         /* its function (of p), or NONE */
    bool exact;             /* all of the column is this state's (not an estimate's share) */
};

struct unit {
    uint32_t m0, nm;        /* member states: umem[m0 .. m0 + nm) */
    uint32_t e0, ne;        /* entries: ue[e0 .. e0 + ne) (a group's calls within it left out) */
    bool group;
};

struct cand {                /* an entry that may get one unit more, and its fraction */
    uint32_t j;
    uint64_t frac;
};

struct build {
    const struct cg_profile *p;      /* the profile (names, self and inclusive costs) */
    const struct cg_profile *g;      /* the graph walked: p, or its contexts */
    const uint32_t *base;            /* g's function -> p's (NULL: the same) */
    struct cg_flame *fl;
    int nev;
    double min_frac;
    uint32_t max_frames, max_depth;
    struct err *e;
    bool cut;                        /* some callees were merged or cut */

    uint32_t nlev;
    struct level *lev;
    uint64_t *lself;                 /* nlev * nev */
    uint32_t ncol;
    struct column *col;
    uint64_t *ccost;                 /* ncol * nev */
    uint32_t *incol;
    uint32_t nst, st_cap;
    struct state *st;
    uint32_t ntr, tr_cap;
    struct trans *tr;
    uint64_t *smass;                 /* nst * nev */
    uint32_t nse;
    uint32_t *secol;                 /* the entries of the states: column or NONE */
    uint32_t *setgt;                 /* the state the call reaches */
    uint64_t *seamt;                 /* nse * nev */
    bool *seexact;
    uint32_t *iat, *iadj;            /* states: calls into states of the same unit */
    uint32_t nunit;
    struct unit *un;
    uint32_t *umem;
    uint32_t nue;
    struct uentry *ue;
    uint64_t *uamt, *uacc;           /* nue * nev: amounts, and what frames got so far */
    uint64_t *umass, *ucum;          /* (nunit + 1) * nev: content, and what frames got */
    uint64_t *deficit;               /* nunit * nev: content the calls into a unit do not bring */
    uint64_t *total;
    struct cand *cand;               /* share()'s scratch: an entry per entry of a unit */
    struct tmpl **tmpl_of;           /* per state: its group's drawing entered there, once made */
    uint8_t *nokbuf;                 /* transport()'s scratch: a count per column of a level */
    uint32_t *name_rank;             /* per function of p: its place by name (the same name: the
                                        same place), for kid_before */
    uint32_t *first_kid;             /* per state: kids_merge()'s scratch (NONE between uses) */
    uint64_t *pass_piece;            /* pass_over()'s scratch: a piece per entry of a unit */
};

static void *xcalloc(struct build *b, size_t n, size_t size)
{
    void *q = calloc(n ? n : 1, size);
    if (!q)
        err_set(b->e, ERR_SYSTEM, "out of memory");
    return q;
}

static uint32_t base_of(const struct build *b, uint32_t gf)
{
    return b->base ? b->base[gf] : gf;
}

/* a + b - c - d, from a profile that may be at odds with itself: at least 0 */
static uint64_t part4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    __int128 r = (__int128)a + b - c - d;
    return r < 0 ? 0 : r > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- levels and columns ---- */

/* Which level each function of g draws into: outer[f] (its outermost level) and deep[f] (its
 * recursion levels). A function that recursed (some context of it has recursion levels) is
 * one recursion level, all its contexts together, and one outermost level where it has more
 * than CTX_MAX contexts: its contexts tell its callers within a recursion, which make a tower
 * or a flood of paths, not exact frames. 0, or -1 out of memory. */
static int level_map(struct build *b, uint32_t *outer, uint32_t *deep)
{
    const struct cg_profile *g = b->g;
    int nev = b->nev;
    uint32_t *first = xcalloc(b, (size_t)b->p->nfunc + 1, sizeof *first);
    bool *recursed = xcalloc(b, (size_t)b->p->nfunc + 1, sizeof *recursed);
    uint32_t *nctx = xcalloc(b, (size_t)b->p->nfunc + 1, sizeof *nctx);
    if (!first || !recursed || !nctx) {
        free(first), free(recursed), free(nctx);
        return -1;
    }
    for (uint32_t f = 0; f < b->p->nfunc; f++)
        first[f] = NONE;
    for (uint32_t f = 0; f < g->nfunc; f++) {
        for (int k = 0; k < nev && !recursed[base_of(b, f)]; k++)
            recursed[base_of(b, f)] = g->self_rec[(size_t)f * nev + k] != 0;
    }
    for (uint32_t x = 0; x < g->nedge; x++)
        if (g->edges[x].calls_rec)
            recursed[base_of(b, g->edges[x].callee)] = true;
    for (uint32_t f = 0; f < g->nfunc; f++)
        nctx[base_of(b, f)]++;
    for (uint32_t f = 0; f < g->nfunc; f++) {
        uint32_t bf = base_of(b, f);
        if (first[bf] == NONE)
            first[bf] = f;
        deep[f] = 2 * first[bf] + 1;
        outer[f] = b->base && recursed[bf] && nctx[bf] > CTX_MAX ? 2 * first[bf] : 2 * f;
    }
    free(first), free(recursed), free(nctx);
    if (!b->base)
        return 0;
    /* a context of a PLT stub the profile folded into its target (cg_profile_finish; the
     * contexts' read may not have found it one): drawn in its one callee's levels */
    uint32_t *callee = xcalloc(b, (size_t)g->nfunc + 1, sizeof *callee);
    if (!callee)
        return -1;
    for (uint32_t f = 0; f < g->nfunc; f++)
        callee[f] = NONE;
    for (uint32_t x = 0; x < g->nedge; x++) {
        uint32_t a = g->edges[x].caller, c = g->edges[x].callee;
        if (a != c)
            callee[a] = callee[a] == NONE ? c : NONE - 1;
    }
    for (uint32_t f = 0; f < g->nfunc; f++)
        if (b->p->funcs[base_of(b, f)].folded && callee[f] < NONE - 1 &&
            !b->p->funcs[base_of(b, callee[f])].folded) {
            outer[f] = outer[callee[f]];
            deep[f] = deep[callee[f]];
        }
    free(callee);
    return 0;
}

/* The levels' self costs: a function's cost in recursion-marked contexts on its recursion
 * level, the rest on its outermost level. */
static void level_self(struct build *b, const uint32_t *outer, const uint32_t *deep)
{
    const struct cg_profile *g = b->g;
    int nev = b->nev;
    for (uint32_t f = 0; f < g->nfunc; f++) {
        for (int d = 0; d < 2; d++) {
            struct level *l = &b->lev[2 * f + d];
            l->base = base_of(b, f);
            l->deep = d;
            l->recur = !d && b->p->funcs[l->base].incl_bound;
        }
        if (g->funcs[f].folded)
            continue;
        for (int k = 0; k < nev; k++) {
            uint64_t s = cg_self(g, f)[k], r = g->self_rec[(size_t)f * nev + k];
            if (r > s)
                r = s;
            b->lself[(size_t)outer[f] * nev + k] += s - r;
            b->lself[(size_t)deep[f] * nev + k] += r;
            b->lev[outer[f]].live |= s - r != 0;
            b->lev[deep[f]].live |= r != 0;
        }
    }
}

/* The columns of each level: each call edge's four kinds (tmp: 4 * nev), counted, then
 * filled. 0, or -1 out of memory. */
static int make_columns(struct build *b, const uint32_t *outer, const uint32_t *deep,
                        uint64_t *tmp)
{
    const struct cg_profile *g = b->g;
    int nev = b->nev;
    uint32_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            uint32_t at = 0;
            for (uint32_t v = 0; v < b->nlev; v++) {
                b->lev[v].c0 = at;
                at += b->lev[v].nc;
                b->lev[v].nc = 0;
            }
            b->ncol = n;
            b->col = xcalloc(b, (size_t)n + 1, sizeof *b->col);
            b->ccost = xcalloc(b, ((size_t)n + 1) * nev, sizeof *b->ccost);
            if (!b->col || !b->ccost)
                return -1;
        }
        for (uint32_t x = 0; x < g->nedge; x++) {
            const struct cg_edge *ed = &g->edges[x];
            if (g->funcs[ed->caller].folded || g->funcs[ed->callee].folded)
                continue;
            for (int k = 0; k < nev; k++) {
                size_t i = (size_t)x * nev + k;
                uint64_t all = g->edge_cost[i], rec = g->edge_rec[i], nest = g->edge_nest[i],
                         both = g->edge_both[i];
                tmp[0 * nev + k] = part4(all, both, rec, nest);
                tmp[1 * nev + k] = part4(rec, 0, both, 0);
                tmp[2 * nev + k] = part4(nest, 0, both, 0);
                tmp[3 * nev + k] = both;
            }
            for (int kind = 0; kind < 4; kind++) {
                uint32_t from = kind >> 1 ? deep[ed->caller] : outer[ed->caller],
                         to = kind & 1 ? deep[ed->callee] : outer[ed->callee];
                bool any = false;
                for (int k = 0; k < nev; k++)
                    any |= tmp[kind * nev + k] != 0;
                if (!any || from == to)
                    continue;
                struct level *l = &b->lev[from];
                if (pass == 0) {
                    l->nc++;
                    n++;
                    continue;
                }
                uint32_t c = l->c0 + l->nc++;
                b->col[c] = (struct column){.from = from, .to = to};
                memcpy(b->ccost + (size_t)c * nev, tmp + kind * nev, nev * sizeof *tmp);
                b->lev[from].live = b->lev[to].live = true;
            }
        }
    }
    return 0;
}

/* Level 2f of function f of g is its outermost level, 2f + 1 its recursion levels (with
 * contexts, those of all the contexts of one function are one level: the chains of callers
 * within a recursion tell nothing a user reads, and drawn apart they make a tower). Each call
 * edge f -> h is up to four columns: outermost to outermost (its calls less those into or
 * from a recursion level), outermost to recursion (into), recursion to outermost (from),
 * recursion to recursion (both). A level's calls into itself are inside its calls already. */
static int make_levels(struct build *b)
{
    const struct cg_profile *g = b->g;
    int nev = b->nev;
    b->nlev = 2 * g->nfunc;
    b->lev = xcalloc(b, (size_t)b->nlev + 1, sizeof *b->lev);
    b->lself = xcalloc(b, ((size_t)b->nlev + 1) * nev, sizeof *b->lself);
    uint64_t *tmp = xcalloc(b, (size_t)4 * nev + 1, sizeof *tmp);
    uint32_t *deep = xcalloc(b, (size_t)g->nfunc + 1, sizeof *deep);
    uint32_t *outer = xcalloc(b, (size_t)g->nfunc + 1, sizeof *outer);
    int rc = -1;
    if (!b->lev || !b->lself || !tmp || !deep || !outer || level_map(b, outer, deep) < 0)
        goto done;
    level_self(b, outer, deep);
    if (make_columns(b, outer, deep, tmp) < 0)
        goto done;
    /* the columns into each level */
    b->incol = xcalloc(b, (size_t)b->ncol + 1, sizeof *b->incol);
    if (!b->incol)
        goto done;
    for (uint32_t c = 0; c < b->ncol; c++)
        b->lev[b->col[c].to].ni++;
    uint32_t at = 0;
    for (uint32_t v = 0; v < b->nlev; v++) {
        b->lev[v].i0 = at;
        at += b->lev[v].ni;
        b->lev[v].ni = 0;
    }
    for (uint32_t c = 0; c < b->ncol; c++) {
        struct level *l = &b->lev[b->col[c].to];
        b->incol[l->i0 + l->ni++] = c;
    }
    rc = 0;
done:
    free(tmp), free(deep), free(outer);
    return rc;
}

/* ---- which functions can be on the path: the states of each level ---- */

static int explore(struct build *b, const uint32_t *rel, const uint64_t *must,
                   const uint64_t *may, size_t words);

static bool bit(const uint64_t *set, uint32_t r)
{
    return set[r >> 6] >> (r & 63) & 1;
}

/* The functions whose presence on the path matters (a function with recursion levels, or
 * whose outermost level is on a cycle of the graph): rel[f] their index, NONE for the others.
 * Returns how many, or -1 out of memory. */
static long relevant(struct build *b, uint32_t *rel)
{
    uint32_t nlev = b->nlev;
    uint32_t *off = xcalloc(b, (size_t)nlev + 2, sizeof *off);
    uint32_t *adj = xcalloc(b, (size_t)b->ncol + 1, sizeof *adj);
    uint32_t *comp = xcalloc(b, (size_t)nlev + 1, sizeof *comp);
    uint32_t *csize = xcalloc(b, (size_t)nlev + 1, sizeof *csize);
    long nrel = -1;
    if (!off || !adj || !comp || !csize)
        goto done;
    for (uint32_t v = 0; v < nlev; v++)
        off[v + 1] = off[v] + b->lev[v].nc;
    for (uint32_t c = 0; c < b->ncol; c++)
        adj[c] = b->col[c].to;
    if (cg_graph_scc(nlev, off, adj, comp) < 0) {
        err_set(b->e, ERR_SYSTEM, "out of memory");
        goto done;
    }
    for (uint32_t v = 0; v < nlev; v++)
        csize[comp[v]]++;
    nrel = 0;
    for (uint32_t f = 0; f < b->p->nfunc; f++)
        rel[f] = NONE;
    for (uint32_t v = 0; v < nlev; v++) {
        const struct level *l = &b->lev[v];
        if (l->live && (l->deep || (csize[comp[v]] > 1 && !l->recur)) && rel[l->base] == NONE)
            rel[l->base] = (uint32_t)nrel++;
    }
done:
    free(off), free(adj), free(comp), free(csize);
    return nrel;
}

/* The levels reached from the levels nobody calls, marked, into order in the order found;
 * how many. */
static uint32_t reach(struct build *b, uint32_t *order)
{
    uint32_t nord = 0;
    for (uint32_t v = 0; v < b->nlev; v++)
        if (b->lev[v].live && b->lev[v].ni == 0) {
            b->lev[v].reached = true;
            order[nord++] = v;
        }
    for (uint32_t i = 0; i < nord; i++) {
        const struct level *l = &b->lev[order[i]];
        for (uint32_t c = l->c0; c < l->c0 + l->nc; c++) {
            uint32_t w = b->col[c].to;
            if (!b->lev[w].reached) {
                b->lev[w].reached = true;
                order[nord++] = w;
            }
        }
    }
    return nord;
}

/* The presence sets (words each) of the levels, what the functions of rel on every path to
 * a level are (must) and on some (may), found by a worklist: a level again where one of its
 * callers' sets changed (each can only lose must and gain may bits: at most 2 * nrel changes
 * a level). False where there was no memory for the worklist. */
static bool settle_presence(struct build *b, const uint32_t *rel, const uint32_t *order,
                            uint32_t nord, size_t words, uint64_t *must, uint64_t *may)
{
    uint32_t nlev = b->nlev;
    for (uint32_t v = 0; v < nlev; v++) {
        uint64_t *mu = must + v * words, *ma = may + v * words;
        const struct level *l = &b->lev[v];
        bool src = l->ni == 0;
        for (size_t w = 0; w < words; w++) {
            mu[w] = src || !l->reached ? 0 : ~0ull;
            ma[w] = l->reached ? 0 : ~0ull;     /* not reached: anything */
        }
        if (rel[l->base] != NONE) {
            mu[rel[l->base] >> 6] |= 1ull << (rel[l->base] & 63);
            ma[rel[l->base] >> 6] |= 1ull << (rel[l->base] & 63);
        }
    }
    bool *inq = calloc((size_t)nlev + 1, sizeof *inq);
    uint32_t *q = malloc(((size_t)nlev + 1) * sizeof *q), qh = 0, qn = 0;
    bool settle = inq && q;
    for (uint32_t i = 0; settle && i < nord; i++)
        if (b->lev[order[i]].ni)
            q[qn++] = order[i], inq[order[i]] = true;
    while (settle && qn) {
        uint32_t v = q[qh];
        qh = qh + 1 == nlev + 1 ? 0 : qh + 1;
        qn--;
        inq[v] = false;
        const struct level *l = &b->lev[v];
        uint64_t *mu = must + v * words, *ma = may + v * words;
        bool changed = false;
        for (size_t w = 0; w < words; w++) {
            uint64_t and = ~0ull, or = 0;
            for (uint32_t j = 0; j < l->ni; j++) {
                uint32_t u = b->col[b->incol[l->i0 + j]].from;
                and &= must[u * words + w];
                or |= may[u * words + w];
            }
            uint64_t own = rel[l->base] != NONE && rel[l->base] >> 6 == w
                               ? 1ull << (rel[l->base] & 63) : 0;
            and |= own, or |= own;
            changed |= (and & mu[w]) != mu[w] || (or | ma[w]) != ma[w];
            mu[w] &= and;
            ma[w] |= or;
        }
        for (uint32_t c = l->c0; changed && c < l->c0 + l->nc; c++) {
            uint32_t t = b->col[c].to;
            if (!inq[t] && b->lev[t].reached && b->lev[t].ni) {
                uint32_t at = qh + qn >= nlev + 1 ? qh + qn - (nlev + 1) : qh + qn;
                q[at] = t, inq[t] = true, qn++;
            }
        }
    }
    free(inq);
    free(q);
    return settle;
}

/* Where each column can be made (enum when), and the functions each level's states tell
 * apart (its t); certain: the level's presence sets settled. */
static void column_when(struct build *b, const uint32_t *rel, const uint64_t *must,
                        const uint64_t *may, size_t words, bool certain)
{
    for (uint32_t u = 0; u < b->nlev; u++) {
        struct level *l = &b->lev[u];
        l->certain = certain && l->reached;
        for (uint32_t c = l->c0; c < l->c0 + l->nc; c++) {
            struct column *cl = &b->col[c];
            const struct level *to = &b->lev[cl->to];
            uint32_t r = rel[to->base];
            cl->when = W_ALWAYS;
            if (!l->certain || r == NONE || (!to->deep && to->recur))
                continue;
            bool present = to->base == l->base || bit(must + u * words, r);
            bool absent = !present && !bit(may + u * words, r);
            if (!to->deep)
                cl->when = present ? W_NEVER : absent ? W_ALWAYS : W_ABSENT;
            else
                cl->when = present ? W_ALWAYS : absent ? W_NEVER : W_PRESENT;
            if (cl->when < W_PRESENT)
                continue;
            uint8_t t = 0;
            while (t < l->nt && l->t[t] != r)
                t++;
            if (t == l->nt) {
                if (l->nt == MAXT) {
                    l->certain = false;
                    continue;
                }
                l->t[l->nt++] = r;
            }
            cl->bit = t;
        }
    }
}

/* The functions each level must know about: those its calls depend on, and those the levels
 * it calls must know about where its own presence sets do not settle them; a level with too
 * much to know has one state, its columns made anywhere. 0, or -1 out of memory. */
static int spread_known(struct build *b, const uint32_t *rel, const uint64_t *must,
                        const uint64_t *may, size_t words)
{
    uint32_t nlev = b->nlev;
    uint32_t *work = xcalloc(b, (size_t)nlev + 1, sizeof *work), nw = 0;
    bool *inq = xcalloc(b, (size_t)nlev + 1, sizeof *inq);
    if (!work || !inq) {
        free(work), free(inq);
        return -1;
    }
    for (uint32_t v = 0; v < nlev; v++)
        if (b->lev[v].certain && b->lev[v].nt)
            work[nw++] = v, inq[v] = true;
    while (nw) {
        uint32_t v = work[--nw];
        inq[v] = false;
        const struct level *lv = &b->lev[v];
        for (uint32_t j = 0; j < lv->ni; j++) {
            uint32_t u = b->col[b->incol[lv->i0 + j]].from;
            struct level *lu = &b->lev[u];
            if (!lu->certain)
                continue;
            for (uint8_t t = 0; t < lv->nt && lu->certain; t++) {
                uint32_t r = lv->t[t];
                if (r == rel[lv->base] || r == rel[lu->base] || bit(must + u * words, r) ||
                    !bit(may + u * words, r))
                    continue;
                uint8_t i = 0;
                while (i < lu->nt && lu->t[i] != r)
                    i++;
                if (i < lu->nt)
                    continue;
                if (lu->nt == MAXT)
                    lu->certain = false;    /* too much to know: one state */
                else
                    lu->t[lu->nt++] = r;
                if (!inq[u])
                    work[nw++] = u, inq[u] = true;
            }
        }
    }
    free(work);
    free(inq);
    for (uint32_t u = 0; u < nlev; u++)
        if (!b->lev[u].certain) {
            b->lev[u].nt = 0;
            for (uint32_t c = b->lev[u].c0; c < b->lev[u].c0 + b->lev[u].nc; c++)
                b->col[c].when = W_ALWAYS;
        }
    return 0;
}

/* Presence: for each level, the functions that are on every path to it (must) and on some
 * (may), among those whose presence matters (a function with recursion levels, or whose
 * outermost level is on a cycle of the graph); then each level's states. A level the
 * analysis cannot settle keeps one state, its columns drawn wherever they are called. */
static int make_states(struct build *b)
{
    uint32_t nlev = b->nlev;
    uint32_t *rel = xcalloc(b, (size_t)b->p->nfunc + 1, sizeof *rel);
    uint32_t *order = xcalloc(b, (size_t)nlev + 1, sizeof *order);
    uint64_t *must = NULL, *may = NULL;
    int rc = -1;
    long nrel;
    if (!rel || !order || (nrel = relevant(b, rel)) < 0)
        goto done;
    uint32_t nord = reach(b, order);
    size_t words = ((size_t)nrel + 63) / 64;
    bool settle = nrel > 0 && (size_t)nlev * words * 16 <= BITS_MAX;
    if (settle) {
        must = calloc((size_t)nlev * words + 1, sizeof *must);
        may = calloc((size_t)nlev * words + 1, sizeof *may);
        if (!must || !may) {   /* (no states then: every level one) */
            free(must), free(may);
            must = may = NULL;
            settle = false;
        }
    }
    if (settle)
        settle = settle_presence(b, rel, order, nord, words, must, may);
    column_when(b, rel, must, may, words, settle || nrel == 0);
    if (spread_known(b, rel, must, may, words) < 0)
        goto done;
    /* the states, from the levels nobody calls on: each call's state follows from its
     * caller's (the caller knows what its callee must); a level whose states are too many,
     * or whose caller does not know, has an unknown state too, its calls drawn anywhere */
    if (explore(b, rel, must, may, words) < 0)
        goto done;
    rc = 0;
done:
    free(rel);
    free(order);
    free(must);
    free(may);
    return rc;
}

/* The state of level v with signature sig (unknown: its calls drawn anywhere), made where it
 * is new (at most MAXST known ones: more are the unknown one); NONE: no memory. */
static uint32_t state_get(struct build *b, uint32_t v, uint32_t sig, bool unknown)
{
    struct level *l = &b->lev[v];
    if (!l->certain)
        unknown = true, sig = 0;
    uint32_t known = 0;
    for (uint32_t s = l->s0; s != NONE; s = b->st[s].next) {
        if (b->st[s].unknown == unknown && (unknown || b->st[s].sig == sig))
            return s;
        known += !b->st[s].unknown;
    }
    if (!unknown && known == MAXST)
        return state_get(b, v, 0, true);
    if (b->nst == b->st_cap) {
        uint32_t cap = b->st_cap ? b->st_cap * 2 : 1024;
        struct state *q = realloc(b->st, (size_t)cap * sizeof *q);
        if (!q)
            return NONE;
        b->st = q;
        b->st_cap = cap;
    }
    uint32_t s = b->nst++;
    b->st[s] = (struct state){.level = v, .sig = sig, .unknown = unknown, .unit = NONE,
                              .next = NONE, .t0 = NONE};
    if (l->s0 == NONE)
        l->s0 = s;
    else {
        uint32_t x = l->s0;
        while (b->st[x].next != NONE)
            x = b->st[x].next;
        b->st[x].next = s;
    }
    l->ns++;
    return s;
}

/* Where calls through column cl can be made in state s. */
static bool valid_in(const struct column *cl, const struct state *s)
{
    if (s->unknown || cl->when == W_ALWAYS || cl->when == W_NEVER)
        return cl->when != W_NEVER || s->unknown;
    return (cl->when == W_PRESENT) == (s->sig >> cl->bit & 1);
}

/* Makes the states reached from the levels nobody calls (then from any level left, in an
 * unknown state: a cycle no call enters), and each state's calls: the column, the state it
 * reaches, whether it can be made there. */
static int explore(struct build *b, const uint32_t *rel, const uint64_t *must,
                   const uint64_t *may, size_t words)
{
    for (uint32_t v = 0; v < b->nlev; v++)
        b->lev[v].s0 = NONE, b->lev[v].ns = 0;
    uint32_t done = 0;
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t v = 0; v < b->nlev; v++) {
            const struct level *l = &b->lev[v];
            if (!l->live || l->ns || (pass == 0 && l->ni))
                continue;
            uint32_t sig = 0;
            for (uint8_t t = 0; t < l->nt; t++)     /* a root: only itself above */
                sig |= (uint32_t)(rel[l->base] == l->t[t]) << t;
            if (state_get(b, v, sig, pass == 1) == NONE)
                return err_set(b->e, ERR_SYSTEM, "out of memory");
            /* the states made since: their calls, in the order made */
            for (; done < b->nst; done++) {
                uint32_t s = done, u = b->st[s].level;
                const struct level *lu = &b->lev[u];
                if (b->ntr + lu->nc > b->tr_cap) {
                    uint32_t cap = b->tr_cap ? b->tr_cap : 1024;
                    while (cap < b->ntr + lu->nc)
                        cap *= 2;
                    struct trans *q = realloc(b->tr, (size_t)cap * sizeof *q);
                    if (!q)
                        return err_set(b->e, ERR_SYSTEM, "out of memory");
                    b->tr = q;
                    b->tr_cap = cap;
                }
                b->st[s].t0 = b->ntr;
                for (uint32_t c = lu->c0; c < lu->c0 + lu->nc; c++) {
                    const struct column *cl = &b->col[c];
                    const struct state *ss = &b->st[s];
                    const struct level *lv = &b->lev[cl->to];
                    uint32_t tsig = 0;
                    bool unknown = ss->unknown;
                    for (uint8_t t = 0; t < lv->nt && !unknown; t++) {
                        uint32_t r = lv->t[t];
                        bool present = r == rel[lv->base] || r == rel[lu->base] ||
                                       (lu->reached && must && bit(must + u * words, r));
                        bool absent = !present && lu->reached && may &&
                                      !bit(may + u * words, r);
                        if (!present && !absent) {
                            uint8_t i = 0;
                            while (i < lu->nt && lu->t[i] != r)
                                i++;
                            if (i == lu->nt || !lu->certain)
                                unknown = true;
                            else
                                present = ss->sig >> i & 1;
                        }
                        tsig |= (uint32_t)present << t;
                    }
                    bool ok = valid_in(cl, ss);
                    uint32_t tgt = state_get(b, cl->to, tsig, unknown);
                    if (tgt == NONE)
                        return err_set(b->e, ERR_SYSTEM, "out of memory");
                    b->tr[b->ntr++] = (struct trans){c, tgt, ok};
                }
                b->st[s].nt = b->ntr - b->st[s].t0;
            }
        }
    }
    return 0;
}

/* ---- the content of each state ---- */

/* out[0..n) = t split in proportion to w[0..n) (sum W > 0), each rounded down and the units
 * left to the largest remainders: the parts add up to t, and none is above its weight where
 * t <= W */
static void apportion(uint64_t t, uint32_t n, const uint64_t *w, uint64_t *out, uint64_t *rem)
{
    unsigned __int128 W = 0;
    for (uint32_t i = 0; i < n; i++)
        W += w[i];
    uint64_t given = 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned __int128 x = (unsigned __int128)t * w[i];
        out[i] = W ? (uint64_t)(x / W) : 0;
        rem[i] = W ? (uint64_t)(((x % W) << 32) / W) : 0;   /* the remainder, in 2^-32 */
        given += out[i];
    }
    while (given < t) {
        uint32_t best = NONE;
        for (uint32_t i = 0; i < n; i++)
            if (w[i] && (best == NONE || rem[i] > rem[best]))
                best = i;
        if (best == NONE)
            break;
        out[best]++;
        rem[best] = 0;
        given++;
    }
}

/* The columns of level l given to its states (x[i * nc + j]: column j's part in its state i,
 * event k), each only where it can be made, as much as the states' masses allow; what is
 * left of a state is its self cost (selfx). */
static void transport(struct build *b, const struct level *l, const uint32_t *sts, int k,
                      const uint64_t *mass, uint64_t *x, uint64_t *selfx)
{
    int nev = b->nev;
    uint32_t ns = l->ns, nc = l->nc;
    uint64_t cap[MAXST + 1], w[MAXST + 1], out[MAXST + 1], rem[MAXST + 1];
    for (uint32_t i = 0; i < ns; i++)
        cap[i] = mass[(size_t)sts[i] * nev + k];
    /* columns that can be made in fewer states first */
    uint8_t *nok = b->nokbuf;
    for (uint32_t j = 0; j < nc; j++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < ns; i++)
            n += b->tr[b->st[sts[i]].t0 + j].ok;
        nok[j] = (uint8_t)(n ? n : ns);
    }
    for (uint32_t pass = 1; pass <= ns; pass++)
        for (uint32_t j = 0; j < nc; j++) {
            if (nok[j] != pass)
                continue;
            bool ok[MAXST + 1], any = false;
            for (uint32_t i = 0; i < ns; i++)
                any |= ok[i] = b->tr[b->st[sts[i]].t0 + j].ok;
            for (uint32_t i = 0; !any && i < ns; i++)   /* called where it cannot be: anyway */
                ok[i] = true;
            uint64_t t = b->ccost[(size_t)(l->c0 + j) * nev + k], avail = 0;
            for (uint32_t i = 0; i < ns; i++) {
                w[i] = ok[i] ? cap[i] : 0;
                avail = sat_add(avail, w[i]);
            }
            if (avail < t && any) {
                /* more than the states where it can be made hold: all the same there, by
                 * their share of the column (their masses are only this round's, and
                 * settle_masses pulls more into them from their callers) */
                uint64_t cw[MAXST + 1];
                for (uint32_t i = 0; i < ns; i++)
                    cw[i] = ok[i] ? (w[i] ? w[i] : 1) : 0;
                apportion(t, ns, cw, out, rem);
                for (uint32_t i = 0; i < ns; i++) {
                    x[i * nc + j] += out[i];
                    cap[i] = out[i] > cap[i] ? 0 : cap[i] - out[i];
                }
                continue;
            }
            if (avail < t) {    /* more than those states hold: the rest where there is room */
                for (uint32_t i = 0; i < ns; i++) {
                    x[i * nc + j] += w[i];
                    cap[i] -= w[i];
                    w[i] = cap[i];
                }
                t -= avail;
                avail = 0;
                for (uint32_t i = 0; i < ns; i++)
                    avail = sat_add(avail, w[i]);
                if (avail < t) {   /* a profile at odds with itself: over the first state */
                    for (uint32_t i = 0; i < ns; i++) {
                        x[i * nc + j] += w[i];
                        cap[i] = 0;
                    }
                    x[j] += t - avail;
                    continue;
                }
            }
            apportion(t, ns, w, out, rem);
            for (uint32_t i = 0; i < ns; i++) {
                x[i * nc + j] += out[i];
                cap[i] -= out[i];
            }
        }
    for (uint32_t i = 0; i < ns; i++)
        selfx[i] = cap[i];
}

/* What each state of level v's calls give it (x), and its self cost, for the masses given. */
static void give_level(struct build *b, uint32_t v, const uint64_t *mass, uint64_t *x,
                       uint64_t *selfx)
{
    int nev = b->nev;
    const struct level *l = &b->lev[v];
    uint32_t sts[MAXST + 1], ns = 0;
    for (uint32_t s = l->s0; s != NONE && ns <= MAXST; s = b->st[s].next)
        sts[ns++] = s;
    for (int k = 0; k < nev; k++) {
        if (ns == 1) {
            for (uint32_t j = 0; j < l->nc; j++)
                x[(size_t)(b->st[sts[0]].t0 + j) * nev + k] =
                    b->ccost[(size_t)(l->c0 + j) * nev + k];
            selfx[(size_t)sts[0] * nev + k] = b->lself[(size_t)v * nev + k];
            continue;
        }
        uint64_t xs[(MAXST + 1) * 64], sk[MAXST + 1];
        uint64_t *xx = l->nc <= 64 ? xs : calloc((size_t)ns * l->nc, sizeof *xx);
        if (!xx)
            continue;   /* (no memory: nothing given; the sums will say so) */
        memset(xx, 0, (size_t)ns * l->nc * sizeof *xx);
        transport(b, l, sts, k, mass, xx, sk);
        for (uint32_t i = 0; i < ns; i++) {
            for (uint32_t j = 0; j < l->nc; j++)
                x[(size_t)(b->st[sts[i]].t0 + j) * nev + k] = xx[i * l->nc + j];
            selfx[(size_t)sts[i] * nev + k] = sk[i];
        }
        if (xx != xs)
            free(xx);
    }
}

/* settle_masses' moves, for event k: slack[s] is state s's mass less its calls (below 0: it
 * gives more than it has); a state whose slack a move makes negative joins work. */

/* State s's call through one column moved to another state o of its level with some to spare
 * and the state it then reaches followed (ok: only where o can make it, and only as much as
 * the state it reaches now can lose; else anywhere, any amount). */
static void move_out(struct build *b, uint32_t s, int k, uint64_t *x, __int128 *slack, bool ok,
                     uint32_t *work, uint32_t *nw, bool *inq)
{
    int nev = b->nev;
    const struct level *l = &b->lev[b->st[s].level];
    for (uint32_t j = 0; j < l->nc && slack[s] < 0; j++) {
        uint32_t ts = b->tr[b->st[s].t0 + j].target;
        uint64_t *xs = &x[(size_t)(b->st[s].t0 + j) * nev + k];
        for (int pass = 0; pass < (ok ? 1 : 2) && *xs && slack[s] < 0; pass++)
            for (uint32_t o = l->s0; o != NONE && *xs && slack[s] < 0; o = b->st[o].next) {
                if (o == s || slack[o] <= 0 || (pass == 0 && !b->tr[b->st[o].t0 + j].ok))
                    continue;
                uint32_t to = b->tr[b->st[o].t0 + j].target;
                bool deep = b->lev[b->st[ts].level].ns > 1;
                __int128 m = -slack[s] < slack[o] ? -slack[s] : slack[o];
                if (m > (__int128)*xs)
                    m = *xs;
                if (ok && to != ts && deep && m > slack[ts])
                    m = slack[ts] > 0 ? slack[ts] : 0;
                if (m <= 0)
                    continue;
                *xs -= (uint64_t)m;
                x[(size_t)(b->st[o].t0 + j) * nev + k] += (uint64_t)m;
                slack[s] += m;
                slack[o] -= m;
                if (to == ts)
                    continue;
                b->smass[(size_t)ts * nev + k] -= (uint64_t)m;
                b->smass[(size_t)to * nev + k] += (uint64_t)m;
                if (deep) {
                    slack[ts] -= m;
                    if (slack[ts] < 0 && !inq[ts])
                        work[(*nw)++] = ts, inq[ts] = true;
                }
                if (b->lev[b->st[to].level].ns > 1)
                    slack[to] += m;
            }
    }
}

/* More mass into state s from its callers: a caller's call through the same column moved to
 * it from another state of the caller's level whose call reaches another state of s's level
 * with some to spare (the caller that now gives more joins work where it gives too much). */
static void pull_in(struct build *b, uint32_t s, int k, uint64_t *x, __int128 *slack,
                    const uint32_t *inat, const uint32_t *intr, const uint32_t *tr_state,
                    uint32_t *work, uint32_t *nw, bool *inq)
{
    int nev = b->nev;
    for (uint32_t i = inat[s]; i < inat[s + 1] && slack[s] < 0; i++) {
        uint32_t t = intr[i], u = tr_state[t];
        uint32_t j = t - b->st[u].t0;
        const struct level *lu = &b->lev[b->st[u].level];
        if (lu->ns < 2 || !b->tr[t].ok)
            continue;
        for (uint32_t o = lu->s0; o != NONE && slack[s] < 0; o = b->st[o].next) {
            uint32_t to = b->tr[b->st[o].t0 + j].target;
            uint64_t *xo = &x[(size_t)(b->st[o].t0 + j) * nev + k];
            if (o == u || to == s || !*xo || b->st[to].level != b->st[s].level ||
                slack[to] <= 0)
                continue;
            __int128 m = -slack[s] < slack[to] ? -slack[s] : slack[to];
            if (m > (__int128)*xo)
                m = *xo;
            *xo -= (uint64_t)m;
            x[(size_t)t * nev + k] += (uint64_t)m;
            b->smass[(size_t)to * nev + k] -= (uint64_t)m;
            b->smass[(size_t)s * nev + k] += (uint64_t)m;
            slack[to] -= m;
            slack[s] += m;
            slack[o] += m;
            slack[u] -= m;
            if (slack[u] < 0 && !inq[u])
                work[(*nw)++] = u, inq[u] = true;
        }
    }
}

/* The masses from the calls as given (x), each state's self what is left of its mass, and
 * what would be below 0 made good (see make_entries). */
static int settle_masses(struct build *b, uint64_t *x, uint64_t *selfx, const uint32_t *inat,
                         const uint32_t *intr)
{
    int nev = b->nev;
    uint32_t nst = b->nst;
    __int128 *slack = calloc((size_t)nst + 1, sizeof *slack);
    uint32_t *work = malloc(((size_t)nst + 1) * sizeof *work);
    bool *inq = calloc((size_t)nst + 1, sizeof *inq);
    uint32_t *tr_state = malloc(((size_t)b->ntr + 1) * sizeof *tr_state);  /* whose call */
    bool *pulled = calloc((size_t)nst + 1, sizeof *pulled);
    if (!slack || !work || !inq || !tr_state || !pulled) {
        free(slack), free(work), free(inq), free(tr_state), free(pulled);
        return err_set(b->e, ERR_SYSTEM, "out of memory");
    }
    for (uint32_t st = 0; st < nst; st++)
        for (uint32_t i = 0; i < b->st[st].nt; i++)
            tr_state[b->st[st].t0 + i] = st;
    for (int k = 0; k < nev; k++) {
        uint32_t nw = 0;
        for (uint32_t s = 0; s < nst; s++) {
            const struct level *l = &b->lev[b->st[s].level];
            __int128 m = 0;
            if (l->ni == 0 && s == l->s0) {
                m = b->lself[(size_t)b->st[s].level * nev + k];
                for (uint32_t j = l->c0; j < l->c0 + l->nc; j++)
                    m += b->ccost[(size_t)j * nev + k];
            }
            for (uint32_t j = inat[s]; j < inat[s + 1]; j++)
                m += x[(size_t)intr[j] * nev + k];
            b->smass[(size_t)s * nev + k] = m > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)m;
            if (l->ns == 1) {
                slack[s] = 0;
                continue;
            }
            for (uint32_t i = 0; i < b->st[s].nt; i++)
                m -= x[(size_t)(b->st[s].t0 + i) * nev + k];
            slack[s] = m;
            if (m < 0)
                work[nw++] = s, inq[s] = true;
        }
        for (uint32_t steps = 0; nw && steps < 1000000; steps++) {
            uint32_t s = work[--nw];
            inq[s] = false;
            /* its calls to other states of their level where they can be made, as much as
             * the states they reach can lose; then more pulled in from its callers; then
             * (a profile the states cannot settle) its calls wherever there is room */
            move_out(b, s, k, x, slack, true, work, &nw, inq);
            if (slack[s] < 0 && !pulled[s]) {   /* (once: around a cycle it would go on) */
                pulled[s] = true;
                pull_in(b, s, k, x, slack, inat, intr, tr_state, work, &nw, inq);
            }
            if (slack[s] < 0)
                move_out(b, s, k, x, slack, false, work, &nw, inq);
        }
        for (uint32_t s = 0; s < nst; s++)
            inq[s] = pulled[s] = false;
        /* the level's self cost, all of it, shared among its states by what is left of
         * each (where the profile is at odds with itself, the two differ: the unit's frames
         * then draw its own content all the same, see reconcile()) */
        for (uint32_t v = 0; v < b->nlev; v++) {
            const struct level *l = &b->lev[v];
            if (!l->live || l->ns < 2)
                continue;
            uint64_t w[MAXST + 1], out[MAXST + 1], rem[MAXST + 1];
            uint32_t sts[MAXST + 1], ns = 0;
            bool any = false;
            for (uint32_t st = l->s0; st != NONE && ns <= MAXST; st = b->st[st].next) {
                sts[ns] = st;
                w[ns] = slack[st] > 0 ? (uint64_t)(slack[st] > (__int128)UINT64_MAX
                                                        ? UINT64_MAX : slack[st]) : 0;
                any |= w[ns++] != 0;
            }
            if (!any)
                w[0] = 1;
            apportion(b->lself[(size_t)v * nev + k], ns, w, out, rem);
            for (uint32_t i = 0; i < ns; i++)
                selfx[(size_t)sts[i] * nev + k] = out[i];
        }
    }
    free(slack), free(work), free(inq), free(tr_state), free(pulled);
    return 0;
}

/* The calls of every level of one state (whose shares do not depend on the masses). */
static void give_all(struct build *b, const uint64_t *mass, uint64_t *x, uint64_t *selfx)
{
    for (uint32_t v = 0; v < b->nlev; v++)
        if (b->lev[v].live && b->lev[v].s0 != NONE && b->lev[v].ns == 1)
            give_level(b, v, mass, x, selfx);
}

/* The states in an order where each comes after its callers (but in a cycle), sources first:
 * into order; the calls into each state: intr[inat[st] .. inat[st + 1]). 0, or -1. */
static int order_states(struct build *b, uint32_t *order, uint32_t *inat, uint32_t *intr)
{
    uint32_t nst = b->nst;
    uint32_t *off = xcalloc(b, (size_t)nst + 2, sizeof *off);
    uint32_t *adj = xcalloc(b, (size_t)b->ntr + 1, sizeof *adj);
    uint32_t *comp = xcalloc(b, (size_t)nst + 1, sizeof *comp);
    uint32_t *cnt = NULL;
    int rc = -1;
    if (!off || !adj || !comp)
        goto done;
    for (uint32_t st = 0; st < nst; st++) {
        off[st + 1] = off[st] + b->st[st].nt;
        for (uint32_t i = 0; i < b->st[st].nt; i++) {
            uint32_t t = b->tr[b->st[st].t0 + i].target;
            adj[off[st] + i] = t;
            inat[t + 2]++;
        }
    }
    for (uint32_t st = 0; st < nst; st++)
        inat[st + 2] += inat[st + 1];
    for (uint32_t st = 0; st < nst; st++)
        for (uint32_t i = 0; i < b->st[st].nt; i++)
            intr[inat[b->tr[b->st[st].t0 + i].target + 1]++] = b->st[st].t0 + i;
    long ncomp = cg_graph_scc(nst, off, adj, comp);
    if (ncomp < 0) {
        err_set(b->e, ERR_SYSTEM, "out of memory");
        goto done;
    }
    /* by component, sources first (counting sort) */
    if (!(cnt = xcalloc(b, (size_t)ncomp + 2, sizeof *cnt)))
        goto done;
    for (uint32_t st = 0; st < nst; st++)
        cnt[ncomp - 1 - comp[st] + 1]++;
    for (long c = 0; c < ncomp; c++)
        cnt[c + 1] += cnt[c];
    for (uint32_t st = 0; st < nst; st++)
        order[cnt[ncomp - 1 - comp[st]]++] = st;
    rc = 0;
done:
    free(off), free(adj), free(comp), free(cnt);
    return rc;
}

/* One round of the states' masses in order: each state's content is what its callers' shares
 * of this round bring (a root: its own), and a level of several states shares its calls again
 * after its last state (not in the final round). Returns the most one mass moved, or 0 where
 * none changed; *changed: whether any did. */
static uint64_t mass_round(struct build *b, const uint32_t *order, const uint32_t *inat,
                           const uint32_t *intr, const uint32_t *last, uint64_t *x,
                           uint64_t *selfx, uint64_t *content, bool final, bool *changed)
{
    int nev = b->nev;
    uint64_t moved = 0;
    *changed = false;
    for (uint32_t i = 0; i < b->nst; i++) {
        uint32_t st = order[i];
        const struct level *l = &b->lev[b->st[st].level];
        uint64_t *m = b->smass + (size_t)st * nev;
        for (int k = 0; k < nev; k++)
            content[k] = 0;
        if (l->ni == 0 && st == l->s0)      /* a root: its content */
            for (int k = 0; k < nev; k++) {
                content[k] = b->lself[(size_t)b->st[st].level * nev + k];
                for (uint32_t j = l->c0; j < l->c0 + l->nc; j++)
                    content[k] = sat_add(content[k], b->ccost[(size_t)j * nev + k]);
            }
        for (uint32_t j = inat[st]; j < inat[st + 1]; j++)
            for (int k = 0; k < nev; k++)
                content[k] = sat_add(content[k], x[(size_t)intr[j] * nev + k]);
        if (memcmp(content, m, nev * sizeof *m)) {
            *changed = true;
            for (int k = 0; k < nev; k++) {
                uint64_t d = content[k] > m[k] ? content[k] - m[k] : m[k] - content[k];
                moved = d > moved ? d : moved;
            }
            memcpy(m, content, nev * sizeof *m);
        }
        if (l->ns > 1 && last[b->st[st].level] == i && !final)
            give_level(b, b->st[st].level, b->smass, x, selfx);
    }
    return moved;
}

/* The states' masses, in rounds until they settle (a few rounds settle what the cycles and a
 * level's shares move), then made consistent (settle_masses). 0, or -1. */
static int find_masses(struct build *b, uint64_t *x, uint64_t *selfx)
{
    int nev = b->nev;
    uint32_t nst = b->nst;
    bool ok = false;
    uint32_t *order = xcalloc(b, (size_t)nst + 1, sizeof *order);
    uint32_t *inat = xcalloc(b, (size_t)nst + 2, sizeof *inat);
    uint32_t *intr = xcalloc(b, (size_t)b->ntr + 1, sizeof *intr);
    uint32_t *last = xcalloc(b, (size_t)b->nlev + 1, sizeof *last);
    uint64_t *content = xcalloc(b, (size_t)nev + 1, sizeof *content);
    if (!order || !inat || !intr || !last || !content || order_states(b, order, inat, intr) < 0)
        goto done;
    for (uint32_t i = 0; i < nst; i++)
        last[b->st[order[i]].level] = i;
    uint64_t work = nst + b->ntr;
    for (uint32_t v = 0; v < b->nlev; v++)
        if (b->lev[v].live && b->lev[v].ns > 1)
            work += (uint64_t)b->lev[v].ns * b->lev[v].nc * 8;
    int rounds = (int)(ROUND_WORK / (work * (nev ? nev : 1)));
    rounds = rounds < 4 ? 4 : rounds > ROUNDS ? ROUNDS : rounds;
    for (int round = 0; round <= rounds; round++) {
        bool changed;
        uint64_t moved = mass_round(b, order, inat, intr, last, x, selfx, content,
                                    round == rounds, &changed);
        if (!changed || (round > 0 && moved <= 2))   /* (a jitter of rounding) */
            break;
    }
    /* (where the rounds left a jitter of rounding, the masses are what the calls bring: each
     * state's self is what is left of it; where that is below 0, a call is moved to another
     * state of the level with some to spare, and the states it reaches follow) */
    ok = settle_masses(b, x, selfx, inat, intr) >= 0;
done:
    free(order), free(inat), free(intr), free(last), free(content);
    return ok ? 0 : -1;
}

/* Each state's entries: the calls given it (x), then its self cost (selfx). 0, or -1. */
static int fill_entries(struct build *b, const uint64_t *x, const uint64_t *selfx)
{
    int nev = b->nev;
    uint32_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            b->nse = n;
            b->secol = xcalloc(b, (size_t)n + 1, sizeof *b->secol);
            b->setgt = xcalloc(b, (size_t)n + 1, sizeof *b->setgt);
            b->seamt = xcalloc(b, ((size_t)n + 1) * nev, sizeof *b->seamt);
            b->seexact = xcalloc(b, (size_t)n + 1, sizeof *b->seexact);
            if (!b->secol || !b->setgt || !b->seamt || !b->seexact)
                return -1;
            n = 0;
        }
        for (uint32_t s = 0; s < b->nst; s++) {
            struct state *st = &b->st[s];
            if (pass == 1)
                st->e0 = n;
            for (uint32_t i = 0; i <= st->nt; i++) {
                const uint64_t *a = i < st->nt ? x + (size_t)(st->t0 + i) * nev
                                               : selfx + (size_t)s * nev;
                bool any = false;
                for (int k = 0; k < nev; k++)
                    any |= a[k] != 0;
                if (!any)
                    continue;
                if (pass == 1) {
                    uint32_t c = i < st->nt ? b->tr[st->t0 + i].col : NONE;
                    b->secol[n] = c;
                    b->setgt[n] = i < st->nt ? b->tr[st->t0 + i].target : NONE;
                    memcpy(b->seamt + (size_t)n * nev, a, nev * sizeof *a);
                    bool whole = true;
                    for (int k = 0; c != NONE && k < nev; k++)
                        whole &= a[k] == b->ccost[(size_t)c * nev + k];
                    b->seexact[n] = whole;
                }
                n++;
            }
            if (pass == 1)
                st->ne = n - st->e0;
        }
    }
    return 0;
}

/* The masses of the states (what the calls into each bring; a root: its content), found
 * again until they settle (a level's calls are shared among its states by their masses,
 * which its callers' shares make), and each state's entries: its calls given it, its self. */
static int make_entries(struct build *b)
{
    int nev = b->nev;
    uint32_t nst = b->nst;
    uint64_t *x = xcalloc(b, ((size_t)b->ntr + 1) * nev, sizeof *x);
    uint64_t *selfx = xcalloc(b, ((size_t)nst + 1) * nev, sizeof *selfx);
    b->smass = xcalloc(b, ((size_t)nst + 1) * nev, sizeof *b->smass);
    int rc = -1;
    if (!x || !selfx || !b->smass)
        goto done;
    uint32_t most = 0;
    for (uint32_t v = 0; v < b->nlev; v++)
        most = b->lev[v].nc > most ? b->lev[v].nc : most;
    if (!(b->nokbuf = xcalloc(b, (size_t)most + 1, 1)))
        goto done;
    give_all(b, b->smass, x, selfx);
    if (find_masses(b, x, selfx) < 0 || fill_entries(b, x, selfx) < 0)
        goto done;
    rc = 0;
done:
    free(x);
    free(selfx);
    return rc;
}

/* ---- units: the states, cycles among them drawn as groups ---- */

static uint32_t func_of(const struct build *b, uint32_t s)
{
    return b->lev[b->st[s].level].base;
}

static int make_units(struct build *b)
{
    int nev = b->nev;
    uint32_t nst = b->nst;
    uint32_t *off = xcalloc(b, (size_t)nst + 2, sizeof *off);
    uint32_t *adj = xcalloc(b, (size_t)b->nse + 1, sizeof *adj);
    uint32_t *comp = xcalloc(b, (size_t)nst + 1, sizeof *comp);
    int rc = -1;
    if (!off || !adj || !comp)
        goto done;
    uint32_t m = 0;
    for (uint32_t s = 0; s < nst; s++) {
        off[s] = m;
        for (uint32_t e = b->st[s].e0; e < b->st[s].e0 + b->st[s].ne; e++)
            if (b->secol[e] != NONE)
                adj[m++] = b->setgt[e];
    }
    off[nst] = m;
    long nc = cg_graph_scc(nst, off, adj, comp);
    if (nc < 0) {
        err_set(b->e, ERR_SYSTEM, "out of memory");
        goto done;
    }
    b->nunit = (uint32_t)nc;
    b->un = xcalloc(b, (size_t)nc + 2, sizeof *b->un);
    b->umem = xcalloc(b, (size_t)nst + 1, sizeof *b->umem);
    b->iat = xcalloc(b, (size_t)nst + 2, sizeof *b->iat);
    b->iadj = xcalloc(b, (size_t)m + 1, sizeof *b->iadj);
    if (!b->un || !b->umem || !b->iat || !b->iadj)
        goto done;
    for (uint32_t s = 0; s < nst; s++) {
        b->st[s].unit = comp[s];
        b->un[comp[s]].nm++;
    }
    uint32_t at = 0;
    for (uint32_t u = 0; u < b->nunit; u++) {
        b->un[u].m0 = at;
        at += b->un[u].nm;
        b->un[u].group = b->un[u].nm > 1;
        b->un[u].nm = 0;
    }
    for (uint32_t s = 0; s < nst; s++) {
        struct unit *u = &b->un[comp[s]];
        b->st[s].pos = u->nm;
        b->umem[u->m0 + u->nm++] = s;
    }
    /* calls within a unit (a group's spanning tree is drawn from them); the unit's entries */
    uint32_t ni = 0, ne = 0;
    for (uint32_t s = 0; s < nst; s++) {
        b->iat[s] = ni;
        for (uint32_t j = off[s]; j < off[s + 1]; j++)
            if (comp[adj[j]] == comp[s])
                b->iadj[ni++] = adj[j];
    }
    b->iat[nst] = ni;
    for (uint32_t e = 0; e < b->nse; e++)
        ne++;
    b->ue = xcalloc(b, (size_t)ne + 1, sizeof *b->ue);
    b->uamt = xcalloc(b, ((size_t)ne + 1) * nev, sizeof *b->uamt);
    b->uacc = xcalloc(b, ((size_t)ne + 1) * nev, sizeof *b->uacc);
    b->umass = xcalloc(b, ((size_t)b->nunit + 2) * nev, sizeof *b->umass);
    b->ucum = xcalloc(b, ((size_t)b->nunit + 2) * nev, sizeof *b->ucum);
    if (!b->ue || !b->uamt || !b->uacc || !b->umass || !b->ucum)
        goto done;
    uint32_t n = 0;
    for (uint32_t u = 0; u < b->nunit; u++) {
        struct unit *un = &b->un[u];
        un->e0 = n;
        for (uint32_t i = 0; i < un->nm; i++) {
            uint32_t s = b->umem[un->m0 + i];
            b->st[s].ue0 = n - un->e0;
            for (uint32_t e = b->st[s].e0; e < b->st[s].e0 + b->st[s].ne; e++) {
                uint32_t c = b->secol[e], t = b->setgt[e];
                if (t != NONE && comp[t] == u)
                    continue;       /* within the group: inside its calls already */
                const struct level *l = &b->lev[b->st[s].level];
                b->ue[n] = (struct uentry){s, c, t, t == NONE ? NONE : func_of(b, t),
                                           !un->group && (b->seexact[e] || l->ns == 1)};
                memcpy(b->uamt + (size_t)n * nev, b->seamt + (size_t)e * nev,
                       nev * sizeof *b->uamt);
                for (int k = 0; k < nev; k++)
                    b->umass[(size_t)u * nev + k] =
                        sat_add(b->umass[(size_t)u * nev + k], b->seamt[(size_t)e * nev + k]);
                n++;
            }
            b->st[s].nue = n - un->e0 - b->st[s].ue0;
        }
        un->ne = n - un->e0;
        b->fl->groups += un->group;
    }
    b->nue = n;
    uint32_t most = 0;
    for (uint32_t u = 0; u < b->nunit; u++)
        if (b->un[u].ne > most)
            most = b->un[u].ne;
    if (!(b->cand = xcalloc(b, (size_t)most + 1, sizeof *b->cand)) ||
        !(b->tmpl_of = xcalloc(b, (size_t)nst + 1, sizeof *b->tmpl_of)))
        goto done;
    rc = 0;
done:
    free(off);
    free(adj);
    free(comp);
    return rc;
}

/* Where the profile is at odds with itself (a call stating more than its callee holds: a
 * process ending in the call, a jump out of it), the units' content and the calls into them
 * differ: the calls into a unit stating more than its content are cut down to it (and the
 * caller's content with them: what no function holds is nobody's self), and a unit whose
 * calls bring less than its content has the rest drawn at the root. Every unit's frames then
 * draw its content, once: each function's frames hold its self cost, whatever the profile's
 * calls say. (Unit numbers: a unit's callers have higher ones.) */
static int reconcile(struct build *b)
{
    int nev = b->nev;
    uint32_t nu = b->nunit;
    uint32_t *at = xcalloc(b, (size_t)nu + 2, sizeof *at);
    uint32_t *in = xcalloc(b, (size_t)b->nue + 1, sizeof *in);
    uint32_t *owner = xcalloc(b, (size_t)b->nue + 1, sizeof *owner);
    uint64_t *w = xcalloc(b, (size_t)b->nue + 1, sizeof *w);
    uint64_t *out = xcalloc(b, (size_t)b->nue + 1, sizeof *out);
    uint64_t *rem = xcalloc(b, (size_t)b->nue + 1, sizeof *rem);
    b->deficit = xcalloc(b, ((size_t)nu + 1) * nev, sizeof *b->deficit);
    int rc = -1;
    if (!at || !in || !owner || !w || !out || !rem || !b->deficit)
        goto done;
    for (uint32_t u = 0; u < nu; u++)
        for (uint32_t j = b->un[u].e0; j < b->un[u].e0 + b->un[u].ne; j++)
            owner[j] = u;
    for (uint32_t e = 0; e < b->nue; e++)
        if (b->ue[e].target != NONE)
            at[b->st[b->ue[e].target].unit + 2]++;
    for (uint32_t u = 0; u < nu; u++)
        at[u + 2] += at[u + 1];
    for (uint32_t e = 0; e < b->nue; e++)
        if (b->ue[e].target != NONE)
            in[at[b->st[b->ue[e].target].unit + 1]++] = e;
    for (uint32_t u = 0; u < nu; u++) {        /* callees first */
        uint32_t n = at[u + 1] - at[u];
        if (n == 0)
            continue;
        for (int k = 0; k < nev; k++) {
            unsigned __int128 got = 0;
            for (uint32_t i = 0; i < n; i++)
                got += w[i] = b->uamt[(size_t)in[at[u] + i] * nev + k];
            uint64_t m = b->umass[(size_t)u * nev + k];
            if (got > m) {
                apportion((uint64_t)(got - m > UINT64_MAX ? UINT64_MAX : got - m), n, w, out,
                          rem);
                for (uint32_t i = 0; i < n; i++) {
                    uint32_t e = in[at[u] + i];
                    b->uamt[(size_t)e * nev + k] -= out[i];
                    b->umass[(size_t)owner[e] * nev + k] -= out[i];
                }
            } else
                b->deficit[(size_t)u * nev + k] = m - (uint64_t)got;
        }
    }
    rc = 0;
done:
    free(at), free(in), free(owner), free(w), free(out), free(rem);
    return rc;
}

/* ---- frames ---- */

static long add_frame(struct build *b, uint32_t func, uint32_t parent, bool exact,
                      const uint64_t *val)
{
    struct cg_flame *fl = b->fl;
    if (fl->n == b->max_frames) {
        err_set(b->e, ERR_INPUT, "more than %u frames: merge more into 'other' (a higher "
                "threshold)", b->max_frames);
        return -1;
    }
    if (fl->n == fl->cap) {
        uint32_t cap = fl->cap ? fl->cap * 2 : 1024;
        struct cg_frame *f = realloc(fl->frames, (size_t)cap * sizeof *f);
        if (!f)
            goto nomem;
        fl->frames = f;
        uint64_t *v = realloc(fl->value, (size_t)cap * (fl->nev ? fl->nev : 1) * sizeof *v);
        if (!v)
            goto nomem;
        fl->value = v;
        fl->cap = cap;
    }
    uint32_t depth = parent == NONE ? 0 : fl->frames[parent].depth + 1;
    if (depth > 0 && func < CG_FRAME_OTHER && fl->frames[parent].func == func)
        return parent;   /* (cannot be: a call into the same function is drawn in its frame) */
    fl->frames[fl->n] = (struct cg_frame){func, parent, depth, 0, exact};
    memcpy(fl->value + (size_t)fl->n * fl->nev, val, (size_t)fl->nev * sizeof *val);
    return fl->n++;
nomem:
    err_set(b->e, ERR_SYSTEM, "out of memory");
    return -1;
}

static bool big_enough(const struct build *b, const uint64_t *val)
{
    for (int k = 0; k < b->nev; k++)
        if (val[k] && (double)val[k] >= b->min_frac * (double)b->total[k])
            return true;
    return false;
}

static int by_frac(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->frac != y->frac)
        return x->frac > y->frac ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* Puts the n largest fractions of cand[0..nc) first (in no order): Hoare's selection. */
static void select_top(struct cand *cand, uint32_t nc, uint32_t n)
{
    uint32_t lo = 0, hi = nc;
    while (hi - lo > 1) {
        struct cand pivot = cand[lo + (hi - lo) / 2];
        uint32_t i = lo, j = hi - 1;
        while (i <= j) {
            while (by_frac(&cand[i], &pivot) < 0)
                i++;
            while (by_frac(&cand[j], &pivot) > 0)
                j--;
            if (i <= j) {
                struct cand t = cand[i];
                cand[i] = cand[j];
                cand[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (n <= j)
            hi = j + 1;
        else if (n >= i)
            lo = i;
        else
            return;
    }
}

/* The share of value v (event k) of unit u's content for each of its entries (piece[j * nev +
 * k]), its frames so far having had ucum: each entry's parts over all the unit's frames add up
 * to the entry (rounded down where the running target is a fraction, the units left over to
 * the largest fractions, those ahead of their target first held back). */
static uint64_t spread(struct build *b, const uint64_t *amt, uint64_t *acc, uint32_t ne,
                       uint64_t M, uint64_t C, uint64_t v, uint64_t *piece, int k)
{
    int nev = b->nev;
    if (M == 0 || C >= M) {
        for (uint32_t j = 0; j < ne; j++)
            piece[(size_t)j * nev + k] = 0;
        return C;
    }
    uint64_t end = C + v > M || C + v < C ? M : C + v, want = end - C, got = 0;
    if (C == 0 && end == M) {   /* the whole in one frame (the most common) */
        for (uint32_t j = 0; j < ne; j++) {
            uint64_t a = amt[(size_t)j * nev + k];
            piece[(size_t)j * nev + k] = a;
            acc[(size_t)j * nev + k] = a;
        }
        return M;
    }
    struct cand *cand = b->cand;
    uint32_t nc = 0;
    /* (rounded down; those ahead of theirs get 0 for now) */
    for (uint32_t j = 0; j < ne; j++) {
        uint64_t a = amt[(size_t)j * nev + k], q, r, ea;
        if (!__builtin_mul_overflow(end, a, &ea)) { /* (no 128-bit division where none is needed) */
            q = ea / M;
            r = ea - q * M;
        } else {
            unsigned __int128 t = (unsigned __int128)end * a;
            q = (uint64_t)(t / M);
            r = (uint64_t)(t - (unsigned __int128)q * M);
        }
        uint64_t s = acc[(size_t)j * nev + k];
        uint64_t x = q > s ? q - s : 0;
        piece[(size_t)j * nev + k] = x;
        got += x;
        if (s <= q && q < a)    /* may take one more: its fraction (all over M) */
            cand[nc++] = (struct cand){j, r};
    }
    if (got < want) {       /* the units left, to the largest fractions */
        uint64_t need = want - got;
        if (need < nc && need > 8)
            select_top(cand, nc, (uint32_t)need);
        else if (need < nc)     /* (a few: the largest picked out) */
            for (uint32_t i = 0; i < need; i++) {
                uint32_t best = i;
                for (uint32_t j = i + 1; j < nc; j++)
                    if (by_frac(&cand[j], &cand[best]) < 0)
                        best = j;
                struct cand t = cand[i];
                cand[i] = cand[best];
                cand[best] = t;
            }
        for (uint32_t i = 0; i < nc && got < want; i++, got++)
            piece[(size_t)cand[i].j * nev + k]++;
    }
    while (got > want) {    /* (those ahead held back made it more: the largest give) */
        uint32_t best = NONE;
        for (uint32_t j = 0; j < ne; j++)
            if (piece[(size_t)j * nev + k] && (best == NONE ||
                piece[(size_t)j * nev + k] > piece[(size_t)best * nev + k]))
                best = j;
        piece[(size_t)best * nev + k]--;
        got--;
    }
    for (uint32_t j = 0; j < ne; j++)
        acc[(size_t)j * nev + k] += piece[(size_t)j * nev + k];
    return C + got;
}

/* spread() over unit u's entries (its content), its frames so far having had ucum. */
static void share(struct build *b, uint32_t u, int k, uint64_t v, uint64_t *piece)
{
    int nev = b->nev;
    const struct unit *un = &b->un[u];
    b->ucum[(size_t)u * nev + k] =
        spread(b, b->uamt + (size_t)un->e0 * nev, b->uacc + (size_t)un->e0 * nev, un->ne,
               b->umass[(size_t)u * nev + k], b->ucum[(size_t)u * nev + k], v, piece, k);
}

struct tmpl;
static void tmpl_free(struct tmpl *t);

/* A group entered at one of its members, drawn as the calls among its members lead from there
 * (each member under the one that called it, a member already on the path not again): the
 * appearances of each member, with weights (its share of the calls reaching it), in
 * depth-first order. Each member's content is split among its appearances by weight. */
struct tmpl {
    uint32_t n;
    uint32_t *member;       /* its member's place in the unit */
    uint32_t *up;           /* the appearance above it, NONE for the first */
    uint32_t *first, *next; /* its first appearance below, its next beside it */
    uint64_t *w, *cw;       /* its weight, and those of its member's appearances before it */
    uint64_t *wsum;         /* per member: the weights of all its appearances */
};

#define APP_MAX 4000       /* appearances of one group's members, at most */
#define APP_MIN 1e-5        /* the least weight drawn, against the member entered */

struct tbuild {
    struct build *b;
    const struct unit *un;
    struct tmpl *t;
    double *w;
    bool *on;
    uint32_t cap;
};

static int tmpl_add(struct tbuild *tb, uint32_t m, uint32_t up, double w)
{
    struct tmpl *t = tb->t;
    if (t->n == tb->cap) {
        uint32_t cap = tb->cap ? tb->cap * 2 : 64;
        uint32_t *mm = realloc(t->member, cap * sizeof *mm);
        if (mm)
            t->member = mm;
        uint32_t *uu = realloc(t->up, cap * sizeof *uu);
        if (uu)
            t->up = uu;
        double *ww = realloc(tb->w, cap * sizeof *ww);
        if (ww)
            tb->w = ww;
        if (!mm || !uu || !ww)
            return err_set(tb->b->e, ERR_SYSTEM, "out of memory");
        tb->cap = cap;
    }
    t->member[t->n] = m;
    t->up[t->n] = up;
    tb->w[t->n] = w;
    return (int)t->n++;
}

/* appearance a (member m, weight w): the members it calls, biggest first */
static int tmpl_walk(struct tbuild *tb, uint32_t a, uint32_t m, double w)
{
    struct build *b = tb->b;
    int nev = b->nev;
    const struct unit *un = tb->un;
    uint32_t s = b->umem[un->m0 + m];
    double mass = (double)b->smass[(size_t)s * nev];
    tb->on[m] = true;
    uint32_t nk = 0;
    struct { uint32_t m; double w; } kid[64];
    for (uint32_t e = b->st[s].e0; e < b->st[s].e0 + b->st[s].ne; e++) {
        uint32_t c = b->secol[e];
        if (c == NONE)
            continue;
        uint32_t t = b->setgt[e];
        if (b->st[t].unit != b->st[s].unit || tb->on[b->st[t].pos])
            continue;
        double x = (double)b->seamt[(size_t)e * nev];
        double cw = mass > 0 ? w * x / mass : 0;
        if (cw < APP_MIN || tb->t->n + nk >= APP_MAX)
            continue;
        if (nk < 64)
            kid[nk++].m = b->st[t].pos, kid[nk - 1].w = cw;
    }
    for (uint32_t i = 1; i < nk; i++)   /* biggest first */
        for (uint32_t j = i; j > 0 && kid[j].w > kid[j - 1].w; j--) {
            __typeof__(kid[0]) x = kid[j];
            kid[j] = kid[j - 1];
            kid[j - 1] = x;
        }
    for (uint32_t i = 0; i < nk; i++) {
        if (tb->on[kid[i].m] || tb->t->n >= APP_MAX)
            continue;
        int at = tmpl_add(tb, kid[i].m, a, kid[i].w);
        if (at < 0 || tmpl_walk(tb, (uint32_t)at, kid[i].m, kid[i].w) < 0)
            return -1;
    }
    tb->on[m] = false;
    return 0;
}

static void tmpl_free(struct tmpl *t)
{
    if (!t)
        return;
    free(t->member), free(t->up), free(t->first), free(t->next);
    free(t->w), free(t->cw), free(t->wsum);
    free(t);
}

/* The template of group unit u entered at state s (made once, then kept). */
static struct tmpl *tmpl_get(struct build *b, uint32_t s)
{
    if (b->tmpl_of[s])
        return b->tmpl_of[s];
    const struct unit *un = &b->un[b->st[s].unit];
    struct tmpl *t = calloc(1, sizeof *t);
    struct tbuild tb = {.b = b, .un = un, .t = t};
    bool *reached = calloc((size_t)un->nm + 1, sizeof *reached);
    tb.on = calloc((size_t)un->nm + 1, sizeof *tb.on);
    if (!t || !tb.on || !reached)
        goto nomem;
    if (tmpl_add(&tb, b->st[s].pos, NONE, 1.0) < 0 || tmpl_walk(&tb, 0, b->st[s].pos, 1.0) < 0)
        goto fail;
    for (uint32_t a = 0; a < t->n; a++)
        reached[t->member[a]] = true;
    for (uint32_t m = 0; m < un->nm; m++)    /* (cut off by the weights: under the first) */
        if (!reached[m] && tmpl_add(&tb, m, 0, APP_MIN) < 0)
            goto fail;
    t->first = malloc(((size_t)t->n + 1) * sizeof *t->first);
    t->next = malloc(((size_t)t->n + 1) * sizeof *t->next);
    t->w = malloc(((size_t)t->n + 1) * sizeof *t->w);
    t->cw = malloc(((size_t)t->n + 1) * sizeof *t->cw);
    t->wsum = calloc((size_t)un->nm + 1, sizeof *t->wsum);
    if (!t->first || !t->next || !t->w || !t->cw || !t->wsum)
        goto nomem;
    for (uint32_t a = 0; a < t->n; a++) {
        t->first[a] = t->next[a] = NONE;
        double x = tb.w[a] * (double)(1ull << 40);
        t->w[a] = x < 1 ? 1 : (uint64_t)x;
        t->cw[a] = t->wsum[t->member[a]];
        t->wsum[t->member[a]] += t->w[a];
    }
    for (uint32_t a = t->n; a-- > 1;) {    /* children in their order */
        t->next[a] = t->first[t->up[a]];
        t->first[t->up[a]] = a;
    }
    free(tb.w);
    free(tb.on);
    free(reached);
    b->tmpl_of[s] = t;
    return t;
nomem:
    err_set(b->e, ERR_SYSTEM, "out of memory");
fail:
    free(tb.w);
    free(tb.on);
    free(reached);
    tmpl_free(t);
    return NULL;
}

/* One drawing of a group: the pieces of its entries, its template, each appearance's value. */
struct ginst {
    uint32_t unit;
    uint64_t *piece;        /* ne * nev: the drawing's share of the group's entries */
    uint64_t *acc;          /* ne * nev: of those, what the appearances drawn have had */
    uint64_t *tot, *cum;    /* per member * nev: its entries' pieces, and what its appearances
                               drawn have had of them */
    struct tmpl *t;
    uint64_t *val;          /* per appearance * nev */
};

static void ginst_free(struct ginst *gi)
{
    if (gi) {
        free(gi->piece);
        free(gi->acc);
        free(gi->tot);
        free(gi->cum);
        free(gi->val);
        free(gi);
    }
}

/* appearance a's part of its member's pieces (by its weight), event k */
static uint64_t app_own(const struct build *b, const struct ginst *gi, uint32_t a, int k)
{
    const struct tmpl *t = gi->t;
    uint32_t m = t->member[a];
    uint64_t x = gi->tot[(size_t)m * b->nev + k], W = t->wsum[m];
    unsigned __int128 hi = (unsigned __int128)x * (t->cw[a] + t->w[a]),
                      lo = (unsigned __int128)x * t->cw[a];
    return (uint64_t)(hi / W - lo / W);
}

/* A child of the frame being drawn: a unit entered at a state (a call's piece of it), or an
 * appearance of a group's member. Its value is kids.v[voff .. voff + nev). */
struct kid {
    uint32_t state;         /* the state entered, or the appearance */
    uint32_t voff;
    uint32_t func;
    bool exact;
    struct ginst *gi;       /* an appearance's group drawing, or NULL */
};

struct kids {
    struct kid *k;
    uint32_t n, cap;
    uint64_t *v;
    size_t nv, vcap;
    struct ginst **gi;      /* the group drawings its kids need (freed with it) */
    uint32_t ngi, gicap;
};

static void kids_free(struct kids *kl)
{
    for (uint32_t i = 0; i < kl->ngi; i++)
        ginst_free(kl->gi[i]);
    free(kl->gi);
    free(kl->k);
    free(kl->v);
}

static bool zero(const uint64_t *val, int nev)
{
    for (int k = 0; k < nev; k++)
        if (val[k])
            return false;
    return true;
}

static int kids_add(struct build *b, struct kids *kl, struct kid kd, const uint64_t *val)
{
    int nev = b->nev;
    bool any = false;
    for (int k = 0; k < nev; k++)
        any |= val[k] != 0;
    if (!any)
        return 0;
    if (kl->n == kl->cap) {
        uint32_t cap = kl->cap ? kl->cap * 2 : 16;
        struct kid *q = realloc(kl->k, cap * sizeof *q);
        if (!q)
            return err_set(b->e, ERR_SYSTEM, "out of memory");
        kl->k = q;
        kl->cap = cap;
    }
    if (kl->nv + nev > kl->vcap) {
        size_t cap = kl->vcap ? kl->vcap * 2 : 64;
        while (cap < kl->nv + nev)
            cap *= 2;
        uint64_t *q = realloc(kl->v, cap * sizeof *q);
        if (!q)
            return err_set(b->e, ERR_SYSTEM, "out of memory");
        kl->v = q;
        kl->vcap = cap;
    }
    kd.voff = (uint32_t)kl->nv;
    memcpy(kl->v + kl->nv, val, nev * sizeof *val);
    kl->nv += nev;
    kl->k[kl->n++] = kd;
    return 0;
}

/* The kids that enter the same unit at the same state made one, the first added, worth all
 * of them (found through a mark per state, not looked for at each kids_add: a frame of an
 * eval loop has thousands of kids); the others left out, the order kept. */
static void kids_merge(struct build *b, struct kids *kl)
{
    int nev = b->nev;
    uint32_t n = 0;
    for (uint32_t i = 0; i < kl->n; i++) {
        struct kid *d = &kl->k[i];
        uint32_t *first = d->gi ? NULL : &b->first_kid[d->state];
        if (first && *first != NONE) {
            struct kid *f = &kl->k[*first];
            for (int k = 0; k < nev; k++)
                kl->v[f->voff + k] += kl->v[d->voff + k];
            f->exact &= d->exact;
            continue;
        }
        if (first)
            *first = n;
        kl->k[n++] = *d;
    }
    kl->n = n;
    for (uint32_t i = 0; i < n; i++)
        if (!kl->k[i].gi)
            b->first_kid[kl->k[i].state] = NONE;
}

/* A stable merge sort of a[0..n) (of type T) by less-than lt(x, y) (pointers), tmp: room for
 * n more; the comparisons inline, where qsort's calls through a pointer were a tenth of
 * folded's instructions on a CPython profile with contexts. Stable, as glibc's qsort (a merge
 * sort) is: the same order. */
#define MERGE_SORT(name, T, lt)                                                              \
    static void name(T *a, T *tmp, uint32_t n)                                               \
    {                                                                                        \
        for (uint32_t lo = 0; lo < n; lo += 8) {    /* runs of 8 by insertion */             \
            uint32_t hi = lo + 8 < n ? lo + 8 : n;                                           \
            for (uint32_t i = lo + 1; i < hi; i++) {                                         \
                T x = a[i];                                                                  \
                uint32_t j = i;                                                              \
                for (; j > lo && lt(&x, &a[j - 1]); j--)                                     \
                    a[j] = a[j - 1];                                                         \
                a[j] = x;                                                                    \
            }                                                                                \
        }                                                                                    \
        T *from = a, *to = tmp;                                                              \
        for (uint32_t w = 8; w < n; w *= 2) {                                                \
            for (uint32_t lo = 0; lo < n; lo += 2 * w) {                                     \
                uint32_t mid = lo + w < n ? lo + w : n, hi = mid + w < n ? mid + w : n;      \
                uint32_t i = lo, j = mid, o = lo;                                            \
                while (i < mid && j < hi)                                                    \
                    to[o++] = lt(&from[j], &from[i]) ? from[j++] : from[i++];                \
                while (i < mid)                                                              \
                    to[o++] = from[i++];                                                     \
                while (j < hi)                                                               \
                    to[o++] = from[j++];                                                     \
            }                                                                                \
            T *t = from;                                                                     \
            from = to;                                                                       \
            to = t;                                                                          \
        }                                                                                    \
        if (from != a)                                                                       \
            memcpy(a, from, (size_t)n * sizeof *a);                                          \
    }

static const uint32_t *sort_rank;

/* The order kids are drawn in: by name (then state, appearance), not by value, so that where
 * a unit's frames get rounded shares, which frame gets a unit depends on the graph alone, not
 * on the values (two profiles of one program with one path changed round the others alike);
 * the frames are put biggest first afterwards (reorder()). */
static inline bool kid_before(const struct kid *x, const struct kid *y)
{
    uint32_t rx = sort_rank[x->func], ry = sort_rank[y->func];
    if (rx != ry)
        return rx < ry;
    if ((x->gi != NULL) != (y->gi != NULL))
        return !x->gi;
    return x->state < y->state;
}

MERGE_SORT(sort_kids, struct kid, kid_before)

/* The kids of kl in that order. 0, or -1 out of memory. */
static int kids_sort(struct build *b, struct kids *kl)
{
    if (kl->n < 2)
        return 0;
    struct kid *tmp = malloc((size_t)kl->n * sizeof *tmp);
    if (!tmp)
        return err_set(b->e, ERR_SYSTEM, "out of memory");
    sort_rank = b->name_rank;
    sort_kids(kl->k, tmp, kl->n);
    free(tmp);
    return 0;
}

static int gather_app(struct build *b, struct kids *kl, struct ginst *gi, uint32_t a,
                      uint32_t func, bool exact);

/* The kids of a frame of function func from unit state s, worth v there: its calls out (a
 * call into the same function's other level drawn in this frame: its own calls gathered
 * too), or, for a group, its drawing from s. */
static int gather_unit(struct build *b, struct kids *kl, uint32_t s, const uint64_t *v,
                       uint32_t func, bool exact)
{
    int nev = b->nev;
    uint32_t u = b->st[s].unit;
    const struct unit *un = &b->un[u];
    /* (share() sets every entry's piece of every event) */
    uint64_t *piece = malloc(((size_t)un->ne + 1) * nev * sizeof *piece);
    if (!piece)
        return err_set(b->e, ERR_SYSTEM, "out of memory");
    bool whole = true;
    for (int k = 0; k < nev; k++) {
        whole &= b->ucum[(size_t)u * nev + k] == 0 && v[k] == b->umass[(size_t)u * nev + k];
        share(b, u, k, v[k], piece);
    }
    if (!un->group) {
        int rc = 0;
        for (uint32_t j = 0; j < un->ne && rc == 0; j++) {
            const struct uentry *x = &b->ue[un->e0 + j];
            const uint64_t *pc = piece + (size_t)j * nev;
            if (x->col == NONE)
                continue;
            bool ex = exact && whole && x->exact;
            if (x->tfunc == func)
                rc = gather_unit(b, kl, x->target, pc, func, ex);
            else if (!zero(pc, nev))
                rc = kids_add(b, kl, (struct kid){x->target, 0, x->tfunc, ex, NULL}, pc);
        }
        free(piece);
        return rc;
    }
    /* a group: its appearances' values, from the last (the deepest) up */
    struct ginst *gi = calloc(1, sizeof *gi);
    if (!gi || (kl->ngi == kl->gicap &&
                !(kl->gi = realloc(kl->gi, (kl->gicap = kl->gicap ? kl->gicap * 2 : 4) *
                                               sizeof *kl->gi)))) {
        free(gi);
        free(piece);
        kl->ngi = kl->gicap = 0;    /* (the drawings held are lost: an error anyway) */
        return err_set(b->e, ERR_SYSTEM, "out of memory");
    }
    kl->gi[kl->ngi++] = gi;
    *gi = (struct ginst){.unit = u, .piece = piece, .t = tmpl_get(b, s)};
    if (!gi->t)
        return -1;
    const struct tmpl *t = gi->t;
    gi->val = calloc(((size_t)t->n + 1) * nev, sizeof *gi->val);
    gi->acc = calloc(((size_t)un->ne + 1) * nev, sizeof *gi->acc);
    gi->tot = calloc(((size_t)un->nm + 1) * nev, sizeof *gi->tot);
    gi->cum = calloc(((size_t)un->nm + 1) * nev, sizeof *gi->cum);
    if (!gi->val || !gi->acc || !gi->tot || !gi->cum)
        return err_set(b->e, ERR_SYSTEM, "out of memory");
    for (uint32_t m = 0; m < un->nm; m++) {
        const struct state *st = &b->st[b->umem[un->m0 + m]];
        for (uint32_t i = 0; i < st->nue; i++)
            for (int k = 0; k < nev; k++)
                gi->tot[(size_t)m * nev + k] += piece[(size_t)(st->ue0 + i) * nev + k];
    }
    for (uint32_t a = t->n; a-- > 0;) {
        uint64_t *va = gi->val + (size_t)a * nev;
        for (int k = 0; k < nev; k++)
            va[k] += app_own(b, gi, a, k);
        if (a > 0)
            for (int k = 0; k < nev; k++)
                gi->val[(size_t)t->up[a] * nev + k] += va[k];
    }
    uint32_t f0 = func_of(b, b->umem[un->m0 + t->member[0]]);
    return f0 == func ? gather_app(b, kl, gi, 0, func, exact && whole)
                      : kids_add(b, kl, (struct kid){0, 0, f0, exact && whole, gi}, gi->val);
}

/* The kids of appearance a of a group's drawing (in a frame of function func): its calls out
 * of the group, and the appearances below it. */
static int gather_app(struct build *b, struct kids *kl, struct ginst *gi, uint32_t a,
                      uint32_t func, bool exact)
{
    int nev = b->nev;
    const struct unit *un = &b->un[gi->unit];
    const struct tmpl *t = gi->t;
    uint32_t m = t->member[a];
    const struct state *st = &b->st[b->umem[un->m0 + m]];
    uint64_t *part = malloc(((size_t)st->nue + 1) * nev * sizeof *part);  /* (spread sets it) */
    if (!part)
        return err_set(b->e, ERR_SYSTEM, "out of memory");
    (void)exact;    /* (below the member entered, the paths are an estimate) */
    for (int k = 0; k < nev; k++)       /* its own value spread over its member's entries */
        gi->cum[(size_t)m * nev + k] =
            spread(b, gi->piece + (size_t)st->ue0 * nev, gi->acc + (size_t)st->ue0 * nev,
                   st->nue, gi->tot[(size_t)m * nev + k], gi->cum[(size_t)m * nev + k],
                   app_own(b, gi, a, k), part, k);
    for (uint32_t i = 0; i < st->nue; i++) {
        const struct uentry *x = &b->ue[un->e0 + st->ue0 + i];
        if (x->col == NONE)
            continue;
        const uint64_t *pc = part + (size_t)i * nev;
        int rc = x->tfunc == func ? gather_unit(b, kl, x->target, pc, func, false)
                 : zero(pc, nev)  ? 0      /* (a kid worth nothing is none: kids_add) */
                 : kids_add(b, kl, (struct kid){x->target, 0, x->tfunc, false, NULL}, pc);
        if (rc < 0) {
            free(part);
            return -1;
        }
    }
    free(part);
    for (uint32_t c = t->first[a]; c != NONE; c = t->next[c]) {
        uint32_t fc = func_of(b, b->umem[un->m0 + t->member[c]]);
        int rc = fc == func ? gather_app(b, kl, gi, c, func, false)
                            : kids_add(b, kl, (struct kid){c, 0, fc, false, gi},
                                       gi->val + (size_t)c * nev);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* A kid merged into "other": its unit's share taken all the same, so that the unit's other
 * frames are rounded as they would be with every frame drawn (and as in another drawing of
 * the profile at another threshold). */
static int pass_over(struct build *b, uint32_t s, const uint64_t *v)
{
    int nev = b->nev;
    uint32_t u = b->st[s].unit;
    for (int k = 0; k < nev; k++)
        share(b, u, k, v[k], b->pass_piece);
    return 0;
}

/* A callee too small to draw (v, per event) merged into parent's "other" frame, *o, made at
 * the first. 0, or -1 out of memory. */
static int add_other(struct build *b, uint32_t parent, uint32_t *o, const uint64_t *v)
{
    struct cg_flame *fl = b->fl;
    if (*o == NONE) {
        uint64_t zero[CG_MAX_EVENTS] = {0};
        long at = add_frame(b, CG_FRAME_OTHER, parent, false, zero);
        if (at < 0)
            return -1;
        *o = (uint32_t)at;
    }
    for (int k = 0; k < b->nev; k++)
        fl->value[(size_t)*o * b->nev + k] += v[k];
    fl->frames[*o].merged++;
    fl->merged++;
    return 0;
}

/* Draws kid kd (of kids list from) as a frame under parent, then its own kids (biggest first;
 * those too small for the threshold, or too deep, merged into its "other" frame). */
static int draw(struct build *b, const struct kid *kd, const uint64_t *val, uint32_t parent)
{
    struct cg_flame *fl = b->fl;
    long f = add_frame(b, kd->func, parent, kd->exact, val);
    if (f < 0)
        return -1;
    struct kids kl = {0};
    int rc = kd->gi ? gather_app(b, &kl, kd->gi, kd->state, kd->func, kd->exact)
                    : gather_unit(b, &kl, kd->state, val, kd->func, kd->exact);
    if (rc < 0)
        goto done;
    kids_merge(b, &kl);
    if ((rc = kids_sort(b, &kl)) < 0)
        goto done;
    uint32_t o = NONE;
    for (uint32_t j = 0; j < kl.n; j++) {
        const uint64_t *v = kl.v + kl.k[j].voff;
        if (fl->frames[f].depth + 1 >= b->max_depth || !big_enough(b, v)) {
            b->cut = true;
            if (!kl.k[j].gi && (rc = pass_over(b, kl.k[j].state, v)) < 0)
                goto done;
            if ((rc = add_other(b, (uint32_t)f, &o, v)) < 0)
                goto done;
            continue;
        }
        if ((rc = draw(b, &kl.k[j], v, (uint32_t)f)) < 0)
            goto done;
    }
done:
    kids_free(&kl);
    return rc;
}

static const struct cg_profile *rank_p;

static int by_name(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(cg_str(rank_p, rank_p->funcs[x].name), cg_str(rank_p, rank_p->funcs[y].name));
    return c ? c : (x > y) - (x < y);
}

/* The drawing's scratch: each function's place by name (kid_before compares those, not the
 * names: the kids of a frame are sorted at every frame), a mark per state for kids_merge,
 * a piece per entry of the largest unit for pass_over. 0, or -1 out of memory. */
static int draw_scratch(struct build *b)
{
    uint32_t nf = b->p->nfunc, most = 0;
    uint32_t *ix = xcalloc(b, (size_t)nf + 1, sizeof *ix);
    b->name_rank = xcalloc(b, (size_t)nf + 1, sizeof *b->name_rank);
    b->first_kid = xcalloc(b, (size_t)b->nst + 1, sizeof *b->first_kid);
    for (uint32_t u = 0; u < b->nunit; u++)
        most = b->un[u].ne > most ? b->un[u].ne : most;
    b->pass_piece = xcalloc(b, ((size_t)most + 1) * (b->nev ? b->nev : 1),
                            sizeof *b->pass_piece);
    if (!ix || !b->name_rank || !b->first_kid || !b->pass_piece) {
        free(ix);
        return -1;
    }
    for (uint32_t s = 0; s < b->nst; s++)
        b->first_kid[s] = NONE;
    for (uint32_t f = 0; f < nf; f++)
        ix[f] = f;
    rank_p = b->p;
    qsort(ix, nf, sizeof *ix, by_name);
    for (uint32_t i = 0, r = 0; i < nf; i++) {
        if (i > 0 && strcmp(cg_str(b->p, b->p->funcs[ix[i]].name),
                            cg_str(b->p, b->p->funcs[ix[i - 1]].name)))
            r = i;
        b->name_rank[ix[i]] = r;
    }
    free(ix);
    return 0;
}

/* The root: the units nobody calls (the program's entry, thread starts), each worth its
 * content, and what none of them holds. */
static int draw_root(struct build *b)
{
    int nev = b->nev;
    struct cg_flame *fl = b->fl;
    if (add_frame(b, CG_FRAME_ROOT, NONE, true, b->total) < 0 || draw_scratch(b) < 0)
        return -1;
    bool *called = xcalloc(b, (size_t)b->nunit + 1, sizeof *called);
    struct kids kl = {0};
    int rc = -1;
    if (!called)
        goto done;
    for (uint32_t e = 0; e < b->nue; e++)
        if (b->ue[e].target != NONE)
            called[b->st[b->ue[e].target].unit] = true;
    uint64_t held[CG_MAX_EVENTS] = {0};
    for (uint32_t u = 0; u < b->nunit; u++) {
        if (called[u])
            continue;
        const struct unit *un = &b->un[u];
        uint32_t s = b->umem[un->m0];      /* a group nobody calls: its biggest member */
        for (uint32_t i = 1; i < un->nm; i++)
            if (b->smass[(size_t)b->umem[un->m0 + i] * nev] > b->smass[(size_t)s * nev])
                s = b->umem[un->m0 + i];
        const uint64_t *m = b->umass + (size_t)u * nev;
        for (int k = 0; k < nev; k++)
            held[k] = sat_add(held[k], m[k]);
        if (kids_add(b, &kl, (struct kid){s, 0, func_of(b, s), true, NULL}, m) < 0)
            goto done;
    }
    for (uint32_t u = 0; u < b->nunit; u++) {   /* what the calls into a unit do not bring */
        const uint64_t *d = b->deficit + (size_t)u * nev;
        bool any = false;
        for (int k = 0; k < nev; k++)
            any |= d[k] != 0;
        if (!any || !called[u])
            continue;
        const struct unit *un = &b->un[u];
        uint32_t s = b->umem[un->m0];
        for (uint32_t i = 1; i < un->nm; i++)
            if (b->smass[(size_t)b->umem[un->m0 + i] * nev] > b->smass[(size_t)s * nev])
                s = b->umem[un->m0 + i];
        for (int k = 0; k < nev; k++)
            held[k] = sat_add(held[k], d[k]);
        if (kids_add(b, &kl, (struct kid){s, 0, func_of(b, s), false, NULL}, d) < 0)
            goto done;
    }
    kids_merge(b, &kl);
    /* (roots worth more than the total: a profile at odds with itself, scaled down) */
    for (int k = 0; k < nev; k++)
        if (held[k] > b->total[k])
            for (uint32_t j = 0; j < kl.n; j++) {
                uint64_t *x = &kl.v[kl.k[j].voff + k];
                *x = (uint64_t)((unsigned __int128)*x * b->total[k] / held[k]);
                kl.k[j].exact = false;
            }
    if (nev)
        fl->unreached = held[0] < b->total[0] ? b->total[0] - held[0] : 0;
    if (kids_sort(b, &kl) < 0)
        goto done;
    rc = 0;
    uint32_t o = NONE;
    for (uint32_t j = 0; j < kl.n && rc == 0; j++) {
        const uint64_t *v = kl.v + kl.k[j].voff;
        if (!big_enough(b, v)) {
            b->cut = true;
            rc = add_other(b, 0, &o, v);
            continue;
        }
        rc = draw(b, &kl.k[j], v, 0);
    }
done:
    free(called);
    kids_free(&kl);
    return rc;
}

/* The frames again in depth-first order, each frame's children biggest first (by the first
 * event, then by name; "other" last). */
static const struct cg_flame *ro_fl;
static const uint32_t *ro_rank;      /* each function's place by name (draw_scratch) */

static inline bool frame_before(const uint32_t *a, const uint32_t *b)
{
    uint32_t x = *a, y = *b;
    const struct cg_frame *fx = &ro_fl->frames[x], *fy = &ro_fl->frames[y];
    if ((fx->func == CG_FRAME_OTHER) != (fy->func == CG_FRAME_OTHER))
        return fy->func == CG_FRAME_OTHER;
    uint64_t vx = cg_frame_value(ro_fl, x, 0), vy = cg_frame_value(ro_fl, y, 0);
    if (vx != vy)
        return vx > vy;
    if (fx->func < CG_FRAME_OTHER && fy->func < CG_FRAME_OTHER &&
        ro_rank[fx->func] != ro_rank[fy->func])
        return ro_rank[fx->func] < ro_rank[fy->func];
    return x < y;
}

MERGE_SORT(sort_frames, uint32_t, frame_before)

static int reorder(struct build *b)
{
    struct cg_flame *fl = b->fl;
    int nev = fl->nev;
    uint32_t n = fl->n;
    uint32_t *at = calloc((size_t)n + 2, sizeof *at);
    uint32_t *kids = malloc(((size_t)n + 1) * sizeof *kids);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order), *stack = malloc(((size_t)n + 1) *
                                                                             sizeof *stack);
    uint32_t *newi = malloc(((size_t)n + 1) * sizeof *newi);
    struct cg_frame *fr = malloc(((size_t)n + 1) * sizeof *fr);
    uint64_t *val = malloc(((size_t)n + 1) * (nev ? nev : 1) * sizeof *val);
    int rc = -1;
    if (!at || !kids || !order || !stack || !newi || !fr || !val) {
        err_set(b->e, ERR_SYSTEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 1; i < n; i++)
        at[fl->frames[i].parent + 2]++;
    for (uint32_t i = 0; i < n; i++)
        at[i + 2] += at[i + 1];
    for (uint32_t i = 1; i < n; i++)
        kids[at[fl->frames[i].parent + 1]++] = i;
    ro_fl = fl;
    ro_rank = b->name_rank;
    for (uint32_t i = 0; i < n; i++)
        sort_frames(kids + at[i], stack, at[i + 1] - at[i]);    /* (stack: scratch yet) */
    uint32_t m = 0, sp = 0;
    if (n)
        stack[sp++] = 0;
    while (sp) {        /* depth first, the biggest child first */
        uint32_t i = stack[--sp];
        newi[i] = m;
        order[m++] = i;
        for (uint32_t j = at[i + 1]; j-- > at[i];)
            stack[sp++] = kids[j];
    }
    for (uint32_t j = 0; j < m; j++) {
        uint32_t i = order[j];
        fr[j] = fl->frames[i];
        if (i)
            fr[j].parent = newi[fl->frames[i].parent];
        memcpy(val + (size_t)j * nev, fl->value + (size_t)i * nev, nev * sizeof *val);
    }
    memcpy(fl->frames, fr, (size_t)m * sizeof *fr);
    memcpy(fl->value, val, (size_t)m * nev * sizeof *val);
    rc = 0;
done:
    free(at), free(kids), free(order), free(stack), free(newi), free(fr), free(val);
    return rc;
}

/* ---- the sums ---- */

/* What the "other" frames under each frame hold (sub[i * nev + k]; sub[0 ..] all of them):
 * where frames were merged, the most the frames drawn under it can be short of the whole
 * tree's (a merged callee's frames are the whole tree's, undrawn). NULL: no memory. */
static uint64_t *merged_under(const struct cg_flame *fl)
{
    int nev = fl->nev;
    uint64_t *sub = calloc((size_t)fl->n * (nev ? nev : 1) + 1, sizeof *sub);
    for (uint32_t i = fl->n; sub && i-- > 1;) {
        uint64_t *s = sub + (size_t)i * nev, *up = sub + (size_t)fl->frames[i].parent * nev;
        for (int k = 0; k < nev; k++) {
            if (fl->frames[i].func == CG_FRAME_OTHER)
                s[k] = sat_add(s[k], cg_frame_value(fl, i, k));
            up[k] = sat_add(up[k], s[k]);
        }
    }
    return sub;
}

/* Compares each function's frames with its own numbers: flag[f] as in flame.h (where frames
 * were merged, only where the sums are off by more than the merged frames could hide). */
static int check_sums(struct build *b)
{
    struct cg_flame *fl = b->fl;
    const struct cg_profile *p = b->p;
    int nev = b->nev;
    uint64_t *self = calloc(((size_t)p->nfunc + 1) * nev, sizeof *self);
    uint64_t *outer = calloc(((size_t)p->nfunc + 1) * nev, sizeof *outer);
    uint64_t *under = calloc(((size_t)p->nfunc + 1) * nev, sizeof *under);
    uint32_t *on = calloc((size_t)p->nfunc + 1, sizeof *on);
    uint32_t *path = malloc(((size_t)fl->n + 1) * sizeof *path);
    uint64_t *sub = merged_under(fl);
    fl->flag = calloc((size_t)p->nfunc + 1, 1);
    if (!self || !outer || !under || !on || !path || !sub || !fl->flag) {
        free(self), free(outer), free(under), free(on), free(path), free(sub);
        return err_set(b->e, ERR_SYSTEM, "out of memory");
    }
    uint32_t top = 0;    /* path[1 .. top]: the frames above, by depth */
    for (uint32_t i = 1; i < fl->n; i++) {
        const struct cg_frame *fr = &fl->frames[i];
        while (top >= fr->depth) {
            uint32_t g = fl->frames[path[top]].func;
            if (g < CG_FRAME_OTHER)
                on[g]--;
            top--;
        }
        path[++top] = i;
        uint32_t up = fr->parent, g = fr->func;
        if (up != 0 && fl->frames[up].func < CG_FRAME_OTHER)   /* (an "other" one too) */
            for (int k = 0; k < nev; k++)
                self[(size_t)fl->frames[up].func * nev + k] -= cg_frame_value(fl, i, k);
        if (g >= CG_FRAME_OTHER)
            continue;
        for (int k = 0; k < nev; k++) {
            uint64_t v = cg_frame_value(fl, i, k);
            self[(size_t)g * nev + k] += v;
            if (!on[g]) {
                outer[(size_t)g * nev + k] += v;
                under[(size_t)g * nev + k] += sub[(size_t)i * nev + k];
            }
        }
        on[g]++;
    }
    fl->nfunc = p->nfunc;
    fl->self_est = fl->incl_est = 0;
    for (uint32_t f = 0; f < p->nfunc; f++) {
        if (p->funcs[f].folded)
            continue;
        unsigned char flag = p->funcs[f].incl_bound ? CG_FLAME_INCL_EST : 0;
        for (int k = 0; k < nev; k++) {
            uint64_t s = self[(size_t)f * nev + k], o = outer[(size_t)f * nev + k];
            uint64_t ts = cg_self(p, f)[k], ti = cg_incl(p, f)[k];
            if (s > ts || ts - s > sub[k])
                flag |= CG_FLAME_SELF_EST;
            if (o > ti || ti - o > sub[k] - under[(size_t)f * nev + k])
                flag |= CG_FLAME_INCL_EST;
        }
        fl->flag[f] = flag;
        fl->self_est += !!(flag & CG_FLAME_SELF_EST);
        fl->incl_est += !!(flag & CG_FLAME_INCL_EST);
    }
    fl->checked = true;
    fl->cut = b->cut;
    free(self), free(outer), free(under), free(on), free(path), free(sub);
    return 0;
}

/* ---- contexts ---- */

/* The hash of a function by its object and name strings. */
static uint32_t func_key(const char *obj, const char *name, size_t len)
{
    return cg_hash(obj, strlen(obj)) * 31u ^ cg_hash(name, len);
}

/* base[c]: the function of p that context c of ctx (a name "f'caller1'caller2") is one of;
 * *depth: the most callers a context names. NULL with e set where one is not in p (the two
 * are not the same files) or no memory. */
static uint32_t *map_contexts(const struct cg_profile *p, const struct cg_profile *ctx,
                              uint32_t *depth, struct err *e)
{
    uint32_t cap = 1024;
    while (cap < 2 * p->nfunc + 2)
        cap *= 2;
    uint32_t *tab = calloc(cap, sizeof *tab);
    uint32_t *base = malloc(((size_t)ctx->nfunc + 1) * sizeof *base);
    if (!tab || !base) {
        err_set(e, ERR_SYSTEM, "out of memory");
        goto fail;
    }
    for (uint32_t f = 0; f < p->nfunc; f++) {
        const char *name = cg_str(p, p->funcs[f].name);
        uint32_t i = func_key(cg_str(p, p->funcs[f].obj), name, strlen(name)) & (cap - 1);
        while (tab[i])
            i = (i + 1) & (cap - 1);
        tab[i] = f + 1;
    }
    *depth = 0;
    for (uint32_t c = 0; c < ctx->nfunc; c++) {
        const char *name = cg_str(ctx, ctx->funcs[c].name), *obj = cg_str(ctx, ctx->funcs[c].obj);
        size_t len = strlen(name), n = cg_strip_name(name, len, NULL);
        uint32_t callers = 0;
        for (size_t at = n; at < len; callers++)
            at += 1 + cg_strip_name(name + at + 1, len - at - 1, NULL);
        if (callers > *depth)
            *depth = callers;
        base[c] = UINT32_MAX;
        uint32_t mask = cap - 1;
        for (uint32_t i = func_key(obj, name, n) & mask, f; (f = tab[i]); i = (i + 1) & mask) {
            const char *pn = cg_str(p, p->funcs[f - 1].name);
            if (strlen(pn) == n && memcmp(pn, name, n) == 0 &&
                strcmp(cg_str(p, p->funcs[f - 1].obj), obj) == 0) {
                base[c] = f - 1;
                break;
            }
        }
        if (base[c] == UINT32_MAX) {
            err_set(e, ERR_INPUT, "the context '%.200s' is no function of the profile", name);
            goto fail;
        }
    }
    free(tab);
    return base;
fail:
    free(tab);
    free(base);
    return NULL;
}

static void build_free(struct build *b)
{
    free(b->lev);
    free(b->lself);
    free(b->col);
    free(b->ccost);
    free(b->incol);
    free(b->st);
    free(b->smass);
    free(b->secol);
    free(b->setgt);
    free(b->tr);
    free(b->seamt);
    free(b->seexact);
    free(b->iat);
    free(b->iadj);
    free(b->un);
    free(b->umem);
    free(b->ue);
    free(b->uamt);
    free(b->uacc);
    free(b->umass);
    free(b->deficit);
    free(b->ucum);
    free(b->total);
    free(b->cand);
    free(b->nokbuf);
    free(b->name_rank);
    free(b->first_kid);
    free(b->pass_piece);
    for (uint32_t s = 0; b->tmpl_of && s < b->nst; s++)
        tmpl_free(b->tmpl_of[s]);
    free(b->tmpl_of);
}

int cg_flame_build(const struct cg_profile *prof, const struct cg_flame_opts *o,
                   struct cg_flame *fl, struct err *e)
{
    memset(fl, 0, sizeof *fl);
    fl->nev = prof->nev;
    const struct cg_profile *g = o && o->ctx && o->ctx->contexts ? o->ctx : prof;
    struct build b = {.p = prof, .g = g, .fl = fl, .nev = prof->nev, .e = e,
                      .min_frac = o ? o->min_frac : 0,
                      .max_frames = o && o->max_frames ? o->max_frames : 4000000,
                      .max_depth = o && o->max_depth ? o->max_depth : 1000};
    uint32_t *base = NULL;
    int rc = -1;
    if (g != prof) {
        if (g->nev != prof->nev) {
            err_set(e, ERR_INPUT, "the contexts' profile has %d events, not %d", g->nev,
                    prof->nev);
            goto done;
        }
        if (!(base = map_contexts(prof, g, &fl->context_depth, e)))
            goto done;
        b.base = base;
    }
    if (!(b.total = xcalloc(&b, (size_t)b.nev + 1, sizeof *b.total)))
        goto done;
    for (int k = 0; k < b.nev; k++)
        b.total[k] = cg_total(prof, k);
    if (make_levels(&b) < 0 || make_states(&b) < 0 || make_entries(&b) < 0 ||
        make_units(&b) < 0 || reconcile(&b) < 0)
        goto done;
    if (draw_root(&b) < 0 || reorder(&b) < 0)
        goto done;
    if (check_sums(&b) < 0)
        goto done;
    rc = 0;
done:
    build_free(&b);
    free(base);
    if (rc < 0)
        cg_flame_free(fl);
    return rc;
}

void cg_flame_free(struct cg_flame *fl)
{
    free(fl->frames);
    free(fl->value);
    free(fl->flag);
    fl->frames = NULL;
    fl->value = NULL;
    fl->flag = NULL;
    fl->n = fl->cap = 0;
    fl->checked = fl->cut = false;
}

void cg_flame_self(const struct cg_flame *fl, int ev, uint64_t *self)
{
    for (uint32_t i = 0; i < fl->n; i++)
        self[i] = cg_frame_value(fl, i, ev);
    for (uint32_t i = 1; i < fl->n; i++) {
        uint64_t v = cg_frame_value(fl, i, ev);
        uint32_t up = fl->frames[i].parent;
        self[up] = self[up] > v ? self[up] - v : 0;
    }
}

bool cg_flame_check(const struct cg_flame *fl, const struct cg_profile *p, char *why, size_t n)
{
    int nev = fl->nev;
    if (fl->n == 0 || fl->frames[0].func != CG_FRAME_ROOT || fl->frames[0].depth != 0) {
        snprintf(why, n, "no root frame");
        return false;
    }
    for (int k = 0; k < nev; k++)
        if (cg_frame_value(fl, 0, k) != cg_total(p, k)) {
            snprintf(why, n, "root %d: %llu, not the total", k,
                     (unsigned long long)cg_frame_value(fl, 0, k));
            return false;
        }
    uint64_t *kids = calloc((size_t)fl->n * (nev ? nev : 1), sizeof *kids);
    uint32_t *path = malloc(((size_t)fl->n + 1) * sizeof *path);
    uint32_t *on = calloc((size_t)p->nfunc + 1, sizeof *on);
    uint64_t *self = calloc(((size_t)p->nfunc + 1) * (nev ? nev : 1), sizeof *self);
    uint64_t *outer = calloc(((size_t)p->nfunc + 1) * (nev ? nev : 1), sizeof *outer);
    uint64_t *under = calloc(((size_t)p->nfunc + 1) * (nev ? nev : 1), sizeof *under);
    uint64_t *sub = merged_under(fl);
    bool ok = kids && path && on && self && outer && under && sub;
    if (!ok)
        snprintf(why, n, "out of memory");
    uint32_t top = 0;
    if (path)
        path[0] = 0;
    for (uint32_t i = 1; ok && i < fl->n; i++) {
        const struct cg_frame *fr = &fl->frames[i];
        uint32_t up = fr->parent;
        if (up >= i || fr->depth != fl->frames[up].depth + 1 ||
            (fr->func < CG_FRAME_OTHER && fr->func >= p->nfunc)) {
            snprintf(why, n, "frame %u: parent %u, depth %u, function %u", i, up, fr->depth,
                     fr->func);
            ok = false;
            break;
        }
        while (top >= fr->depth) {
            uint32_t g = fl->frames[path[top]].func;
            if (g < CG_FRAME_OTHER)
                on[g]--;
            top--;
        }
        if (top + 1 != fr->depth || path[top] != up) {
            snprintf(why, n, "frame %u: not after its parent's other descendants", i);
            ok = false;
            break;
        }
        path[++top] = i;
        for (int k = 0; ok && k < nev; k++) {
            uint64_t v = cg_frame_value(fl, i, k), *s = &kids[(size_t)up * nev + k];
            if (__builtin_add_overflow(*s, v, s) || *s > cg_frame_value(fl, up, k)) {
                snprintf(why, n, "frame %u: its children are worth more than it", up);
                ok = false;
            }
            if (fr->func < CG_FRAME_OTHER) {
                self[(size_t)fr->func * nev + k] += v;
                if (!on[fr->func]) {
                    outer[(size_t)fr->func * nev + k] += v;
                    under[(size_t)fr->func * nev + k] += sub[(size_t)i * nev + k];
                }
            }
            if (fl->frames[up].func < CG_FRAME_OTHER)
                self[(size_t)fl->frames[up].func * nev + k] -= v;
        }
        if (fr->func < CG_FRAME_OTHER)
            on[fr->func]++;
    }
    for (uint32_t f = 0; ok && fl->checked && f < p->nfunc; f++) {
        if (p->funcs[f].folded)
            continue;
        unsigned char flag = fl->flag[f];
        for (int k = 0; ok && k < nev; k++) {
            const char *name = cg_str(p, p->funcs[f].name), *ev = cg_event_name(p, k);
            uint64_t s = self[(size_t)f * nev + k], o = outer[(size_t)f * nev + k];
            uint64_t ts = cg_self(p, f)[k], ti = cg_incl(p, f)[k];
            /* (where cut: short by at most what the "other" frames hide) */
            if (!(flag & CG_FLAME_SELF_EST) && (s > ts || ts - s > sub[k])) {
                snprintf(why, n, "the frames of '%s' hold %llu self %s, not its %llu", name,
                         (unsigned long long)s, ev, (unsigned long long)ts);
                ok = false;
            }
            if (!(flag & CG_FLAME_INCL_EST) &&
                (o > ti || ti - o > sub[k] - under[(size_t)f * nev + k])) {
                snprintf(why, n, "the outermost frames of '%s' hold %llu %s, not its inclusive "
                         "%llu", name, (unsigned long long)o, ev, (unsigned long long)ti);
                ok = false;
            }
        }
    }
    free(kids);
    free(path);
    free(on);
    free(self);
    free(outer);
    free(under);
    free(sub);
    return ok;
}
