/* cg_lex.c: the first pass of the callgrind reader; see cg_lex.h. The common cost line is
 * parsed without a bound check per character (every range ends in '\n', which stops every
 * digit loop) and with the reader's state in local variables; anything unusual on a cost line
 * goes to the careful parser, which knows every form the format allows and says what is wrong. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/cg_lex.h"
#include "core/profile/profile.h"

const char *cg_skip_space(const char *s, const char *end)
{
    while (s < end && cg_is_space(*s))
        s++;
    return s;
}

static inline bool is_key_char(unsigned char c)
{
    return (unsigned)((c | 32) - 'a') < 26 || c == '_';
}

__attribute__((format(printf, 2, 3)))
static int lex_fail(struct lex_result *res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->msg, sizeof res->msg, fmt, ap);
    va_end(ap);
    res->failed = true;
    return 0;
}

const char *cg_num(const char *s, const char *end, uint64_t *out, bool *ok)
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

/* The subpositions of a cost, call or jump line, relative ones against st->last, fields
 * separated by any spaces and tabs. 1: done, *sp after them; 0: malformed (res->msg); -1: a
 * relative one against an unknown base. */
static int careful_positions(const char **sp, const char *end, const struct lex_state *st,
                             uint64_t *pos, bool *kn, struct lex_result *res)
{
    const char *s = *sp;
    for (int i = 0; i < st->npos; i++) {
        uint64_t v;
        bool ok = true, known = true;
        if (s >= end)
            return lex_fail(res, "missing subposition: positions has %d", st->npos);
        if (*s == '*') {
            v = st->last[i];
            known = st->known[i];
            s++;
        } else if (*s == '+' || *s == '-') {
            char sign = *s++;
            uint64_t d;
            s = cg_num(s, end, &d, &ok);
            if (!ok)
                return lex_fail(res, "bad relative subposition");
            if (!st->known[i])
                return -1;
            if (sign == '+') {
                v = st->last[i] + d;
                if (v < d)
                    return lex_fail(res, "subposition overflows");
            } else {
                if (d > st->last[i])
                    return lex_fail(res, "relative subposition -%llu goes below zero",
                                    (unsigned long long)d);
                v = st->last[i] - d;
            }
        } else {
            s = cg_num(s, end, &v, &ok);
            if (!ok) {
                size_t n = strcspn(s, " \t\n");
                return lex_fail(res, "bad subposition '%.*s'", (int)(n < 40 ? n : 40), s);
            }
        }
        if (s < end && !cg_is_space(*s))
            return lex_fail(res, "bad subposition: unexpected '%c'", *s);
        pos[i] = v;
        kn[i] = known;
        s = cg_skip_space(s, end);
    }
    *sp = s;
    return 1;
}

/* A cost line [s, end) (no '\n', no '\r'), the careful way. Returns as careful_positions. */
static int careful_cost_line(const char *s, const char *end, const struct lex_state *st,
                             uint64_t *pos, bool *kn, uint64_t *cost, int *n,
                             struct lex_result *res)
{
    int rc = careful_positions(&s, end, st, pos, kn, res);
    if (rc <= 0)
        return rc;
    int k = 0;
    while (s < end) {
        if (k == st->ncol)
            return lex_fail(res, "more costs than the %d events", st->ncol);
        bool ok;
        s = cg_num(s, end, &cost[k], &ok);
        if (!ok || (s < end && !cg_is_space(*s)))
            return lex_fail(res, "bad cost '%.*s'", (int)(end - s < 40 ? end - s : 40), s);
        k++;
        s = cg_skip_space(s, end);
    }
    *n = k;
    return 1;
}

/* The value of a calls= line: "COUNT TARGET-POSITIONS". */
static int lex_calls(const char *s, const char *end, const struct lex_state *st, uint64_t *count,
                     struct lex_result *res)
{
    bool ok;
    s = cg_num(cg_skip_space(s, end), end, count, &ok);
    if (!ok || (s < end && !cg_is_space(*s)))
        return lex_fail(res, "bad call count");
    s = cg_skip_space(s, end);
    uint64_t target[3];
    bool kn[3];
    return careful_positions(&s, end, st, target, kn, res);
}

/* The value of a jump= ("COUNT TARGET") or jcnd= ("EXECUTED/COUNT TARGET") line. */
static int lex_jump(const char *s, const char *end, bool cond, const struct lex_state *st,
                    struct lex_result *res)
{
    uint64_t a, b;
    bool ok;
    s = cg_num(cg_skip_space(s, end), end, &a, &ok);
    if (ok && cond) {
        if (s < end && *s == '/')
            s = cg_num(s + 1, end, &b, &ok);
        else
            s = cg_num(cg_skip_space(s, end), end, &b, &ok);
    }
    if (!ok || (s < end && !cg_is_space(*s)))
        return lex_fail(res, "bad '%s' count", cond ? "jcnd=" : "jump=");
    s = cg_skip_space(s, end);
    uint64_t target[3];
    bool kn[3];
    return careful_positions(&s, end, st, target, kn, res);
}

const char *const spec_key_name[] = {"fn", "cfn", "jfn", "ob", "cob", "fl", "fi", "fe", "cfi"};

/* The key of a name line; -1: a key that carries no cost or name (bb=, ln=, rec=, frfn=, from
 * --dump-bbs); -2: unknown. */
static int spec_key_of(const char *k, size_t n)
{
#define IS(w) (n == sizeof w - 1 && memcmp(k, w, n) == 0)
    if (IS("fn")) return K_FN;
    if (IS("cfn")) return K_CFN;
    if (IS("fl")) return K_FL;
    if (IS("fi")) return K_FI;
    if (IS("fe")) return K_FE;
    if (IS("cob")) return K_COB;
    if (IS("ob")) return K_OB;
    if (IS("cfi") || IS("cfl") || IS("jfi")) return K_CFI;
    if (IS("jfn")) return K_JFN;
    if (IS("bb") || IS("ln") || IS("rec") || IS("frfn")) return -1;
    return -2;
#undef IS
}

