/* callgrind.c: a streaming reader of callgrind (and cachegrind) profiles into the model of
 * profile.h: big blocks, no allocation per line, integer ids, costs added in place. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util/arena.h"
#include "core/profile/cg_lex.h"
#include "core/util/input.h"
#include "core/profile/profile.h"

#define NONE UINT32_MAX
#define BLOCK (4u << 20)
#define EDGE_MEMO 1024      /* call edges remembered by (caller, callee); a power of two */

/* One entry of the {fn, cfn, jfn} id table: the stripped name and whether the context was a
 * recursion level, in one word, and the function it was last resolved to (its object is in
 * funcs[]). Eight bytes, not sixteen: the table of the cc1 profile is 1.6 MB, not 3.2 (350
 * fewer page faults), and more of it stays in the CPU's cache. The table is
 * kept in chunks of FN_CHUNK ids, made when an id in them is first defined: callgrind numbers
 * contexts over the whole run, and a cc1 profile defines 35,000 ids up to 204,256 -- one flat
 * table, filled with "not defined" when a high id came, took 2 ms before the lexer threads
 * started (and one left zeroed for the kernel to fill page by page cost more, in threads:
 * each page first read from the shared zero page must be replaced on every CPU). */
#define FN_CHUNK 256
struct fn_ctx {
    uint32_t name_rec;              /* string id << 1 | recursion level; NONE: not defined */
    uint32_t func;                  /* or NONE */
};
#define MAX_NAME_ID (NONE >> 1)     /* string ids below it fit name_rec */

static uint32_t ctx_name(const struct fn_ctx *c)
{
    return c->name_rec >> 1;
}

static bool ctx_rec(const struct fn_ctx *c)
{
    return c->name_rec & 1;
}

struct idtab {
    uint32_t *v;                    /* string id per compression id, NONE if undefined */
    uint32_t cap;
};

enum pos_kind { POS_INSTR, POS_BB, POS_LINE };

struct reader {
    struct cg_profile *p;
    const struct cg_read_opts *o;
    const char *name;
    struct err *e;
    unsigned long lineno;

    struct idtab obs, files;
    struct fn_ctx **fn_chunks;      /* id / FN_CHUNK -> chunk, or NULL */
    uint32_t nchunks;
    struct arena ids;               /* the chunks' memory */

    /* the header of the current part */
    int npos, line_pos;             /* line_pos: index of "line" in positions, or -1 */
    int ncol;                       /* events in this part */
    int map[CG_MAX_EVENTS];         /* column -> profile event */
    bool have_events, in_body, part_open, totals_seen, summary_seen, callgrind;
    uint64_t psum[CG_MAX_EVENTS];   /* by column, this part's self cost lines */
    bool psum_over;                 /* they add up past 2^64: refused at the part's end (where
                                       every way of cutting the file into ranges agrees) */
    bool call_over;                 /* a call edge's count or cost summed past 2^64 (over any
                                       parts and files): refused at the part's end too */
    uint64_t summary[CG_MAX_EVENTS];
    int nsummary;
    unsigned long part_line;

    /* the body */
    uint64_t last[3];
    uint32_t ob, file;
    uint32_t func;                  /* current function index, NONE before fn= */
    bool func_rec;
    uint32_t cob;                   /* NONE: the call's object is ob */
    uint32_t cfn_name;              /* NONE before cfn= */
    uint32_t cfn_id;                /* its compression id, NONE if it had none */
    bool cfn_rec;
    enum lex_next next;
    uint64_t call_count;
    uint32_t call_edge;
    bool call_rec, call_nest;       /* the call is into / from a recursion-marked context */

    /* recursion marks: whether this file has any, and the edges it had calls of (to tell
     * cg_profile_finish which calls came from a file without marks); kept only where the
     * profile had calls before this file (else they are all of them) */
    bool marks, track, touched_nomem;
    uint32_t *touched;
    size_t ntouched, touched_cap;

    /* how the file is read */
    bool lines_mode;                /* per-line cost is kept: one range at a time */
    int threads;                    /* ranges lexed at once */
    size_t chunk;                   /* bytes per range */
    struct lex_result scratch;      /* for ranges lexed again, serially */
    struct pool *pool;              /* the lexer threads, once started */
    struct edge_memo {
        uint32_t caller, callee, edge;      /* edge NONE: empty */
    } edge_memo[EDGE_MEMO];
    const char *mapping, *released; /* a mapped file, and how much of it is let go */
};

__attribute__((format(printf, 2, 3)))
static int fail(struct reader *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->lineno)
        return err_set(r->e, ERR_INPUT, "'%s' line %lu: %s", r->name, r->lineno, msg);
    return err_set(r->e, ERR_INPUT, "'%s': %s", r->name, msg);
}

static int nomem(struct reader *r)
{
    return err_set(r->e, ERR_SYSTEM, "'%s' line %lu: out of memory", r->name, r->lineno);
}

/* The costs after the positions, into cost[] by column; the rest zero. */
static const char *parse_costs(struct reader *r, const char *s, const char *end, uint64_t *cost,
                               int *n)
{
    int k = 0;
    while (s < end) {
        if (k == r->ncol) {
            fail(r, "more costs than the %d events", r->ncol);
            return NULL;
        }
        bool ok;
        s = cg_num(s, end, &cost[k], &ok);
        if (!ok || (s < end && !cg_is_space(*s))) {
            fail(r, "bad cost '%.*s'", (int)(end - s < 40 ? end - s : 40), s);
            return NULL;
        }
        k++;
        s = cg_skip_space(s, end);
    }
    *n = k;
    return s;
}

/* ---- name compression ---- */

static bool idtab_grow(struct idtab *t, uint32_t id)
{
    if (id < t->cap)
        return true;
    uint32_t n = t->cap ? t->cap : 256;
    while (n <= id)
        n *= 2;
    uint32_t *q = realloc(t->v, (size_t)n * sizeof *q);
    if (!q)
        return false;
    for (uint32_t i = t->cap; i < n; i++)
        q[i] = NONE;
    t->v = q;
    t->cap = n;
    return true;
}

/* The name of a name line, n bytes of it, interned with the hash the lexer made. */
static uint32_t intern_op(struct reader *r, const struct lex_op *op, uint32_t n)
{
    if (op->hashed)
        return cg_intern_hashed(r->p, op->u.name, n, op->hash);
    return cg_intern(r->p, op->u.name, n);
}

/* ob/cob/fl/fi/fe/cfi/cfl/jfi: a string id through table t; op: the line, split by the lexer. */
static int resolve_str(struct reader *r, struct idtab *t, const struct lex_op *op, uint32_t *out)
{
    const char *key = spec_key_name[op->key];
    uint32_t id = (uint32_t)op->arg;
    if (id == NONE) {
        if ((*out = intern_op(r, op, op->len)) == NONE)
            return nomem(r);
        return 0;
    }
    if (op->len == 0) {
        if (id >= t->cap || t->v[id] == NONE)
            return fail(r, "undefined name id %u in '%s='", id, key);
        *out = t->v[id];
        return 0;
    }
    uint32_t sid = intern_op(r, op, op->len);
    if (sid == NONE || !idtab_grow(t, id))
        return nomem(r);
    if (t->v[id] != NONE && t->v[id] != sid)
        return fail(r, "name id %u in '%s=' redefined", id, key);
    t->v[id] = sid;
    *out = sid;
    return 0;
}

