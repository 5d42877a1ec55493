/* elfsym.c: function symbols of an ELF object, by virtual address (see elfsym.h). */
#define _GNU_SOURCE
#include "core/profile/elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool in_file(uint64_t off, uint64_t size, size_t len)
{
    return off <= len && size <= len - off;
}

static int bind_rank(unsigned char info)
{
    switch (ELF64_ST_BIND(info)) {
    case STB_GLOBAL: return 0;
    case STB_WEAK: return 1;
    default: return 2;
    }
}

struct cand {
    uint64_t lo, hi;
    const char *name;
    size_t len;
    int rank;
};

static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->rank != y->rank)      /* at one address: global, then weak, then local */
        return x->rank - y->rank;
    if (x->len != y->len)        /* then the shortest name: strdup, not __strdup */
        return x->len < y->len ? -1 : 1;
    return memcmp(x->name, y->name, x->len);
}

/* The section headers, checked: NULL (and e set) when they do not fit in the file. */
static const Elf64_Shdr *sections(const unsigned char *buf, size_t len, const Elf64_Ehdr *eh,
                                  struct err *e)
{
    if (eh->e_shoff == 0 || eh->e_shnum == 0)
        return (const Elf64_Shdr *)buf;           /* none: nshdr is 0 below */
    if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), len) ||
        eh->e_shoff % 8) {
        err_set(e, ERR_INPUT, "section headers out of the file");
        return NULL;
    }
    return (const Elf64_Shdr *)(buf + eh->e_shoff);
}

/* The symbols of the table sh (its strings in section sh_link) into s. */
static int read_table(const unsigned char *buf, size_t len, const Elf64_Shdr *sh,
                      unsigned nsh, const Elf64_Shdr *tab, struct elfsym *s, struct err *e)
{
    if (tab->sh_link >= nsh || tab->sh_entsize != sizeof(Elf64_Sym) ||
        !in_file(tab->sh_offset, tab->sh_size, len) || tab->sh_offset % 8)
        return err_set(e, ERR_INPUT, "symbol table out of the file");
    const Elf64_Shdr *str = &sh[tab->sh_link];
    if (!in_file(str->sh_offset, str->sh_size, len))
        return err_set(e, ERR_INPUT, "string table out of the file");
    const char *strs = (const char *)buf + str->sh_offset;
    size_t nsym = tab->sh_size / sizeof(Elf64_Sym);
    const Elf64_Sym *sym = (const Elf64_Sym *)(buf + tab->sh_offset);
    struct cand *c = malloc((nsym ? nsym : 1) * sizeof *c);
    if (!c)
        return err_set(e, ERR_SYSTEM, "out of memory");
    size_t nc = 0, total = 0;
    for (size_t i = 0; i < nsym; i++) {
        unsigned type = ELF64_ST_TYPE(sym[i].st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym[i].st_shndx == SHN_UNDEF ||
            sym[i].st_size == 0 || sym[i].st_name >= str->sh_size ||
            sym[i].st_value + sym[i].st_size < sym[i].st_value)
            continue;
        const char *name = strs + sym[i].st_name;
        size_t n = strnlen(name, str->sh_size - sym[i].st_name);
        if (n == str->sh_size - sym[i].st_name || n == 0)
            continue;                              /* not NUL-terminated in the table */
        const char *at = memchr(name, '@', n);     /* "pthread_create@@GLIBC_2.34" */
        if (at == name)
            continue;
        if (at)
            n = (size_t)(at - name);
        c[nc++] = (struct cand){sym[i].st_value, sym[i].st_value + sym[i].st_size, name, n,
                                bind_rank(sym[i].st_info)};
    }
    qsort(c, nc, sizeof *c, cmp_cand);
    size_t keep = 0;
    for (size_t i = 0; i < nc; i++)
        if (keep == 0 || c[keep - 1].lo != c[i].lo) {
            c[keep++] = c[i];
            total += c[i].len + 1;
        }
    s->fns = malloc((keep ? keep : 1) * sizeof *s->fns);
    s->names = malloc(total ? total : 1);
    if (!s->fns || !s->names) {
        free(c);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    size_t at = 0;
    for (size_t i = 0; i < keep; i++) {
        s->fns[i] = (struct elfsym_fn){c[i].lo, c[i].hi, (uint32_t)at};
        memcpy(s->names + at, c[i].name, c[i].len);
        s->names[at + c[i].len] = '\0';
        at += c[i].len + 1;
    }
    s->nfns = keep;
    s->names_len = at;
    free(c);
    return 0;
}

static const Elf64_Ehdr *header(const unsigned char *buf, size_t len, struct err *e)
{
    if (len < sizeof(Elf64_Ehdr) || memcmp(buf, ELFMAG, SELFMAG) != 0) {
        err_set(e, ERR_INPUT, "not an ELF file");
        return NULL;
    }
    if (buf[EI_CLASS] != ELFCLASS64 || buf[EI_DATA] != ELFDATA2LSB) {
        err_set(e, ERR_INPUT, "not a 64-bit little-endian ELF file");
        return NULL;
    }
    return (const Elf64_Ehdr *)buf;
}

int elfsym_parse(const unsigned char *buf, size_t len, struct elfsym *s, struct err *e)
{
    memset(s, 0, sizeof *s);
    s->table = "none";
    const Elf64_Ehdr *eh = header(buf, len, e);
    if (!eh)
        return -1;
    if (eh->e_phnum) {
        if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff % 8 ||
            !in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), len))
            return err_set(e, ERR_INPUT, "program headers out of the file");
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
        s->loads = malloc(eh->e_phnum * sizeof *s->loads);
        if (!s->loads)
            return err_set(e, ERR_SYSTEM, "out of memory");
        for (unsigned i = 0; i < eh->e_phnum; i++)
            if (ph[i].p_type == PT_LOAD)
                s->loads[s->nloads++] =
                    (struct elfsym_load){ph[i].p_offset, ph[i].p_vaddr, ph[i].p_filesz};
    }
    const Elf64_Shdr *sh = sections(buf, len, eh, e);
    if (!sh)
        goto fail;
    unsigned nsh = eh->e_shoff ? eh->e_shnum : 0;
    const Elf64_Shdr *symtab = NULL, *dynsym = NULL;
    for (unsigned i = 0; i < nsh; i++) {
        if (sh[i].sh_type == SHT_SYMTAB && !symtab)
            symtab = &sh[i];
        else if (sh[i].sh_type == SHT_DYNSYM && !dynsym)
            dynsym = &sh[i];
    }
    const Elf64_Shdr *tab = symtab ? symtab : dynsym;
    if (tab) {
        if (read_table(buf, len, sh, nsh, tab, s, e) < 0)
            goto fail;
        s->table = symtab ? ".symtab" : ".dynsym";
    }
    return 0;
