/* profile.c: the profile model: interned names, merged functions, call edges, per-line cost,
 * inclusive cost without counting recursion twice, and the allocation count. */
#define _GNU_SOURCE
#include "core/profile/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ZERO_IN(x): the high bit of some byte set where x has a zero byte (none where it has none) */
#define ZERO_IN(x) (((x) - 0x0101010101010101ull) & ~(x) & 0x8080808080808080ull)

/* Sixteen bytes a step in two independent lanes (each step of one lane waits for its
 * multiplication, so two lanes go twice as fast), the last bytes as one eight-byte word
 * that overlaps the bytes before it, not byte by byte: names are long (C++ signatures,
 * --separate-callers chains). *nul, where given: whether a NUL byte is among the n, looked
 * for in the words the hash reads anyway, not by another pass over the name. */
static inline __attribute__((always_inline)) uint64_t hash_bytes(const char *s, size_t n,
                                                                 bool *nul)
{
    const uint64_t k1 = 0xff51afd7ed558ccdull, k2 = 0xc4ceb9fe1a85ec53ull;
    uint64_t h1 = 0x9e3779b97f4a7c15ull ^ n, h2 = 0x6a09e667f3bcc909ull, w;
    uint64_t zero = 0;
    if (n < 8) {
        w = 0;
        if (nul)
            *nul = memchr(s, '\0', n) != NULL;
        if (n >= 4) {       /* two four-byte words, overlapping */
            uint32_t a, b;
            memcpy(&a, s, 4);
            memcpy(&b, s + n - 4, 4);
            w = (uint64_t)a << 32 | b;
        } else if (n > 0)
            w = (uint64_t)(unsigned char)s[0] << 16 | (uint64_t)(unsigned char)s[n / 2] << 8 |
                (unsigned char)s[n - 1];
        h1 = (h1 ^ w) * k2;
        return h1 ^ (h1 >> 29);
    }
    const char *last = s + n - 8;
    for (; n > 16; s += 16, n -= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + 8, 8);
        h1 = (h1 ^ a) * k1;
        h1 ^= h1 >> 32;
        h2 = (h2 ^ b) * k2;
        h2 ^= h2 >> 32;
        if (nul)
            zero |= ZERO_IN(a) | ZERO_IN(b);
    }
    if (n > 8) {
        memcpy(&w, s, 8);
        h1 = (h1 ^ w) * k1;
        h1 ^= h1 >> 32;
        if (nul)
            zero |= ZERO_IN(w);
    }
    memcpy(&w, last, 8);
    if (nul)
        *nul = (zero | ZERO_IN(w)) != 0;
    h2 = (h2 ^ w) * k2;
    uint64_t h = (h1 ^ h2 ^ (h2 >> 29)) * k1;
    return h ^ (h >> 29);
}

/* ---- the tables' memory ----
 * From malloc, or (once cg_profile_expect() has been told of a large file) from the profile's
 * arena, in huge pages: the replay looks the tables up in no order while a file streams past,
 * and in pages of 4 KiB most lookups missed the TLB, it seems (the read of the cc1 profile
 * 3.6% faster in huge pages, 150 pairs, -5.0 .. -1.8%; 488 fewer page faults). An arena block
 * is not freed alone: a table that grows is copied, and its old block is left (or unmapped,
 * where it had a mapping of its own). */

static void *tbl_alloc(struct cg_profile *p, size_t n)
{
    return p->mem.huge ? arena_alloc(&p->mem, n) : malloc(n);
}

static void tbl_free(struct cg_profile *p, void *t)
{
    if (t && arena_owns(&p->mem, t))
        arena_release(&p->mem, t);
    else
        free(t);
}

/* t (of old bytes) at n bytes, its contents kept up to the shorter; NULL: no memory (t is
 * kept). */
static void *tbl_realloc(struct cg_profile *p, void *t, size_t old, size_t n)
{
    if (!p->mem.huge)
        return realloc(t, n);
    void *q = arena_alloc(&p->mem, n);
    if (q && t) {
        memcpy(q, t, old < n ? old : n);
        tbl_free(p, t);
    }
    return q;
}

static bool grow(struct cg_profile *p, void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = tbl_realloc(p, *arr, (size_t)*cap * elem, (size_t)n * elem);
    if (!q)
        return false;
    *arr = q;
    *cap = n;
    return true;
}

/* A hash table of cap empty (zero) slots, written here, not left to calloc: a large calloc is
 * fresh pages that the kernel maps to its shared zero page when first read, and the first
 * write to each then replaces that mapping on every CPU the process runs on -- with the lexer
 * threads running, an interrupt to each, which cost more than the zeroing. */
static void *new_table(struct cg_profile *p, uint32_t cap, size_t size)
{
    void *t = tbl_alloc(p, (size_t)cap * size);
    if (t) {
        __asm__ volatile("" : : "r"(t) : "memory");     /* or the compiler makes it calloc */
        memset(t, 0, (size_t)cap * size);
    }
    return t;
}

/* Grows a cost array of `cap` vectors of nev to `ncap` vectors, zeroing the new ones. */
static bool grow_costs(struct cg_profile *p, uint64_t **a, uint32_t oldcap, uint32_t newcap,
                       int nev)
{
    if (nev == 0)
        return true;
    uint64_t *q = tbl_realloc(p, *a, (size_t)oldcap * nev * sizeof *q,
                              (size_t)newcap * nev * sizeof *q);
    if (!q)
        return false;
    memset(q + (size_t)oldcap * nev, 0, (size_t)(newcap - oldcap) * nev * sizeof *q);
    *a = q;
    return true;
}

struct cg_profile *cg_profile_new(void)
{
    struct cg_profile *p = calloc(1, sizeof *p);
    if (p && cg_intern(p, "", 0) == UINT32_MAX) {
        cg_profile_free(p);
        return NULL;
    }
    return p;
}

void cg_profile_free(struct cg_profile *p)
{
    if (!p)
        return;
    tbl_free(p, p->pool);
    tbl_free(p, p->str_off);
    tbl_free(p, p->str_hash);
    tbl_free(p, p->funcs);
    tbl_free(p, p->self);
    tbl_free(p, p->self_rec);
    free(p->incl);
    tbl_free(p, p->func_hash);
    tbl_free(p, p->edges);
    tbl_free(p, p->edge_cost);
    tbl_free(p, p->edge_rec);
    tbl_free(p, p->edge_nest);
    tbl_free(p, p->edge_both);
    free(p->edge_kind);
    tbl_free(p, p->edge_hash);
    tbl_free(p, p->lines);
    tbl_free(p, p->line_cost);
    tbl_free(p, p->line_hash);
    arena_free(&p->mem);
    free(p->command);
    free(p);
}

/* ---- strings ---- */

static bool str_rehash(struct cg_profile *p, uint32_t cap)
{
    uint64_t *t = new_table(p, cap, sizeof *t);
    if (!t)
        return false;
    for (uint32_t k = 0; k < p->str_hash_cap; k++) {
        uint64_t x = p->str_hash[k];
        if (!x)
            continue;
        uint32_t i = (uint32_t)(x >> 32) & (cap - 1);
        while (t[i])
            i = (i + 1) & (cap - 1);
        t[i] = x;
    }
    tbl_free(p, p->str_hash);
    p->str_hash = t;
    p->str_hash_cap = cap;
    return true;
}

uint32_t cg_hash(const char *s, size_t len)
{
    return (uint32_t)hash_bytes(s, len, NULL);
}

bool cg_hash_text(const char *s, size_t len, uint32_t *h)
{
    bool nul;
    *h = (uint32_t)hash_bytes(s, len, &nul);
    return !nul;
}