/* The table entry of id, NULL where no id of its chunk was defined. */
static struct fn_ctx *fn_slot(const struct reader *r, uint32_t id)
{
    uint32_t k = id / FN_CHUNK;
    return k < r->nchunks && r->fn_chunks[k] ? &r->fn_chunks[k][id % FN_CHUNK] : NULL;
}

/* The same, making its chunk; NULL: no memory. The chunks come from an arena (arena.h), in
 * huge pages for a large file: in small pages (400 of them for the cc1 profile's 1.6 MB,
 * looked up in no order while the file streams past) the read was 4.0% slower (150 pairs,
 * -5.5 .. -2.8%), with 376 more page faults. */
static struct fn_ctx *fn_slot_new(struct reader *r, uint32_t id)
{
    uint32_t k = id / FN_CHUNK;
    if (k >= r->nchunks) {
        uint32_t n = r->nchunks ? r->nchunks : 16;
        while (n <= k)
            n *= 2;
        struct fn_ctx **q = realloc(r->fn_chunks, n * sizeof *q);
        if (!q)
            return NULL;
        memset(q + r->nchunks, 0, (n - r->nchunks) * sizeof *q);
        r->fn_chunks = q;
        r->nchunks = n;
    }
    if (!r->fn_chunks[k]) {
        struct fn_ctx *c = arena_alloc(&r->ids, FN_CHUNK * sizeof *c);
        if (!c)
            return NULL;
        for (int i = 0; i < FN_CHUNK; i++)
            c[i] = (struct fn_ctx){NONE, NONE};
        r->fn_chunks[k] = c;
    }
    return &r->fn_chunks[k][id % FN_CHUNK];
}

/* The entry of an id used bare ("cfn=(12)"): it must have been defined. */
static int defined_fn(struct reader *r, uint32_t id, enum spec_key key, struct fn_ctx **out)
{
    struct fn_ctx *c = fn_slot(r, id);
    if (!c || c->name_rec == NONE)
        return fail(r, "undefined name id %u in '%s='", id, spec_key_name[key]);
    *out = c;
    return 0;
}

/* The name of a context with a suffix: the stripped name, or with keep_callers the name with
 * only its recursion depth ("'2") taken out, the --separate-callers chain kept. Notes whether
 * the profile has such chains. */
static uint32_t context_name(struct reader *r, const struct lex_op *op)
{
    const char *s = op->u.name;
    uint32_t j = op->strip;
    if (op->rec)
        for (j++; j < op->len && s[j] >= '0' && s[j] <= '9'; j++)
            ;
    if (j < op->len)
        r->p->contexts = true;
    if (!(r->o && r->o->keep_callers) || j >= op->len)
        return intern_op(r, op, op->strip);
    if (j == op->strip)
        return cg_intern(r->p, s, op->len);
    size_t n = op->strip + (op->len - j);
    char *buf = malloc(n + 1);
    if (!buf)
        return NONE;
    memcpy(buf, s, op->strip);
    memcpy(buf + op->strip, s + j, op->len - j);
    buf[n] = 0;
    uint32_t sid = cg_intern(r->p, buf, n);
    free(buf);
    return sid;
}

/* fn/cfn/jfn: the table entry for a function context. */
static int resolve_fn(struct reader *r, const struct lex_op *op, struct fn_ctx **out,
                      struct fn_ctx *tmp)
{
    const char *key = spec_key_name[op->key];
    uint32_t id = (uint32_t)op->arg;
    if (id != NONE && op->len == 0)
        return defined_fn(r, id, op->key, out);
    uint32_t sid = op->strip < op->len ? context_name(r, op) : intern_op(r, op, op->strip);
    if (sid == NONE)
        return nomem(r);
    if (sid >= MAX_NAME_ID)     /* cannot be: 2^31 names take more than the pool's 4 GiB */
        return fail(r, "internal error: name id %u beyond %u", sid, MAX_NAME_ID);
    const uint32_t name_rec = sid << 1 | op->rec;
    r->marks |= op->rec;
    struct fn_ctx *c = tmp;
    if (id != NONE) {
        if (!(c = fn_slot_new(r, id)))
            return nomem(r);
        if (c->name_rec != NONE && c->name_rec != name_rec)
            return fail(r, "name id %u in '%s=' redefined", id, key);
        if (c->name_rec != NONE) {  /* callgrind repeats definitions in later parts */
            *out = c;
            return 0;
        }
    }
    c->name_rec = name_rec;
    c->func = NONE;
    *out = c;
    return 0;
}

static uint32_t ctx_func(struct reader *r, struct fn_ctx *c, uint32_t obj)
{
    if (c->func != NONE && r->p->funcs[c->func].obj == obj)
        return c->func;
    uint32_t f = cg_func_get(r->p, obj, ctx_name(c), r->o);
    c->func = f;
    return f;
}

/* ---- parts and header ---- */

/* A part's sums that went past 2^64, refused at its end (its total line or the next part):
 * its cost lines', or its calls' (with those of earlier parts). */
static int sums_over(struct reader *r)
{
    if (r->psum_over)
        return fail(r, "the cost lines of the part that began on line %lu add up past 2^64",
                    r->part_line);
    if (r->call_over)
        return fail(r, "the calls of the part that began on line %lu add up past 2^64 (their "
                    "counts or their costs, with those of the parts read before)", r->part_line);
    return 0;
}

static int close_part(struct reader *r)
{
    if (!r->part_open)
        return 0;
    r->part_open = false;
    if (sums_over(r) < 0)
        return -1;
    for (int k = 0; k < r->ncol; k++)   /* the program's totals: what the cost lines say */
        if (__builtin_add_overflow(r->p->total[r->map[k]], r->psum[k], &r->p->total[r->map[k]]))
            return fail(r, "the %s costs add up past 2^64 over the parts and files read",
                        cg_event_name(r->p, r->map[k]));
    if (r->next != NEXT_SELF)
        return fail(r, "truncated: '%s' line not followed by its cost line",
                    r->next == NEXT_CALL ? "calls=" : "jump=");
    if (r->totals_seen)
        return 0;
    /* A part's total is its last line (callgrind's totals:, cachegrind's summary:): without
     * it, a file cut at a line's end would read as whole. A callgrind part of name lines
     * alone has no cost to total; cachegrind writes its summary: always. */
    if ((r->callgrind && r->in_body) || (!r->callgrind && !r->summary_seen))
        return fail(r, "truncated: the part that began on line %lu has no '%s' line",
                    r->part_line, r->callgrind ? "totals:" : "summary:");
    if (r->summary_seen) {
        /* cachegrind: its summary: line is the total of the cost lines */
        for (int k = 0; k < r->ncol; k++) {
            uint64_t want = k < r->nsummary ? r->summary[k] : 0;
            if (want != r->psum[k])
                return fail(r, "the cost lines add up to %llu %s, but 'summary:' says %llu",
                            (unsigned long long)r->psum[k], cg_event_name(r->p, r->map[k]),
                            (unsigned long long)want);
        }
    }
    return 0;
}

