/* alloctree.c: a stack table as a tree of frames, with its functions and the calls between
 * them (alloctree.h). The rows of both tables are sorted by their names, so that the stacks
 * that share a start lie together and one pass builds the tree depth first. */
#define _GNU_SOURCE
#include "core/profile/alloctree.h"

#include <stdlib.h>
#include <string.h>

/* One row of one table, its names as indexes into the tree's names at ids[off..off+n). */
struct entry {
    size_t off, row;
    uint32_t n;
    int side;   /* 0 AFTER, 1 BEFORE */
};

struct build {
    struct atree *t;
    const struct astk_table *tab[2];
    uint32_t *map[2];      /* a table's name id -> the tree's name index */
    uint32_t *ids;
    struct entry *ent;
    size_t nent;
    size_t frames_cap, edges_cap;
    bool *in_after;        /* by frame: AFTER has the path */
    uint32_t *path;        /* the frames of the current path, by depth */
    size_t *fstamp;        /* by name: the last entry (+1) counted in its inclusive values */
    size_t *estamp;        /* by edge: the same */
    uint32_t *eidx;        /* the edges by hash of (caller, callee), UINT32_MAX empty */
    size_t emask;
};

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Both tables' names, sorted, each once; map[side] from each table's ids. */
static int unify_names(struct build *b)
{
    size_t n = 0;
    for (int s = 0; s < 2; s++)
        n += b->tab[s] ? b->tab[s]->nnames : 0;
    if (n >= UINT32_MAX)
        return -1;
    const char **names = malloc((n + 1) * sizeof *names);
    if (!names)
        return -1;
    b->t->names = names;
    size_t k = 0;
    for (int s = 0; s < 2; s++)
        for (uint32_t i = 0; b->tab[s] && i < b->tab[s]->nnames; i++)
            names[k++] = b->tab[s]->names[i];
    qsort(names, k, sizeof *names, cmp_name);
    uint32_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || strcmp(names[u - 1], names[i]) != 0)
            names[u++] = names[i];
    b->t->nnames = u;
    for (int s = 0; s < 2; s++) {
        if (!b->tab[s])
            continue;
        if (!(b->map[s] = malloc(((size_t)b->tab[s]->nnames + 1) * sizeof *b->map[s])))
            return -1;
        for (uint32_t i = 0; i < b->tab[s]->nnames; i++) {
            const char **hit = bsearch(&b->tab[s]->names[i], names, u, sizeof *names, cmp_name);
            b->map[s][i] = (uint32_t)(hit - names);
        }
    }
    return 0;
}

static int cmp_entry(const void *x, const void *y, void *arg)
{
    const struct entry *a = x, *b = y;
    const uint32_t *ids = arg;
    uint32_t n = a->n < b->n ? a->n : b->n;
    for (uint32_t i = 0; i < n; i++)
        if (ids[a->off + i] != ids[b->off + i])
            return ids[a->off + i] < ids[b->off + i] ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return a->side - b->side;
}

/* Every row of both tables as an entry, sorted by its names (a start before its longer
 * stacks; AFTER before BEFORE). Returns the deepest stack, or -1 out of memory. */
static long sorted_entries(struct build *b)
{
    size_t nent = 0, nids = 0;
    for (int s = 0; s < 2; s++)
        if (b->tab[s]) {
            nent += b->tab[s]->nrows;
            nids += b->tab[s]->nfr;
        }
    b->ent = malloc((nent + 1) * sizeof *b->ent);
    b->ids = malloc((nids + 1) * sizeof *b->ids);
    if (!b->ent || !b->ids)
        return -1;
    size_t off = 0;
    uint32_t deepest = 0;
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; b->tab[s] && r < b->tab[s]->nrows; r++) {
            const struct astk_row *row = &b->tab[s]->rows[r];
            b->ent[b->nent++] = (struct entry){off, r, row->n, s};
            for (uint32_t k = 0; k < row->n; k++)
                b->ids[off + k] = b->map[s][b->tab[s]->fr[row->off + k]];
            off += row->n;
            if (row->n > deepest)
                deepest = row->n;
        }
    qsort_r(b->ent, b->nent, sizeof *b->ent, cmp_entry, b->ids);
    return deepest;
}

static int new_frame(struct build *b, uint32_t name, uint32_t depth)
{
    struct atree *t = b->t;
    if (t->nframes == b->frames_cap) {
        size_t cap = b->frames_cap ? b->frames_cap * 2 : 1024;
        struct atree_frame *f = realloc(t->frames, cap * sizeof *f);
        if (f)
            t->frames = f;
        bool *in = realloc(b->in_after, cap * sizeof *in);
        if (in)
            b->in_after = in;
        if (!f || !in)
            return -1;
        b->frames_cap = cap;
    }
    memset(&t->frames[t->nframes], 0, sizeof t->frames[0]);
    t->frames[t->nframes].name = name;
    t->frames[t->nframes].depth = depth;
    b->in_after[t->nframes] = false;
    t->nframes++;
    return 0;
}