fail:
    elfsym_free(s);
    return -1;
}

/* The GNU build id of buf as lowercase hex into out (at least 2 * 64 + 1), or "". */
static void build_id(const unsigned char *buf, size_t len, char *out)
{
    out[0] = '\0';
    struct err e;
    const Elf64_Ehdr *eh = header(buf, len, &e);
    if (!eh)
        return;
    const Elf64_Shdr *sh = sections(buf, len, eh, &e);
    unsigned nsh = sh && eh->e_shoff ? eh->e_shnum : 0;
    for (unsigned i = 0; i < nsh; i++) {
        if (sh[i].sh_type != SHT_NOTE || !in_file(sh[i].sh_offset, sh[i].sh_size, len))
            continue;
        const unsigned char *p = buf + sh[i].sh_offset, *end = p + sh[i].sh_size;
        while (end - p >= 12) {
            uint32_t nsz, dsz, type;
            memcpy(&nsz, p, 4);
            memcpy(&dsz, p + 4, 4);
            memcpy(&type, p + 8, 4);
            uint64_t nal = ((uint64_t)nsz + 3) & ~3ull, dal = ((uint64_t)dsz + 3) & ~3ull;
            if ((uint64_t)(end - p - 12) < nal + dal)
                break;
            if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(p + 12, "GNU", 4) == 0 &&
                dsz > 0 && dsz <= 64) {
                for (uint32_t k = 0; k < dsz; k++)
                    snprintf(out + 2 * k, 3, "%02x", p[12 + nal + k]);
                return;
            }
            p += 12 + nal + dal;
        }
    }
}

/* path mapped read-only: *len bytes at the returned address, or NULL with e set. */
static unsigned char *map_file(const char *path, size_t *len, struct err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err_errno(e, ERR_INPUT, errno, "cannot read '%s'", path);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        err_set(e, ERR_INPUT, "'%s' is not a regular, non-empty file", path);
        return NULL;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        err_errno(e, ERR_INPUT, errno, "cannot map '%s'", path);
        return NULL;
    }
    *len = (size_t)st.st_size;
    return m;
}

int elfsym_load(const char *path, struct elfsym *s, struct err *e)
{
    size_t len;
    unsigned char *m = map_file(path, &len, e);
    if (!m) {
        memset(s, 0, sizeof *s);
        s->table = "none";
        return -1;
    }
    int rc = elfsym_parse(m, len, s, e);
    char id[2 * 64 + 1];
    if (rc == 0 && strcmp(s->table, ".symtab") != 0)
        build_id(m, len, id);
    else
        id[0] = '\0';
    munmap(m, len);
    if (rc < 0) {
        err_prefix(e, "'%s'", path);
        return -1;
    }
    if (id[0] && strlen(id) > 2) {
        char dpath[512];
        snprintf(dpath, sizeof dpath, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
        struct err de;
        size_t dlen;
        unsigned char *d = access(dpath, R_OK) == 0 ? map_file(dpath, &dlen, &de) : NULL;
        struct elfsym ds;
        if (d && elfsym_parse(d, dlen, &ds, &de) == 0 && strcmp(ds.table, ".symtab") == 0 &&
            ds.nfns) {
            free(s->fns);
            free(s->names);
            s->fns = ds.fns;
            s->nfns = ds.nfns;
            s->names = ds.names;
            s->names_len = ds.names_len;
            s->table = "debug .symtab";
            free(ds.loads);
        } else if (d) {
            elfsym_free(&ds);
        }
        if (d)
            munmap(d, dlen);
    }
    return 0;
}

void elfsym_free(struct elfsym *s)
{
    free(s->fns);
    free(s->names);
    free(s->loads);
    memset(s, 0, sizeof *s);
    s->table = "none";
}

uint64_t elfsym_vaddr(const struct elfsym *s, uint64_t off)
{
    for (size_t i = 0; i < s->nloads; i++) {
        const struct elfsym_load *l = &s->loads[i];
        if (off >= l->offset && off - l->offset < l->filesz)
            return l->vaddr + (off - l->offset);
    }
    return UINT64_MAX;
}

const char *elfsym_lookup(const struct elfsym *s, uint64_t vaddr)
{
    size_t lo = 0, hi = s->nfns;
    while (lo < hi) {                /* the first function starting above vaddr */
        size_t mid = lo + (hi - lo) / 2;
        if (s->fns[mid].lo <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct elfsym_fn *f = &s->fns[lo - 1];
    return vaddr < f->hi ? s->names + f->name : NULL;
}