/* Where a part's body begins (and a file's): no position, object, file or function yet. */
static void clear_body(struct reader *r)
{
    memset(r->last, 0, sizeof r->last);
    r->ob = 0;          /* "" */
    r->file = 0;
    r->func = NONE;
    r->cob = NONE;
    r->cfn_name = NONE;
    r->cfn_id = NONE;
    r->next = NEXT_SELF;
}

static void open_part(struct reader *r)
{
    r->part_open = true;
    r->in_body = false;
    r->totals_seen = r->summary_seen = r->psum_over = r->call_over = false;
    r->nsummary = 0;
    r->part_line = r->lineno;
    memset(r->psum, 0, sizeof r->psum);
    clear_body(r);
    r->p->nparts++;
}

static int header_positions(struct reader *r, const char *s, const char *end)
{
    static const char *const kinds[] = {"instr", "bb", "line"};
    int n = 0, prev = -1;
    r->line_pos = -1;
    for (s = cg_skip_space(s, end); s < end; s = cg_skip_space(s, end)) {
        const char *w = s;
        while (s < end && !cg_is_space(*s))
            s++;
        int k = -1;
        for (int i = 0; i < 3; i++)
            if ((size_t)(s - w) == strlen(kinds[i]) && memcmp(w, kinds[i], s - w) == 0)
                k = i;
        if (k < 0)
            return fail(r, "unknown position '%.*s'", (int)(s - w < 40 ? s - w : 40), w);
        if (k <= prev)
            return fail(r, "positions out of order: want instr, bb, line");
        if (k == POS_LINE)
            r->line_pos = n;
        prev = k;
        n++;
    }
    if (n == 0)
        return fail(r, "empty 'positions:'");
    r->npos = n;
    return 0;
}

static int header_events(struct reader *r, const char *s, const char *end)
{
    if (r->have_events && r->in_body) {
        if (close_part(r) < 0)
            return -1;
        open_part(r);
    } else if (!r->part_open)
        open_part(r);
    int n = 0;
    for (s = cg_skip_space(s, end); s < end; s = cg_skip_space(s, end)) {
        const char *w = s;
        while (s < end && !cg_is_space(*s))
            s++;
        if (n == CG_MAX_EVENTS)
            return fail(r, "more than %d events", CG_MAX_EVENTS);
        uint32_t sid = cg_intern(r->p, w, s - w);
        if (sid == NONE)
            return nomem(r);
        for (int i = 0; i < n; i++)
            if (r->p->ev_name[r->map[i]] == sid)
                return fail(r, "event '%.*s' named twice", (int)(s - w), w);
        int ev = cg_event_add(r->p, sid);
        if (ev < 0)
            return fail(r, "too many events (at most %d)", CG_MAX_EVENTS);
        r->map[n++] = ev;
    }
    if (n == 0)
        return fail(r, "empty 'events:'");
    r->ncol = n;
    r->have_events = true;
    return 0;
}

static int header_totals(struct reader *r, const char *s, const char *end, bool totals)
{
    if (!r->have_events)
        return fail(r, "'%s' before 'events:'", totals ? "totals:" : "summary:");
    uint64_t v[CG_MAX_EVENTS];
    int n;
    s = cg_skip_space(s, end);
    if (!parse_costs(r, s, end, v, &n))
        return -1;
    if (!totals) {
        memcpy(r->summary, v, n * sizeof *v);
        r->nsummary = n;
        r->summary_seen = true;
        return 0;
    }
    if (sums_over(r) < 0)
        return -1;
    for (int k = 0; k < r->ncol; k++) {
        uint64_t want = k < n ? v[k] : 0;
        if (want != r->psum[k])
            return fail(r, "the cost lines add up to %llu %s, but 'totals:' says %llu",
                        (unsigned long long)r->psum[k], cg_event_name(r->p, r->map[k]),
                        (unsigned long long)want);
    }
    r->totals_seen = true;
    return 0;
}

/* "key: value" lines; unknown keys are ignored, as the format asks. */
static int header_line(struct reader *r, const char *key, size_t klen, const char *s,
                       const char *end)
{
#define KEY(k) (klen == sizeof k - 1 && memcmp(key, k, klen) == 0)
    if (KEY("events"))
        return header_events(r, s, end);
    if (KEY("positions")) {
        if (r->in_body) {
            if (close_part(r) < 0)
                return -1;
            open_part(r);
            r->have_events = false;
        }
        return header_positions(r, s, end);
    }
    if (KEY("totals"))
        return header_totals(r, s, end, true);
    if (KEY("summary"))
        return header_totals(r, s, end, false);
    if (KEY("part") || KEY("pid") || KEY("thread")) {
        if (r->in_body) {       /* a new part of a --combine-dumps file */
            if (close_part(r) < 0)
                return -1;
            open_part(r);
            r->have_events = false;
        }
        if (KEY("thread")) {
            s = cg_skip_space(s, end);
            uint64_t t;
            bool ok;
            cg_num(s, end, &t, &ok);
            if (ok && t < 64 && !r->p->thread_seen[t]) {
                r->p->thread_seen[t] = 1;
                r->p->threads++;
            }
        }
        return 0;
    }
    if (KEY("version")) {
        s = cg_skip_space(s, end);
        uint64_t v;
        bool ok;
        cg_num(s, end, &v, &ok);
        if (!ok || v > 1)
            return fail(r, "unsupported format version '%.*s'", (int)(end - s < 20 ? end - s : 20),
                        s);
        return 0;
    }
    if (KEY("creator")) {
        s = cg_skip_space(s, end);
        r->callgrind = end - s >= 9 && memcmp(s, "callgrind", 9) == 0;
        return 0;
    }
    if (KEY("cmd")) {
        s = cg_skip_space(s, end);
        if (!r->p->command && !(r->p->command = strndup(s, end - s)))
            return nomem(r);
        return 0;
    }
    return 0;   /* desc:, event:, and what later versions add */
#undef KEY
}

/* ---- the second pass: the lexer's operations replayed in file order ---- */