uint32_t cg_intern(struct cg_profile *p, const char *s, size_t len)
{
    if (memchr(s, '\0', len))
        len = strlen(s);
    return cg_intern_hashed(p, s, len, cg_hash(s, len));
}

uint32_t cg_intern_hashed(struct cg_profile *p, const char *s, size_t len, uint32_t h)
{
    if ((p->nstr + 1) * 2 > p->str_hash_cap &&
        !str_rehash(p, p->str_hash_cap ? p->str_hash_cap * 2 : 1024))
        return UINT32_MAX;
    uint32_t mask = p->str_hash_cap - 1;
    uint32_t i = h & mask;
    /* the hash first: a string is looked at only where it matches (a string elsewhere in the
     * pool is a cache miss), and then its length (the next string's offset tells it) */
    for (uint64_t x; (x = p->str_hash[i]); i = (i + 1) & mask) {
        if ((uint32_t)(x >> 32) != h)
            continue;
        uint32_t id = (uint32_t)x - 1;
        size_t end = id + 1 < p->nstr ? p->str_off[id + 1] : p->pool_len;
        if (end - p->str_off[id] - 1 == len && memcmp(p->pool + p->str_off[id], s, len) == 0)
            return id;
    }
    if (p->pool_len + len + 1 > p->pool_cap) {
        size_t n = p->pool_cap ? p->pool_cap : 65536;
        while (n < p->pool_len + len + 1)
            n *= 2;
        char *q = tbl_realloc(p, p->pool, p->pool_cap, n);
        if (!q)
            return UINT32_MAX;
        p->pool = q;
        p->pool_cap = n;
    }
    if (p->pool_len > UINT32_MAX - len - 1)
        return UINT32_MAX;
    if (!grow(p, (void **)&p->str_off, &p->str_cap, p->nstr + 1, sizeof *p->str_off))
        return UINT32_MAX;
    memcpy(p->pool + p->pool_len, s, len);
    p->pool[p->pool_len + len] = '\0';
    p->str_off[p->nstr] = (uint32_t)p->pool_len;
    p->pool_len += len + 1;
    p->str_hash[i] = (uint64_t)h << 32 | (p->nstr + 1);
    return p->nstr++;
}

/* ---- events ---- */

int cg_event_index(const struct cg_profile *p, const char *name)
{
    for (int i = 0; i < p->nev; i++)
        if (strcmp(cg_str(p, p->ev_name[i]), name) == 0)
            return i;
    return -1;
}

const char *cg_event_name(const struct cg_profile *p, int ev)
{
    return ev >= 0 && ev < p->nev ? cg_str(p, p->ev_name[ev]) : "";
}

/* Re-lays a cost array of n vectors from stride old to stride old+1. */
static bool widen(struct cg_profile *p, uint64_t **a, uint32_t n, uint32_t cap, int old)
{
    if (cap == 0)
        return true;
    uint64_t *q = tbl_alloc(p, (size_t)cap * (old + 1) * sizeof *q);
    if (!q)
        return false;
    memset(q, 0, (size_t)cap * (old + 1) * sizeof *q);
    for (uint32_t i = 0; i < n && old > 0; i++)
        memcpy(q + (size_t)i * (old + 1), *a + (size_t)i * old, old * sizeof *q);
    tbl_free(p, *a);
    *a = q;
    return true;
}

int cg_event_add(struct cg_profile *p, uint32_t name)
{
    for (int i = 0; i < p->nev; i++)
        if (p->ev_name[i] == name)
            return i;
    if (p->nev == CG_MAX_EVENTS)
        return -1;
    if (!widen(p, &p->self, p->nfunc, p->func_cap, p->nev) ||
        !widen(p, &p->self_rec, p->nfunc, p->func_cap, p->nev) ||
        !widen(p, &p->edge_cost, p->nedge, p->edge_cap, p->nev) ||
        !widen(p, &p->edge_rec, p->nedge, p->edge_cap, p->nev) ||
        !widen(p, &p->edge_nest, p->nedge, p->edge_cap, p->nev) ||
        !widen(p, &p->edge_both, p->nedge, p->edge_cap, p->nev) ||
        !widen(p, &p->line_cost, p->nline, p->line_cap, p->nev))
        return -1;
    p->ev_name[p->nev] = name;
    return p->nev++;
}

/* ---- names ---- */

/* 1 opens, 2 closes, 3 the quote, 4 the 'o' of "operator"; 0 the others (constant: the lexer
 * threads share it) */
static const unsigned char name_class[256] = {
    ['('] = 1, ['['] = 1, ['{'] = 1, ['<'] = 1,
    [')'] = 2, [']'] = 2, ['}'] = 2, ['>'] = 2,
    ['\''] = 3, ['o'] = 4,
};

#ifdef __SSE2__
/* The bytes of s[0..16) of a class other than 0, a bit each (s[16] is read: an 'o' matters
 * only where "operator" may begin, so only one followed by 'p'). Names are long (C++
 * signatures with their parameters, --separate-callers chains), and most of their bytes are
 * of class 0. */
static unsigned special_bits(const char *s)
{
    const __m128i fe = _mm_set1_epi8((char)0xfe), df = _mm_set1_epi8((char)0xdf),
                  fd = _mm_set1_epi8((char)0xfd);
    __m128i x = _mm_loadu_si128((const __m128i *)s);
    __m128i next = _mm_loadu_si128((const __m128i *)(s + 1));
    __m128i df_x = _mm_and_si128(x, df);
    __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(_mm_and_si128(x, fe), _mm_set1_epi8('(')),   /* ( ) */
                     _mm_cmpeq_epi8(_mm_and_si128(x, fd), _mm_set1_epi8('<'))),  /* < > */
        _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(df_x, _mm_set1_epi8('[')),               /* [ { */
                         _mm_cmpeq_epi8(df_x, _mm_set1_epi8(']'))),              /* ] } */
            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\'')),
                         _mm_and_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('o')),
                                       _mm_cmpeq_epi8(next, _mm_set1_epi8('p'))))));
    return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* After "operator" at s[i]: the operator's own bytes, which open no brackets ("operator<",
 * "operator()"; "operator(" stops at its '('). Returns where the scan goes on. */
static size_t skip_operator(const char *s, size_t i, size_t len)
{
    i += 8;
    while (i < len && s[i] && strchr("<>=!+-*/%^&|~[]()", s[i])) {
        if (s[i] == '(' && i + 1 < len && s[i + 1] == ')')
            return i + 2;
        if (s[i] == '(')
            break;
        i++;
    }
    return i;
}

/* The quote at s[i] ends the name: whether a recursion depth ("'2") follows. */
static size_t quote_at(const char *s, size_t i, size_t len, bool *rec)
{
    if (rec) {
        size_t j = i + 1;
        while (j < len && s[j] >= '0' && s[j] <= '9')
            j++;
        *rec = j > i + 1 && (j == len || s[j] == '\'');
    }
    return i;
}

/* callgrind writes a context as name['N]['caller1'caller2...]. The first quote outside any
 * brackets starts the suffix; operator names (operator<, operator()) do not open brackets.
 * Sixteen bytes at a time where SSE2 is, the special bytes of each block taken from its bit
 * mask (C++ names have many brackets: looking for each one anew from the byte after the last
 * cost more than the rest of the read of a name). */
