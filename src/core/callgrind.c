/* callgrind.c: a streaming reader of callgrind (and cachegrind) profiles into the model of
 * profile.h: big blocks, no allocation per line, integer ids, costs added in place. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/profile.h"

#define NONE UINT32_MAX
#define MAX_ID (1u << 24)           /* compression ids are small; refuse absurd ones */
#define BLOCK (4u << 20)

/* One entry of the {fn, cfn, jfn} id table: the stripped name, whether the context was a
 * recursion level, and the function it was last resolved to (with its object). */
struct fn_ctx {
    uint32_t name;                  /* NONE: not defined */
    bool rec;
    uint32_t cache_obj, cache_func;
};

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
    struct fn_ctx *fns;
    uint32_t fns_cap;

    /* the header of the current part */
    int npos, line_pos;             /* line_pos: index of "line" in positions, or -1 */
    int ncol;                       /* events in this part */
    int map[CG_MAX_EVENTS];         /* column -> profile event */
    bool have_events, in_body, part_open, totals_seen, summary_seen, callgrind;
    uint64_t psum[CG_MAX_EVENTS];   /* by column, this part's self cost lines */
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
    enum { NEXT_SELF, NEXT_CALL, NEXT_JUMP } next;
    uint64_t call_count;
    uint32_t call_edge;
    bool call_outer;
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

static inline bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && is_space(*s))
        s++;
    return s;
}

/* A number: decimal or 0x hex. The line ends with '\n' (or end), so digit loops stop there. */
static inline const char *parse_num(const char *s, const char *end, uint64_t *out, bool *ok)
{
    const char *start = s;
    uint64_t v = 0;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        const char *h = s;
        for (; s < end; s++) {
            unsigned c = (unsigned char)*s, d;
            if (c - '0' < 10) d = c - '0';
            else if ((c | 32) - 'a' < 6) d = (c | 32) - 'a' + 10;
            else break;
            v = v << 4 | d;
        }
        *ok = s > h && s - h <= 16;
    } else {
        while (s < end && (unsigned)(*s - '0') < 10)
            v = v * 10 + (unsigned)(*s++ - '0');
        size_t n = s - start;
        *ok = n > 0 && (n < 20 || (n == 20 && start[0] == '1' && v >= 10000000000000000000ull));
    }
    *out = v;
    return s;
}