/* A name line, split by the lexer. */
static int spec_op(struct reader *r, const struct lex_op *op)
{
    struct fn_ctx *c, tmp;
    uint32_t ignored;
    switch ((enum spec_key)op->key) {
    case K_FN: {
        if (resolve_fn(r, op, &c, &tmp) < 0)
            return -1;
        uint32_t f = ctx_func(r, c, r->ob);
        if (f == NONE)
            return nomem(r);
        r->func = f;
        r->func_rec = ctx_rec(c);
        return 0;
    }
    case K_CFN:
        if (resolve_fn(r, op, &c, &tmp) < 0)
            return -1;
        r->cfn_name = ctx_name(c);
        r->cfn_rec = ctx_rec(c);
        r->cfn_id = c == &tmp ? NONE : (uint32_t)op->arg;
        return 0;
    case K_JFN:
        return resolve_fn(r, op, &c, &tmp);
    case K_OB:
        return resolve_str(r, &r->obs, op, &r->ob);
    case K_COB:
        return resolve_str(r, &r->obs, op, &r->cob);
    case K_FL:
    case K_FI:
    case K_FE:
        return resolve_str(r, &r->files, op, &r->file);
    case K_CFI:
        return resolve_str(r, &r->files, op, &ignored);
    }
    return fail(r, "internal error: name line of unknown kind %d", op->key);
}

/* A bare cfn=(id) line: the callee of the next call. */
static int cfn_op(struct reader *r, uint32_t id)
{
    struct fn_ctx *c = NULL;
    if (defined_fn(r, id, K_CFN, &c) < 0)
        return -1;
    r->cfn_name = ctx_name(c);
    r->cfn_rec = ctx_rec(c);
    r->cfn_id = id;
    return 0;
}

static int calls_op(struct reader *r, uint64_t count)
{
    if (r->func == NONE)
        return fail(r, "'calls=' before any 'fn='");
    if (r->cfn_name == NONE)
        return fail(r, "'calls=' without a 'cfn='");
    uint32_t obj = r->cob != NONE ? r->cob : r->ob;
    uint32_t callee = r->cfn_id != NONE ? ctx_func(r, fn_slot(r, r->cfn_id), obj)
                                        : cg_func_get(r->p, obj, r->cfn_name, r->o);
    if (callee == NONE)
        return nomem(r);
    /* a function calls the same callee from several places, and again in each part: a small
     * cache of edges saves most of the lookups */
    struct edge_memo *m = &r->edge_memo[(callee * 0x9e3779b1u ^ r->func) & (EDGE_MEMO - 1)];
    if (m->edge != NONE && m->caller == r->func && m->callee == callee)
        r->call_edge = m->edge;
    else {
        r->call_edge = cg_edge_get(r->p, r->func, callee);
        if (r->call_edge == NONE)
            return nomem(r);
        *m = (struct edge_memo){r->func, callee, r->call_edge};
    }
    r->call_rec = r->cfn_rec;
    r->call_nest = r->func_rec;
    r->call_count = count;
    r->next = NEXT_CALL;
    return 0;
}

/* The line after calls=: the inclusive cost of those calls. */
static void call_cost_op(struct reader *r, const uint64_t *cost, int n)
{
    struct cg_profile *p = r->p;
    struct cg_edge *ed = &p->edges[r->call_edge];
    bool over = __builtin_add_overflow(ed->calls, r->call_count, &ed->calls);
    if (r->track && ed->stamp != (uint32_t)p->nfiles) {     /* its first call in this file */
        ed->stamp = (uint32_t)p->nfiles;
        if (r->ntouched == r->touched_cap) {
            size_t cap = r->touched_cap ? r->touched_cap * 2 : 1024;
            uint32_t *t = realloc(r->touched, cap * sizeof *t);
            if (t) {
                r->touched = t;
                r->touched_cap = cap;
            }
        }
        if (r->ntouched < r->touched_cap)
            r->touched[r->ntouched++] = r->call_edge;
        else
            r->touched_nomem = true;
    }
    size_t at = (size_t)r->call_edge * p->nev;
    uint64_t *c = p->edge_cost + at;
    for (int k = 0; k < n; k++)
        over |= __builtin_add_overflow(c[r->map[k]], cost[k], &c[r->map[k]]);
    /* (most calls are neither: recursion costs these stores only where it happened; their
     * sums are parts of the sums above, so they cannot pass 2^64 unless those did) */
    if (r->call_rec) {
        ed->calls_rec += r->call_count;
        for (int k = 0; k < n; k++)
            p->edge_rec[at + r->map[k]] += cost[k];
    }
    if (r->call_nest) {
        ed->calls_nest += r->call_count;
        for (int k = 0; k < n; k++)
            p->edge_nest[at + r->map[k]] += cost[k];
    }
    if (r->call_rec && r->call_nest) {
        ed->calls_both += r->call_count;
        for (int k = 0; k < n; k++)
            p->edge_both[at + r->map[k]] += cost[k];
    }
    r->call_over |= over;
    r->cob = NONE;
    r->next = NEXT_SELF;
}

static int self_op(struct reader *r, const uint64_t *cost, int n, uint64_t subline)
{
    if (r->func == NONE)
        return fail(r, "cost line before any 'fn='");
    struct cg_profile *p = r->p;
    uint64_t *self = p->self + (size_t)r->func * p->nev;
    for (int k = 0; k < n; k++) {
        r->psum_over |= __builtin_add_overflow(r->psum[k], cost[k], &r->psum[k]);
        self[r->map[k]] += cost[k];   /* at most the part's total, which is checked */
    }
    if (r->func_rec) {      /* (a recursion level's own cost: rare, kept apart for flame.c) */
        uint64_t *rec = p->self_rec + (size_t)r->func * p->nev;
        for (int k = 0; k < n; k++)
            rec[r->map[k]] += cost[k];
    }
    if (r->lines_mode && p->funcs[r->func].want_lines && r->line_pos >= 0 && n > 0) {
        uint32_t x =
            cg_line_get(p, r->func, r->file, subline > UINT32_MAX ? UINT32_MAX : (uint32_t)subline);
        if (x == NONE)
            return nomem(r);
        uint64_t *lc = p->line_cost + (size_t)x * p->nev;
        for (int k = 0; k < n; k++)
            lc[r->map[k]] += cost[k];
    }
    return 0;
}

/* ---- looking ahead ----
 * Most of the replay's time went to waiting for memory: the id table's entry of each fn= and
 * cfn= line, the string table's slot of each name, the edge table's slot and edge of each
 * call (tables of megabytes, looked up in no order). The operations of a range are all known
 * before its replay, so these are asked for a few operations ahead, each step needing only
 * what an earlier step fetched: the id table entry and name slot 16 operations ahead, then the
 * edge's slot 8 ahead (from the entry's function), then its edge and cost 3 ahead. The replay
 * thread's CPU time -10%, the whole read -3.0% (150 pairs). Measured and dropped: names' bytes
 * and string offsets (the reads for them cost more than they saved: +8%), functions' entries
 * (no change), the operations themselves (the hardware fetches them), other distances. */
#define AHEAD_SLOT 16
#define AHEAD_EDGE 8
#define AHEAD_EDGE_COST 3

/* The {fn, cfn, jfn} id an operation resolves, or NONE (K_FN, K_CFN and K_JFN come first). */
static inline uint32_t op_fn_id(const struct lex_op *q)
{
    if (q->kind == OP_CFN_CALL)
        return q->callee;
    return q->kind == OP_SPEC && q->key <= K_JFN ? (uint32_t)q->arg : NONE;
}