/* The edge caller -> callee (made when new), or UINT32_MAX out of memory. */
static uint32_t edge_of(struct build *b, uint32_t caller, uint32_t callee)
{
    struct atree *t = b->t;
    if (2 * (t->nedges + 1) > b->emask) {   /* grow the index, and the edges with it */
        size_t cap = b->emask ? 2 * (b->emask + 1) : 1024;
        uint32_t *idx = malloc(cap * sizeof *idx);
        struct atree_edge *ed = realloc(t->edges, cap / 2 * sizeof *ed);
        if (ed)
            t->edges = ed;
        size_t *st = realloc(b->estamp, cap / 2 * sizeof *st);
        if (st)
            b->estamp = st;
        if (!idx || !ed || !st) {
            free(idx);
            return UINT32_MAX;
        }
        memset(idx, 0xff, cap * sizeof *idx);
        for (size_t k = 0; k < t->nedges; k++) {
            uint64_t h = (((uint64_t)t->edges[k].caller << 32) | t->edges[k].callee) *
                         0x9e3779b97f4a7c15ull;
            size_t i = (size_t)(h >> 20) & (cap - 1);
            while (idx[i] != UINT32_MAX)
                i = (i + 1) & (cap - 1);
            idx[i] = (uint32_t)k;
        }
        free(b->eidx);
        b->eidx = idx;
        b->emask = cap - 1;
    }
    uint64_t h = (((uint64_t)caller << 32) | callee) * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & b->emask;
    for (; b->eidx[i] != UINT32_MAX; i = (i + 1) & b->emask) {
        const struct atree_edge *ed = &t->edges[b->eidx[i]];
        if (ed->caller == caller && ed->callee == callee)
            return b->eidx[i];
    }
    uint32_t k = (uint32_t)t->nedges++;
    memset(&t->edges[k], 0, sizeof t->edges[k]);
    t->edges[k].caller = caller;
    t->edges[k].callee = callee;
    b->estamp[k] = 0;
    b->eidx[i] = k;
    return k;
}

static void add(uint64_t *to, const uint64_t *v)
{
    for (int m = 0; m < ASTK_NMEASURES; m++)
        to[m] += v[m];
}

/* Entry number x: its path made, its values added to the path, its names and calls. */
static int add_entry(struct build *b, size_t x, uint32_t *cur)
{
    struct atree *t = b->t;
    const struct entry *en = &b->ent[x];
    const uint32_t *s = b->ids + en->off;
    const uint64_t *v = b->tab[en->side]->rows[en->row].v;
    uint32_t c = 0;
    while (c < *cur && c < en->n && t->frames[b->path[c + 1]].name == s[c])
        c++;
    for (uint32_t j = c; j < en->n; j++) {
        if (new_frame(b, s[j], j + 1) < 0)
            return -1;
        b->path[j + 1] = (uint32_t)(t->nframes - 1);
    }
    *cur = en->n;
    for (uint32_t d = 0; d <= en->n; d++) {
        struct atree_frame *f = &t->frames[b->path[d]];
        if (en->side == 0) {
            add(f->v, v);
            b->in_after[b->path[d]] = true;
        } else
            f->in_before = true;
    }
    if (en->side == 1)
        add(t->frames[b->path[en->n]].before, v);
    for (uint32_t j = 0; j < en->n; j++) {
        struct atree_func *fn = &t->funcs[s[j]];
        if (b->fstamp[s[j]] == x + 1)
            continue;   /* a recursive name: once a row */
        b->fstamp[s[j]] = x + 1;
        add(en->side ? fn->bincl : fn->incl, v);
        if (en->side)
            fn->in_before = true;
        else
            fn->in_after = true;
    }
    if (en->n)
        add(en->side ? t->funcs[s[en->n - 1]].bself : t->funcs[s[en->n - 1]].self, v);
    for (uint32_t j = 0; en->side == 0 && j + 1 < en->n; j++) {
        if (s[j] == s[j + 1])
            continue;
        uint32_t k = edge_of(b, s[j], s[j + 1]);
        if (k == UINT32_MAX)
            return -1;
        if (b->estamp[k] == x + 1)
            continue;
        b->estamp[k] = x + 1;
        t->edges[k].stacks++;
        add(t->edges[k].v, v);
    }
    return 0;
}

/* Only AFTER's paths stay (a path only BEFORE has is a subtree of them: it goes whole). */
static void keep_after(struct build *b)
{
    struct atree *t = b->t;
    size_t n = 0;
    for (size_t i = 0; i < t->nframes; i++)
        if (b->in_after[i])
            t->frames[n++] = t->frames[i];
    t->nframes = n;
}

int atree_build(const struct astk_table *after, const struct astk_table *before,
                struct atree *t, struct err *e)
{
    memset(t, 0, sizeof *t);
    struct build b = {.t = t, .tab = {after, before}};
    int rc = -1;
    long deepest;
    if (unify_names(&b) < 0 || (deepest = sorted_entries(&b)) < 0)
        goto done;
    t->funcs = calloc((size_t)t->nnames + 1, sizeof *t->funcs);
    b.fstamp = calloc((size_t)t->nnames + 1, sizeof *b.fstamp);
    b.path = malloc(((size_t)deepest + 1) * sizeof *b.path);
    if (!t->funcs || !b.fstamp || !b.path || new_frame(&b, ATREE_ROOT, 0) < 0)
        goto done;
    b.in_after[0] = true;
    b.path[0] = 0;
    uint32_t cur = 0;
    for (size_t x = 0; x < b.nent; x++)
        if (add_entry(&b, x, &cur) < 0)
            goto done;
    if (before)
        t->frames[0].in_before = true;
    keep_after(&b);
    memcpy(t->total, after->total, sizeof t->total);
    if (before)
        memcpy(t->btotal, before->total, sizeof t->btotal);
    rc = 0;
done:
    free(b.map[0]);
    free(b.map[1]);
    free(b.ids);
    free(b.ent);
    free(b.in_after);
    free(b.path);
    free(b.fstamp);
    free(b.estamp);
    free(b.eidx);
    if (rc < 0) {
        atree_free(t);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    return 0;
}

void atree_free(struct atree *t)
{
    free(t->names);
    free(t->frames);
    free(t->funcs);
    free(t->edges);
    memset(t, 0, sizeof *t);
}