#define INLINE static inline __attribute__((always_inline))

/* A decimal number of at most max digits at s: the byte after it, or NULL. (A loop per
 * digit: the line shapes repeat, so its exits are well predicted, and reading eight digits at
 * once with multiplications measured slower here, its result being on the path to the next
 * field.) */
INLINE const char *dec(const char *s, unsigned max, uint64_t *out)
{
    const char *st = s;
    uint64_t v = 0;
    unsigned d;
    while ((d = (unsigned char)*s - '0') < 10)
        v = v * 10 + d, s++;
    if (s == st || (size_t)(s - st) > max)
        return NULL;
    *out = v;
    return s;
}

/* Splits the value of a name line: "(id) name", "(id)" or "name" (a name may begin with '('
 * when no digit follows). 0: malformed (res->msg). */
static int split_spec(const char *s, const char *end, int key, struct lex_op *op,
                      struct lex_result *res)
{
    s = cg_skip_space(s, end);
    while (end > s && cg_is_space(end[-1]))
        end--;
    op->arg = UINT32_MAX;
    if (s + 1 < end && *s == '(' && (unsigned)(s[1] - '0') < 10) {
        uint64_t v;
        bool ok = true;
        /* up to eight digits by dec() (a call of cg_num() cost 1.6% of the whole read; the
         * line goes on past end to its '\n', so dec() stops there at the latest); more by
         * cg_num(), which knows the limits */
        const char *q = dec(s + 1, 8, &v);
        if (!q)
            q = cg_num(s + 1, end, &v, &ok);
        if (!ok || q >= end || *q != ')')
            return lex_fail(res, "bad name id in '%s='", spec_key_name[key]);
        if (v >= (1u << 24))    /* compression ids are small; refuse absurd ones */
            return lex_fail(res, "name id %llu in '%s=' is too large", (unsigned long long)v,
                            spec_key_name[key]);
        op->arg = v;
        s = cg_skip_space(q + 1, end);
    }
    if ((uint64_t)(end - s) > UINT32_MAX)
        return lex_fail(res, "a name longer than 4 GiB");
    op->u.name = s;
    op->len = op->strip = (uint32_t)(end - s);
    op->rec = false;
    if (op->arg == UINT32_MAX && s == end)
        return lex_fail(res, "empty name in '%s='", spec_key_name[key]);
    if ((key == K_FN || key == K_CFN || key == K_JFN) && s < end)
        op->strip = (uint32_t)cg_strip_name(s, end - s, &op->rec);
    /* the hash for cg_intern_hashed(); a name with a NUL byte goes to cg_intern(), which
     * cuts it there */
    op->hashed = op->strip > 0 && cg_hash_text(s, op->strip, &op->hash);
    return 1;
}

static struct lex_op *new_op(struct lex_result *res, enum lex_op_kind kind, uint64_t line)
{
    if (res->nops == res->ops_cap) {
        size_t cap = res->ops_cap ? res->ops_cap * 2 : 4096;
        struct lex_op *q = realloc(res->ops, cap * sizeof *q);
        if (!q) {
            res->nomem = true;
            return NULL;
        }
        res->ops = q;
        res->ops_cap = cap;
    }
    struct lex_op *op = &res->ops[res->nops++];
    op->kind = kind;
    op->key = 0;
    op->ncost = 0;
    op->hash = 0;
    op->hashed = false;
    op->rec = false;
    op->line = line;
    op->arg = 0;
    op->u.name = NULL;
    op->len = op->strip = 0;
    op->callee = 0;
    return op;
}

/* ncol zeroed costs; their index, or SIZE_MAX out of memory. */
static size_t new_cost(struct lex_result *res, int ncol)
{
    if (res->cost_cap - res->ncost < (size_t)ncol) {
        size_t cap = res->cost_cap ? res->cost_cap * 2 : 8192;
        while (cap - res->ncost < (size_t)ncol)
            cap *= 2;
        uint64_t *q = realloc(res->cost, cap * sizeof *q);
        if (!q) {
            res->nomem = true;
            return SIZE_MAX;
        }
        res->cost = q;
        res->cost_cap = cap;
    }
    size_t at = res->ncost;
    memset(res->cost + at, 0, ncol * sizeof *res->cost);
    res->ncost += ncol;
    return at;
}

/* The OP_SPEC of a name line whose value is [v, e); false: malformed (res->msg) or out of
 * memory (res->nomem), and no operation made. */
static bool name_op(const char *v, const char *e, int key, uint64_t line, struct lex_result *res)
{
    struct lex_op *op = new_op(res, OP_SPEC, line);
    if (!op)
        return false;
    if (!split_spec(v, e, key, op, res)) {
        res->nops--;
        return false;
    }
    op->key = (uint8_t)key;
    return true;
}

/* The '\n' that ends the line of p (every range ends in one): most lines the lexer looks into
 * end within a few bytes ("(123)", the end of a calls= line), where calling memchr() costs
 * more than looking at eight bytes at once; names are long, and memchr() is for them. */
INLINE const char *line_end(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        x ^= 0x0a0a0a0a0a0a0a0aull;     /* '\n' bytes are now zero */
        /* the high bit of the first zero byte (those above it may be wrong, not it) */
        uint64_t z = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
        if (z)
            return p + (__builtin_ctzll(z) >> 3);
        p += 8;
    }
