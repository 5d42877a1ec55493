/* cg_lex.h: the first pass of the callgrind reader (callgrind.c). It turns a range of whole
 * lines into a short list of operations -- runs of self cost lines already summed, calls=
 * lines, the cost lines of calls, name lines -- without touching the profile, so that several
 * ranges of one file can be lexed at once, in threads. The second pass (callgrind.c) replays
 * the operations in file order and does everything that needs the names.
 *
 * A range that does not begin at the start of the file begins at a 'fn=' line, so nothing is
 * pending there; what the lexer cannot know there (the last subpositions) it marks unknown, and
 * where it would need them it gives up (`unsure`) and the range is lexed again once the state
 * before it is known. Header lines ("key: value") and lines it does not know it leaves to the
 * second pass: it stops there. */
#ifndef TARE_CG_LEX_H
#define TARE_CG_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum lex_next { NEXT_SELF, NEXT_CALL, NEXT_JUMP };

enum lex_op_kind {
    OP_SELF,      /* the self cost lines of one function in the range (one line in lines
                     mode), summed, placed where the first of them is */
    OP_CALLCOST,  /* the line after calls=: the inclusive cost of those calls */
    OP_CALLS,     /* a calls= line: its count */
    OP_CALL,      /* a calls= line and its cost line together (the usual case) */
    OP_SPEC,      /* any other "key=value" line (fn=, cfn=, ob=, fl=, ...) */
    OP_CFN_CALL,  /* a bare "cfn=(ID)" line, then a calls= line and its cost line: OP_SPEC
                     and OP_CALL in one (line: the cfn= line's; callee: the id) */
};

/* The keys of name lines, and their names in messages (cfl= and jfi= are cfi='s kin). */
enum spec_key { K_FN, K_CFN, K_JFN, K_OB, K_COB, K_FL, K_FI, K_FE, K_CFI };
extern const char *const spec_key_name[];

struct lex_op {
    uint8_t kind;
    uint8_t key;        /* OP_SPEC: enum spec_key */
    uint16_t ncost;     /* OP_SELF, OP_CALLCOST, OP_CALL: costs given (the others are zero) */
    uint32_t hash;      /* OP_SPEC with a name: cg_hash() of it (of strip bytes for fn=...),
                           where hashed (the name has no NUL byte) */
    uint64_t line;      /* its (first) line, counted from 0 at the start of the range */
    uint64_t arg;       /* OP_CALLS, OP_CALL: the count; OP_SELF, OP_CALLCOST: index in cost[];
                           OP_SPEC: the name id, or UINT32_MAX for none */
    union {
        const char *name;   /* OP_SPEC: the name (len bytes; strip bytes without callgrind's
                               suffixes, for fn=, cfn=, jfn=), or none (len 0): "(id)" alone */
        uint64_t subline;   /* OP_SELF in lines mode: the line subposition */
        size_t cost_at;     /* OP_CALL: index in cost[] */
    } u;
    uint32_t len, strip;
    uint32_t callee;    /* OP_CFN_CALL: the cfn= id */
    bool rec;           /* OP_SPEC, fn=/cfn=/jfn= with a name: it had a recursion suffix */
    bool hashed;
};

/* What the lexer needs to know of the reader before a range, and leaves after it. */
struct lex_state {
    int npos, ncol, line_pos;   /* positions, events, where "line" is among positions (-1) */
    bool have_events, totals_seen;
    bool lines_mode;            /* one OP_SELF per line, with its line subposition */
    bool general_only;          /* not the loop for plain lines (cg_read_opts) */
    bool known[3]; /* last[i] is known (a range after the start: not until an absolute one) */
    uint64_t last[3];
    enum lex_next next;
    bool in_body;               /* a cost or calls= line was lexed */
};

struct lex_result {
    struct lex_op *ops;
    size_t nops, ops_cap;
    uint64_t *cost;             /* ncol per OP_SELF and OP_CALLCOST */
    size_t ncost, cost_cap;
    uint64_t lines;             /* whole lines lexed; the stop or error line is lines + 1 */
    const char *stop;           /* the line left to the second pass, or NULL: the range's end */
    bool unsure;                /* a relative subposition against an unknown one: lex again */
    bool failed;                /* msg says what is wrong with line `lines + 1` */
    bool nomem;
    size_t over_op;             /* the first OP_SELF whose lines' sum went past 2^64, or SIZE_MAX */
    char msg[256];
    struct lex_state state;     /* after the lines lexed */
};

/* Shared with the header lines of callgrind.c: a space or tab; the first byte after spaces
 * and tabs; a number, decimal or 0x hex, *ok when it fits in 64 bits. */
static inline bool cg_is_space(char c)
{
    return c == ' ' || c == '\t';
}
/* The first byte of [s, end) that is not a space or tab. */
const char *cg_skip_space(const char *s, const char *end);
/* Reads a number at s into *out; returns the byte after it. */
const char *cg_num(const char *s, const char *end, uint64_t *out, bool *ok);

/* Lexes [s, end), which holds whole lines ('\n' at end[-1]), from state *in. */
void lex_range(const char *s, const char *end, const struct lex_state *in, struct lex_result *res);
void lex_result_free(struct lex_result *res);

#endif
