/* allocstacks.c: allocations by call stack: named, added up, sorted, saved, compared (see
 * allocstacks.h). */
#define _GNU_SOURCE
#include "core/profile/allocstacks.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/profile/elfsym.h"
#include "core/util/esc.h"
#include "core/util/input.h"

static const char *const measure_names[ASTK_NMEASURES] = {
    "allocations", "bytes", "temporaries", "peak_bytes", "leaked_bytes",
};

const char *astk_measure_name(int m)
{
    return m >= 0 && m < ASTK_NMEASURES ? measure_names[m] : "?";
}

int astk_measure_parse(const char *s, int *m)
{
    for (int i = 0; i < ASTK_NMEASURES; i++)
        if (strcmp(s, measure_names[i]) == 0) {
            *m = i;
            return 0;
        }
    if (strcmp(s, "peak") == 0) {
        *m = ASTK_PEAK;
        return 0;
    }
    if (strcmp(s, "leaked") == 0) {
        *m = ASTK_LEAKED;
        return 0;
    }
    return -1;
}

/* ---- the table: names and rows, each found by hash ------------------------------------- */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t hash_ids(const uint32_t *f, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (size_t i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    return h;
}

/* The id of name (made when new); UINT32_MAX when out of memory. */
static uint32_t name_id(struct astk_table *t, const char *name, bool make)
{
    size_t len = strlen(name);
    uint64_t h = hash_bytes(name, len);
    if (t->name_idx) {
        for (uint32_t i = (uint32_t)h & t->name_mask;; i = (i + 1) & t->name_mask) {
            uint32_t id = t->name_idx[i];
            if (id == UINT32_MAX)
                break;
            if (strcmp(t->names[id], name) == 0)
                return id;
        }
    }
    if (!make)
        return UINT32_MAX;
    if (t->nnames == t->names_cap) {
        uint32_t cap = t->names_cap ? t->names_cap * 2 : 256;
        char **nn = realloc(t->names, cap * sizeof *nn);
        if (!nn)
            return UINT32_MAX;
        t->names = nn;
        t->names_cap = cap;
    }
    if (!t->name_idx || (uint64_t)(t->nnames + 1) * 2 > (uint64_t)t->name_mask + 1) {
        uint32_t mask = t->name_idx ? t->name_mask * 2 + 1 : 1023;
        uint32_t *idx = malloc(((size_t)mask + 1) * sizeof *idx);
        if (!idx)
            return UINT32_MAX;
        memset(idx, 0xff, ((size_t)mask + 1) * sizeof *idx);
        for (uint32_t id = 0; id < t->nnames; id++) {
            const char *s = t->names[id];
            uint32_t i = (uint32_t)hash_bytes(s, strlen(s)) & mask;
            while (idx[i] != UINT32_MAX)
                i = (i + 1) & mask;
            idx[i] = id;
        }
        free(t->name_idx);
        t->name_idx = idx;
        t->name_mask = mask;
    }
    char *copy = strdup(name);
    if (!copy)
        return UINT32_MAX;
    uint32_t id = t->nnames++;
    t->names[id] = copy;
    uint32_t i = (uint32_t)h & t->name_mask;
    while (t->name_idx[i] != UINT32_MAX)
        i = (i + 1) & t->name_mask;
    t->name_idx[i] = id;
    return id;
}

static bool same_frames(const struct astk_table *t, const struct astk_row *r, const uint32_t *f,
                        size_t n)
{
    return r->n == n && memcmp(t->fr + r->off, f, n * sizeof *f) == 0;
}

/* The row of the frame ids f[0..n) (made when new, *made then true); NULL: out of memory. */
static struct astk_row *row_of(struct astk_table *t, const uint32_t *f, size_t n, bool *made)
{
    uint64_t h = hash_ids(f, n);
    *made = false;
    if (t->row_idx) {
        for (size_t i = h & t->row_mask;; i = (i + 1) & t->row_mask) {
            uint32_t r = t->row_idx[i];
            if (r == UINT32_MAX)
                break;
            if (same_frames(t, &t->rows[r], f, n))
                return &t->rows[r];
        }
    }
    if (t->nrows >= UINT32_MAX - 1 || t->nfr + n >= UINT32_MAX)
        return NULL;
    if (t->nrows == t->rows_cap) {
        size_t cap = t->rows_cap ? t->rows_cap * 2 : 256;
        struct astk_row *nr = realloc(t->rows, cap * sizeof *nr);
        if (!nr)
            return NULL;
        t->rows = nr;
        t->rows_cap = cap;
    }
    if (t->nfr + n > t->fr_cap) {
        size_t cap = t->fr_cap ? t->fr_cap * 2 : 4096;
        while (cap < t->nfr + n)
            cap *= 2;
        uint32_t *nf = realloc(t->fr, cap * sizeof *nf);
        if (!nf)
            return NULL;
        t->fr = nf;
        t->fr_cap = cap;
    }
    if (!t->row_idx || (t->nrows + 1) * 2 > t->row_mask + 1) {
        size_t mask = t->row_idx ? t->row_mask * 2 + 1 : 1023;
        uint32_t *idx = malloc((mask + 1) * sizeof *idx);
        if (!idx)
            return NULL;
        memset(idx, 0xff, (mask + 1) * sizeof *idx);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t i = hash_ids(t->fr + t->rows[r].off, t->rows[r].n) & mask;
            while (idx[i] != UINT32_MAX)
                i = (i + 1) & mask;
            idx[i] = (uint32_t)r;
        }
        free(t->row_idx);
        t->row_idx = idx;
        t->row_mask = mask;
    }
    memcpy(t->fr + t->nfr, f, n * sizeof *f);
    struct astk_row *row = &t->rows[t->nrows];
    memset(row, 0, sizeof *row);
    row->off = (uint32_t)t->nfr;
    row->n = (uint32_t)n;
    t->nfr += n;
    size_t i = h & t->row_mask;
    while (t->row_idx[i] != UINT32_MAX)
        i = (i + 1) & t->row_mask;
    t->row_idx[i] = (uint32_t)t->nrows++;
    *made = true;
    return row;
}