size_t cg_strip_name(const char *s, size_t len, bool *rec)
{
    int depth = 0;
    if (rec)
        *rec = false;
    if (!memchr(s, '\'', len))     /* most names of most profiles: no suffix */
        return len;
    size_t i = 0;
#ifdef __SSE2__
    while (i + 17 <= len) {
        unsigned bits = special_bits(s + i);
        size_t resume = 0;
        for (; bits; bits &= bits - 1) {
            size_t j = i + (size_t)__builtin_ctz(bits);
            unsigned char k = name_class[(unsigned char)s[j]];
            /* brackets without a branch: which kind comes next is anyone's guess */
            depth += (k == 1) - ((k == 2) & (depth > 0));
            if (k < 3)
                continue;
            if (k == 3) {
                if (depth == 0 && j > 0)
                    return quote_at(s, j, len, rec);
            } else if (len - j >= 8 && memcmp(s + j, "operator", 8) == 0) {
                resume = skip_operator(s, j, len);
                break;
            }
        }
        i = resume ? resume : i + 16;
    }
#endif
    for (; i < len; i++) {
        unsigned char k = name_class[(unsigned char)s[i]];
        if (k == 4) {
            if (len - i >= 8 && memcmp(s + i, "operator", 8) == 0)
                i = skip_operator(s, i, len) - 1;
        } else if (k == 1)
            depth++;
        else if (k == 2)
            depth -= depth > 0;
        else if (k == 3 && depth == 0 && i > 0)
            return quote_at(s, i, len, rec);
    }
    return len;
}

bool cg_is_alloc_entry(const char *name)
{
#define ENTRY(s) {s, sizeof s - 1}
    static const struct {
        const char *name;
        size_t len;
    } entries[] = {
        ENTRY("malloc"), ENTRY("calloc"), ENTRY("realloc"), ENTRY("reallocarray"),
        ENTRY("aligned_alloc"), ENTRY("posix_memalign"), ENTRY("memalign"), ENTRY("valloc"),
        ENTRY("pvalloc"),
    };
#undef ENTRY
    /* the name up to a version ("realloc@@GLIBC_2.2.5"); none is longer than the longest
     * entry point with glibc's prefix, so a longer name is looked at no further (every new
     * function's name comes here, and most are long C++ names) */
    const size_t longest = sizeof "__libc_posix_memalign" - 1;
    size_t n = 0;
    while (n <= longest && name[n] && name[n] != '@')
        n++;
    if (n > longest)
        return false;
    if (n > 7 && memcmp(name, "__libc_", 7) == 0)
        name += 7, n -= 7;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (entries[i].len == n && memcmp(entries[i].name, name, n) == 0)
            return true;
    return false;
}

/* ---- functions ---- */

static bool func_rehash(struct cg_profile *p, uint32_t cap)
{
    uint32_t *t = new_table(p, cap, sizeof *t);
    if (!t)
        return false;
    for (uint32_t f = 0; f < p->nfunc; f++) {
        uint64_t k = (uint64_t)p->funcs[f].obj << 32 | p->funcs[f].name;
        uint32_t i = cg_hash_u64(k) & (cap - 1);
        while (t[i])
            i = (i + 1) & (cap - 1);
        t[i] = f + 1;
    }
    tbl_free(p, p->func_hash);
    p->func_hash = t;
    p->func_hash_cap = cap;
    return true;
}

uint32_t cg_func_get(struct cg_profile *p, uint32_t obj, uint32_t name,
                     const struct cg_read_opts *o)
{
    if ((p->nfunc + 1) * 2 > p->func_hash_cap &&
        !func_rehash(p, p->func_hash_cap ? p->func_hash_cap * 2 : 1024))
        return UINT32_MAX;
    uint64_t k = (uint64_t)obj << 32 | name;
    uint32_t mask = p->func_hash_cap - 1, i = cg_hash_u64(k) & mask;
    for (uint32_t f; (f = p->func_hash[i]); i = (i + 1) & mask)
        if (p->funcs[f - 1].obj == obj && p->funcs[f - 1].name == name)
            return f - 1;
    uint32_t old = p->func_cap;
    if (!grow(p, (void **)&p->funcs, &p->func_cap, p->nfunc + 1, sizeof *p->funcs))
        return UINT32_MAX;
    if (p->func_cap != old && (!grow_costs(p, &p->self, old, p->func_cap, p->nev) ||
                               !grow_costs(p, &p->self_rec, old, p->func_cap, p->nev))) {
        p->func_cap = old;
        return UINT32_MAX;
    }
    struct cg_func *fn = &p->funcs[p->nfunc];
    memset(fn, 0, sizeof *fn);
    fn->obj = obj;
    fn->name = name;
    const char *s = cg_str(p, name);
    fn->alloc_entry = cg_is_alloc_entry(s);
    fn->want_lines = o && o->lines_for && strstr(s, o->lines_for);
    p->func_hash[i] = p->nfunc + 1;
    return p->nfunc++;
}

/* ---- edges ---- */

static bool edge_rehash(struct cg_profile *p, uint32_t cap)
{
    uint32_t *t = new_table(p, cap, sizeof *t);
    if (!t)
        return false;
    for (uint32_t x = 0; x < p->nedge; x++) {
        uint64_t k = (uint64_t)p->edges[x].caller << 32 | p->edges[x].callee;
        uint32_t i = cg_hash_u64(k) & (cap - 1);
        while (t[i])
            i = (i + 1) & (cap - 1);
        t[i] = x + 1;
    }
    tbl_free(p, p->edge_hash);
    p->edge_hash = t;
    p->edge_hash_cap = cap;
    return true;
}

uint32_t cg_edge_get(struct cg_profile *p, uint32_t caller, uint32_t callee)
{
    if ((p->nedge + 1) * 2 > p->edge_hash_cap &&
        !edge_rehash(p, p->edge_hash_cap ? p->edge_hash_cap * 2 : 1024))
        return UINT32_MAX;
    uint64_t k = (uint64_t)caller << 32 | callee;
    uint32_t mask = p->edge_hash_cap - 1, i = cg_hash_u64(k) & mask;
    for (uint32_t x; (x = p->edge_hash[i]); i = (i + 1) & mask)
        if (p->edges[x - 1].caller == caller && p->edges[x - 1].callee == callee)
            return x - 1;
    uint32_t old = p->edge_cap;
    if (!grow(p, (void **)&p->edges, &p->edge_cap, p->nedge + 1, sizeof *p->edges))
        return UINT32_MAX;
    if (p->edge_cap != old && (!grow_costs(p, &p->edge_cost, old, p->edge_cap, p->nev) ||
                               !grow_costs(p, &p->edge_rec, old, p->edge_cap, p->nev) ||
                               !grow_costs(p, &p->edge_nest, old, p->edge_cap, p->nev) ||
                               !grow_costs(p, &p->edge_both, old, p->edge_cap, p->nev))) {
        p->edge_cap = old;
        return UINT32_MAX;
    }
    p->edges[p->nedge] = (struct cg_edge){.caller = caller, .callee = callee};
    p->edge_hash[i] = p->nedge + 1;
    return p->nedge++;
}

/* ---- sizes ---- */

/* The slots of a table for about n entries (at most half of them used), from 1024 (the size
 * the tables start at) to most. */
static uint32_t table_for(uint64_t n, uint32_t most)
{
    uint32_t cap = 1024;
    while (cap < most && cap / 2 <= n)
        cap *= 2;
    return cap;
}

void cg_profile_expect(struct cg_profile *p, uint64_t bytes)
{
    uint32_t strs = table_for(bytes / 4096, 16384), funcs = table_for(bytes / 4096, 16384),
             edges = table_for(bytes / 1024, 65536);
    if (bytes >= CG_HUGE_BYTES)
        p->mem.huge = true;     /* (the tables made from now on) */
    /* (where there is no memory for one, it stays as it is, to grow as usual) */
    if (strs > p->str_hash_cap)
        str_rehash(p, strs);
    if (funcs > p->func_hash_cap)
        func_rehash(p, funcs);
    if (edges > p->edge_hash_cap)
        edge_rehash(p, edges);
}

