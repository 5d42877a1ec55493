/* ehframe.h: which functions of an object keep a frame pointer, read from its .eh_frame.
 *
 * The stack recording of libtare-alloc.so walks frame pointers (rbp) where the code keeps
 * them and asks libunwind elsewhere. A function that keeps one says so in its call frame
 * information: after `push %rbp; mov %rsp,%rbp` its CFA is defined by rbp (DW_CFA_def_cfa_register
 * r6). One that does not moves its CFA with rsp only (DW_CFA_def_cfa_offset). This reader
 * goes through the CIEs and FDEs of a .eh_frame section in memory, decodes each FDE's
 * instructions and counts both kinds; FDEs with a CFA expression (the PLT's) count as
 * neither. Pure: no allocation, no libc but memcpy; every read is bounds-checked, so that a
 * malformed section can never make it read out of [p, p + n) (tests/fuzz/fuzz_ehframe.c).
 */
#ifndef TARE_EHFRAME_H
#define TARE_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

struct ehf_counts {
    unsigned fdes;    /* FDEs read */
    unsigned rbp;     /* whose CFA moves to rbp: the function keeps a frame pointer */
    unsigned rsp;     /* whose CFA follows rsp only: it does not */
};

/* Called for each FDE of the rsp kind with its code range [lo, hi) (addresses: base is the
 * address p[0] has in memory, for the pc-relative encodings); may be NULL. */
typedef void (*ehf_range_fn)(void *ctx, uint64_t lo, uint64_t hi);

/* Reads the .eh_frame bytes [p, p + n) up to a zero terminator or the end. Returns 0, or -1
 * on a malformed entry (the counts of the entries before it stay in c). */
int ehf_scan(const unsigned char *p, size_t n, uint64_t base, struct ehf_counts *c,
             ehf_range_fn fn, void *ctx);

/* Whether an object with these counts is taken as built with frame pointers: some FDEs of
 * the rbp kind and at most one in 32 of the rsp kind (those are then walked by libunwind). */
int ehf_has_fp(const struct ehf_counts *c);

#endif