/* The subpositions of a cost, call or jump line, relative ones against r->last. */
static const char *parse_positions(struct reader *r, const char *s, const char *end, uint64_t *pos)
{
    for (int i = 0; i < r->npos; i++) {
        uint64_t v;
        bool ok = true;
        if (s >= end) {
            fail(r, "missing subposition: positions has %d", r->npos);
            return NULL;
        }
        if (*s == '*') {
            v = r->last[i];
            s++;
        } else if (*s == '+' || *s == '-') {
            char sign = *s++;
            uint64_t d;
            s = parse_num(s, end, &d, &ok);
            if (!ok) {
                fail(r, "bad relative subposition");
                return NULL;
            }
            if (sign == '+') {
                v = r->last[i] + d;
                if (v < d) {
                    fail(r, "subposition overflows");
                    return NULL;
                }
            } else {
                if (d > r->last[i]) {
                    fail(r, "relative subposition -%llu goes below zero", (unsigned long long)d);
                    return NULL;
                }
                v = r->last[i] - d;
            }
        } else {
            s = parse_num(s, end, &v, &ok);
            if (!ok) {
                fail(r, "bad subposition '%.*s'", (int)(strcspn(s, " \t\n") < 40 ? strcspn(s, " \t\n") : 40), s);
                return NULL;
            }
        }
        if (s < end && !is_space(*s)) {
            fail(r, "bad subposition: unexpected '%c'", *s);
            return NULL;
        }
        pos[i] = v;
        s = skip_space(s, end);
    }
    return s;
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
        s = parse_num(s, end, &cost[k], &ok);
        if (!ok || (s < end && !is_space(*s))) {
            fail(r, "bad cost '%.*s'", (int)(end - s < 40 ? end - s : 40), s);
            return NULL;
        }
        k++;
        s = skip_space(s, end);
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

/* Splits "(id) name", "(id)" or "name" (a name may start with '(' when no digit follows). */
static int split_spec(struct reader *r, const char *s, const char *end, const char *key,
                      uint32_t *id, const char **name, size_t *len)
{
    s = skip_space(s, end);
    while (end > s && is_space(end[-1]))
        end--;
    *id = NONE;
    if (s + 1 < end && *s == '(' && (unsigned)(s[1] - '0') < 10) {
        uint64_t v;
        bool ok;
        const char *q = parse_num(s + 1, end, &v, &ok);
        if (!ok || q >= end || *q != ')')
            return fail(r, "bad name id in '%s='", key);
        if (v >= MAX_ID)
            return fail(r, "name id %llu in '%s=' is too large", (unsigned long long)v, key);
        *id = (uint32_t)v;
        s = skip_space(q + 1, end);
    }
    *name = s;
    *len = end - s;
    if (*id == NONE && *len == 0)
        return fail(r, "empty name in '%s='", key);
    return 0;
}

/* ob/cob/fl/fi/fe/cfi/cfl/jfi: a string id through table t. */
static int resolve_str(struct reader *r, struct idtab *t, const char *s, const char *end,
                       const char *key, uint32_t *out)
{
    uint32_t id;
    const char *name;
    size_t len;
    if (split_spec(r, s, end, key, &id, &name, &len) < 0)
        return -1;
    if (id == NONE) {
        if ((*out = cg_intern(r->p, name, len)) == NONE)
            return nomem(r);
        return 0;
    }
    if (len == 0) {
        if (id >= t->cap || t->v[id] == NONE)
            return fail(r, "undefined name id %u in '%s='", id, key);
        *out = t->v[id];
        return 0;
    }
    uint32_t sid = cg_intern(r->p, name, len);
    if (sid == NONE || !idtab_grow(t, id))
        return nomem(r);
    if (t->v[id] != NONE && t->v[id] != sid)
        return fail(r, "name id %u in '%s=' redefined", id, key);
    t->v[id] = sid;
    *out = sid;
    return 0;
}

/* fn/cfn/jfn: the table entry for a function context. */
static int resolve_fn(struct reader *r, const char *s, const char *end, const char *key,
                      struct fn_ctx **out, struct fn_ctx *tmp)
{
    uint32_t id;
    const char *name;
    size_t len;
    if (split_spec(r, s, end, key, &id, &name, &len) < 0)
        return -1;
    if (id != NONE && len == 0) {
        if (id >= r->fns_cap || r->fns[id].name == NONE)
            return fail(r, "undefined name id %u in '%s='", id, key);
        *out = &r->fns[id];
        return 0;
    }
    bool rec;
    size_t n = cg_strip_name(name, len, &rec);
    uint32_t sid = cg_intern(r->p, name, n);
    if (sid == NONE)
        return nomem(r);
    struct fn_ctx *c = tmp;
    if (id != NONE) {
        if (id >= r->fns_cap) {
            uint32_t cap = r->fns_cap ? r->fns_cap : 256;
            while (cap <= id)
                cap *= 2;
            struct fn_ctx *q = realloc(r->fns, (size_t)cap * sizeof *q);
            if (!q)
                return nomem(r);
            for (uint32_t i = r->fns_cap; i < cap; i++)
                q[i] = (struct fn_ctx){NONE, false, NONE, NONE};
            r->fns = q;
            r->fns_cap = cap;
        }
        c = &r->fns[id];
        if (c->name != NONE && (c->name != sid || c->rec != rec))
            return fail(r, "name id %u in '%s=' redefined", id, key);
        if (c->name != NONE) {      /* callgrind repeats definitions in later parts */
            *out = c;
            return 0;
        }
    }
    c->name = sid;
    c->rec = rec;
    c->cache_obj = NONE;
    c->cache_func = NONE;
    *out = c;
    return 0;
}

static uint32_t ctx_func(struct reader *r, struct fn_ctx *c, uint32_t obj)
{
    if (c->cache_obj == obj && c->cache_func != NONE)
        return c->cache_func;
    uint32_t f = cg_func_get(r->p, obj, c->name, r->o);
    c->cache_obj = obj;
    c->cache_func = f;
    return f;
}

/* ---- parts and header ---- */

static int close_part(struct reader *r)
{
    if (!r->part_open)
        return 0;
    r->part_open = false;
    for (int k = 0; k < r->ncol; k++)   /* the program's totals: what the cost lines say */
        r->p->total[r->map[k]] += r->psum[k];
    if (r->next != NEXT_SELF)
        return fail(r, "truncated: '%s' line not followed by its cost line",
                    r->next == NEXT_CALL ? "calls=" : "jump=");
    if (r->totals_seen)
        return 0;
    if (r->callgrind && r->in_body)
        return fail(r, "truncated: the part that began on line %lu has no 'totals:' line",
                    r->part_line);
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

static void open_part(struct reader *r)
{
    r->part_open = true;
    r->in_body = false;
    r->totals_seen = r->summary_seen = false;
    r->nsummary = 0;
    r->part_line = r->lineno;
    memset(r->psum, 0, sizeof r->psum);
    memset(r->last, 0, sizeof r->last);
    r->ob = 0;          /* "" */
    r->file = 0;
    r->func = NONE;
    r->cob = NONE;
    r->cfn_name = NONE;
    r->cfn_id = NONE;
    r->next = NEXT_SELF;
    r->p->nparts++;
}

static int header_positions(struct reader *r, const char *s, const char *end)
{
    static const char *const kinds[] = {"instr", "bb", "line"};
    int n = 0, prev = -1;
    r->line_pos = -1;
    for (s = skip_space(s, end); s < end; s = skip_space(s, end)) {
        const char *w = s;
        while (s < end && !is_space(*s))
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
    for (s = skip_space(s, end); s < end; s = skip_space(s, end)) {
        const char *w = s;
        while (s < end && !is_space(*s))
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
    s = skip_space(s, end);
    if (!parse_costs(r, s, end, v, &n))
        return -1;
    if (!totals) {
        memcpy(r->summary, v, n * sizeof *v);
        r->nsummary = n;
        r->summary_seen = true;
        return 0;
    }
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
            s = skip_space(s, end);
            uint64_t t;
            bool ok;
            parse_num(s, end, &t, &ok);
            if (ok && t < 64 && !r->p->thread_seen[t]) {
                r->p->thread_seen[t] = 1;
                r->p->threads++;
            }
        }
        return 0;
    }
    if (KEY("version")) {
        s = skip_space(s, end);
        uint64_t v;
        bool ok;
        parse_num(s, end, &v, &ok);
        if (!ok || v > 1)
            return fail(r, "unsupported format version '%.*s'", (int)(end - s < 20 ? end - s : 20), s);
        return 0;
    }
    if (KEY("creator")) {
        s = skip_space(s, end);
        r->callgrind = end - s >= 9 && memcmp(s, "callgrind", 9) == 0;
        return 0;
    }
    if (KEY("cmd")) {
        s = skip_space(s, end);
        if (!r->p->command && !(r->p->command = strndup(s, end - s)))
            return nomem(r);
        return 0;
    }
    return 0;   /* desc:, event:, and what later versions add */
#undef KEY
}

/* ---- body ---- */

static int cost_line(struct reader *r, const char *s, const char *end)
{
    if (!r->have_events)
        return fail(r, "cost line before 'events:'");
    if (r->totals_seen)
        return fail(r, "cost line after 'totals:'");
    r->in_body = true;
    uint64_t pos[3], cost[CG_MAX_EVENTS];
    int n;
    s = parse_positions(r, s, end, pos);
    if (!s || !parse_costs(r, s, end, cost, &n))
        return -1;
    struct cg_profile *p = r->p;
    int nev = p->nev;
    if (r->next == NEXT_SELF) {
        if (r->func == NONE)
            return fail(r, "cost line before any 'fn='");
        memcpy(r->last, pos, sizeof pos);
        uint64_t *self = p->self + (size_t)r->func * nev;
        for (int k = 0; k < n; k++) {
            self[r->map[k]] += cost[k];
            r->psum[k] += cost[k];
        }
        if (p->funcs[r->func].want_lines && r->line_pos >= 0 && n > 0) {
            uint64_t ln = pos[r->line_pos];
            uint32_t x = cg_line_get(p, r->func, r->file, ln > UINT32_MAX ? UINT32_MAX : (uint32_t)ln);
            if (x == NONE)
                return nomem(r);
            uint64_t *lc = p->line_cost + (size_t)x * p->nev;
            for (int k = 0; k < n; k++)
                lc[r->map[k]] += cost[k];
        }
        return 0;
    }
    /* callgrind writes the line after calls= and jump= relative to the last self cost line,
     * and does not move that base (dump.c: fprint_pos without copy_apos). */
    if (r->next == NEXT_CALL) {
        struct cg_edge *ed = &p->edges[r->call_edge];
        ed->calls += r->call_count;
        uint64_t *c = p->edge_cost + (size_t)r->call_edge * nev;
        for (int k = 0; k < n; k++)
            c[r->map[k]] += cost[k];
        if (r->call_outer) {
            uint64_t *o = p->edge_outer + (size_t)r->call_edge * nev;
            for (int k = 0; k < n; k++)
                o[r->map[k]] += cost[k];
        }
        r->cob = NONE;
    }
    r->next = NEXT_SELF;
    return 0;
}

static int calls_line(struct reader *r, const char *s, const char *end)
{
    if (!r->have_events)
        return fail(r, "'calls=' before 'events:'");
    if (r->next != NEXT_SELF)
        return fail(r, "'calls=' where the cost line of the previous call was due");
    if (r->func == NONE)
        return fail(r, "'calls=' before any 'fn='");
    if (r->cfn_name == NONE)
        return fail(r, "'calls=' without a 'cfn='");
    r->in_body = true;
    s = skip_space(s, end);
    bool ok;
    s = parse_num(s, end, &r->call_count, &ok);
    if (!ok || (s < end && !is_space(*s)))
        return fail(r, "bad call count");
    s = skip_space(s, end);
    uint64_t target[3];
    if (!parse_positions(r, s, end, target))
        return -1;
    uint32_t obj = r->cob != NONE ? r->cob : r->ob;
    uint32_t callee = r->cfn_id != NONE ? ctx_func(r, &r->fns[r->cfn_id], obj)
                                        : cg_func_get(r->p, obj, r->cfn_name, r->o);
    if (callee == NONE)
        return nomem(r);
    r->call_edge = cg_edge_get(r->p, r->func, callee);
    if (r->call_edge == NONE)
        return nomem(r);
    r->call_outer = callee == r->func && !r->func_rec;
    r->next = NEXT_CALL;
    return 0;
}

static int jump_line(struct reader *r, const char *s, const char *end, bool cond)
{
    if (!r->have_events)
        return fail(r, "jump line before 'events:'");
    if (r->next != NEXT_SELF)
        return fail(r, "jump line where the cost line of a call was due");
    s = skip_space(s, end);
    uint64_t a, b;
    bool ok;
    s = parse_num(s, end, &a, &ok);
    if (ok && cond) {
        if (s < end && *s == '/')
            s = parse_num(s + 1, end, &b, &ok);
        else {
            s = skip_space(s, end);
            s = parse_num(s, end, &b, &ok);
        }
    }
    if (!ok || (s < end && !is_space(*s)))
        return fail(r, "bad '%s' count", cond ? "jcnd=" : "jump=");
    uint64_t target[3];
    if (!parse_positions(r, skip_space(s, end), end, target))
        return -1;
    r->next = NEXT_JUMP;
    return 0;
}

static int spec_line(struct reader *r, const char *key, size_t klen, const char *s, const char *end)
{
#define KEY(k) (klen == sizeof k - 1 && memcmp(key, k, klen) == 0)
    if (r->next != NEXT_SELF && !KEY("calls"))
        return fail(r, "'%.*s=' where the cost line of a call or jump was due", (int)klen, key);
    if (KEY("calls"))
        return calls_line(r, s, end);
    if (KEY("fn")) {
        struct fn_ctx *c, tmp;
        if (resolve_fn(r, s, end, "fn", &c, &tmp) < 0)
            return -1;
        uint32_t f = ctx_func(r, c, r->ob);
        if (f == NONE)
            return nomem(r);
        r->func = f;
        r->func_rec = c->rec;
        return 0;
    }
    if (KEY("fl") || KEY("fi") || KEY("fe"))
        return resolve_str(r, &r->files, s, end, KEY("fl") ? "fl" : KEY("fi") ? "fi" : "fe", &r->file);
    if (KEY("cfn")) {
        struct fn_ctx *c, tmp;
        if (resolve_fn(r, s, end, "cfn", &c, &tmp) < 0)
            return -1;
        r->cfn_name = c->name;
        r->cfn_rec = c->rec;
        r->cfn_id = c == &tmp ? NONE : (uint32_t)(c - r->fns);
        return 0;
    }
    if (KEY("cob"))
        return resolve_str(r, &r->obs, s, end, "cob", &r->cob);
    if (KEY("ob")) {
        if (resolve_str(r, &r->obs, s, end, "ob", &r->ob) < 0)
            return -1;
        return 0;
    }
    uint32_t ignored;
    if (KEY("cfi") || KEY("cfl") || KEY("jfi"))
        return resolve_str(r, &r->files, s, end, "cfi", &ignored);
    if (KEY("jfn")) {
        struct fn_ctx *c, tmp;
        return resolve_fn(r, s, end, "jfn", &c, &tmp);
    }
    if (KEY("jump"))
        return jump_line(r, s, end, false);
    if (KEY("jcnd"))
        return jump_line(r, s, end, true);
    if (KEY("bb") || KEY("ln") || KEY("rec") || KEY("frfn"))
        return 0;   /* --dump-bbs details, not cost */
    return fail(r, "unknown line '%.*s='", (int)(klen < 40 ? klen : 40), key);
#undef KEY
}

static int one_line(struct reader *r, const char *s, const char *end)
{
    if (end > s && end[-1] == '\r')
        end--;
    if (s == end || *s == '#')
        return 0;
    unsigned char c = *s;
    if (c - '0' < 10 || c == '+' || c == '-' || c == '*')
        return cost_line(r, s, end);
    const char *k = s;
    while (s < end && ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        s++;
    if (s < end && *s == '=' && s > k)
        return spec_line(r, k, s - k, s + 1, end);
    if (s < end && *s == ':' && s > k) {
        if (r->next != NEXT_SELF)
            return fail(r, "'%.*s:' where the cost line of a call or jump was due", (int)(s - k), k);
        return header_line(r, k, s - k, s + 1, end);
    }
    const char *t = skip_space(k, end);
    if (t == end)
        return 0;   /* blank */
    /* cachegrind's old "timeframe (BB):" and similar "words (x):" header keys */
    const char *colon = memchr(k, ':', end - k);
    if (colon && !memchr(k, '=', colon - k) && !r->in_body)
        return 0;
    return fail(r, "malformed line '%.*s'", (int)(end - k < 40 ? end - k : 40), k);
}

static void reader_init(struct reader *r, struct cg_profile *p, const char *name,
                        const struct cg_read_opts *o, struct err *e)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->o = o;
    r->name = name;
    r->e = e;
    r->npos = 1;
    r->line_pos = 0;
    r->func = NONE;
    r->cob = NONE;
    r->cfn_name = NONE;
    r->cfn_id = NONE;
    p->nfiles++;
    p->finished = false;
}

static void reader_free(struct reader *r)
{
    free(r->obs.v);
    free(r->files.v);
    free(r->fns);
}

static int reader_end(struct reader *r)
{
    if (close_part(r) < 0)
        return -1;
    if (!r->have_events)
        return fail(r, "not a callgrind or cachegrind profile: no 'events:' line");
    return 0;
}

/* The common line, a self cost line, parsed without a bound check per character: every line
 * handed here ends in '\n', which stops every digit loop. Returns the start of the next line,
 * or NULL to let one_line() parse it again and say what is wrong. */
static inline __attribute__((always_inline)) const char *fast_cost_line(struct reader *r, const char *s)
{
    uint64_t pos[3], cost[CG_MAX_EVENTS];
    const int npos = r->npos, ncol = r->ncol;
    for (int i = 0; i < npos; i++) {
        unsigned char c = *s;
        uint64_t v = 0;
        unsigned d;
        if (c == '+' || c == '-') {
            const char *st = ++s;
            while ((d = (unsigned char)*s - '0') < 10)
                v = v * 10 + d, s++;
            if (s == st || s - st > 18)
                return NULL;
            if (c == '+') {
                v = r->last[i] + v;
                if (v < r->last[i])
                    return NULL;
            } else {
                if (v > r->last[i])
                    return NULL;
                v = r->last[i] - v;
            }
        } else if (c == '*') {
            v = r->last[i];
            s++;
        } else if (c == '0' && s[1] == 'x') {
            const char *st = s += 2;
            for (;;) {
                c = *s;
                if ((d = c - '0') < 10) v = v << 4 | d;
                else if ((d = (c | 32) - 'a') < 6) v = v << 4 | (d + 10);
                else break;
                s++;
            }
            if (s == st || s - st > 16)
                return NULL;
        } else {
            const char *st = s;
            while ((d = (unsigned char)*s - '0') < 10)
                v = v * 10 + d, s++;
            if (s == st || s - st > 19)
                return NULL;
        }
        /* one space between fields, as callgrind writes; anything else: the careful path */
        if (*s == ' ')
            s++;
        else if (*s != '\n' || i != npos - 1)
            return NULL;
        pos[i] = v;
    }
    int n = 0;
    while (*s != '\n') {
        const char *st = s;
        uint64_t v = 0;
        unsigned d;
        while ((d = (unsigned char)*s - '0') < 10)
            v = v * 10 + d, s++;
        if (s == st || s - st > 19 || n == ncol)
            return NULL;   /* hex costs, overflow, too many: the careful path */
        cost[n++] = v;
        if (*s == ' ')
            s++;
        else if (*s != '\n')
            return NULL;
    }
    struct cg_profile *p = r->p;
    if (r->next == NEXT_CALL) {
        /* like cost_line: the call's inclusive cost, and the base position does not move */
        struct cg_edge *ed = &p->edges[r->call_edge];
        ed->calls += r->call_count;
        uint64_t *c = p->edge_cost + (size_t)r->call_edge * p->nev;
        uint64_t *o = r->call_outer ? p->edge_outer + (size_t)r->call_edge * p->nev : NULL;
        for (int k = 0; k < n; k++) {
            c[r->map[k]] += cost[k];
            if (o)
                o[r->map[k]] += cost[k];
        }
        r->cob = NONE;
        r->next = NEXT_SELF;
        return s + 1;
    }
    if (r->next == NEXT_JUMP) {
        r->next = NEXT_SELF;
        return s + 1;
    }
    memcpy(r->last, pos, sizeof pos);
    uint64_t *self = p->self + (size_t)r->func * p->nev;
    const int *map = r->map;
    uint64_t *psum = r->psum;
    for (int k = 0; k < n; k++) {
        uint64_t v = cost[k];
        self[map[k]] += v;
        psum[k] += v;
    }
    r->in_body = true;
    if (p->funcs[r->func].want_lines && r->line_pos >= 0 && n > 0) {
        uint64_t ln = pos[r->line_pos];
        uint32_t x = cg_line_get(p, r->func, r->file, ln > UINT32_MAX ? UINT32_MAX : (uint32_t)ln);
        if (x == NONE)
            return NULL;
        uint64_t *lc = p->line_cost + (size_t)x * p->nev;
        for (int k = 0; k < n; k++)
            lc[r->map[k]] += cost[k];
    }
    return s + 1;
}

/* Parses every complete line of buf[0..len); returns the bytes used, or -1. */
static long parse_block(struct reader *r, const char *buf, size_t len)
{
    const char *s = buf, *lim = memrchr(buf, '\n', len);
    if (!lim)
        return 0;
    lim++;
    while (s < lim) {
        r->lineno++;
        unsigned char c = *s;
        if ((c - '0' < 10 || c == '+' || c == '*' || c == '-') && r->func != NONE &&
            r->have_events && !r->totals_seen) {
            const char *q = fast_cost_line(r, s);
            if (q) {
                s = q;
                continue;
            }
        }
        const char *nl = memchr(s, '\n', lim - s);
        if (one_line(r, s, nl) < 0)
            return -1;
        s = nl + 1;
    }
    return s - buf;
}

int cg_read_mem(struct cg_profile *p, const char *name, const char *data, size_t len,
                const struct cg_read_opts *o, struct err *e)
{
    struct reader r;
    reader_init(&r, p, name, o, e);
    int rc = -1;
    long used = parse_block(&r, data, len);
    if (used >= 0) {
        if ((size_t)used < len) {
            r.lineno++;
            fail(&r, "truncated: the last line has no newline");
        } else
            rc = reader_end(&r);
    }
    reader_free(&r);
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

int cg_read_file(struct cg_profile *p, const char *path, const struct cg_read_opts *o, struct err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot open '%s'", path);
    unsigned char magic[2];
    pid_t gz = -1;
    if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        close(fd);
        if ((fd = open_gunzip(path, &gz, e)) < 0)
            return -1;
    } else
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    size_t cap = BLOCK, have = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    struct reader r;
    reader_init(&r, p, path, o, e);
    int rc = -1;
    bool first = true;
    for (;;) {
        ssize_t got = read(fd, buf + have, cap - have);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            err_errno(e, ERR_SYSTEM, errno, "cannot read '%s'", path);
            goto out;
        }
        if (first && gz < 0 && have + got >= 2 && (unsigned char)buf[0] == 0x1f &&
            (unsigned char)buf[1] == 0x8b) {
            fail(&r, "gzip-compressed, from a pipe: decompress it first (zcat)");
            goto out;
        }
        first = false;
        if (got == 0) {
            if (have) {
                r.lineno++;
                fail(&r, "truncated: the last line has no newline");
                goto out;
            }
            rc = reader_end(&r);
            goto out;
        }
        have += got;
        long used = parse_block(&r, buf, have);
        if (used < 0)
            goto out;
        memmove(buf, buf + used, have - used);
        have -= used;
        if (have == cap) {      /* one line longer than the block */
            if (cap >= (256u << 20)) {
                r.lineno++;
                fail(&r, "line longer than 256 MiB");
                goto out;
            }
            char *q = realloc(buf, cap * 2);
            if (!q) {
                err_set(e, ERR_SYSTEM, "out of memory");
                goto out;
            }
            buf = q;
            cap *= 2;
        }
    }
out:
    reader_free(&r);
    free(buf);
    close(fd);
    if (gz > 0) {
        int st;
        while (waitpid(gz, &st, 0) < 0 && errno == EINTR)
            ;
        if (rc == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
            rc = err_set(e, ERR_INPUT, "'%s': gzip could not decompress it (corrupt or truncated)", path);
    }
    return rc;
}