/* ---- lines ---- */

static uint64_t line_key(uint32_t func, uint32_t file, uint32_t line)
{
    return cg_hash_u64(((uint64_t)func << 32 | file) ^ cg_hash_u64(line));
}

static bool line_rehash(struct cg_profile *p, uint32_t cap)
{
    uint32_t *t = new_table(p, cap, sizeof *t);
    if (!t)
        return false;
    for (uint32_t x = 0; x < p->nline; x++) {
        const struct cg_line *l = &p->lines[x];
        uint32_t i = line_key(l->func, l->file, l->line) & (cap - 1);
        while (t[i])
            i = (i + 1) & (cap - 1);
        t[i] = x + 1;
    }
    tbl_free(p, p->line_hash);
    p->line_hash = t;
    p->line_hash_cap = cap;
    return true;
}

uint32_t cg_line_get(struct cg_profile *p, uint32_t func, uint32_t file, uint32_t line)
{
    if ((p->nline + 1) * 2 > p->line_hash_cap &&
        !line_rehash(p, p->line_hash_cap ? p->line_hash_cap * 2 : 1024))
        return UINT32_MAX;
    uint32_t mask = p->line_hash_cap - 1, i = line_key(func, file, line) & mask;
    for (uint32_t x; (x = p->line_hash[i]); i = (i + 1) & mask) {
        const struct cg_line *l = &p->lines[x - 1];
        if (l->func == func && l->file == file && l->line == line)
            return x - 1;
    }
    uint32_t old = p->line_cap;
    if (!grow(p, (void **)&p->lines, &p->line_cap, p->nline + 1, sizeof *p->lines))
        return UINT32_MAX;
    if (p->line_cap != old && !grow_costs(p, &p->line_cost, old, p->line_cap, p->nev)) {
        p->line_cap = old;
        return UINT32_MAX;
    }
    p->lines[p->nline] = (struct cg_line){func, file, line};
    p->line_hash[i] = p->nline + 1;
    return p->nline++;
}

static bool is_address_name(const char *s)
{
    if (s[0] != '0' || s[1] != 'x' || !s[2] || s[2] == '\'')
        return false;
    /* (up to a --separate-callers chain: a stub of a profile read with keep_callers) */
    for (s += 2; *s && *s != '\''; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return false;
    return true;
}

/* a + b, or UINT64_MAX where that does not fit (then above any total: a bound) */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#define NONE UINT32_MAX
#define MANY (UINT32_MAX - 1)

/* ---- PLT stubs ---- */

/* A stub callgrind could not place in an object: named by its address, in object "???". */
static bool stub_like(const struct cg_profile *p, uint32_t f)
{
    const char *obj = cg_str(p, p->funcs[f].obj), *b = strrchr(obj, '/');
    return strcmp(b ? b + 1 : obj, "???") == 0 && is_address_name(cg_str(p, p->funcs[f].name));
}

/* target[f]: the function stub f is folded into, or NONE. A stub calls one other function,
 * as many times as it is called, and as many of those at that function's outermost level as
 * it is called at its own (so that the calls into the stub tell the calls into its target's
 * outermost level); it calls no stub itself. Returns how many there are, -1: no memory. */
static long find_stubs(const struct cg_profile *p, uint32_t *target)
{
    uint32_t n = p->nfunc;
    uint64_t *in = calloc(n + 1, sizeof *in), *in_rec = calloc(n + 1, sizeof *in_rec);
    uint32_t *out = malloc((n + 1) * sizeof *out), *out_edge = malloc((n + 1) * sizeof *out_edge);
    long count = -1;
    if (!in || !in_rec || !out || !out_edge)
        goto done;
    for (uint32_t f = 0; f < n; f++)
        out[f] = NONE, target[f] = NONE;
    for (uint32_t x = 0; x < p->nedge; x++) {
        const struct cg_edge *ed = &p->edges[x];
        uint32_t c = ed->caller;
        if (c == ed->callee) {
            out[c] = MANY;
            continue;
        }
        in[ed->callee] += ed->calls;
        in_rec[ed->callee] += ed->calls_rec;
        out[c] = out[c] == NONE ? ed->callee : MANY;
        out_edge[c] = x;
    }
    count = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t t = out[s];
        if (t >= MANY || !stub_like(p, s) || stub_like(p, t) || in[s] == 0)
            continue;
        const struct cg_edge *ed = &p->edges[out_edge[s]];
        if (ed->calls == in[s] && ed->calls - ed->calls_rec == in[s] - in_rec[s]) {
            target[s] = t;
            count++;
        }
    }
done:
    free(in);
    free(in_rec);
    free(out);
    free(out_edge);
    return count;
}

/* Bills each stub to its target: self cost, lines, calls into it (calls out of it dropped:
 * they are its target's own). The calls into a stub are added to those of its callers into
 * the target (made where there were none), then the edges left are moved down over the
 * dropped ones and their table made anew; the lines are made anew. */
static int fold_stubs(struct cg_profile *p, const uint32_t *target)
{
    int nev = p->nev;
    for (uint32_t s = 0; s < p->nfunc; s++) {
        if (target[s] == NONE)
            continue;
        uint64_t *from = p->self + (size_t)s * nev, *to = p->self + (size_t)target[s] * nev;
        uint64_t *rfrom = p->self_rec + (size_t)s * nev,
                 *rto = p->self_rec + (size_t)target[s] * nev;
        for (int k = 0; k < nev; k++)
            to[k] += from[k], from[k] = 0, rto[k] += rfrom[k], rfrom[k] = 0;
        p->funcs[s].folded = true;
        p->folded++;
    }
    uint32_t nedge = p->nedge;     /* (edges made below are never a stub's) */
    int rc = 0;
    for (uint32_t x = 0; x < nedge; x++) {
        uint32_t a = p->edges[x].caller, b = p->edges[x].callee;
        if (target[a] != NONE || target[b] == NONE)
            continue;
        uint32_t y = cg_edge_get(p, a, target[b]);
        if (y == NONE) {
            rc = -1;
            break;
        }
        struct cg_edge *o = &p->edges[x], *ed = &p->edges[y];
        /* two edges' sums can pass 2^64 only in a profile at odds with itself: saturated,
         * such a cost is above the total, and the inclusive cost is then cut to it, marked */
        ed->calls = sat_add(ed->calls, o->calls);
        ed->calls_rec = sat_add(ed->calls_rec, o->calls_rec);
        ed->calls_nest = sat_add(ed->calls_nest, o->calls_nest);
        ed->calls_both = sat_add(ed->calls_both, o->calls_both);
        ed->unmarked |= o->unmarked;
        ed->stamp = o->stamp > ed->stamp ? o->stamp : ed->stamp;
        for (int k = 0; k < nev; k++) {
            size_t i = (size_t)x * nev + k, j = (size_t)y * nev + k;
            p->edge_cost[j] = sat_add(p->edge_cost[j], p->edge_cost[i]);
            p->edge_rec[j] = sat_add(p->edge_rec[j], p->edge_rec[i]);
            p->edge_nest[j] = sat_add(p->edge_nest[j], p->edge_nest[i]);
            p->edge_both[j] = sat_add(p->edge_both[j], p->edge_both[i]);
        }
    }
    if (rc < 0)
        return rc;
    /* each edge dropped takes the last one's place: as many moves as edges dropped */
    uint32_t n = p->nedge;
    for (uint32_t x = 0; x < n;) {
        const struct cg_edge *o = &p->edges[x];
        if (target[o->caller] == NONE && target[o->callee] == NONE) {
            x++;
            continue;
        }
        if (x != --n) {
            p->edges[x] = p->edges[n];
            for (int k = 0; k < nev; k++) {
                size_t i = (size_t)n * nev + k, j = (size_t)x * nev + k;
                p->edge_cost[j] = p->edge_cost[i];
                p->edge_rec[j] = p->edge_rec[i];
                p->edge_nest[j] = p->edge_nest[i];
                p->edge_both[j] = p->edge_both[i];
            }
        }
    }
    p->nedge = n;
    if (!edge_rehash(p, p->edge_hash_cap))
        return -1;
    if (rc < 0 || p->nline == 0)
        return rc;
    struct cg_line *lines = p->lines;
    uint64_t *lcost = p->line_cost;
    uint32_t nline = p->nline;
    uint32_t *lhash = p->line_hash, lcap = p->line_hash_cap;
    p->lines = NULL;
    p->line_cost = NULL;
    p->line_hash = NULL;
    p->nline = p->line_cap = p->line_hash_cap = 0;
    rc = line_rehash(p, lcap) ? 0 : -1;
    for (uint32_t x = 0; x < nline && rc == 0; x++) {
        const struct cg_line *l = &lines[x];
        uint32_t f = target[l->func] != NONE ? target[l->func] : l->func;
        uint32_t y = cg_line_get(p, f, l->file, l->line);
        if (y == NONE)
            rc = -1;
        for (int k = 0; rc == 0 && k < nev; k++)
            p->line_cost[(size_t)y * nev + k] += lcost[(size_t)x * nev + k];
        if (rc == 0 && target[l->func] != NONE)
            p->funcs[f].want_lines = true;
    }
    tbl_free(p, lines);
    tbl_free(p, lcost);
    tbl_free(p, lhash);
    return rc;
}

