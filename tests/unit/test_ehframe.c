/* test_ehframe.c: the frame-pointer reading of .eh_frame that libtare-alloc.so does in the
 * measured process (src/preload/ehframe.c, compiled in here): made-up sections with known
 * kinds of functions, malformed ones, and this test's own section. */
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "preload/ehframe.c"
#include "unit.h"

/* A CIE "zR" with pc-relative sdata4 FDE pointers, then FDEs: one that keeps a frame pointer
 * (push %rbp; mov %rsp,%rbp), one that moves rsp only, the PLT's (a CFA expression), one with
 * no CFA change at all; then the terminator. */
static const unsigned char sect[] = {
    /* CIE: length 20, id 0, version 1, "zR", code 1, data -8, ra 16, aug len 1, enc 0x1b,
     * def_cfa r7 8, offset r16 1, nop nop */
    20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0,
    /* FDE 1 (rbp): length 24, CIE pointer 28 (back to offset 0), pc 0x100, range 0x40, aug 0,
     * advance 1, def_cfa_offset 16, offset r6 2, advance 3, def_cfa_register r6, nop x3 */
    24, 0, 0, 0, 28, 0, 0, 0, 0x00, 0x01, 0, 0, 0x40, 0, 0, 0, 0,
    0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0, 0, 0,
    /* FDE 2 (rsp): length 20, CIE pointer 56, pc 0x200 (relative to its field at 60), range
     * 0x10, aug 0, advance 4, def_cfa_offset 32, nop x4 */
    20, 0, 0, 0, 56, 0, 0, 0, 0xc4, 0x01, 0, 0, 0x10, 0, 0, 0, 0, 0x44, 0x0e, 32, 0, 0, 0, 0,
    /* FDE 3 (PLT): def_cfa_offset 16, then def_cfa_expression of 2 bytes */
    20, 0, 0, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0x0e, 16, 0x0f, 2, 0x77, 8, 0,
    /* FDE 4 (no change): length 16 */
    16, 0, 0, 0, 104, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0,
    /* terminator */
    0, 0, 0, 0,
};

struct ranges {
    uint64_t lo[4], hi[4];
    int n;
};

static void collect(void *ctx, uint64_t lo, uint64_t hi)
{
    struct ranges *r = ctx;
    if (r->n < 4) {
        r->lo[r->n] = lo;
        r->hi[r->n] = hi;
    }
    r->n++;
}

static void test_made_up(void)
{
    struct ehf_counts c;
    struct ranges r = {{0}, {0}, 0};
    const uint64_t base = 0x10000;
    CHECK_INT(ehf_scan(sect, sizeof sect, base, &c, collect, &r), 0);
    CHECK_INT(c.fdes, 4);
    CHECK_INT(c.rbp, 1);
    CHECK_INT(c.rsp, 1);
    CHECK_INT(r.n, 1);
    /* the rsp function's range: its pc field sits at offset 60, pc-relative 0x1c4 */
    CHECK_INT(r.lo[0], base + 60 + 0x1c4);
    CHECK_INT(r.hi[0] - r.lo[0], 0x10);
    CHECK(!ehf_has_fp(&c));                    /* one in two without: not a frame-pointer build */
    struct ehf_counts many = {100, 97, 3};
    CHECK(ehf_has_fp(&many));
    struct ehf_counts few = {100, 60, 40};
    CHECK(!ehf_has_fp(&few));
}

static void test_malformed(void)
{
    unsigned char b[sizeof sect];
    struct ehf_counts c;
    /* every cut of the section is read without going past its end */
    for (size_t n = 0; n < sizeof sect; n++) {
        int rc = ehf_scan(sect, n, 0, &c, NULL, NULL);
        CHECK(rc == 0 || rc == -1);
        CHECK(c.fdes <= 4);
    }
    memcpy(b, sect, sizeof b);
    b[28] = 200;                               /* FDE 1's CIE pointer before the section */
    CHECK_INT(ehf_scan(b, sizeof b, 0, &c, NULL, NULL), -1);
    memcpy(b, sect, sizeof b);
    b[8] = 2;                                  /* CIE version 2 */
    CHECK_INT(ehf_scan(b, sizeof b, 0, &c, NULL, NULL), -1);
    memcpy(b, sect, sizeof b);
    b[24 + 17] = 0x3f;                         /* an unknown CFA opcode */
    CHECK_INT(ehf_scan(b, sizeof b, 0, &c, NULL, NULL), -1);
    memcpy(b, sect, sizeof b);
    b[0] = 0xff, b[1] = 0xff, b[2] = 0xff, b[3] = 0xff;   /* a 64-bit length past the end */
    CHECK_INT(ehf_scan(b, sizeof b, 0, &c, NULL, NULL), -1);
    unsigned char leb[] = {8, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80};   /* runs on */
    CHECK_INT(ehf_scan(leb, sizeof leb, 0, &c, NULL, NULL), 0);
}

static unsigned hdr_fdes;   /* the FDE count .eh_frame_hdr's search table gives */

static int own(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct ehf_counts *c = arg;
    const unsigned char *hdr = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
            hdr = (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!hdr || hdr[1] != 0x1b || hdr[2] != 0x03)
        return 1;
    memcpy(&hdr_fdes, hdr + 8, 4);
    int32_t rel;
    memcpy(&rel, hdr + 4, 4);
    const unsigned char *eh = hdr + 4 + rel;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const unsigned char *lo = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_LOAD && eh >= lo && eh < lo + ph->p_filesz)
            ehf_scan(eh, (size_t)(lo + ph->p_filesz - eh), (uintptr_t)eh, c, NULL, NULL);
    }
    return 1;
}

static void test_self(void)
{
    /* this binary's own section is read whole: every FDE its search table lists (which kind
     * they are depends on the build: frame pointers are kept under the sanitizers) */
    struct ehf_counts c = {0, 0, 0};
    dl_iterate_phdr(own, &c);
    CHECK(c.fdes >= 10);
    CHECK_INT(c.fdes, hdr_fdes);
    CHECK(c.rbp + c.rsp > 0);
}

int main(void)
{
    test_made_up();
    test_malformed();
    test_self();
    return unit_done("test_ehframe");
}
