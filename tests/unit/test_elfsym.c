/* test_elfsym.c: function symbols of real ELF objects (this test's own binary, glibc) by
 * address, file offsets to addresses, and malformed files refused without a crash. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/elfsym.h"
#include "unit.h"

/* Not static: the test finds it in the binary's symbol table by name. */
int elfsym_test_marker(int x);
__attribute__((noinline)) int elfsym_test_marker(int x)
{
    return x * 3 + 1;
}

static int main_base(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uintptr_t *)arg = info->dlpi_addr;   /* the first object is the program */
    return 1;
}

static void test_self(void)
{
    struct elfsym s;
    struct err e = {0};
    CHECK_INT(elfsym_load("/proc/self/exe", &s, &e), 0);
    CHECK_STR(s.table, ".symtab");
    uintptr_t base = 0;
    dl_iterate_phdr(main_base, &base);
    uint64_t v = (uintptr_t)elfsym_test_marker - base;
    CHECK_STR(elfsym_lookup(&s, v), "elfsym_test_marker");
    CHECK_STR(elfsym_lookup(&s, v + 1), "elfsym_test_marker");
    CHECK(elfsym_lookup(&s, 0) == NULL);
    /* a file offset inside a loaded segment maps to the segment's address plus the rest */
    CHECK(s.nloads > 0);
    const struct elfsym_load *l = &s.loads[s.nloads > 1 ? 1 : 0];
    CHECK_INT(elfsym_vaddr(&s, l->offset + 5), l->vaddr + 5);
    CHECK(elfsym_vaddr(&s, UINT64_MAX - 1) == UINT64_MAX);
    for (size_t i = 1; i < s.nfns; i++)
        CHECK(s.fns[i - 1].lo < s.fns[i].lo);
    elfsym_free(&s);
}

static void test_glibc(void)
{
    Dl_info info;
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);   /* glibc's, not a sanitizer's */
    void *fn = libc ? dlsym(libc, "pthread_create") : NULL;
    CHECK(fn && dladdr(fn, &info));
    if (!fn || !info.dli_fname)
        return;
    struct elfsym s;
    struct err e = {0};
    CHECK_INT(elfsym_load(info.dli_fname, &s, &e), 0);
    /* versioned names lose their version: "pthread_create@@GLIBC_2.34" is pthread_create */
    CHECK_STR(elfsym_lookup(&s, (uintptr_t)fn - (uintptr_t)info.dli_fbase + 4), "pthread_create");
    elfsym_free(&s);
}

static void bad(const unsigned char *b, size_t n, const char *want)
{
    struct elfsym s;
    struct err e = {0};
    CHECK_INT(elfsym_parse(b, n, &s, &e), -1);
    CHECK(strstr(e.msg, want) != NULL);
    if (!strstr(e.msg, want))
        printf("#   got: %s\n", e.msg);
    CHECK(s.fns == NULL && s.nfns == 0);
}

static void test_malformed(void)
{
    static unsigned char b[4096] __attribute__((aligned(8)));
    bad((const unsigned char *)"\x7f" "ELF", 4, "not an ELF file");
    memset(b, 0, sizeof b);
    Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS32;
    bad(b, sizeof b, "not a 64-bit little-endian ELF file");
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_phnum = 2;
    eh->e_phentsize = sizeof(Elf64_Phdr);
    eh->e_phoff = 4090;
    bad(b, sizeof b, "program headers out of the file");
    eh->e_phnum = 0;
    eh->e_shnum = 3;
    eh->e_shentsize = sizeof(Elf64_Shdr);
    eh->e_shoff = sizeof b - 64;
    bad(b, sizeof b, "section headers out of the file");
    /* a symbol table whose string table is section 9 of 2 */
    eh->e_shnum = 2;
    eh->e_shoff = 1024;
    Elf64_Shdr *sh = (Elf64_Shdr *)(b + 1024);
    sh[1].sh_type = SHT_SYMTAB;
    sh[1].sh_link = 9;
    sh[1].sh_entsize = sizeof(Elf64_Sym);
    bad(b, sizeof b, "symbol table out of the file");
    /* a valid one: one function, a name not terminated in its table is skipped */
    sh[1].sh_link = 0;
    sh[0].sh_offset = 2048;
    sh[0].sh_size = 8;
    memcpy(b + 2048, "\0fn\0gh", 6);                   /* "gh" runs to the table's end */
    sh[1].sh_offset = 3072;
    sh[1].sh_size = 3 * sizeof(Elf64_Sym);
    Elf64_Sym *sym = (Elf64_Sym *)(b + 3072);
    sym[1] = (Elf64_Sym){1, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, 0x400, 0x20};
    sym[2] = (Elf64_Sym){4, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, 0x500, 0x20};
    memcpy(b + 2048 + 4, "ghij", 4);
    struct elfsym s;
    struct err e = {0};
    CHECK_INT(elfsym_parse(b, sizeof b, &s, &e), 0);
    CHECK_INT(s.nfns, 1);
    CHECK_STR(elfsym_lookup(&s, 0x410), "fn");
    CHECK(elfsym_lookup(&s, 0x420) == NULL);
    CHECK(elfsym_lookup(&s, 0x510) == NULL);
    elfsym_free(&s);
}

int main(void)
{
    test_self();
    test_glibc();
    test_malformed();
    return unit_done("test_elfsym");
}