/* ---- cycles ---- */

/* Tarjan's algorithm, without recursion of its own (profile.h). */
long cg_graph_scc(uint32_t n, const uint32_t *off, const uint32_t *adj, uint32_t *comp)
{
    uint32_t *index = malloc(((size_t)n + 1) * sizeof *index);
    uint32_t *low = malloc(((size_t)n + 1) * sizeof *low);
    uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
    uint32_t *walk = malloc(((size_t)n + 1) * sizeof *walk);
    uint32_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
    bool *on = calloc((size_t)n + 1, sizeof *on);
    long ncomp = -1;
    if (!index || !low || !stack || !walk || !pos || !on)
        goto done;
    for (uint32_t v = 0; v < n; v++)
        index[v] = NONE;
    uint32_t next = 0, nstack = 0;
    ncomp = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root] != NONE)
            continue;
        uint32_t depth = 0;
        walk[depth] = root, pos[depth++] = off[root];
        index[root] = low[root] = next++;
        stack[nstack++] = root, on[root] = true;
        while (depth) {
            uint32_t v = walk[depth - 1];
            if (pos[depth - 1] < off[v + 1]) {
                uint32_t w = adj[pos[depth - 1]++];
                if (index[w] == NONE) {
                    walk[depth] = w, pos[depth++] = off[w];
                    index[w] = low[w] = next++;
                    stack[nstack++] = w, on[w] = true;
                } else if (on[w] && index[w] < low[v])
                    low[v] = index[w];
                continue;
            }
            depth--;
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = stack[--nstack];
                    on[w] = false;
                    comp[w] = (uint32_t)ncomp;
                } while (w != v);
                ncomp++;
            }
            if (depth && low[v] < low[walk[depth - 1]])
                low[walk[depth - 1]] = low[v];
        }
    }
done:
    free(index);
    free(low);
    free(stack);
    free(walk);
    free(pos);
    free(on);
    return ncomp;
}


/* The strongly connected components of the calls seen in a file without recursion marks:
 * comp[f] its component, size[c] how many functions are in it. Returns -1: no memory. */
static int cycles(const struct cg_profile *p, uint32_t *comp, uint32_t *size)
{
    uint32_t n = p->nfunc, m = 0;
    uint32_t *off = calloc((size_t)n + 2, sizeof *off), *adj = NULL;
    int rc = -1;
    if (!off)
        goto done;
    for (uint32_t x = 0; x < p->nedge; x++)
        if (p->edges[x].unmarked && p->edges[x].caller != p->edges[x].callee)
            off[p->edges[x].caller + 2]++, m++;
    if (!(adj = malloc(((size_t)m + 1) * sizeof *adj)))
        goto done;
    for (uint32_t f = 0; f < n; f++)
        off[f + 2] += off[f + 1];
    for (uint32_t x = 0; x < p->nedge; x++)
        if (p->edges[x].unmarked && p->edges[x].caller != p->edges[x].callee)
            adj[off[p->edges[x].caller + 1]++] = p->edges[x].callee;
    /* now off[f] .. off[f + 1] are f's callees */
    long ncomp = cg_graph_scc(n, off, adj, comp);
    if (ncomp < 0)
        goto done;
    for (long c = 0; c < ncomp; c++)
        size[c] = 0;
    for (uint32_t v = 0; v < n; v++)
        size[comp[v]]++;
    rc = 0;
done:
    free(off);
    free(adj);
    return rc;
}

/* ---- the finished model ---- */

uint64_t cg_total(const struct cg_profile *p, int ev)
{
    return ev >= 0 && ev < p->nev ? p->total[ev] : 0;
}

uint64_t cg_allocations(const struct cg_profile *p)
{
    return p->allocations;
}