static inline __attribute__((always_inline)) void prefetch_slots(const struct reader *r,
                                                                 const struct lex_op *q)
{
    uint32_t id = op_fn_id(q);
    if (id != NONE) {
        uint32_t k = id / FN_CHUNK;
        if (k < r->nchunks && r->fn_chunks[k])
            __builtin_prefetch(&r->fn_chunks[k][id % FN_CHUNK]);
    }
    if (q->kind == OP_SPEC && q->len && q->hashed)
        cg_prefetch_str(r->p, q->hash);
}

/* A call's edge, from the current function (a fn= line before the call changes it: then the
 * memory asked for is not used, and no harm done). */
static inline __attribute__((always_inline)) void prefetch_edge(const struct reader *r,
                                                                const struct lex_op *q, bool deep)
{
    if (q->kind != OP_CFN_CALL || r->func == NONE)
        return;
    const struct fn_ctx *c = fn_slot(r, q->callee);
    if (c && c->func != NONE)
        cg_prefetch_edge(r->p, r->func, c->func, deep);
}

/* Replays a lexed range and takes the state after it. r->lineno: the lines before it. */
static int replay(struct reader *r, const struct lex_result *x)
{
    const unsigned long base = r->lineno;
    for (size_t i = 0; i < x->nops; i++) {
        const struct lex_op *op = &x->ops[i];
        if (i + AHEAD_SLOT < x->nops)
            prefetch_slots(r, &x->ops[i + AHEAD_SLOT]);
        if (i + AHEAD_EDGE < x->nops)
            prefetch_edge(r, &x->ops[i + AHEAD_EDGE], false);
        if (i + AHEAD_EDGE_COST < x->nops)
            prefetch_edge(r, &x->ops[i + AHEAD_EDGE_COST], true);
        r->lineno = base + op->line + 1;
        int rc = 0;
        switch (op->kind) {
        case OP_SELF:
            r->psum_over |= i == x->over_op;    /* the lexer's sum of the run went past 2^64 */
            rc = self_op(r, x->cost + op->arg, op->ncost, op->u.subline);
            break;
        case OP_CALLCOST:
            call_cost_op(r, x->cost + op->arg, op->ncost);
            break;
        case OP_CALLS:
            rc = calls_op(r, op->arg);
            break;
        case OP_CALL:
            if ((rc = calls_op(r, op->arg)) == 0)
                call_cost_op(r, x->cost + op->u.cost_at, op->ncost);
            break;
        case OP_CFN_CALL:
            if ((rc = cfn_op(r, op->callee)) == 0) {
                r->lineno++;    /* the calls= line */
                if ((rc = calls_op(r, op->arg)) == 0)
                    call_cost_op(r, x->cost + op->u.cost_at, op->ncost);
            }
            break;
        case OP_SPEC:
            rc = spec_op(r, op);
            break;
        }
        if (rc < 0)
            return -1;
    }
    r->lineno = base + x->lines;
    if (x->failed || x->nomem) {
        r->lineno++;
        return x->nomem ? nomem(r) : fail(r, "%s", x->msg);
    }
    for (int i = 0; i < 3; i++)
        if (x->state.known[i])
            r->last[i] = x->state.last[i];
    r->next = x->state.next;
    r->in_body |= x->state.in_body;
    return 0;
}

/* A line the lexer left to this pass: a header, a blank or malformed line, or a body line
 * where the header does not allow one. */