#endif
    return memchr(p, '\n', end - p);
}

/* The keys of the lines that follow the cost lines most often, told apart by comparing a few
 * bytes, not by scanning the key and looking it up. Returns the key's length (the '=' is at
 * s[len]) and *key (enum spec_key, or KEY_CALLS, KEY_JUMP, KEY_JCND), or 0: let the general
 * path scan it. s has at least eight bytes. */
enum { KEY_CALLS = 100, KEY_JUMP, KEY_JCND };
INLINE size_t known_key(const char *s, int *key)
{
#define KEY(w, k)                                   \
    if (memcmp(s, w, sizeof w - 1) == 0) {          \
        *key = k;                                   \
        return sizeof w - 2;                        \
    }
    switch (s[0]) {
    case 'c':
        KEY("calls=", KEY_CALLS)
        KEY("cfn=", K_CFN)
        KEY("cfi=", K_CFI)
        KEY("cob=", K_COB)
        KEY("cfl=", K_CFI)
        break;
    case 'f':
        KEY("fn=", K_FN)
        KEY("fi=", K_FI)
        KEY("fe=", K_FE)
        KEY("fl=", K_FL)
        break;
    case 'j':
        KEY("jcnd=", KEY_JCND)
        KEY("jump=", KEY_JUMP)
        KEY("jfi=", K_CFI)
        KEY("jfn=", K_JFN)
        break;
    case 'o':
        KEY("ob=", K_OB)
        break;
    }
    return 0;
#undef KEY
}