int cg_profile_finish(struct cg_profile *p, struct err *e)
{
    if (p->finished)
        return 0;
    int nev = p->nev;
    uint32_t n = p->nfunc;
    uint32_t *target = malloc(((size_t)n + 1) * sizeof *target);
    uint32_t *comp = malloc(((size_t)n + 1) * sizeof *comp),
             *size = malloc(((size_t)n + 1) * sizeof *size);
    uint64_t *entry = NULL, *all_in = NULL;
    long stubs = !target ? -1 : p->kept_callers ? 0 : find_stubs(p, target);
    if (stubs < 0 || (stubs > 0 && fold_stubs(p, target) < 0) || !comp || !size)
        goto nomem;
    /* cycles matter only among the calls of a file without marks (most profiles have marks,
     * or no cycle at all) */
    bool any_unmarked = false, any_cycle = false;
    for (uint32_t x = 0; x < p->nedge && !any_unmarked; x++)
        any_unmarked = p->edges[x].unmarked;
    if (any_unmarked) {
        if (cycles(p, comp, size) < 0)
            goto nomem;
        for (uint32_t f = 0; f < n && !any_cycle; f++)
            any_cycle = size[comp[f]] > 1;
    }
    if (!any_cycle)
        for (uint32_t f = 0; f < n; f++)
            comp[f] = f, size[f] = 1;
    free(p->incl);
    free(p->edge_kind);
    p->incl = calloc((size_t)(n ? n : 1) * (nev ? nev : 1), sizeof *p->incl);
    p->edge_kind = malloc(p->nedge ? p->nedge : 1);
    if (any_cycle) {
        entry = calloc((size_t)(n ? n : 1) * (nev ? nev : 1), sizeof *entry);
        all_in = calloc((size_t)(n ? n : 1) * (nev ? nev : 1), sizeof *all_in);
    }
    if (!p->incl || !p->edge_kind || (any_cycle && (!entry || !all_in)))
        goto nomem;
    p->allocations = 0;
    p->bounded = 0;
    for (uint32_t f = 0; f < n; f++)
        p->funcs[f].has_callers = p->funcs[f].incl_bound = false;
    /* Inclusive cost of f: the calls into its outermost level from outside its cycle, if
     * any; a call of f into itself, or one within its cycle, is inside those already. */
    for (uint32_t x = 0; x < p->nedge; x++) {
        const struct cg_edge *ed = &p->edges[x];
        uint32_t a = ed->caller, b = ed->callee;
        bool cyclic = size[comp[b]] > 1;
        const uint64_t *c = p->edge_cost + (size_t)x * nev, *r = p->edge_rec + (size_t)x * nev;
        if (a == b)
            p->edge_kind[x] = CG_EDGE_RECURSIVE;
        else if (cyclic && comp[a] == comp[b])
            p->edge_kind[x] = CG_EDGE_CYCLE;
        else
            p->edge_kind[x] = CG_EDGE_OUTER;
        if (a == b)
            continue;
        if (p->funcs[b].alloc_entry && !p->funcs[a].alloc_entry)
            p->allocations = sat_add(p->allocations, ed->calls);
        uint64_t *in = p->incl + (size_t)b * nev;
        if (any_cycle)
            for (int k = 0; k < nev; k++)
                all_in[(size_t)b * nev + k] = sat_add(all_in[(size_t)b * nev + k], c[k]);
        if (cyclic && comp[a] != comp[b])
            for (int k = 0; k < nev; k++)
                entry[(size_t)comp[b] * nev + k] = sat_add(entry[(size_t)comp[b] * nev + k], c[k]);
        if (p->edge_kind[x] == CG_EDGE_CYCLE) {
            p->funcs[b].has_callers = true;
            continue;
        }
        if (ed->calls > ed->calls_rec)
            p->funcs[b].has_callers = true;
        for (int k = 0; k < nev; k++)
            in[k] = sat_add(in[k], c[k] - r[k]);
    }
    /* A function nobody calls (the program's entry, a thread's start): self plus its calls
     * (those of its own recursion inside them) */
    for (uint32_t f = 0; f < n; f++) {
        if (p->funcs[f].has_callers || p->funcs[f].folded)
            continue;
        uint64_t *dst = p->incl + (size_t)f * nev;
        memcpy(dst, p->self + (size_t)f * nev, nev * sizeof *dst);
    }
    for (uint32_t x = 0; x < p->nedge; x++) {
        const struct cg_edge *ed = &p->edges[x];
        if (ed->caller == ed->callee || p->funcs[ed->caller].has_callers)
            continue;
        uint64_t *dst = p->incl + (size_t)ed->caller * nev;
        const uint64_t *src = p->edge_cost + (size_t)x * nev;
        for (int k = 0; k < nev; k++)
            dst[k] = sat_add(dst[k], src[k]);
    }
    /* On a cycle the marks do not break: the least of what can be proved -- the calls into
     * the cycle from outside it, and the calls into f from other functions (a cycle no call
     * enters holds the program's entry: nothing less than the total) */
    for (uint32_t f = 0; f < n; f++) {
        uint64_t *dst = p->incl + (size_t)f * nev;
        bool bound = size[comp[f]] > 1, entered = false;
        for (int k = 0; k < nev && bound; k++)
            entered |= entry[(size_t)comp[f] * nev + k] != 0;
        for (int k = 0; k < nev && bound && p->funcs[f].has_callers; k++) {
            uint64_t u = entry[(size_t)comp[f] * nev + k], v = all_in[(size_t)f * nev + k];
            dst[k] = !entered ? p->total[k] : u < v ? u : v;
        }
        for (int k = 0; k < nev; k++)
            if (dst[k] > p->total[k]) {   /* a profile at odds with itself */
                dst[k] = p->total[k];
                bound = true;
            }
        p->funcs[f].incl_bound = bound;
        p->bounded += bound;
    }
    free(target);
    free(comp);
    free(size);
    free(entry);
    free(all_in);
    p->finished = true;
    return 0;
nomem:
    free(target);
    free(comp);
    free(size);
    free(entry);
    free(all_in);
    return err_set(e, ERR_SYSTEM, "out of memory");
}

bool cg_profile_check(const struct cg_profile *p, char *why, size_t n)
{
#define FAIL(...) do { snprintf(why, n, __VA_ARGS__); return false; } while (0)
    int nev = p->nev;
    if (!p->finished)
        FAIL("not finished");
    for (int k = 0; k < nev; k++) {
        uint64_t sum = 0;
        for (uint32_t f = 0; f < p->nfunc; f++)
            sum += cg_self(p, f)[k];
        if (sum != p->total[k])
            FAIL("the self costs of %s add up to %llu, not the total %llu", cg_event_name(p, k),
                 (unsigned long long)sum, (unsigned long long)p->total[k]);
    }
    uint64_t *outer = calloc((size_t)(p->nfunc ? p->nfunc : 1) * (nev ? nev : 1), sizeof *outer);
    if (!outer)
        FAIL("out of memory");
    for (uint32_t x = 0; x < p->nedge; x++)
        for (int k = 0; k < nev; k++) {
            uint64_t *o = &outer[(size_t)p->edges[x].callee * nev + k];
            *o = sat_add(*o, cg_edge_outer_cost(p, x, k));
        }
    for (uint32_t f = 0; f < p->nfunc; f++) {
        const struct cg_func *fn = &p->funcs[f];
        for (int k = 0; k < nev; k++) {
            uint64_t in = cg_incl(p, f)[k], o = outer[(size_t)f * nev + k];
            const char *name = cg_str(p, fn->name), *ev = cg_event_name(p, k);
            if (in > p->total[k]) {
                free(outer);
                FAIL("'%s' has an inclusive %s of %llu, above the total %llu", name, ev,
                     (unsigned long long)in, (unsigned long long)p->total[k]);
            }
            if (fn->has_callers && !fn->incl_bound && o != in) {
                free(outer);
                FAIL("the outer calls into '%s' add up to %llu %s, not its inclusive %llu", name,
                     (unsigned long long)o, ev, (unsigned long long)in);
            }
            if (fn->folded && (in || cg_self(p, f)[k])) {
                free(outer);
                FAIL("the folded stub '%s' has a cost left", name);
            }
        }
    }
    free(outer);
    return true;
#undef FAIL
}

uint32_t cg_find(const struct cg_profile *p, const char *obj, const char *name)
{
    for (uint32_t f = 0; f < p->nfunc; f++)
        if (strcmp(cg_str(p, p->funcs[f].name), name) == 0 &&
            (!obj || strcmp(cg_str(p, p->funcs[f].obj), obj) == 0))
            return f;
    return UINT32_MAX;
}

uint32_t cg_find_edge(const struct cg_profile *p, uint32_t caller, uint32_t callee)
{
    for (uint32_t x = 0; x < p->nedge; x++)
        if (p->edges[x].caller == caller && p->edges[x].callee == callee)
            return x;
    return UINT32_MAX;
}