static int one_line(struct reader *r, const char *s, const char *end)
{
    if (end > s && end[-1] == '\r')
        end--;
    if (s == end || *s == '#')
        return 0;
    unsigned char c = *s;
    if (c - '0' < 10 || c == '+' || c == '-' || c == '*') {
        if (!r->have_events)
            return fail(r, "cost line before 'events:'");
        return fail(r, "cost line after 'totals:'");
    }
    const char *k = s;
    while (s < end && ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        s++;
    size_t klen = s - k;
    if (s < end && *s == '=' && klen) {
        if (klen == 5 && memcmp(k, "calls", 5) == 0)
            return fail(r, "'calls=' before 'events:'");
        if (klen == 4 && (memcmp(k, "jump", 4) == 0 || memcmp(k, "jcnd", 4) == 0))
            return fail(r, "jump line before 'events:'");
        return fail(r, "internal error: name line '%.*s=' left to the second pass",
                    (int)(klen < 40 ? klen : 40), k);
    }
    if (s < end && *s == ':' && klen) {
        if (r->next != NEXT_SELF)
            return fail(r, "'%.*s:' where the cost line of a call or jump was due", (int)klen, k);
        return header_line(r, k, klen, s + 1, end);
    }
    const char *t = cg_skip_space(k, end);
    if (t == end)
        return 0;   /* blank */
    /* cachegrind's old "timeframe (BB):" and similar "words (x):" header keys */
    const char *colon = memchr(k, ':', end - k);
    if (colon && !memchr(k, '=', colon - k) && !r->in_body)
        return 0;
    return fail(r, "malformed line '%.*s'", (int)(end - k < 40 ? end - k : 40), k);
}

/* ---- ranges: lexed at once, replayed in order ---- */

static void exact_state(const struct reader *r, struct lex_state *st)
{
    st->npos = r->npos;
    st->ncol = r->ncol;
    st->line_pos = r->line_pos;
    st->have_events = r->have_events;
    st->totals_seen = r->totals_seen;
    st->lines_mode = r->lines_mode;
    st->general_only = r->o && r->o->general_only;
    for (int i = 0; i < 3; i++) {
        st->known[i] = true;
        st->last[i] = r->last[i];
    }
    st->next = r->next;
    st->in_body = r->in_body;
}

/* Lets go of the mapped pages before p, read and replayed, every 4 MiB or so: the memory a
 * mapped file holds stays about that much, not the file. */
static void release(struct reader *r, const char *p)
{
    if (!r->mapping || p - r->released < (4 << 20))
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const char *to = (const char *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    madvise((void *)r->released, to - r->released, MADV_DONTNEED);
    r->released = to;
}

/* Replays a lexed range, then lexes and replays the rest of it (up to end) from each line the
 * lexer left to one_line(). With body (the header, read before the lexer threads start): once
 * the header's 'events:' line is read, lines are lexed one at a time until one is not for
 * one_line(), and *body is set after it: the body is for the threads, not lexed here (this
 * thread lexing the rest of a 64 KiB block first cost 0.2 ms before they could start). */
static int take(struct reader *r, struct lex_result *x, const char *end, const char **body)
{
    const char *lexed_to = end;
    for (;;) {
        if (x->unsure)      /* cannot happen from an exact state: every subposition is known */
            return fail(r, "internal error: subpositions unknown in a range read in order");
        if (replay(r, x) < 0)
            return -1;
        if (!x->stop) {
            if (body)
                *body = lexed_to;
            return 0;
        }
        const char *nl = memchr(x->stop, '\n', end - x->stop);
        r->lineno++;
        if (one_line(r, x->stop, nl) < 0)
            return -1;
        lexed_to = end;
        if (body && r->have_events && nl + 1 < end)
            lexed_to = (const char *)memchr(nl + 1, '\n', end - (nl + 1)) + 1;
        struct lex_state st;
        exact_state(r, &st);
        lex_range(nl + 1, lexed_to, &st, x);
    }
}

/* Did the lexer of a later range assume what the reader now knows? (line_pos matters only in
 * lines mode, which is read in one range.) */
static bool assumed_right(const struct reader *r, const struct lex_state *in,
                          const struct lex_result *x)
{
    return !x->unsure && r->next == NEXT_SELF && in->npos == r->npos && in->ncol == r->ncol &&
           in->have_events == r->have_events &&
           in->totals_seen == r->totals_seen;
}

/* Where a later range can begin: a 'fn=' line at or after p (nothing is pending before one);
 * NULL: none before end. */
static const char *find_split(const char *p, const char *end)
{
    p = memmem(p, end - p, "\nfn=", 4);
    return p ? p + 1 : NULL;
}

#define MAX_THREADS 8

struct range {
    const char *s, *end;
    struct lex_state in;
    struct lex_result res;
    bool exact;         /* lexed from the reader's state itself, not from assumptions */
};

/* One round: up to MAX_THREADS ranges, lexed at once. */
struct round {
    struct range rg[MAX_THREADS];
    int n;
    int busy;           /* ranges not yet lexed (under the pool's lock) */
};

/* Rounds handed to the lexers ahead of the replay: while this thread replays one, the lexers
 * work on the next ones, and a slow stretch on either side is absorbed. */
#define AHEAD 3

static void lex_one(struct range *g)
{
    lex_range(g->s, g->end, &g->in, &g->res);
}

/* The lexer threads, started once per file (not once per round: starting and ending threads
 * costs the kernel most where there are many CPUs). Each takes the next range not yet taken,
 * in file order, of the rounds handed out: a range bound to one thread (range w of each round
 * to thread w) waited whenever that thread was off its CPU, and the replay with it, while the
 * others lexed rounds ahead (on 2 CPUs this needed a third thread to keep them busy, and was
 * 1.6-2.8% slower than 2 threads taking ranges in turn). */
struct pool {
    pthread_t th[MAX_THREADS];
    int n;                      /* threads running */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    struct round *ring;         /* AHEAD rounds; round k (from 0) is ring[k % AHEAD] */
    unsigned long issued;       /* rounds handed out so far (changed by the reader's thread,
                                   under the lock) */
    unsigned long next_round;   /* the next range to take: its round and its index there */
    int next_range;
    const struct round *awaited;    /* the round the reader waits for, or NULL: set and
                                       cleared by the reader, under the lock */
    bool quit;
};

/* A lexer with no round to lex first gives its CPU away (sched_yield) up to this many times,
 * looking each time whether the next round has come, and only then sleeps: a sleeping thread
 * is woken late on a virtual machine (0.2 ms, at times several), and its CPU idled meanwhile
 * (a long read on 2 CPUs kept them 1.76 busy, and 2.0 with the yields). Giving the CPU away,
 * not spinning on it, lets a thread that shares it go on. (2,000 yields take about a
 * millisecond where nothing else wants the CPU. The reader yielding too made no difference.) */
#define YIELDS 2000

/* Whether round k has been handed out (or the lexers are to stop), read without the lock: a
 * hint, looked at again under it. */
static bool round_handed_out(const struct pool *pl, unsigned long k)
{
    return __atomic_load_n(&pl->issued, __ATOMIC_ACQUIRE) > k ||
           __atomic_load_n(&pl->quit, __ATOMIC_RELAXED);
}

/* Under the lock: the next range to lex and its round, or NULL where every range handed out is
 * taken. */
static struct range *take_range(struct pool *pl, struct round **rd)
{
    if (pl->next_round >= pl->issued)
        return NULL;
    *rd = &pl->ring[pl->next_round % AHEAD];
    struct range *g = &(*rd)->rg[pl->next_range];
    if (++pl->next_range == (*rd)->n) {
        pl->next_range = 0;
        pl->next_round++;
    }
    return g;
}

static void *worker(void *arg)
{
    struct pool *pl = arg;
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        struct round *rd;
        struct range *g = take_range(pl, &rd);
        if (!g) {
            if (pl->quit)
                break;
            const unsigned long want = pl->next_round;
            pthread_mutex_unlock(&pl->mu);
            for (int i = 0; i < YIELDS && !round_handed_out(pl, want); i++)
                sched_yield();
            pthread_mutex_lock(&pl->mu);
            while (!pl->quit && !(g = take_range(pl, &rd)))
                pthread_cond_wait(&pl->go, &pl->mu);
            if (!g)
                break;
        }
        pthread_mutex_unlock(&pl->mu);
        lex_one(g);
        pthread_mutex_lock(&pl->mu);
        if (--rd->busy == 0)
            pthread_cond_broadcast(&pl->done);
        /* the round the reader waits for is done, and the reader has not run since: it was
         * woken, and waits for a CPU (2-6 ms over a read of the cc1 profile, while the lexers
         * went on with later ranges). Each lexer gives it its CPU at the end of each range
         * until it runs: the read 4.4% faster (the lexer that finished the round alone
         * yielding: 1.8%) */
        if (pl->awaited && pl->awaited->busy == 0) {
            pthread_mutex_unlock(&pl->mu);
            sched_yield();
            pthread_mutex_lock(&pl->mu);
        }
    }
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

static void pool_stop(struct pool *pl)
{
    if (!pl)
        return;
    pthread_mutex_lock(&pl->mu);
    __atomic_store_n(&pl->quit, true, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&pl->go);
    pthread_mutex_unlock(&pl->mu);
    for (int i = 0; i < pl->n; i++)
        pthread_join(pl->th[i], NULL);
    pthread_mutex_destroy(&pl->mu);
    pthread_cond_destroy(&pl->go);
    pthread_cond_destroy(&pl->done);
    free(pl);
}

/* NULL where threads cannot be had: the rounds are then lexed here, one range after another. */
static struct pool *pool_start(int n, struct round *ring)
{
    struct pool *pl = calloc(1, sizeof *pl);
    if (!pl)
        return NULL;
    pthread_mutex_init(&pl->mu, NULL);
    pthread_cond_init(&pl->go, NULL);
    pthread_cond_init(&pl->done, NULL);
    pl->ring = ring;
    for (int i = 0; i < n; i++) {
        if (pthread_create(&pl->th[i], NULL, worker, pl) != 0) {
            pool_stop(pl);
            return NULL;
        }
        pl->n++;
    }
    return pl;
}

/* Cuts the next round out of [s, end): about `threads` ranges of `chunk` bytes, each after the
 * first beginning at a 'fn=' line; the round ends at one too (or at end), so that the next
 * round can be lexed before this one is replayed. The last rounds halve: the last one is
 * replayed after the lexers are done, by this thread alone, and a round of full length kept
 * one CPU idle 0.3-0.6 ms at the end. Returns the round's end. */
static const char *plan_round(const struct reader *r, struct round *rd, const char *s,
                              const char *end)
{
    /* the ranges of the last rounds: an eighth of a range at least */
    const size_t unit = r->chunk / 8 ? r->chunk / 8 : 1;
    size_t want = r->chunk * r->threads, rest = end - s;
    if (rest <= 2 * want)
        want = rest > 2 * unit * r->threads ? rest / 2 : rest;
    const char *stop = end;
    if (want < rest) {
        const char *p = find_split(s + want - 1, end);
        stop = p ? p : end;
    }
    rd->n = 1;
    rd->rg[0].s = s;
    size_t len = stop - s;
    size_t parts = len / unit;
    if (parts > (size_t)r->threads)
        parts = r->threads;
    for (size_t i = 1; i < parts; i++) {
        const char *p = find_split(s + len * i / parts - 1, stop);
        if (p && p > rd->rg[rd->n - 1].s)
            rd->rg[rd->n++].s = p;
    }
    for (int i = 0; i < rd->n; i++)
        rd->rg[i].end = i + 1 < rd->n ? rd->rg[i + 1].s : stop;
    return stop;
}

/* Hands a round to the lexers, to be lexed from what can be known at a 'fn=' line before the
 * reader gets there: the header as it is now, nothing pending, no subposition known. */
static void lex_round(struct reader *r, struct round *rd, bool first_exact)
{
    for (int i = 0; i < rd->n; i++) {
        struct range *g = &rd->rg[i];
        exact_state(r, &g->in);
        g->exact = i == 0 && first_exact;
        if (!g->exact) {
            g->in.next = NEXT_SELF;
            g->in.in_body = false;
            memset(g->in.known, 0, sizeof g->in.known);
        }
    }
    struct pool *pl = r->pool;
    if (!pl) {
        for (int i = 0; i < rd->n; i++)
            lex_one(&rd->rg[i]);
        return;
    }
    pthread_mutex_lock(&pl->mu);
    rd->busy = rd->n;
    __atomic_store_n(&pl->issued, pl->issued + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pl->go);
    pthread_mutex_unlock(&pl->mu);
}

static void wait_round(struct reader *r, struct round *rd)
{
    struct pool *pl = r->pool;
    if (!pl)
        return;
    pthread_mutex_lock(&pl->mu);
    pl->awaited = rd;
    while (rd->busy > 0)
        pthread_cond_wait(&pl->done, &pl->mu);
    pl->awaited = NULL;
    pthread_mutex_unlock(&pl->mu);
}

/* Replays a lexed round in order; a range whose lexer assumed wrong is lexed again. */
static int replay_round(struct reader *r, struct round *rd)
{
    for (int i = 0; i < rd->n; i++) {
        struct range *g = &rd->rg[i];
        struct lex_result *x = &g->res;
        if (!g->exact && !assumed_right(r, &g->in, x)) {
            x = &r->scratch;
            struct lex_state st;
            exact_state(r, &st);
            lex_range(g->s, g->end, &st, x);
        }
        if (take(r, x, g->end, NULL) < 0)
            return -1;
    }
    return 0;
}

/* Parses the whole lines of [s, end) (end[-1] == '\n'). The header goes line by line; then
 * rounds of ranges are lexed in threads while the round before is replayed here. */
static int parse_lines(struct reader *r, struct round rd[AHEAD], const char *s, const char *end)
{
    /* a small file is read here: starting threads would take longer than it */
    const bool parallel = r->threads > 1 && !r->lines_mode && (size_t)(end - s) >= 2 * r->chunk;
    while (s < end && (!r->have_events || !parallel)) {
        size_t want = r->have_events ? r->chunk : r->chunk < (64u << 10) ? r->chunk : (64u << 10);
        const char *stop = end;
        if ((size_t)(end - s) > want + want / 2)
            stop = (const char *)memchr(s + want, '\n', end - (s + want)) + 1;
        struct lex_result *x = &rd[0].rg[0].res;
        struct lex_state st;
        exact_state(r, &st);
        lex_range(s, stop, &st, x);
        const char *next = stop;
        if (take(r, x, stop, parallel ? &next : NULL) < 0)
            return -1;
        release(r, next);
        s = next;
    }
    if (s == end)
        return 0;
    if (!r->pool)
        r->pool = pool_start(r->threads, rd);
    /* round k (from 0, counted over the file as the lexers count) lives in rd[k % AHEAD]; up
     * to AHEAD of them are handed out ahead of the one being replayed */
    const unsigned long first = r->pool ? r->pool->issued : 0;
    unsigned long issued = first, replayed = first;
    int rc = 0;
    while (rc == 0 && (replayed < issued || s < end)) {
        while (s < end && issued - replayed < AHEAD) {
            struct round *fresh = &rd[issued % AHEAD];
            s = plan_round(r, fresh, s, end);
            lex_round(r, fresh, issued == first);
            issued++;
        }
        struct round *cur = &rd[replayed % AHEAD];
        wait_round(r, cur);
        rc = replay_round(r, cur);
        replayed++;
        if (rc == 0)
            release(r, cur->rg[cur->n - 1].end);
    }
    while (replayed < issued)       /* after an error: the lexers still own those rounds */
        wait_round(r, &rd[replayed++ % AHEAD]);
    return rc;
}

/* One lexer thread per CPU (on 2 CPUs, with ranges taken in turn: 1.6-2.8% faster than three,
 * 4.7% than two each bound to its range of a round); one CPU: no threads. */
static int threads_default(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    if (n <= 1)
        return 1;
    return n > MAX_THREADS ? MAX_THREADS : n;
}

static void reader_init(struct reader *r, struct cg_profile *p, const char *name,
                        const struct cg_read_opts *o, struct err *e)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->o = o;
    r->name = name;
    if (o && o->keep_callers)
        p->kept_callers = true;
    r->e = e;
    r->npos = 1;
    r->line_pos = 0;
    clear_body(r);
    for (int i = 0; i < EDGE_MEMO; i++)
        r->edge_memo[i].edge = NONE;
    r->lines_mode = o && o->lines_for;
    r->threads = o && o->threads > 0 ? o->threads : threads_default();
    if (r->threads > MAX_THREADS)
        r->threads = MAX_THREADS;
    /* ranges of 512 KiB for up to three lexers (two CPUs: 2-5% faster than 256 KiB there,
     * fewer rounds to hand over; with ranges taken in turn, a 27 MB file 2.1% slower but
     * 546 MB 2.2% faster), 256 KiB for more (measured so on 16 CPUs) */
    r->chunk = o && o->chunk > 0 ? o->chunk : r->threads <= 3 ? (512u << 10) : (256u << 10);
    p->nfiles++;
    p->finished = false;
    r->track = p->nedge > 0;
}

static void reader_free(struct reader *r, struct round rd[AHEAD])
{
    free(r->obs.v);
    free(r->files.v);
    free(r->fn_chunks);
    free(r->touched);
    arena_free(&r->ids);
    lex_result_free(&r->scratch);
    pool_stop(r->pool);
    for (int k = 0; k < AHEAD; k++)
        for (int i = 0; i < MAX_THREADS; i++)
            lex_result_free(&rd[k].rg[i].res);
}

static int reader_end(struct reader *r)
{
    if (close_part(r) < 0)
        return -1;
    if (!r->have_events)
        return fail(r, "not a callgrind or cachegrind profile: no 'events:' line");
    if (r->touched_nomem)
        return nomem(r);
    if (r->marks)
        r->p->marked_files++;
    else if (r->track)  /* its calls can be recursive without a mark saying so */
        for (size_t i = 0; i < r->ntouched; i++)
            r->p->edges[r->touched[i]].unmarked = true;
    else
        for (uint32_t x = 0; x < r->p->nedge; x++)
            r->p->edges[x].unmarked = true;
    return 0;
}

/* Parses buf[0..len) through its last newline; a tail without one is a truncated file. */
static int parse_all(struct reader *r, struct round rd[AHEAD], const char *buf, size_t len)
{
    const char *lim = len ? memrchr(buf, '\n', len) : NULL;
    lim = lim ? lim + 1 : buf;
    if (parse_lines(r, rd, buf, lim) < 0)
        return -1;
    if (lim < buf + len) {
        r->lineno++;
        return fail(r, "truncated: the last line has no newline");
    }
    return reader_end(r);
}

int cg_read_mem(struct cg_profile *p, const char *name, const char *data, size_t len,
                const struct cg_read_opts *o, struct err *e)
{
    struct reader r;
    struct round *rd = calloc(AHEAD, sizeof *rd);     /* the rounds being lexed and replayed */
    if (!rd)
        return err_set(e, ERR_SYSTEM, "out of memory");
    reader_init(&r, p, name, o, e);
    int rc = parse_all(&r, rd, data, len);
    reader_free(&r, rd);
    free(rd);
    return rc;
}

extern char **environ;

/* A gzip-compressed profile is read through `gzip -dc` (gzip is on every Debian system). */
static int open_gunzip(const char *path, pid_t *pid, struct err *e)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot make a pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"gzip", "-dc", "--", (char *)path, NULL};
    int rc = posix_spawnp(pid, "gzip", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        return err_errno(e, ERR_SYSTEM, rc, "'%s' is gzip-compressed and gzip cannot be run", path);
    }
    return pfd[0];
}