/* The value of each hex digit, plus one (0: not a hex digit). */
static const uint8_t hex_value[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
    ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Hex digits at s (after "0x"): their value (the low 64 bits), *sp after them; false: none.
 * A table, not comparisons: digits and letters mix at random in addresses, and a branch on
 * which one came was mispredicted about every other digit. */
INLINE bool hex_digits(const char **sp, uint64_t *out)
{
    const char *s = *sp, *st = s;
    uint64_t v = 0, d;
    while ((d = (uint64_t)hex_value[(unsigned char)*s] - 1) < 16)
        v = v << 4 | d, s++;
    *out = v;
    *sp = s;
    return s > st;
}

/* Subpositions on the common form: one space after each but the last ('\n' may end the line
 * after the last), decimal, 0x hex, +N, -N or *, relative ones against known bases. false: the
 * careful parser must look. */
INLINE bool fast_positions(const char **sp, const int npos, const uint64_t *last,
                           const bool *known, uint64_t *pos, bool *kn)
{
    const char *s = *sp;
#pragma GCC unroll 3
    for (int i = 0; i < npos; i++) {
        uint64_t v = 0;
        bool k = true;
        unsigned char c = *s;
        if (c == '+') {
            if (!(s = dec(s + 1, 18, &v)) || !known[i])
                return false;
            v += last[i];
            if (v < last[i])
                return false;
        } else if (c == '*') {
            v = last[i];
            k = known[i];
            s++;
        } else if (c == '-') {
            if (!(s = dec(s + 1, 18, &v)) || !known[i] || v > last[i])
                return false;
            v = last[i] - v;
        } else if (c == '0' && s[1] == 'x') {
            const char *st = s += 2;
            if (!hex_digits(&s, &v) || s - st > 16)
                return false;
        } else if (!(s = dec(s, 19, &v)))
            return false;
        if (*s == ' ')
            s++;
        else if (*s != '\n' || i != npos - 1)
            return false;
        pos[i] = v;
        kn[i] = k;
    }
    *sp = s;
    return true;
}

/* ---- plain_lines(): the usual lines in a loop of their own ----
 * Self cost lines of one shape (every subposition known, '*', +N, -N, decimal or 0x hex, a
 * space after each, then one decimal cost and '\n'), jump lines with the line after them, bare
 * cfn=(ID) lines and calls= lines with their cost line. Most lines of a profile are these, and
 * the general loop below pays for every form the format allows on each of them; what this loop
 * does not take, it leaves to that loop, which says what is wrong with it. */

/* Decimal digits at s, at most max (three or more): their value, *sp after them; false:
 * none, or too many. Not dec(): the first three digits one by one, then a loop (in dec()'s
 * kind of loop the compiler kept copies of the pointer and the byte: more instructions a
 * digit, and most numbers here have one to three). */
INLINE bool plain_digits(const char **sp, unsigned max, uint64_t *out)
{
    const unsigned char *s = (const unsigned char *)*sp;
    uint64_t v, d;
    size_t n;
    if ((v = (uint64_t)s[0] - '0') >= 10)
        return false;
    /* the first digits one by one, not in the loop: fewer instructions a digit */
    if ((d = (uint64_t)s[1] - '0') >= 10) {
        n = 1;
        goto done;
    }
    v = v * 10 + d;
    if ((d = (uint64_t)s[2] - '0') >= 10) {
        n = 2;
        goto done;
    }
    v = v * 10 + d;
    if ((d = (uint64_t)s[3] - '0') >= 10) {
        n = 3;
        goto done;
    }
    v = v * 10 + d;
    for (n = 4; (d = (uint64_t)s[n] - '0') < 10; n++)
        v = v * 10 + d;
    if (n > max)
        return false;
done:
    *out = v;
    *sp = (const char *)s + n;
    return true;
}

/* A subposition and the space after it, against a known *last. One digit, alone or after a
 * '+', is taken first, without a loop: most subpositions are that ("+3", and "0", the line
 * of code without debugging information); the first byte's tests are in the order of what
 * comes most. */
INLINE bool plain_position(const char **sp, uint64_t *last)
{
    const char *s = *sp;
    unsigned c = (unsigned char)*s;
    uint64_t v;
    if ((v = c - '0') < 10 && s[1] == ' ') {
        *last = v;
        *sp = s + 2;
        return true;
    }
    if (c == '+') {
        s++;
        if ((v = (unsigned char)s[0] - '0') < 10 && s[1] == ' ') {
            *last += v;
            if (*last < v)
                return false;
            *sp = s + 2;
            return true;
        }
        if (!plain_digits(&s, 18, &v) || *last + v < v)
            return false;
        *last += v;
    } else if (c == '*') {
        s++;
    } else if (c == '-') {
        s++;
        if (!plain_digits(&s, 18, &v) || v > *last)
            return false;
        *last -= v;
    } else if (c == '0' && s[1] == 'x') {
        const char *st = s += 2;
        if (!hex_digits(&s, last) || s - st > 16)
            return false;
    } else {
        if (!plain_digits(&s, 19, last))
            return false;
    }
    if (*s != ' ')
        return false;
    *sp = s + 1;
    return true;
}

/* A cost and the '\n' after it. (Reading eight digits at once with multiplications measured
 * slower: most costs are short, and the loop's exit is predicted.) */
INLINE bool plain_cost(const char **sp, uint64_t *out)
{
    const char *s = *sp;
    if (!plain_digits(&s, 19, out) || *s != '\n')
        return false;
    *sp = s + 1;
    return true;
}

/* npos subpositions, a space after each, checked against last and not kept. */
INLINE bool plain_checked(const char **sp, const int npos, uint64_t l0, uint64_t l1, uint64_t l2)
{
    return plain_position(sp, &l0) && (npos < 2 || plain_position(sp, &l1)) &&
           (npos < 3 || plain_position(sp, &l2));
}

/* The rest of a jump= or calls= line after its count -- a space, the target's subpositions
 * and '\n' -- and the subpositions that begin the line after it: checked, not kept (as the
 * general loop does). */
INLINE bool plain_target(const char **sp, const char *end, const int npos, uint64_t l0,
                         uint64_t l1, uint64_t l2)
{
    const char *s = *sp;
    if (*s++ != ' ' || !plain_checked(&s, npos, l0, l1, l2) || *s++ != '\n' || s == end ||
        !plain_checked(&s, npos, l0, l1, l2))
        return false;
    *sp = s;
    return true;
}

/* A jump= or jcnd= line at s ("jump=COUNT TARGET " or "jcnd=EXECUTED/COUNT TARGET "), then the
 * line after it (its source position, a cost not counted): *sp after both. */
INLINE bool plain_jump(const char **sp, const char *end, const int npos, uint64_t l0, uint64_t l1,
                       uint64_t l2)
{
    const char *s = *sp;
    uint64_t v;
    if (memcmp(s, "jcnd=", 5) == 0) {
        s += 5;
        if (!plain_digits(&s, 19, &v) || *s++ != '/')
            return false;
    } else if (memcmp(s, "jump=", 5) == 0)
        s += 5;
    else
        return false;
    if (!plain_digits(&s, 19, &v) || !plain_target(&s, end, npos, l0, l1, l2))
        return false;
    if (*s != '\n' && (!plain_digits(&s, 19, &v) || *s != '\n'))
        return false;
    *sp = s + 1;
    return true;
}

/* A bare "cfn=(ID)" line at s: the id (at most eight digits), *sp after the line. */
INLINE bool plain_cfn(const char **sp, uint64_t *id, const char **after)
{
    const char *s = *sp;
    if (memcmp(s, "cfn=(", 5) != 0)
        return false;
    s += 5;
    if (!plain_digits(&s, 8, id) || *id >= (1u << 24) || s[0] != ')' || s[1] != '\n')
        return false;     /* (an id that large is for the general loop to refuse) */
    *after = s + 1;
    *sp = s + 2;
    return true;
}

/* A "calls=COUNT TARGET " line at s and the line after it ("POSITIONS COST"): the count and
 * the cost. */
INLINE bool plain_call(const char **sp, const char *end, const int npos, uint64_t l0, uint64_t l1,
                       uint64_t l2,
                       uint64_t *count, uint64_t *cost)
{
    const char *s = *sp;
    /* four bytes and two: GCC called memcmp() for the six (-j 1 2-3% slower) */
    if (memcmp(s, "call", 4) != 0 || s[4] != 's' || s[5] != '=')
        return false;
    s += 6;
    if (!plain_digits(&s, 19, count) || !plain_target(&s, end, npos, l0, l1, l2) ||
        !plain_cost(&s, cost))
        return false;
    *sp = s;
    return true;
}

/* The state of the lexer that plain_lines() reads and changes: the summed self cost lines of
 * this function in the range (run: their OP_SELF exists, at run_op, its cost at run_at), and
 * what it took. */
struct plain {
    bool run;
    size_t run_at, run_op;
    uint64_t line;              /* in: the line of *sp, from 0 at the range's start */
    uint64_t lines;             /* out: the lines taken */
    bool self;                  /* out: a self cost line was among them */
    bool body;                  /* out: a cost, call or jump line was among them */
};

/* A name line at t (key: its key, klen bytes before its '='): its OP_SPEC, as the general
 * loop makes it; the line after it, or NULL: the general loop is to judge it (no operation
 * made; it meets the same error, and says it again; out of memory: res->nomem). Not inlined:
 * names are long and few, and plain_lines() keeps its registers for the short lines. */
static __attribute__((noinline)) const char *plain_spec(const char *t, const char *end,
                                                        size_t klen, int key, uint64_t line,
                                                        struct lex_result *res)
{
    const char *v = t + klen + 1, *nl = line_end(v, end), *e = nl;
    if (e > v && e[-1] == '\r')
        e--;
    return name_op(v, e, key, line, res) ? nl + 1 : NULL;
}

/* A cfn= line (callee a, the line after it at *tp) in plain_lines(), and the call that most
 * often follows it: one operation for the three lines, or the cfn= line's own. How many lines
 * it took (*tp after them), or 0 when out of memory. */
INLINE int cfn_call(const char **tp, const char *end, const int npos, uint64_t l0, uint64_t l1,
                    uint64_t l2, uint64_t a, const char *after, struct lex_result *res,
                    uint64_t line)
{
    const char *u = *tp;
    uint64_t count, cost;
    bool call = end - u >= 12 && plain_call(&u, end, npos, l0, l1, l2, &count, &cost);
    struct lex_op *op = new_op(res, call ? OP_CFN_CALL : OP_SPEC, line);
    size_t at = 0;
    if (!op || (call && (at = new_cost(res, 1)) == SIZE_MAX))
        return 0;
    if (!call) {
        op->key = K_CFN;
        op->arg = a;
        op->u.name = after;
        return 1;
    }
    op->callee = (uint32_t)a;
    op->arg = count;
    op->u.cost_at = at;
    op->ncost = 1;
    res->cost[at] = cost;
    *tp = u;
    return 3;
}

/* Takes lines of those shapes from *sp on (none: the first is not one), and the name lines
 * of calls (cfn=, cob=, cfi=), *sp and last[] after them; self cost lines are summed into the
 * run's OP_SELF (made at the first), a bare cfn= line and a call with its cost line become
 * their operations, as the general loop makes them. Out of memory: res->nomem.
 *
 * Its state is in locals. The subpositions in scalars, not an array: held in an array, the
 * compiler kept them in vector registers, and moved them in and out on every line. The run's
 * sum in 128 bits (an add with carry per line, no test): past 2^64 is refused. pl's fields in
 * locals too: through the pointer, they were read and written on every line (new_op() calls
 * realloc(), which might change them for all the compiler knows). A repeat: the last self
 * cost line's bytes from the space after its first subposition through its '\n' (rep_len of
 * them, in rep_word), where they are at most eight and hold no relative subposition. A line
 * of "+D" and the same bytes has the same cost and the same later subpositions, and is taken
 * by one compare: 70% of the cost lines of cc1 are that ("+3 0 240" after "+5 0 240", the
 * instructions of one basic block). */
INLINE void plain_lines(const char **sp, const char *end, const int npos, uint64_t *last,
                        struct lex_result *res, struct plain *pl)
{
    const char *s = *sp;
    uint64_t l0 = last[0], l1 = last[1], l2 = last[2];
    uint64_t lines = 0;
    unsigned __int128 add = 0;
    bool over = false;
    bool run = pl->run, self = false;
    uint64_t names = 0;         /* name lines among the lines taken */
    uint64_t rep_word = 0, rep_mask = 0, rep_cost = 0;
    size_t rep_len = 0;     /* 0: no repeat to look for */
    for (;;) {
        const char *t = s;
        unsigned char c = *t;
        if (c == '+' && rep_len && end - t >= 10) {
            uint64_t w, d = (unsigned char)t[1] - '0';
            memcpy(&w, t + 2, 8);
            if (d < 10 && ((w ^ rep_word) & rep_mask) == 0 && l0 + d >= d) {
                /* the repeats after it in a loop of their own, its state in registers: in
                 * the loop below GCC kept the subposition and the sum on the stack, and each
                 * line waited for the store of the line before (the lexer about 1% faster).
                 * The first repeat stays tested out here: the loop entered at it, one test
                 * for all, was 1.9% slower (the two branches predict differently) */
                const size_t step = 2 + rep_len;
                const uint64_t word = rep_word, mask = rep_mask;
                const char *u = t + step, *lim = end - 10;
                uint64_t x0 = l0 + d, n = 1;
                while (u <= lim && u[0] == '+') {
                    uint64_t dd = (unsigned char)u[1] - '0', ww;
                    memcpy(&ww, u + 2, 8);
                    if (dd >= 10 || ((ww ^ word) & mask) != 0 || x0 + dd < dd)
                        break;
                    x0 += dd;
                    n++;
                    u += step;
                }
                l0 = x0;
                uint64_t m;
                over |= __builtin_mul_overflow(n, rep_cost, &m);
                add += m;
                lines += n;
                s = u;
                if (s == end)
                    break;
                continue;
            }
        }
        if (c - '*' > '9' - '*') {   /* not '*', '+', '-' or a digit: a key */
            /* a jump= or calls= line is at least "jump=N P\n" with another line after it
             * (and known_key() reads eight bytes) */
            uint64_t a, b;
            const char *after;
            if (end - t < 12)
                break;
            if (c == 'j') {
                if (!plain_jump(&t, end, npos, l0, l1, l2))
                    break;
                lines += 2;
            } else if (c != 'c')
                break;
            else if (plain_cfn(&t, &a, &after)) {
                int n = cfn_call(&t, end, npos, l0, l1, l2, a, after, res, pl->line + lines);
                if (!n)
                    break;
                lines += n;
            } else if (plain_call(&t, end, npos, l0, l1, l2, &a, &b)) {
                struct lex_op *op = new_op(res, OP_CALL, pl->line + lines);
                size_t at;
                if (!op || (at = new_cost(res, 1)) == SIZE_MAX)
                    break;
                op->arg = a;
                op->u.cost_at = at;
                op->ncost = 1;
                res->cost[at] = b;
                lines += 2;
            } else {
                /* the name lines of a call, taken here too, not left to the general loop and
                 * back, which cost more than the line itself: 7% of the lexer's time. (fn=,
                 * fl=, fi= and fe= lines here as well: no faster in the whole read.) */
                int key;
                size_t klen = known_key(t, &key);
                if (!klen || key > K_CFI ||
                    !(t = plain_spec(t, end, klen, key, pl->line + lines, res)))
                    break;
                lines++;
                names++;
            }
        } else {
            uint64_t p0 = l0, p1 = l1, p2 = l2, v;
            if (!plain_position(&t, &p0))
                break;
            const char *rest = t - 1, *third;
            if (npos > 1 && !plain_position(&t, &p1))
                break;
            third = t;
            if ((npos > 2 && !plain_position(&t, &p2)) || !plain_cost(&t, &v))
                break;
            rep_len = 0;
            if (t - rest <= 8 && end - rest >= 8 && rest[1] != '+' && rest[1] != '-' &&
                (npos < 3 || (*third != '+' && *third != '-'))) {
                rep_len = t - rest;
                rep_mask = rep_len == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * rep_len)) - 1;
                memcpy(&rep_word, rest, 8);
                rep_word &= rep_mask;
                rep_cost = v;
            }
            if (!run) {
                struct lex_op *op = new_op(res, OP_SELF, pl->line + lines);
                size_t at;
                if (!op || (at = new_cost(res, 1)) == SIZE_MAX)
                    break;
                op->arg = at;
                run = true;
                pl->run_at = at;
                pl->run_op = res->nops - 1;
            }
            add += v;
            l0 = p0;
            l1 = p1;
            l2 = p2;
            self = true;
            lines++;
        }
        s = t;
        if (s == end)
            break;
    }
    if (run) {
        over |= (add >> 64) != 0 || __builtin_add_overflow(res->cost[pl->run_at], (uint64_t)add,
                                                           &res->cost[pl->run_at]);
        if (over && res->over_op == SIZE_MAX)
            res->over_op = pl->run_op;
    }
    pl->run = run;
    pl->self = self;
    pl->body = lines > names;
    pl->lines = lines;
    *sp = s;
    last[0] = l0;
    last[1] = l1;
    last[2] = l2;
}

