/* elfsym.h: the function symbols of an ELF object, to name the addresses of a recorded stack.
 *
 * An address in a mapped file is turned into the file offset (from /proc/PID/maps), the
 * offset into the ELF virtual address through the PT_LOAD program headers, and that into the
 * function whose symbol covers it: .symtab where the object has one, else its debug file under
 * /usr/lib/debug/.build-id/ (Debian's -dbgsym packages), else .dynsym. Only sized function
 * symbols count, so that an address in a stripped object's static function is never given the
 * name of the exported function before it. Every offset read from the file is checked
 * (tests/fuzz/fuzz_elfsym.c).
 */
#ifndef TARE_ELFSYM_H
#define TARE_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

struct elfsym_fn {
    uint64_t lo, hi;        /* [lo, hi): virtual addresses */
    uint32_t name;          /* offset into names */
};

struct elfsym_load {
    uint64_t offset, vaddr, filesz;
};

struct elfsym {
    struct elfsym_fn *fns;  /* sorted by lo */
    size_t nfns;
    char *names;
    size_t names_len;
    struct elfsym_load *loads;
    size_t nloads;
    const char *table;      /* ".symtab", ".dynsym", "debug .symtab" or "none" */
};

/* Reads the symbols of the ELF image buf[0..len) (x86-64, little-endian, 64-bit): 0, or -1
 * with e set (ERR_INPUT: not such an ELF file, or an offset out of the file). An object with
 * no symbol table at all is not an error: s->nfns is 0. */
int elfsym_parse(const unsigned char *buf, size_t len, struct elfsym *s, struct err *e);

/* Reads path (and its debug file when it has no .symtab of its own). */
int elfsym_load(const char *path, struct elfsym *s, struct err *e);

/* Frees what s holds. */
void elfsym_free(struct elfsym *s);

/* The virtual address of a file offset (through PT_LOAD), or UINT64_MAX when no segment maps
 * it. */
uint64_t elfsym_vaddr(const struct elfsym *s, uint64_t file_offset);

/* The name of the function that covers vaddr, or NULL. */
const char *elfsym_lookup(const struct elfsym *s, uint64_t vaddr);

#endif