/* A regular file is mapped and read in rounds, each round's pages let go once it is read, so
 * the memory it holds is a round's, not the file's. */
static int read_mapped(struct reader *r, struct round rd[AHEAD], int fd, size_t size, bool *mapped)
{
    char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return 0;
    *mapped = true;
    madvise(map, size, MADV_SEQUENTIAL);
    const char *nul = memchr(map, '\0', size);   /* a NUL would cut a name short: refused */
    if (nul) {
        r->lineno = in_line_of(map, (size_t)(nul - map));
        munmap(map, size);
        return fail(r, "a NUL byte: not a text file");
    }
    r->ids.huge = size >= CG_HUGE_BYTES;
    r->mapping = map;
    r->released = map;
    const char *lim = memrchr(map, '\n', size);
    lim = lim ? lim + 1 : map;
    int rc = parse_lines(r, rd, map, lim);
    if (rc == 0 && lim < map + size) {
        r->lineno++;
        rc = fail(r, "truncated: the last line has no newline");
    }
    if (rc == 0)
        rc = reader_end(r);
    munmap(map, size);
    r->mapping = NULL;
    return rc;
}

/* Anything else (a pipe, gzip's output) is read in blocks. */
static int read_blocks(struct reader *r, struct round rd[AHEAD], int fd, const char *path, bool gz)
{
    size_t cap = BLOCK, have = 0;
    char *buf = malloc(cap);
    if (!buf)
        return err_set(r->e, ERR_SYSTEM, "out of memory");
    int rc = -1;
    bool first = true;
    have = in_held(fd, buf);   /* the byte a FIFO's wait for its writer took */
    unsigned long lines = 0;   /* before buf[0]: for the line of a NUL */
    for (;;) {
        ssize_t got = read(fd, buf + have, cap - have);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            err_errno(r->e, ERR_SYSTEM, errno, "cannot read '%s'", path);
            break;
        }
        const char *nul = got > 0 ? memchr(buf + have, '\0', (size_t)got) : NULL;
        if (nul) {   /* refused in the block that holds it: /dev/zero fails at once */
            r->lineno = lines + in_line_of(buf, (size_t)(nul - buf));
            fail(r, "a NUL byte: not a text file");
            break;
        }
        if (first && !gz && have + got >= 2 && (unsigned char)buf[0] == 0x1f &&
            (unsigned char)buf[1] == 0x8b) {
            fail(r, "gzip-compressed, from a pipe: decompress it first (zcat)");
            break;
        }
        first = false;
        if (got == 0) {
            rc = parse_all(r, rd, buf, have);
            break;
        }
        have += got;
        const char *lim = memrchr(buf, '\n', have);
        size_t used = lim ? (size_t)(lim + 1 - buf) : 0;
        if (used && parse_lines(r, rd, buf, buf + used) < 0)
            break;
        lines += in_line_of(buf, used) - 1;
        memmove(buf, buf + used, have - used);
        have -= used;
        if (have == cap) {      /* one line longer than the block */
            if (cap >= (256u << 20)) {
                r->lineno++;
                fail(r, "line longer than 256 MiB");
                break;
            }
            char *q = realloc(buf, cap * 2);
            if (!q) {
                err_set(r->e, ERR_SYSTEM, "out of memory");
                break;
            }
            buf = q;
            cap *= 2;
        }
    }
    free(buf);
    return rc;
}

