/* flame.c: the tree of call stacks (frames) of a profile, from its call edges: what folded
 * stacks, flame graphs and `tare cg page` draw. See flame.h for what is exact and what is not. */
#include "core/flame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct build {
    const struct cg_profile *p;  /* the graph walked: the profile, or its contexts (o->ctx) */
    const uint32_t *base;        /* with contexts: each context's function in the profile */
    const struct cg_profile *prof;   /* the profile */
    struct cg_flame *fl;
    double min_frac;
    uint32_t max_frames, max_depth;
    uint32_t *out_at, *out_by;   /* edges by caller: out_by[out_at[f] .. out_at[f + 1]) */
    bool *on_path;               /* by function of the profile (a context's: base[]) */
    struct err *e;
};

static uint32_t base_of(const struct build *b, uint32_t f)
{
    return b->base ? b->base[f] : f;
}

/* A callee of the frame being expanded, and its cost along this path. */
struct cand {
    uint32_t func;
    uint64_t *val;    /* nev values */
};

static const struct cg_profile *sort_p;

/* x * num / den, rounded down, in 128 bits (costs reach 2^64: a double would round them, and
 * a product past 2^64 wrap); at most UINT64_MAX. */
static uint64_t muldiv(uint64_t x, uint64_t num, unsigned __int128 den)
{
    if (den == 0)
        return 0;
    unsigned __int128 r = (unsigned __int128)x * num / den;
    return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

static int by_value(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->val[0] != y->val[0])
        return x->val[0] > y->val[0] ? -1 : 1;
    int c = strcmp(cg_str(sort_p, sort_p->funcs[x->func].name),
                   cg_str(sort_p, sort_p->funcs[y->func].name));
    return c ? c : x->func < y->func ? -1 : x->func > y->func;
}

static long add_frame(struct build *b, uint32_t func, uint32_t parent, uint32_t depth,
                      bool exact, const uint64_t *val)
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
    fl->frames[fl->n] = (struct cg_frame){func, parent, depth, 0, exact};
    memcpy(fl->value + (size_t)fl->n * fl->nev, val, (size_t)fl->nev * sizeof *val);
    return fl->n++;
nomem:
    err_set(b->e, ERR_SYSTEM, "out of memory");
    return -1;
}

static bool big_enough(const struct build *b, const uint64_t *val)
{
    for (int k = 0; k < b->fl->nev; k++)
        if (val[k] && (double)val[k] >= b->min_frac * (double)cg_total(b->p, k))
            return true;
    return false;
}

/* Adds the children of frame i (of function f, or the root), their subtrees first. */
static int expand(struct build *b, uint32_t i)
{
    const struct cg_profile *p = b->p;
    struct cg_flame *fl = b->fl;
    int nev = fl->nev;
    uint32_t f = fl->frames[i].func, depth = fl->frames[i].depth;
    bool root = f == CG_FRAME_ROOT;
    uint32_t ncand = root ? p->nfunc : b->out_at[f + 1] - b->out_at[f];
    if (ncand == 0)
        return 0;
    struct cand *c = malloc((size_t)ncand * sizeof *c);
    uint64_t *vals = calloc((size_t)ncand * (nev ? nev : 1), sizeof *vals);
    unsigned __int128 *sum = calloc((size_t)nev + 1, sizeof *sum);
    uint64_t *other = calloc((size_t)nev + 1, sizeof *other);
    uint64_t *v = calloc((size_t)nev + 1, sizeof *v);
    int rc = -1;
    if (!c || !vals || !sum || !other || !v) {
        err_set(b->e, ERR_SYSTEM, "out of memory");
        goto done;
    }
    memcpy(v, fl->value + (size_t)i * nev, (size_t)nev * sizeof *v);
    /* the whole of f on this path: the callees' costs are the edges' own */
    bool whole = fl->frames[i].exact;
    for (int k = 0; k < nev && whole && !root; k++)
        whole = v[k] == cg_incl(p, f)[k];
    uint32_t n = 0;
    for (uint32_t j = 0; j < ncand; j++) {
        uint64_t *cv = vals + (size_t)n * nev;
        uint32_t callee;
        bool any = false;
        if (root) {
            callee = j;
            /* (a context whose function has callers is never a root: calls into it are all
             * from inside its recursion, inside a frame of its function already) */
            if (p->funcs[j].has_callers || p->funcs[j].folded ||
                (b->base && b->prof->funcs[b->base[j]].has_callers))
                continue;
            for (int k = 0; k < nev; k++)
                any |= (cv[k] = cg_incl(p, j)[k]) != 0;
        } else {
            uint32_t x = b->out_by[b->out_at[f] + j];
            callee = p->edges[x].callee;
            if (callee == f || p->funcs[callee].folded || b->on_path[base_of(b, callee)])
                continue;
            for (int k = 0; k < nev; k++) {
                uint64_t cost = cg_edge_kind(p, x) == CG_EDGE_OUTER ? cg_edge_outer_cost(p, x, k)
                                                                    : cg_edge_all(p, x, k);
                uint64_t in = cg_incl(p, f)[k];
                if (!whole)
                    cost = muldiv(cost, v[k], in);
                any |= (cv[k] = cost) != 0;
            }
        }
        if (!any)
            continue;
        for (int k = 0; k < nev; k++)
            sum[k] += cv[k];
        c[n].func = callee;
        c[n].val = cv;
        n++;
    }
    /* callees worth more than the frame (estimates, or a profile at odds with itself):
     * scaled down to it (each rounded down, so that they stay within it) */
    bool scaled = false;
    for (int k = 0; k < nev; k++) {
        if (sum[k] <= v[k])
            continue;
        scaled = true;
        for (uint32_t j = 0; j < n; j++)
            c[j].val[k] = muldiv(c[j].val[k], v[k], sum[k]);
    }
    sort_p = p;
    qsort(c, n, sizeof *c, by_value);
    uint32_t nother = 0;     /* the callees merged, worth other[] */
    for (uint32_t j = 0; j < n; j++) {
        if (depth + 1 >= b->max_depth || !big_enough(b, c[j].val)) {
            for (int k = 0; k < nev; k++)
                other[k] += c[j].val[k];
            nother++;
            continue;
        }
        long at = add_frame(b, c[j].func, i, depth + 1, (root || whole) && !scaled, c[j].val);
        if (at < 0)
            goto done;
        b->on_path[base_of(b, c[j].func)] = true;
        int r = expand(b, (uint32_t)at);
        b->on_path[base_of(b, c[j].func)] = false;
        if (r < 0)
            goto done;
    }
    if (nother) {
        long at = add_frame(b, CG_FRAME_OTHER, i, depth + 1, false, other);
        if (at < 0)
            goto done;
        fl->frames[at].merged = nother;
        fl->merged += nother;
    }
    rc = 0;
done:
    free(c);
    free(vals);
    free(sum);
    free(other);
    free(v);
    return rc;
}

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