static int add_values(struct astk_table *t, struct astk_row *row, const uint64_t *v,
                      struct err *e)
{
    for (int m = 0; m < ASTK_NMEASURES; m++)
        if (__builtin_add_overflow(row->v[m], v[m], &row->v[m]) ||
            __builtin_add_overflow(t->total[m], v[m], &t->total[m]))
            return err_set(e, ERR_INPUT, "the %s add up past 2^64", measure_names[m]);
    return 0;
}

/* Adds a stack; *made says whether it was new. */
static int add_stack(struct astk_table *t, const char *const *names, size_t n,
                     const uint64_t v[ASTK_NMEASURES], bool *made, struct err *e)
{
    uint32_t stackbuf[256];
    uint32_t *f = n <= 256 ? stackbuf : malloc(n * sizeof *f);
    if (!f)
        return err_set(e, ERR_SYSTEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if ((f[i] = name_id(t, names[i], true)) == UINT32_MAX)
            rc = err_set(e, ERR_SYSTEM, "out of memory");
    struct astk_row *row = rc == 0 ? row_of(t, f, n, made) : NULL;
    if (rc == 0 && !row)
        rc = err_set(e, ERR_SYSTEM, "out of memory (or more than 2^32 stacks)");
    if (f != stackbuf)
        free(f);
    return rc == 0 ? add_values(t, row, v, e) : rc;
}

int astk_add(struct astk_table *t, const char *const *names, size_t n,
             const uint64_t v[ASTK_NMEASURES], struct err *e)
{
    bool made;
    return add_stack(t, names, n, v, &made, e);
}

void astk_free(struct astk_table *t)
{
    for (uint32_t i = 0; i < t->nnames; i++)
        free(t->names[i]);
    for (uint32_t i = 0; i < t->nesc; i++)
        free(t->esc[i]);
    free(t->esc);
    free(t->names);
    free(t->fr);
    free(t->rows);
    free(t->name_idx);
    free(t->row_idx);
    memset(t, 0, sizeof *t);
}

/* ---- naming frames --------------------------------------------------------------------- */

struct obj {
    char *path;
    uint64_t inode;
    int state;             /* 0: symbols read, 1: changed since the run, 2: unreadable */
    struct elfsym sym;
};

struct namer_ctx {
    struct obj *objs;
    size_t nobjs, cap;
    struct astk_table *t;
};

static struct obj *obj_get(struct namer_ctx *c, const char *path, uint64_t inode)
{
    for (size_t i = 0; i < c->nobjs; i++)
        if (c->objs[i].inode == inode && strcmp(c->objs[i].path, path) == 0)
            return &c->objs[i];
    if (c->nobjs == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct obj *no = realloc(c->objs, cap * sizeof *no);
        if (!no)
            return NULL;
        c->objs = no;
        c->cap = cap;
    }
    struct obj *o = &c->objs[c->nobjs];
    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    if (!o->path)
        return NULL;
    o->inode = inode;
    c->nobjs++;
    struct stat st;
    struct err e;
    if (stat(path, &st) < 0) {
        o->state = 2;
        c->t->unreadable++;
    } else if ((uint64_t)st.st_ino != inode) {
        o->state = 1;
        c->t->changed++;
    } else if (elfsym_load(path, &o->sym, &e) < 0) {
        o->state = 2;
        c->t->unreadable++;
    } else {
        o->state = 0;
    }
    return o;
}

/* A path's file name; never empty ("dir/" is itself, "" is "?"): an empty frame name could
 * not be read back from the TSV. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path[0] ? path : "?";
}

static const char *elf_namer(void *ctx, const struct alloc_proc *p, uint64_t addr, char *buf,
                             size_t n)
{
    struct namer_ctx *c = ctx;
    const struct alloc_map *m = NULL;
    for (size_t i = 0; i < p->nmaps; i++)
        if (addr >= p->maps[i].start && addr < p->maps[i].end) {
            m = &p->maps[i];
            break;
        }
    if (!m) {
        snprintf(buf, n, "0x%llx", (unsigned long long)addr);
        return buf;
    }
    if (!m->path[0])
        return "[anon]";
    if (m->path[0] == '[')
        return m->path;
    uint64_t off = addr - m->start + m->offset;
    struct obj *o = obj_get(c, m->path, m->inode);
    if (!o || o->state != 0) {
        snprintf(buf, n, "%s+0x%llx", base_name(m->path), (unsigned long long)off);
        return buf;
    }
    uint64_t v = elfsym_vaddr(&o->sym, off);
    if (v == UINT64_MAX) {
        snprintf(buf, n, "%s+0x%llx", base_name(m->path), (unsigned long long)off);
        return buf;
    }
    const char *name = v ? elfsym_lookup(&o->sym, v - 1) : NULL;   /* a return address */
    if (name)
        return name;
    snprintf(buf, n, "%s+0x%llx", base_name(m->path), (unsigned long long)v);
    return buf;
}