/* Not inlined into the lexer: on its own the loop keeps its state in registers. */
#define PLAIN_LINES(n)                                                                          \
    static __attribute__((noinline)) void plain_lines##n(                                       \
        const char **sp, const char *end, uint64_t *last, struct lex_result *res,               \
        struct plain *pl)                                                                       \
    {                                                                                           \
        plain_lines(sp, end, n, last, res, pl);                                                 \
    }
PLAIN_LINES(1)
PLAIN_LINES(2)
PLAIN_LINES(3)

/* A decimal count followed by one space. */
INLINE bool fast_count(const char **sp, uint64_t *out)
{
    const char *s = *sp, *st = s;
    uint64_t v = 0;
    unsigned d;
    while ((d = (unsigned char)*s - '0') < 10)
        v = v * 10 + d, s++;
    if (s == st || s - st > 19 || *s != ' ')
        return false;
    *out = v;
    *sp = s + 1;
    return true;
}

/* Whether plain_lines() may take the next lines: one event, not lines mode, not tests of the
 * general loop alone, nothing pending, every subposition known. */
INLINE bool plain_ok(const struct lex_state *in, enum lex_next next, const bool *known, int npos)
{
    return in->ncol == 1 && !in->lines_mode && !in->general_only && next == NEXT_SELF &&
           known[0] && (npos < 2 || known[1]) && (npos < 3 || known[2]);
}

