/* ehframe.c: the frame-pointer reading of a .eh_frame section (see ehframe.h). */
#include "preload/ehframe.h"

#include <stdbool.h>
#include <string.h>

/* A cursor over [p, end): every read checks the end and sets bad instead of passing it. */
struct cur {
    const unsigned char *p, *end;
    bool bad;
};

static uint64_t rd_n(struct cur *c, size_t k)
{
    if (c->bad || (size_t)(c->end - c->p) < k) {
        c->bad = true;
        return 0;
    }
    uint64_t v = 0;
    memcpy(&v, c->p, k);     /* x86-64: little-endian, as the section */
    c->p += k;
    return v;
}

static uint64_t rd_uleb(struct cur *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (c->bad || c->p >= c->end || shift > 63) {
            c->bad = true;
            return 0;
        }
        unsigned char b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static int64_t rd_sleb(struct cur *c)
{
    int64_t v = 0;
    unsigned shift = 0;
    unsigned char b;
    do {
        if (c->bad || c->p >= c->end || shift > 63) {
            c->bad = true;
            return 0;
        }
        b = *c->p++;
        v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= (int64_t)(~(uint64_t)0 << shift);
    return v;
}

static void skip(struct cur *c, uint64_t k)
{
    if (c->bad || (uint64_t)(c->end - c->p) < k)
        c->bad = true;
    else
        c->p += k;
}

/* A pointer in encoding enc (DW_EH_PE_*): its value where the encoding is absolute or
 * pc-relative (at is the field's address), else 0; the cursor moves past it. */
static uint64_t rd_ptr(struct cur *c, unsigned enc, uint64_t at)
{
    if (enc == 0xff)
        return 0;                                   /* omitted */
    uint64_t v;
    switch (enc & 0x0f) {
    case 0x00: v = rd_n(c, 8); break;               /* absptr */
    case 0x01: v = rd_uleb(c); break;
    case 0x02: v = rd_n(c, 2); break;
    case 0x03: v = rd_n(c, 4); break;
    case 0x04: v = rd_n(c, 8); break;
    case 0x09: v = (uint64_t)rd_sleb(c); break;
    case 0x0a: v = (uint64_t)(int64_t)(int16_t)rd_n(c, 2); break;
    case 0x0b: v = (uint64_t)(int64_t)(int32_t)rd_n(c, 4); break;
    case 0x0c: v = rd_n(c, 8); break;
    default: c->bad = true; return 0;
    }
    switch (enc & 0x70) {
    case 0x00: return v;
    case 0x10: return v + at;                       /* pcrel */
    default: return 0;                              /* datarel, textrel, funcrel: unused */
    }
}

struct cie {
    unsigned fde_enc;          /* the 'R' augmentation: FDE pointer encoding */
    bool has_aug;              /* 'z': FDEs carry augmentation data */
};

/* The CIE at [p, end) (after its length and id fields), version 1, 3 or 4. */
static int read_cie(struct cur c, struct cie *cie)
{
    unsigned version = (unsigned)rd_n(&c, 1);
    if (c.bad || (version != 1 && version != 3 && version != 4))
        return -1;
    const unsigned char *aug = c.p;
    while (c.p < c.end && *c.p)
        c.p++;
    if (c.p >= c.end)
        return -1;
    size_t auglen = (size_t)(c.p - aug);
    c.p++;
    if (version == 4)
        skip(&c, 2);                                /* address and segment sizes */
    rd_uleb(&c);                                    /* code alignment */
    rd_sleb(&c);                                    /* data alignment */
    if (version == 1)
        skip(&c, 1);                                /* return address register */
    else
        rd_uleb(&c);
    cie->fde_enc = 0;
    cie->has_aug = auglen > 0 && aug[0] == 'z';
    if (!cie->has_aug)
        return c.bad || auglen > 0 ? -1 : 0;        /* an augmentation we cannot skip */
    uint64_t dlen = rd_uleb(&c);
    if (c.bad || dlen > (uint64_t)(c.end - c.p))
        return -1;
    struct cur d = {c.p, c.p + dlen, false};
    for (size_t i = 1; i < auglen; i++) {
        switch (aug[i]) {
        case 'R': cie->fde_enc = (unsigned)rd_n(&d, 1); break;
        case 'L': rd_n(&d, 1); break;
        case 'P': {
            unsigned enc = (unsigned)rd_n(&d, 1);
            rd_ptr(&d, enc & 0x7f, 0);              /* 0x80 (indirect) changes no size */
            break;
        }
        case 'S': case 'B': break;
        default: return 0;                          /* unknown: the rest is skipped by z */
        }
    }
    return d.bad ? -1 : 0;
}

/* Decodes one FDE's instructions: 1 for the rbp kind, 2 for the rsp kind, 0 for neither. */
static int fde_kind(struct cur c, unsigned enc)
{
    bool rbp = false, rsp = false, expr = false;
    while (!c.bad && c.p < c.end) {
        unsigned op = (unsigned)rd_n(&c, 1);
        switch (op >> 6) {
        case 1: continue;                           /* advance_loc */
        case 2: rd_uleb(&c); continue;              /* offset */
        case 3: continue;                           /* restore */
        default: break;
        }
        switch (op) {
        case 0x00: case 0x0a: case 0x0b: break;     /* nop, remember/restore state */
        case 0x01: rd_ptr(&c, enc, 0); break;       /* set_loc */
        case 0x02: skip(&c, 1); break;
        case 0x03: skip(&c, 2); break;
        case 0x04: skip(&c, 4); break;
        case 0x06: case 0x07: case 0x08: case 0x2e: rd_uleb(&c); break;
        case 0x05: case 0x09: case 0x14: case 0x2f: rd_uleb(&c); rd_uleb(&c); break;
        case 0x11: case 0x15: rd_uleb(&c); rd_sleb(&c); break;
        case 0x0c: case 0x12: {                     /* def_cfa, def_cfa_sf */
            uint64_t reg = rd_uleb(&c);
            if (op == 0x0c)
                rd_uleb(&c);
            else
                rd_sleb(&c);
            if (reg == 6)
                rbp = true;
            break;
        }
        case 0x0d:                                  /* def_cfa_register */
            if (rd_uleb(&c) == 6)
                rbp = true;
            break;
        case 0x0e: rd_uleb(&c); rsp = true; break;  /* def_cfa_offset */
        case 0x13: rd_sleb(&c); rsp = true; break;  /* def_cfa_offset_sf */
        case 0x0f: skip(&c, rd_uleb(&c)); expr = true; break;   /* def_cfa_expression */
        case 0x10: case 0x16: rd_uleb(&c); skip(&c, rd_uleb(&c)); break;
        default: return -1;
        }
    }
    if (c.bad)
        return -1;
    return expr ? 0 : rbp ? 1 : rsp ? 2 : 0;
}

int ehf_scan(const unsigned char *p, size_t n, uint64_t base, struct ehf_counts *cnt,
             ehf_range_fn fn, void *ctx)
{
    memset(cnt, 0, sizeof *cnt);
    struct cur c = {p, p + n, false};
    while (c.p < c.end) {
        uint64_t len = rd_n(&c, 4);
        if (c.bad)
            return -1;
        if (len == 0)
            return 0;                               /* the terminator */
        if (len == 0xffffffff) {
            len = rd_n(&c, 8);
            if (c.bad)
                return -1;
        }
        if (len > (uint64_t)(c.end - c.p))
            return -1;
        struct cur body = {c.p, c.p + len, false};
        c.p += len;
        const unsigned char *id_at = body.p;
        uint64_t id = rd_n(&body, 4);
        if (body.bad)
            return -1;
        if (id == 0)
            continue;                               /* a CIE: read when an FDE names it */
        /* An FDE: its CIE is id bytes before the id field. */
        if (id > (uint64_t)(id_at - p))
            return -1;
        const unsigned char *cp = id_at - id;
        struct cur cc = {cp, c.end, false};
        uint64_t clen = rd_n(&cc, 4);
        if (clen == 0xffffffff)
            clen = rd_n(&cc, 8);
        if (cc.bad || clen < 4 || clen > (uint64_t)(cc.end - cc.p))
            return -1;
        cc.end = cc.p + clen;
        if (rd_n(&cc, 4) != 0 || cc.bad)
            return -1;                              /* not a CIE */
        struct cie cie;
        if (read_cie(cc, &cie) < 0)
            return -1;
        uint64_t lo = rd_ptr(&body, cie.fde_enc, base + (uint64_t)(body.p - p));
        uint64_t range = rd_ptr(&body, cie.fde_enc & 0x0f, 0);
        if (cie.has_aug)
            skip(&body, rd_uleb(&body));
        if (body.bad)
            return -1;
        int k = fde_kind(body, cie.fde_enc);
        if (k < 0)
            return -1;
        cnt->fdes++;
        if (k == 1)
            cnt->rbp++;
        else if (k == 2) {
            cnt->rsp++;
            if (fn)
                fn(ctx, lo, lo + range);
        }
    }
    return 0;
}

int ehf_has_fp(const struct ehf_counts *c)
{
    return c->rbp > 0 && (uint64_t)c->rsp * 32 <= c->rbp;
}