static void namer_free(struct namer_ctx *c)
{
    for (size_t i = 0; i < c->nobjs; i++) {
        elfsym_free(&c->objs[i].sym);
        free(c->objs[i].path);
    }
    free(c->objs);
}

static const char *site_label(const struct alloc_proc *p, uint64_t id)
{
    for (size_t i = 0; i < p->nsites; i++)
        if (p->sites[i].id == id)
            return p->sites[i].label;
    return "?";
}

/* Per process: the name id of each address already named. */
struct addr_cache {
    uint64_t *key;
    uint32_t *id;
    size_t mask, n;
};

static uint32_t cached_name(struct addr_cache *ac, uint64_t addr)
{
    if (!ac->key)
        return UINT32_MAX;
    for (size_t i = (addr * 0x9e3779b97f4a7c15ull) >> 20 & ac->mask;; i = (i + 1) & ac->mask) {
        if (ac->key[i] == 0)
            return UINT32_MAX;
        if (ac->key[i] == addr)
            return ac->id[i];
    }
}

static void cache_name(struct addr_cache *ac, uint64_t addr, uint32_t id)
{
    if (!ac->key || (ac->n + 1) * 2 > ac->mask + 1) {
        size_t mask = ac->key ? ac->mask * 2 + 1 : 4095;
        uint64_t *k = calloc(mask + 1, sizeof *k);
        uint32_t *v = malloc((mask + 1) * sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return;
        }
        for (size_t i = 0; ac->key && i <= ac->mask; i++) {
            if (!ac->key[i])
                continue;
            size_t j = (ac->key[i] * 0x9e3779b97f4a7c15ull) >> 20 & mask;
            while (k[j])
                j = (j + 1) & mask;
            k[j] = ac->key[i];
            v[j] = ac->id[i];
        }
        free(ac->key);
        free(ac->id);
        ac->key = k;
        ac->id = v;
        ac->mask = mask;
    }
    size_t i = (addr * 0x9e3779b97f4a7c15ull) >> 20 & ac->mask;
    while (ac->key[i])
        i = (i + 1) & ac->mask;
    ac->key[i] = addr;
    ac->id[i] = id;
    ac->n++;
}