int cg_read_file(struct cg_profile *p, const char *path, const struct cg_read_opts *o,
                 struct err *e)
{
    struct round *rd = calloc(AHEAD, sizeof *rd);     /* the rounds being lexed and replayed */
    if (!rd)
        return err_set(e, ERR_SYSTEM, "out of memory");
    int fd = in_open(path, O_RDONLY, e);   /* no directory; a FIFO waited on, not forever */
    if (fd < 0) {
        free(rd);
        return -1;
    }
    unsigned char magic[2];
    pid_t gz = -1;
    struct stat st;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        close(fd);
        regular = false;
        if ((fd = open_gunzip(path, &gz, e)) < 0) {
            free(rd);
            return -1;
        }
    }
    struct reader r;
    reader_init(&r, p, path, o, e);
    int rc = 0;
    bool mapped = false;
    if (regular)
        cg_profile_expect(p, (uint64_t)st.st_size);
    if (regular && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX)
        rc = read_mapped(&r, rd, fd, (size_t)st.st_size, &mapped);
    if (!mapped)
        rc = read_blocks(&r, rd, fd, path, gz > 0);
    reader_free(&r, rd);
    free(rd);
    close(fd);
    if (gz > 0) {
        int status;
        while (waitpid(gz, &status, 0) < 0 && errno == EINTR)
            ;
        if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
            rc = err_set(e, ERR_INPUT, "'%s': gzip could not decompress it (corrupt or truncated)",
                         path);
    }
    return rc;
}