long cg_alloc_sites(const struct cg_profile *p, struct cg_site **out)
{
    uint64_t *per = calloc(p->nfunc + 1, sizeof *per);
    uint64_t *in = calloc(p->nfunc + 1, sizeof *in), *outc = calloc(p->nfunc + 1, sizeof *outc);
    uint32_t *target = malloc((p->nfunc + 1) * sizeof *target);
    struct cg_site *sites = malloc((p->nfunc + 1) * sizeof *sites);
    long n = -1;
    if (!per || !in || !outc || !target || !sites)
        goto done;
    for (uint32_t f = 0; f < p->nfunc; f++)
        target[f] = UINT32_MAX;
    /* a stub: an address for a name, and every call out of it into one and the same entry point */
    for (uint32_t x = 0; x < p->nedge; x++) {
        const struct cg_edge *ed = &p->edges[x];
        if (ed->caller == ed->callee)
            continue;
        in[ed->callee] += ed->calls;
        uint32_t c = ed->caller;
        outc[c] += ed->calls;
        if (target[c] == UINT32_MAX)
            target[c] = p->funcs[ed->callee].alloc_entry ? ed->callee : UINT32_MAX - 1;
        else if (target[c] != ed->callee)
            target[c] = UINT32_MAX - 1;
    }
    for (uint32_t x = 0; x < p->nedge; x++) {
        const struct cg_edge *ed = &p->edges[x];
        if (ed->caller == ed->callee || !p->funcs[ed->callee].alloc_entry ||
            p->funcs[ed->caller].alloc_entry)
            continue;
        uint32_t c = ed->caller;
        bool stub = target[c] == ed->callee && in[c] == outc[c] && !p->funcs[c].alloc_entry &&
                    is_address_name(cg_str(p, p->funcs[c].name));
        if (!stub) {
            per[c] += ed->calls;
            continue;
        }
        for (uint32_t y = 0; y < p->nedge; y++)   /* the stub's callers, by their calls */
            if (p->edges[y].callee == c && p->edges[y].caller != c)
                per[p->edges[y].caller] += p->edges[y].calls;
    }
    n = 0;
    for (uint32_t f = 0; f < p->nfunc; f++)
        if (per[f])
            sites[n++] = (struct cg_site){f, per[f]};
    *out = sites;
    sites = NULL;
done:
    free(per);
    free(in);
    free(outc);
    free(target);
    free(sites);
    return n;
}

uint64_t cg_call_row_cost(const struct cg_profile *p, const struct cg_call_row *r, bool callers,
                          int ev)
{
    uint32_t x = r->edge;
    uint64_t all = cg_edge_all(p, x, ev);
    if (p->edges[x].caller == p->edges[x].callee || r->kind == CG_ROW_CYCLE)
        return all;
    uint64_t outer = callers ? cg_edge_outer_cost(p, x, ev) : cg_edge_top_cost(p, x, ev);
    return r->kind == CG_ROW_OUTER ? outer : all - outer;
}

uint32_t cg_call_rows(const struct cg_profile *p, const uint32_t *es, uint32_t ne, bool callers,
                      struct cg_call_row *rows)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ne; i++) {
        uint32_t x = es[i];
        const struct cg_edge *ed = &p->edges[x];
        uint32_t other = callers ? ed->caller : ed->callee;
        if (ed->caller == ed->callee) {
            rows[n++] = (struct cg_call_row){x, other, CG_ROW_RECURSIVE, ed->calls};
            continue;
        }
        if (cg_edge_kind(p, x) == CG_EDGE_CYCLE && callers) {
            rows[n++] = (struct cg_call_row){x, other, CG_ROW_CYCLE, ed->calls};
            continue;
        }
        uint64_t calls = callers ? cg_edge_outer_calls(p, x) : cg_edge_top_calls(p, x);
        struct cg_call_row outer = {x, other, CG_ROW_OUTER, calls};
        bool cost = false;
        for (int k = 0; k < p->nev; k++)
            cost |= cg_call_row_cost(p, &outer, callers, k) != 0;
        if (calls || cost)
            rows[n++] = outer;
        if (calls < ed->calls)
            rows[n++] = (struct cg_call_row){x, other,
                                             callers ? CG_ROW_RECURSIVE : CG_ROW_NESTED,
                                             ed->calls - calls};
    }
    return n;
}

/* Two reads of the same input must give the same model, whatever the ranges were: the same
 * functions, edges and lines, in the same order, with the same costs. */
bool cg_profile_same(const struct cg_profile *a, const struct cg_profile *b, char *why, size_t n)
{
#define DIFFER(...) do { snprintf(why, n, __VA_ARGS__); return false; } while (0)
    if (a->nev != b->nev)
        DIFFER("%d events against %d", a->nev, b->nev);
    for (int ev = 0; ev < a->nev; ev++) {
        if (strcmp(cg_event_name(a, ev), cg_event_name(b, ev)) != 0)
            DIFFER("event %d is '%s' against '%s'", ev, cg_event_name(a, ev), cg_event_name(b, ev));
        if (a->total[ev] != b->total[ev])
            DIFFER("total of %s %llu against %llu", cg_event_name(a, ev),
                   (unsigned long long)a->total[ev], (unsigned long long)b->total[ev]);
    }
    if (a->nfunc != b->nfunc || a->nedge != b->nedge || a->nline != b->nline)
        DIFFER("%u/%u/%u functions/edges/lines against %u/%u/%u", a->nfunc, a->nedge, a->nline,
               b->nfunc, b->nedge, b->nline);
    if (a->nparts != b->nparts || a->threads != b->threads || a->allocations != b->allocations)
        DIFFER("parts, threads or allocations differ");
    if ((a->command == NULL) != (b->command == NULL) ||
        (a->command && strcmp(a->command, b->command)))
        DIFFER("the command differs");
    size_t nev = a->nev;
    for (uint32_t f = 0; f < a->nfunc; f++) {
        const char *an = cg_str(a, a->funcs[f].name), *bn = cg_str(b, b->funcs[f].name);
        if (strcmp(an, bn) || strcmp(cg_str(a, a->funcs[f].obj), cg_str(b, b->funcs[f].obj)))
            DIFFER("function %u is '%s' against '%s'", f, an, bn);
        if (memcmp(cg_self(a, f), cg_self(b, f), nev * 8) ||
            memcmp(a->self_rec + f * nev, b->self_rec + f * nev, nev * 8) ||
            (a->incl && b->incl && memcmp(cg_incl(a, f), cg_incl(b, f), nev * 8)))
            DIFFER("the cost of '%s' differs", an);
    }
    for (uint32_t x = 0; x < a->nedge; x++) {
        const struct cg_edge *ea = &a->edges[x], *eb = &b->edges[x];
        if (ea->caller != eb->caller || ea->callee != eb->callee || ea->calls != eb->calls ||
            ea->calls_rec != eb->calls_rec || ea->calls_nest != eb->calls_nest ||
            ea->calls_both != eb->calls_both ||
            ea->unmarked != eb->unmarked ||
            memcmp(a->edge_cost + x * nev, b->edge_cost + x * nev, nev * 8) ||
            memcmp(a->edge_rec + x * nev, b->edge_rec + x * nev, nev * 8) ||
            memcmp(a->edge_nest + x * nev, b->edge_nest + x * nev, nev * 8) ||
            memcmp(a->edge_both + x * nev, b->edge_both + x * nev, nev * 8))
            DIFFER("call %u (%s -> %s) differs", x, cg_str(a, a->funcs[ea->caller].name),
                   cg_str(a, a->funcs[ea->callee].name));
    }
    for (uint32_t l = 0; l < a->nline; l++) {
        const struct cg_line *la = &a->lines[l], *lb = &b->lines[l];
        if (la->func != lb->func || la->line != lb->line ||
            strcmp(cg_str(a, la->file), cg_str(b, lb->file)) ||
            memcmp(a->line_cost + l * nev, b->line_cost + l * nev, nev * 8))
            DIFFER("line record %u differs", l);
    }
    return true;
#undef DIFFER
}

/* ---- views: top-N and the diff of two profiles ---- */

struct top_ctx { const struct cg_profile *p; int ev; bool incl; };