/* The name of frame f of process p. */
static const char *frame_name(const struct astk_opts *o, void *nctx, const struct alloc_proc *p,
                              uint64_t f, char *buf, size_t n)
{
    if ((f & 0xffff000000000000ull) == ALLOC_FRAME_SCOPE) {
        snprintf(buf, n, "[scope %s]", site_label(p, f & 0xffffffffu));
        return buf;
    }
    if (f == ALLOC_FRAME_CUT)
        return "[truncated]";
    if (f == ALLOC_FRAME_MANY)
        return "[too many stacks]";
    return o->namer ? o->namer(o->namer_ctx, p, f, buf, n) : elf_namer(nctx, p, f, buf, n);
}

static int add_proc(struct astk_table *t, const struct astk_opts *o, void *nctx,
                    const struct alloc_proc *p, bool root, struct err *e)
{
    const char *prog = base_name(p->exe ? p->exe : "?");
    uint64_t allocs = 0, bytes = 0;
    struct addr_cache ac = {NULL, NULL, 0, 0};
    const char **names = NULL;
    uint32_t *ids = NULL;
    size_t cap = 0;
    int rc = 0;
    for (size_t s = 0; s < p->nstacks && rc == 0; s++) {
        const struct alloc_stack *st = &p->stacks[s];
        size_t n = st->nframes + root;
        if (n + 1 > cap) {
            cap = n + 1;
            const char **nn = realloc(names, cap * sizeof *nn);
            if (nn)
                names = nn;
            uint32_t *ni = realloc(ids, cap * sizeof *ni);
            if (ni)
                ids = ni;
            if (!nn || !ni) {
                rc = err_set(e, ERR_SYSTEM, "out of memory");
                break;
            }
        }
        if (root)
            ids[0] = name_id(t, prog, true);
        for (size_t k = 0; k < st->nframes && rc == 0; k++) {
            uint64_t f = st->frames[st->nframes - 1 - k];    /* outermost first */
            uint32_t id = cached_name(&ac, f);
            if (id == UINT32_MAX) {
                char buf[512];
                const char *nm = frame_name(o, nctx, p, f, buf, sizeof buf);
                id = name_id(t, nm && nm[0] ? nm : "?", true);
                if (id != UINT32_MAX)
                    cache_name(&ac, f, id);
            }
            ids[root + k] = id;
        }
        for (size_t k = 0; k < n && rc == 0; k++)
            if (ids[k] == UINT32_MAX)
                rc = err_set(e, ERR_SYSTEM, "out of memory");
        if (rc)
            break;
        if (n == 0)
            ids[n++] = name_id(t, "[no frames]", true);
        for (size_t k = 0; k < n; k++)
            names[k] = t->names[ids[k]];
        uint64_t v[ASTK_NMEASURES] = {st->allocations, st->bytes, st->temporaries,
                                      st->peak_bytes, st->leaked_bytes};
        bool made;
        rc = add_stack(t, names, n, v, &made, e);
        allocs += st->allocations;
        bytes += st->bytes;
    }
    free(ac.key);
    free(ac.id);
    if (rc == 0 && (allocs < p->allocations || bytes < p->bytes)) {
        /* Counted but not recorded: before the recording began, or without it. */
        const char *nm[2] = {prog, "[no stack]"};
        uint64_t v[ASTK_NMEASURES] = {p->allocations > allocs ? p->allocations - allocs : 0,
                                      p->bytes > bytes ? p->bytes - bytes : 0, 0, 0, 0};
        t->no_stack += v[0];
        bool made;
        rc = add_stack(t, root ? nm : nm + 1, root ? 2 : 1, v, &made, e);
    }
    free(names);
    free(ids);
    return rc;
}