/* Runs plain_lines() and takes its state back; true: it took lines. */
INLINE bool plain(const char **s, const char *end, int npos, uint64_t *last,
                  struct lex_result *res, uint64_t *line, bool *run, size_t *run_at,
                  size_t *run_op, int *run_n, bool *in_body)
{
    struct plain pl = {.run = *run, .run_at = *run_at, .run_op = *run_op, .line = *line};
    if (npos == 1)
        plain_lines1(s, end, last, res, &pl);
    else if (npos == 2)
        plain_lines2(s, end, last, res, &pl);
    else
        plain_lines3(s, end, last, res, &pl);
    *run = pl.run;
    *run_at = pl.run_at;
    *run_op = pl.run_op;
    if (pl.self)
        *run_n = 1;
    if (!pl.lines)
        return false;
    if (pl.body)
        *in_body = true;
    *line += pl.lines;
    return true;
}

/* The self cost lines of one function in a range, summed into one OP_SELF placed at the first
 * of them (its costs' index in cost[], its op, the most costs a line gave): only a fn= line
 * changes the function they belong to, so the calls and name lines between them need not
 * split the sum, and the replay has one operation per function, not per run. */
struct run {
    bool on;
    size_t at, op;
    int n;
};

/* Ends the run: its operation gets the number of its costs. */
INLINE void end_run(struct lex_result *res, struct run *r)
{
    if (r->on) {
        res->ops[r->op].ncost = (uint16_t)r->n;
        r->on = false;
    }
}

/* What the lexer does after a line. */
enum lex_step { STEP_ON, STEP_STOP, STEP_UNSURE, STEP_DONE };

/* A cost line's subpositions pos[], known[] and costs cost[0..n), parsed: summed into the
 * function's run (next: a self cost line), or the cost of the call before it, or nothing (the
 * line after a jump). false: out of memory. */