int cg_cmp_cost(const struct cg_profile *p, int ev, bool inclusive, uint32_t x, uint32_t y)
{
    const uint64_t *cx = inclusive ? cg_incl(p, x) : cg_self(p, x);
    const uint64_t *cy = inclusive ? cg_incl(p, y) : cg_self(p, y);
    if (cx[ev] != cy[ev])
        return cx[ev] > cy[ev] ? -1 : 1;
    int k = strcmp(cg_str(p, p->funcs[x].name), cg_str(p, p->funcs[y].name));
    return k ? k : strcmp(cg_str(p, p->funcs[x].obj), cg_str(p, p->funcs[y].obj));
}

static int by_cost(const void *a, const void *b, void *arg)
{
    const struct top_ctx *c = arg;
    return cg_cmp_cost(c->p, c->ev, c->incl, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* The n first of idx[0..m) in the order of by_cost, in idx[0..n), the others dropped: one pass
 * that keeps the best n in order, most of the rest refused by one comparison with the last
 * of them. (Sorting 35,000 functions to print 20 took a millisecond, after the threads were
 * done.) The order is total, so the result is what sorting all would give. */
static uint32_t best_first(uint32_t *idx, uint32_t m, uint32_t n, struct top_ctx *c)
{
    uint32_t k = 0;     /* idx[0..k): the best so far, in order; k <= i, so idx[i] is unread */
    for (uint32_t i = 0; i < m; i++) {
        uint32_t f = idx[i];
        if (k == n && by_cost(&f, &idx[n - 1], c) >= 0)
            continue;
        uint32_t j = k < n ? k++ : n - 1;
        for (; j > 0 && by_cost(&f, &idx[j - 1], c) < 0; j--)
            idx[j] = idx[j - 1];
        idx[j] = f;
    }
    return k;
}

long cg_top_funcs(const struct cg_profile *p, int ev, bool inclusive, const char *grep,
                  uint32_t n, uint32_t **out)
{
    uint32_t *idx = malloc((p->nfunc + 1) * sizeof *idx);
    *out = idx;
    if (!idx)
        return -1;
    uint32_t m = 0;
    for (uint32_t f = 0; f < p->nfunc; f++) {
        if (cg_self(p, f)[ev] == 0 && cg_incl(p, f)[ev] == 0)
            continue;
        if (grep && !strstr(cg_str(p, p->funcs[f].name), grep))
            continue;
        idx[m++] = f;
    }
    struct top_ctx c = {p, ev, inclusive};
    if (n > 0 && n < m)
        m = best_first(idx, m, n, &c);
    else
        qsort_r(idx, m, sizeof *idx, by_cost, &c);
    return m;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static int by_delta(const void *x, const void *y)
{
    const struct cg_diff_row *r = x, *s = y;
    uint64_t dr = r->a > r->b ? r->a - r->b : r->b - r->a;
    uint64_t ds = s->a > s->b ? s->a - s->b : s->b - s->a;
    if (dr != ds)
        return dr > ds ? -1 : 1;
    int c = strcmp(r->name, s->name);
    return c ? c : strcmp(r->obj, s->obj);
}

/* Functions match by name and object file name (not its directory: two builds of one program
 * in two work trees are the same program), or by name and the object keys the caller gives;
 * rows are found through an open-addressing hash. */
struct rowset {
    struct cg_diff_row *rows;
    uint32_t *key;             /* keyed: each row's object key */
    long n;
    long *hash;
    uint32_t cap;
    bool keyed;
};

static struct cg_diff_row *row_get(struct rowset *rs, const char *name, const char *obj,
                                   uint32_t key)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *s = name; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    if (rs->keyed)
        h = cg_hash_u64(h ^ key);
    else
        for (const char *s = base_name(obj); *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ull;
    uint32_t k = h & (rs->cap - 1);
    for (; rs->hash[k] >= 0; k = (k + 1) & (rs->cap - 1)) {
        long i = rs->hash[k];
        struct cg_diff_row *r = &rs->rows[i];
        if (strcmp(r->name, name) == 0 &&
            (rs->keyed ? rs->key[i] == key : strcmp(base_name(r->obj), base_name(obj)) == 0))
            return r;
    }
    rs->hash[k] = rs->n;
    rs->key[rs->n] = key;
    rs->rows[rs->n] = (struct cg_diff_row){.name = name, .obj = obj};
    return &rs->rows[rs->n++];
}

/* One side's functions (or call sites) added to the rows. */
static void diff_side(struct rowset *rs, const struct cg_profile *p, int ev, enum cg_diff_by by,
                      const struct cg_site *sites, uint32_t count, const uint32_t *keys,
                      bool after)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t f = by == CG_DIFF_ALLOCS ? sites[i].func : i;
        uint64_t v = by == CG_DIFF_ALLOCS      ? sites[i].allocations
                     : by == CG_DIFF_INCLUSIVE ? cg_incl(p, f)[ev]
                                               : cg_self(p, f)[ev];
        if (by != CG_DIFF_ALLOCS && v == 0)
            continue;
        struct cg_diff_row *r = row_get(rs, cg_str(p, p->funcs[f].name),
                                        cg_str(p, p->funcs[f].obj),
                                        keys ? keys[p->funcs[f].obj] : 0);
        bool bound = by == CG_DIFF_INCLUSIVE && p->funcs[f].incl_bound;
        if (after) {
            r->has_b = true;
            r->b += v;
            r->bound_b |= bound;
        } else {
            r->has_a = true;
            r->a += v;
            r->bound_a |= bound;
        }
    }
}

long cg_profile_diff(const struct cg_profile *pa, int ea, const struct cg_profile *pb, int eb,
                     enum cg_diff_by by, struct cg_diff_row **out)
{
    return cg_profile_diff_keyed(pa, ea, pb, eb, by, NULL, NULL, out);
}

long cg_profile_diff_keyed(const struct cg_profile *pa, int ea, const struct cg_profile *pb,
                           int eb, enum cg_diff_by by, const uint32_t *key_a,
                           const uint32_t *key_b, struct cg_diff_row **out)
{
    *out = NULL;
    uint32_t na = 0, nb = 0;
    struct cg_site *sa = NULL, *sb = NULL;
    if (by == CG_DIFF_ALLOCS) {
        long a = cg_alloc_sites(pa, &sa);
        long b = a < 0 ? -1 : cg_alloc_sites(pb, &sb);
        if (a < 0 || b < 0) {
            free(sa);
            free(sb);
            return -1;
        }
        na = (uint32_t)a;
        nb = (uint32_t)b;
    } else {
        na = pa->nfunc;
        nb = pb->nfunc;
    }
    struct rowset rs = {.cap = 2, .keyed = key_a && key_b};
    while (rs.cap < (na + nb) * 2 + 2)
        rs.cap *= 2;
    rs.rows = calloc((size_t)na + nb + 1, sizeof *rs.rows);
    rs.key = malloc(((size_t)na + nb + 1) * sizeof *rs.key);
    rs.hash = malloc(rs.cap * sizeof *rs.hash);
    if (!rs.rows || !rs.hash || !rs.key) {
        free(rs.rows);
        free(rs.key);
        free(rs.hash);
        free(sa);
        free(sb);
        return -1;
    }
    for (uint32_t i = 0; i < rs.cap; i++)
        rs.hash[i] = -1;
    diff_side(&rs, pa, ea, by, sa, na, rs.keyed ? key_a : NULL, false);
    diff_side(&rs, pb, eb, by, sb, nb, rs.keyed ? key_b : NULL, true);
    free(rs.hash);
    free(rs.key);
    free(sa);
    free(sb);
    qsort(rs.rows, rs.n, sizeof *rs.rows, by_delta);
    *out = rs.rows;
    return rs.n;
}