int astk_from_report(const struct alloc_report *r, const struct astk_opts *o,
                     struct astk_table *t, struct err *e)
{
    memset(t, 0, sizeof *t);
    const char *first = NULL;
    bool several = false;
    for (size_t i = 0; i < r->nprocs; i++) {
        const struct alloc_proc *p = &r->procs[i];
        if (o->ppid >= 0 && p->ppid != o->ppid)
            continue;
        const char *x = base_name(p->exe ? p->exe : "?");
        if (!first)
            first = x;
        else if (strcmp(first, x) != 0)
            several = true;
    }
    struct namer_ctx nc = {NULL, 0, 0, t};
    int rc = 0;
    for (size_t i = 0; i < r->nprocs && rc == 0; i++) {
        const struct alloc_proc *p = &r->procs[i];
        if (o->ppid >= 0 && p->ppid != o->ppid)
            continue;
        t->nprocs++;
        t->by_fp += p->by_fp;
        t->by_dwarf += p->by_dwarf;
        if (p->has_stacks && strcmp(p->unwind, "fp") != 0 && !p->unwinder)
            t->no_unwinder = true;
        rc = add_proc(t, o, &nc, p, several, e);
    }
    namer_free(&nc);
    if (rc < 0)
        astk_free(t);
    return rc;
}

/* ---- text, sorting, the TSV --------------------------------------------------------------- */

/* The written form of name id (made once: a name is in many stacks), or NULL. */
static const char *esc_name(struct astk_table *t, uint32_t id)
{
    if (id >= t->nesc) {
        char **e = realloc(t->esc, t->nnames * sizeof *e);
        if (!e)
            return NULL;
        memset(e + t->nesc, 0, (t->nnames - t->nesc) * sizeof *e);
        t->esc = e;
        t->nesc = t->nnames;
    }
    if (!t->esc[id] && !(t->esc[id] = esc_text_dup_sep(t->names[id], ';')))
        return NULL;   /* (';' separates the frames) */
    return t->esc[id];
}

char *astk_stack_text(const struct astk_table *ct, const struct astk_row *row, const char *sep)
{
    struct astk_table *t = (struct astk_table *)ct;     /* only its cache of written names */
    size_t sl = strlen(sep), len = 1;
    for (uint32_t k = 0; k < row->n; k++) {
        const char *n = esc_name(t, t->fr[row->off + k]);
        if (!n)
            return NULL;
        len += strlen(n) + (k ? sl : 0);
    }
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    for (uint32_t k = 0; k < row->n; k++) {
        if (k) {
            memcpy(p, sep, sl);
            p += sl;
        }
        const char *n = t->esc[t->fr[row->off + k]];
        size_t nl = strlen(n);
        memcpy(p, n, nl);
        p += nl;
    }
    *p = '\0';
    return s;
}

char *astk_stack_text_inner(const struct astk_table *ct, const struct astk_row *row,
                            const char *sep, uint32_t max)
{
    struct astk_table *t = (struct astk_table *)ct;
    uint32_t n = row->n < max ? row->n : max;
    size_t sl = strlen(sep), len = 1 + (n < row->n ? sl + 3 : 0);
    for (uint32_t k = 0; k < n; k++) {
        const char *s = esc_name(t, t->fr[row->off + row->n - 1 - k]);
        if (!s)
            return NULL;
        len += strlen(s) + (k ? sl : 0);
    }
    char *out = malloc(len), *p = out;
    if (!out)
        return NULL;
    for (uint32_t k = 0; k < n; k++) {
        if (k) {
            memcpy(p, sep, sl);
            p += sl;
        }
        const char *s = t->esc[t->fr[row->off + row->n - 1 - k]];
        size_t l = strlen(s);
        memcpy(p, s, l);
        p += l;
    }
    if (n < row->n) {
        memcpy(p, sep, sl);
        memcpy(p + sl, "...", 3);
        p += sl + 3;
    }
    *p = '\0';
    return out;
}