INLINE bool take_cost(struct lex_result *res, enum lex_next *next, const int npos,
                      uint64_t *last, bool *known, const uint64_t *pos, const bool *kn,
                      const uint64_t *cost, int n, struct run *r, uint64_t line, int ncol,
                      const bool lines_mode, const int line_pos, const bool one_event)
{
    if (*next == NEXT_SELF) {
#pragma GCC unroll 3
        for (int i = 0; i < npos; i++) {
            last[i] = pos[i];
            known[i] = kn[i];
        }
        if (!r->on) {
            struct lex_op *op = new_op(res, OP_SELF, line);
            size_t at;
            if (!op || (at = new_cost(res, ncol)) == SIZE_MAX)
                return false;
            op->arg = at;
            if (lines_mode)
                op->u.subline = line_pos >= 0 && line_pos < npos ? pos[line_pos] : 0;
            *r = (struct run){.on = true, .at = at, .op = res->nops - 1, .n = 0};
        }
        uint64_t *sum = res->cost + r->at;
        bool over = false;
        if (one_event) {
            if (n)
                over = __builtin_add_overflow(sum[0], cost[0], &sum[0]);
        } else
            for (int k = 0; k < n; k++)
                over |= __builtin_add_overflow(sum[k], cost[k], &sum[k]);
        if (over && res->over_op == SIZE_MAX)
            res->over_op = r->op;
        if (n > r->n)
            r->n = n;
        if (lines_mode)
            end_run(res, r);
    } else if (*next == NEXT_CALL) {
        size_t at = new_cost(res, ncol);
        if (at == SIZE_MAX)
            return false;
        struct lex_op *op = res->nops ? &res->ops[res->nops - 1] : NULL;
        if (op && op->kind == OP_CALLS) {      /* one operation for the two lines */
            op->kind = OP_CALL;
            op->u.cost_at = at;
        } else if ((op = new_op(res, OP_CALLCOST, line)))
            op->arg = at;   /* the calls= line was in the range before */
        else
            return false;
        op->ncost = (uint16_t)n;
        for (int k = 0; k < n; k++)
            res->cost[at + k] = cost[k];
        *next = NEXT_SELF;
    } else
        *next = NEXT_SELF;   /* the line after a jump: no cost of its own */
    return true;
}

/* A calls=, jump= or jcnd= line at v (its value; key its key): the call's operation, or the
 * jump's promise of a target line; *nl the end of the line. */
INLINE enum lex_step call_or_jump(const char *v, const char *end, int key, const int npos,
                                  const uint64_t *last, const bool *known, enum lex_next *next,
                                  bool *in_body, struct lex_result *res, uint64_t line,
                                  const char **nl)
{
    bool calls = key == KEY_CALLS;
    if (*next != NEXT_SELF) {
        lex_fail(res, calls ? "'calls=' where the cost line of the previous call was due"
                            : "jump line where the cost line of a call was due");
        return STEP_DONE;
    }
    uint64_t count = 0, pos[3];
    bool kn[3];
    const char *p = v;
    bool fast;
    if (key != KEY_JCND)        /* calls=COUNT, jump=COUNT */
        fast = fast_count(&p, &count);
    else {      /* jcnd=EXECUTED/COUNT */
        const char *st = p;
        while ((unsigned)(*p - '0') < 10)
            p++;
        fast = p > st && *p == '/' && (++p, fast_count(&p, &count));
    }
    if (fast && fast_positions(&p, npos, last, known, pos, kn)) {
        *nl = line_end(p, end);
    } else {
        *nl = line_end(v, end);
        const char *e = *nl;
        if (e > v && e[-1] == '\r')
            e--;
        struct lex_state st = {.npos = npos};
        for (int i = 0; i < 3; i++) {
            st.last[i] = last[i];
            st.known[i] = known[i];
        }
        int rc = calls ? lex_calls(v, e, &st, &count, res)
                       : lex_jump(v, e, key == KEY_JCND, &st, res);
        if (rc == 0)
            return STEP_DONE;
        if (rc < 0)
            return STEP_UNSURE;
    }
    if (calls) {
        struct lex_op *op = new_op(res, OP_CALLS, line);
        if (!op)
            return STEP_DONE;
        op->arg = count;
        *next = NEXT_CALL;
        *in_body = true;
    } else
        *next = NEXT_JUMP;
    return STEP_ON;
}

/* A key line at *sp: a calls= or jump line, or a name line (fn=, cfn=, ...) made its
 * operation; *sp after it. STEP_STOP with *sp at the line: a header line, or something for
 * the second pass to judge. */
INLINE enum lex_step key_line(const char **sp, const char *end, const int npos, const bool events,
                              const uint64_t *last, const bool *known, enum lex_next *next,
                              bool *in_body, struct run *r, struct lex_result *res,
                              uint64_t line)
{
    const char *s = *sp, *k = s;
    int key = -2;
    size_t klen = end - s >= 8 ? known_key(s, &key) : 0;
    if (klen)
        s += klen;
    else {
        while (is_key_char(*s))
            s++;
        if (*s != '=')
            return STEP_STOP;   /* a header line, or something for the second pass to judge */
        klen = s - k;
        key = klen == 5 && memcmp(k, "calls", 5) == 0 ? KEY_CALLS
              : klen == 4 && memcmp(k, "jump", 4) == 0 ? KEY_JUMP
              : klen == 4 && memcmp(k, "jcnd", 4) == 0 ? KEY_JCND
                                                       : spec_key_of(k, klen);
    }
    const char *v = s + 1, *nl;
    if (key == KEY_CALLS || key == KEY_JUMP || key == KEY_JCND) {
        if (!events)
            return STEP_STOP;
        enum lex_step st = call_or_jump(v, end, key, npos, last, known, next, in_body, res, line,
                                        &nl);
        if (st != STEP_ON)
            return st;
    } else {
        nl = line_end(v, end);
        const char *e = nl;
        if (e > v && e[-1] == '\r')
            e--;
        if (*next != NEXT_SELF) {
            lex_fail(res, "'%.*s=' where the cost line of a call or jump was due",
                     (int)(klen < 40 ? klen : 40), k);
            return STEP_DONE;
        }
        if (key == -2) {
            lex_fail(res, "unknown line '%.*s='", (int)(klen < 40 ? klen : 40), k);
            return STEP_DONE;
        }
        if (key >= 0) {
            if (key == K_FN)
                end_run(res, r);
            if (!name_op(v, e, key, line, res))
                return STEP_DONE;
        }
    }
    *sp = nl + 1;
    return STEP_ON;
}