int cg_flame_build(const struct cg_profile *prof, const struct cg_flame_opts *o,
                   struct cg_flame *fl, struct err *e)
{
    memset(fl, 0, sizeof *fl);
    fl->nev = prof->nev;
    const struct cg_profile *p = o && o->ctx && o->ctx->contexts ? o->ctx : prof;
    struct build b = {.p = p, .fl = fl, .e = e, .min_frac = o ? o->min_frac : 0,
                      .max_frames = o && o->max_frames ? o->max_frames : 4000000,
                      .max_depth = o && o->max_depth ? o->max_depth : 1000};
    uint32_t *base = NULL;
    b.out_at = calloc((size_t)p->nfunc + 2, sizeof *b.out_at);
    b.out_by = malloc(((size_t)p->nedge + 1) * sizeof *b.out_by);
    b.on_path = calloc((size_t)prof->nfunc + 1, sizeof *b.on_path);
    uint64_t *total = calloc((size_t)p->nev + 1, sizeof *total);
    int rc = -1;
    if (!b.out_at || !b.out_by || !b.on_path || !total) {
        err_set(e, ERR_SYSTEM, "out of memory");
        goto done;
    }
    if (p != prof) {
        if (p->nev != prof->nev) {
            err_set(e, ERR_INPUT, "the contexts' profile has %d events, not %d", p->nev,
                    prof->nev);
            goto done;
        }
        if (!(base = map_contexts(prof, p, &fl->context_depth, e)))
            goto done;
        b.base = base;
        b.prof = prof;
    }
    for (uint32_t x = 0; x < p->nedge; x++)
        b.out_at[p->edges[x].caller + 2]++;
    for (uint32_t f = 0; f < p->nfunc; f++)
        b.out_at[f + 2] += b.out_at[f + 1];
    for (uint32_t x = 0; x < p->nedge; x++)
        b.out_by[b.out_at[p->edges[x].caller + 1]++] = x;
    for (int k = 0; k < p->nev; k++)
        total[k] = cg_total(p, k);
    if (add_frame(&b, CG_FRAME_ROOT, UINT32_MAX, 0, true, total) < 0 || expand(&b, 0) < 0)
        goto done;
    for (uint32_t i = 1; base && i < fl->n; i++)
        if (fl->frames[i].func < CG_FRAME_OTHER)
            fl->frames[i].func = base[fl->frames[i].func];
    uint64_t held = 0;
    for (uint32_t i = 1; i < fl->n; i++)
        if (fl->frames[i].depth == 1 && p->nev)
            held += cg_frame_value(fl, i, 0);
    fl->unreached = p->nev && held < total[0] ? total[0] - held : 0;
    rc = 0;
done:
    free(b.out_at);
    free(b.out_by);
    free(b.on_path);
    free(total);
    free(base);
    if (rc < 0)
        cg_flame_free(fl);
    return rc;
}

void cg_flame_free(struct cg_flame *fl)
{
    free(fl->frames);
    free(fl->value);
    fl->frames = NULL;
    fl->value = NULL;
    fl->n = fl->cap = 0;
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
    bool ok = kids && path;
    if (!ok)
        snprintf(why, n, "out of memory");
    for (uint32_t i = 1; ok && i < fl->n; i++) {
        const struct cg_frame *fr = &fl->frames[i];
        uint32_t up = fr->parent;
        if (up >= i || fr->depth != fl->frames[up].depth + 1) {
            snprintf(why, n, "frame %u: parent %u, depth %u", i, up, fr->depth);
            ok = false;
            break;
        }
        path[fr->depth] = i;
        for (uint32_t d = 1; fr->func < CG_FRAME_OTHER && d < fr->depth; d++)
            if (fl->frames[path[d]].func == fr->func) {
                snprintf(why, n, "frame %u: function %u twice on its path", i, fr->func);
                ok = false;
            }
        for (int k = 0; ok && k < nev; k++) {
            uint64_t *s = &kids[(size_t)up * nev + k];
            if (__builtin_add_overflow(*s, cg_frame_value(fl, i, k), s) ||
                *s > cg_frame_value(fl, up, k)) {
                snprintf(why, n, "frame %u: its children are worth more than it", up);
                ok = false;
            }
        }
    }
    free(kids);
    free(path);
    return ok;
}