static int cmp_stack(const struct astk_table *t, const struct astk_row *a, const struct astk_row *b)
{
    for (uint32_t k = 0; k < a->n && k < b->n; k++) {
        int c = strcmp(t->names[t->fr[a->off + k]], t->names[t->fr[b->off + k]]);
        if (c)
            return c;
    }
    return a->n < b->n ? -1 : a->n > b->n;
}

struct sort_by {
    const struct astk_table *t;
    int m;
};

static int cmp_rows(const void *x, const void *y, void *arg)
{
    const struct sort_by *by = arg;
    const struct astk_row *a = x, *b = y;
    uint64_t va = a->v[by->m], vb = b->v[by->m];
    if (va != vb)
        return va > vb ? -1 : 1;
    return cmp_stack(by->t, a, b);
}

void astk_sort(struct astk_table *t, int m)
{
    struct sort_by by = {t, m};
    if (t->nrows > 1)
        qsort_r(t->rows, t->nrows, sizeof *t->rows, cmp_rows, &by);
    /* the row index points at positions: rebuild it */
    if (t->row_idx) {
        memset(t->row_idx, 0xff, (t->row_mask + 1) * sizeof *t->row_idx);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t i = hash_ids(t->fr + t->rows[r].off, t->rows[r].n) & t->row_mask;
            while (t->row_idx[i] != UINT32_MAX)
                i = (i + 1) & t->row_mask;
            t->row_idx[i] = (uint32_t)r;
        }
    }
}

void astk_write_tsv(const struct astk_table *t, FILE *f, size_t limit)
{
    fputs("stack", f);
    for (int m = 0; m < ASTK_NMEASURES; m++)
        fprintf(f, "\t%s", measure_names[m]);
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows && (limit == 0 || r < limit); r++) {
        char *s = astk_stack_text(t, &t->rows[r], ";");
        fputs(s ? s : "?", f);
        free(s);
        for (int m = 0; m < ASTK_NMEASURES; m++)
            fprintf(f, "\t%llu", (unsigned long long)t->rows[r].v[m]);
        fputc('\n', f);
    }
}

static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Splits the stack field into names (in buf, which holds n + 1 bytes), "\x3b" read back as
 * ';'; -1 for an empty frame or a control character (never written: see escape_to). */
static int split_stack(const char *s, size_t n, char *buf, const char ***names, size_t *nn,
                       size_t *cap)
{
    size_t count = 1;
    for (size_t i = 0; i < n; i++)
        count += s[i] == ';';
    if (count > *cap) {
        const char **x = realloc(*names, count * sizeof *x);
        if (!x)
            return -2;
        *names = x;
        *cap = count;
    }
    size_t k = 0, at = 0;
    (*names)[k] = buf;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == ';') {
            if (buf + at == (*names)[k])
                return -1;                           /* an empty frame */
            buf[at++] = '\0';
            if (i < n)
                (*names)[++k] = buf + at;
            continue;
        }
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return -1;
        if (s[i] == '\\' && n - i >= 4 && memcmp(s + i, "\\x3b", 4) == 0) {
            buf[at++] = ';';
            i += 3;
            continue;
        }
        buf[at++] = s[i];
    }
    *nn = k + 1;
    return 0;
}