/* The lexer, made once per number of subpositions (1 to 3) and for one event or several, so
 * that its loops unroll and its state stays in registers. */
INLINE void lex_body(const char *s, const char *end, const struct lex_state *in,
                     struct lex_result *res, const int npos, const bool one_event)
{
    const int ncol = one_event ? 1 : in->ncol, line_pos = in->line_pos;
    const bool lines_mode = in->lines_mode, events = in->have_events;
    const bool body = in->have_events && !in->totals_seen;
    uint64_t last[3];
    bool known[3];
    for (int i = 0; i < 3; i++) {
        last[i] = in->last[i];
        known[i] = in->known[i];
    }
    enum lex_next next = in->next;
    bool in_body = in->in_body;
    uint64_t line = 0;
    struct run r = {0};
    while (s < end) {
        unsigned char c = *s;
        if ((unsigned)(c - '0') < 10 || c == '+' || c == '*' || c == '-') {
            if (!body)
                goto stop;
            if (plain_ok(in, next, known, npos) && plain(&s, end, npos, last, res, &line, &r.on,
                                                        &r.at, &r.op, &r.n, &in_body))
                continue;
            if (res->nomem)
                goto done;
            const char *ls = s;
            uint64_t pos[3], cost[CG_MAX_EVENTS];
            bool kn[3];
            int n = 0;
            if (!fast_positions(&s, npos, last, known, pos, kn))
                goto careful;
            if (one_event) {
                if (*s != '\n') {
                    if (!(s = dec(s, 19, &cost[0])))
                        goto careful;
                    n = 1;
                    if (*s == ' ')
                        s++;
                    if (*s != '\n')
                        goto careful;
                }
            } else while (*s != '\n') {
                if (n == ncol || !(s = dec(s, 19, &cost[n])))
                    goto careful;
                n++;
                if (*s == ' ')
                    s++;
                else if (*s != '\n')
                    goto careful;
            }
            s++;
            goto parsed;
        careful: {
            const char *nl = memchr(ls, '\n', end - ls), *e = nl;
            if (e > ls && e[-1] == '\r')
                e--;
            struct lex_state st = {.npos = npos, .ncol = ncol};
            uint64_t cpos[3], ccost[CG_MAX_EVENTS];
            bool ckn[3];
            for (int i = 0; i < 3; i++) {
                st.last[i] = last[i];
                st.known[i] = known[i];
            }
            int rc = careful_cost_line(ls, e, &st, cpos, ckn, ccost, &n, res);
            if (rc == 0)
                goto done;
            if (rc < 0)
                goto unsure;
            for (int i = 0; i < npos; i++) {
                pos[i] = cpos[i];
                kn[i] = ckn[i];
            }
            for (int k = 0; k < n; k++)
                cost[k] = ccost[k];
            s = nl + 1;
        }
        parsed:
            in_body = true;
            if (!take_cost(res, &next, npos, last, known, pos, kn, cost, n, &r, line, ncol,
                           lines_mode, line_pos, one_event))
                goto done;
            line++;
            continue;
        }
        if (c == '\n') {
            s++;
            line++;
            continue;
        }
        if (c == '#') {
            s = (const char *)memchr(s, '\n', end - s) + 1;
            line++;
            continue;
        }
        if (!is_key_char(c))
            goto stop;
        if ((c == 'c' || c == 'j') && body && plain_ok(in, next, known, npos)) {
            if (plain(&s, end, npos, last, res, &line, &r.on, &r.at, &r.op, &r.n, &in_body))
                continue;
            if (res->nomem)
                goto done;
        }
        enum lex_step st = key_line(&s, end, npos, events, last, known, &next,
                                    &in_body, &r, res, line);
        if (st == STEP_STOP)
            goto stop;
        if (st == STEP_UNSURE)
            goto unsure;
        if (st == STEP_DONE)
            goto done;
        line++;
    }
    goto done;
stop:
    res->stop = s;
    goto done;
unsure:
    res->unsure = true;
done:
    end_run(res, &r);
    res->lines = line;
    res->state = *in;
    for (int i = 0; i < 3; i++) {
        res->state.last[i] = last[i];
        res->state.known[i] = known[i];
    }
    res->state.next = next;
    res->state.in_body = in_body;
}

void lex_range(const char *s, const char *end, const struct lex_state *in, struct lex_result *res)
{
    res->nops = res->ncost = 0;
    res->stop = NULL;
    res->unsure = res->failed = res->nomem = false;
    res->over_op = SIZE_MAX;
    res->msg[0] = '\0';
    bool one = in->ncol == 1;
    switch (in->npos) {
    case 1:
        if (one) lex_body(s, end, in, res, 1, true);
        else lex_body(s, end, in, res, 1, false);
        break;
    case 2:
        if (one) lex_body(s, end, in, res, 2, true);
        else lex_body(s, end, in, res, 2, false);
        break;
    default:
        if (one) lex_body(s, end, in, res, 3, true);
        else lex_body(s, end, in, res, 3, false);
        break;
    }
}

void lex_result_free(struct lex_result *res)
{
    free(res->ops);
    free(res->cost);
    res->ops = NULL;
    res->cost = NULL;
    res->nops = res->ops_cap = res->ncost = res->cost_cap = 0;
}