int astk_parse_tsv(const char *text, size_t len, const char *name, struct astk_table *t,
                   struct err *e)
{
    memset(t, 0, sizeof *t);
    int col[ASTK_NMEASURES + 1];
    for (int i = 0; i <= ASTK_NMEASURES; i++)
        col[i] = -1;
    const char *p = text, *end = text + len;
    size_t lineno = 0, cap = 0, ncol = 0;
    const char **names = NULL;
    char *buf = NULL;
    int rc = 0;
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *line = p;
        p = nl ? nl + 1 : end;
        lineno++;
        /* the fields of this line */
        const char *fs[64];
        size_t fl[64], nf = 0;
        for (const char *s = line;;) {
            const char *tab = memchr(s, '\t', (size_t)(le - s));
            const char *fe = tab ? tab : le;
            if (nf < 64) {
                fs[nf] = s;
                fl[nf] = (size_t)(fe - s);
            }
            nf++;
            if (!tab)
                break;
            s = tab + 1;
        }
        if (lineno == 1) {
            if (nf > 64) {
                rc = err_set(e, ERR_INPUT, "%s line 1: more than 64 columns", name);
                break;
            }
            ncol = nf;
            for (size_t i = 0; i < nf; i++) {
                for (int m = -1; m < ASTK_NMEASURES; m++) {
                    const char *want = m < 0 ? "stack" : measure_names[m];
                    if (strlen(want) == fl[i] && memcmp(fs[i], want, fl[i]) == 0) {
                        if (col[m + 1] >= 0) {
                            rc = err_set(e, ERR_INPUT, "%s line 1: column '%s' twice", name,
                                         want);
                            break;
                        }
                        col[m + 1] = (int)i;
                    }
                }
            }
            for (int m = -1; m < ASTK_NMEASURES && rc == 0; m++)
                if (col[m + 1] < 0)
                    rc = err_set(e, ERR_INPUT, "%s line 1: no column '%s' (a stack table "
                                 "has stack, allocations, bytes, temporaries, peak_bytes, "
                                 "leaked_bytes)", name, m < 0 ? "stack" : measure_names[m]);
            continue;
        }
        if (le == line && !nl)
            break;                                   /* a final newline */
        if (nf != ncol) {
            rc = err_set(e, ERR_INPUT, "%s line %zu: %zu fields, the header has %zu", name,
                         lineno, nf, ncol);
            break;
        }
        uint64_t v[ASTK_NMEASURES];
        for (int m = 0; m < ASTK_NMEASURES && rc == 0; m++)
            if (parse_u64(fs[col[m + 1]], fl[col[m + 1]], &v[m]) < 0)
                rc = err_set(e, ERR_INPUT, "%s line %zu: bad number '%.*s' in %s", name,
                             lineno, (int)(fl[col[m + 1]] > 40 ? 40 : fl[col[m + 1]]),
                             fs[col[m + 1]], measure_names[m]);
        if (rc)
            break;
        if (v[ASTK_TEMPS] > v[ASTK_ALLOCS]) {
            rc = err_set(e, ERR_INPUT, "%s line %zu: more temporaries than allocations", name,
                         lineno);
            break;
        }
        size_t sl = fl[col[0]];
        char *nb = realloc(buf, sl + 1);
        if (!nb) {
            rc = err_set(e, ERR_SYSTEM, "out of memory");
            break;
        }
        buf = nb;
        size_t nn;
        int sr = sl ? split_stack(fs[col[0]], sl, buf, &names, &nn, &cap) : -1;
        if (sr == -2) {
            rc = err_set(e, ERR_SYSTEM, "out of memory");
            break;
        }
        if (sr < 0) {
            rc = err_set(e, ERR_INPUT, "%s line %zu: bad stack (an empty frame or a control "
                         "character)", name, lineno);
            break;
        }
        bool made;
        rc = add_stack(t, names, nn, v, &made, e);
        if (rc == 0 && !made)
            rc = err_set(e, ERR_INPUT, "%s line %zu: the same stack as an earlier line", name,
                         lineno);
        else if (rc < 0)
            err_prefix(e, "%s line %zu", name, lineno);
    }
    if (rc == 0 && lineno == 0)
        rc = err_set(e, ERR_INPUT, "%s: empty (no header)", name);
    free(names);
    free(buf);
    if (rc < 0)
        astk_free(t);
    return rc;
}

int astk_read_tsv(const char *path, struct astk_table *t, struct err *e)
{
    char *b;
    size_t len;
    if (in_read_file(path, &b, &len, e) < 0) {   /* bounded; a NUL or a directory refused */
        memset(t, 0, sizeof *t);
        return -1;
    }
    int rc = astk_parse_tsv(b, len, path, t, e);
    free(b);
    return rc;
}

/* ---- comparing two tables --------------------------------------------------------------- */

struct dsort {
    struct astk_delta d;
    char *text;
};

static int cmp_delta(const void *x, const void *y, void *arg)
{
    const struct dsort *a = x, *b = y;
    int dm = *(const int *)arg;
    uint64_t ca = a->d.after[dm] > a->d.before[dm] ? a->d.after[dm] - a->d.before[dm]
                                                       : a->d.before[dm] - a->d.after[dm];
    uint64_t cb = b->d.after[dm] > b->d.before[dm] ? b->d.after[dm] - b->d.before[dm]
                                                       : b->d.before[dm] - b->d.after[dm];
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return strcmp(a->text, b->text);
}

int astk_diff(const struct astk_table *a, const struct astk_table *b, int m,
              struct astk_delta **out, size_t *n, struct err *e)
{
    *out = NULL;
    *n = 0;
    struct dsort *d = malloc((a->nrows + b->nrows + 1) * sizeof *d);
    uint32_t *map = malloc((b->nnames + 1) * sizeof *map), *f = NULL;
    bool *seen = calloc(a->nrows + 1, sizeof *seen);
    size_t nd = 0, fcap = 0;
    int rc = 0;
    if (!d || !map || !seen) {
        rc = err_set(e, ERR_SYSTEM, "out of memory");
        goto done;
    }
    /* b's names in a's ids (UINT32_MAX: a has no such name) */
    for (uint32_t i = 0; i < b->nnames; i++)
        map[i] = name_id((struct astk_table *)a, b->names[i], false);
    for (size_t r = 0; r < b->nrows; r++) {
        const struct astk_row *row = &b->rows[r];
        if (row->n > fcap) {
            fcap = row->n;
            uint32_t *nf = realloc(f, fcap * sizeof *nf);
            if (!nf) {
                rc = err_set(e, ERR_SYSTEM, "out of memory");
                goto done;
            }
            f = nf;
        }
        bool all = true;
        for (uint32_t k = 0; k < row->n; k++)
            if ((f[k] = map[b->fr[row->off + k]]) == UINT32_MAX)
                all = false;
        uint32_t ra = UINT32_MAX;
        if (all && a->row_idx) {
            uint64_t h = hash_ids(f, row->n);
            for (size_t i = h & a->row_mask;; i = (i + 1) & a->row_mask) {
                uint32_t x = a->row_idx[i];
                if (x == UINT32_MAX)
                    break;
                if (same_frames(a, &a->rows[x], f, row->n)) {
                    ra = x;
                    break;
                }
            }
        }
        struct dsort *x = &d[nd++];
        memset(x, 0, sizeof *x);
        x->d.row_before = ra;
        x->d.row_after = (uint32_t)r;
        memcpy(x->d.after, row->v, sizeof row->v);
        if (ra != UINT32_MAX) {
            memcpy(x->d.before, a->rows[ra].v, sizeof row->v);
            seen[ra] = true;
        }
        x->text = astk_stack_text(b, row, ";");
        if (!x->text) {
            rc = err_set(e, ERR_SYSTEM, "out of memory");
            goto done;
        }
    }
    for (size_t r = 0; r < a->nrows; r++) {
        if (seen[r])
            continue;
        struct dsort *x = &d[nd++];
        memset(x, 0, sizeof *x);
        x->d.row_before = (uint32_t)r;
        x->d.row_after = UINT32_MAX;
        memcpy(x->d.before, a->rows[r].v, sizeof a->rows[r].v);
        x->text = astk_stack_text(a, &a->rows[r], ";");
        if (!x->text) {
            rc = err_set(e, ERR_SYSTEM, "out of memory");
            goto done;
        }
    }
    qsort_r(d, nd, sizeof *d, cmp_delta, &m);
    *out = malloc((nd ? nd : 1) * sizeof **out);
    if (!*out) {
        rc = err_set(e, ERR_SYSTEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nd; i++)
        (*out)[i] = d[i].d;
    *n = nd;
done:
    for (size_t i = 0; d && i < nd; i++)
        free(d[i].text);
    free(d);
    free(map);
    free(seen);
    free(f);
    return rc;
}
