/* toolchain.c: the compiler of an ELF program, read from its .comment section. Every offset
 * and size in the file is checked against the image before it is used: bad ELF is input. */
#include "core/profile/toolchain.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/exe.h"

struct image {
    const unsigned char *p;
    size_t len;
    bool is64, big;
};

/* An unsigned field of size bytes at off, or false when it lies outside the image. */
static bool get(const struct image *im, uint64_t off, int size, uint64_t *v)
{
    if (off > im->len || (uint64_t)size > im->len - off)
        return false;
    uint64_t x = 0;
    for (int i = 0; i < size; i++) {
        unsigned b = im->p[off + (im->big ? i : size - 1 - i)];
        x = x << 8 | b;
    }
    *v = x;
    return true;
}

/* Fields of section header i: name, offset, size (and link, for the extended index). */
static bool section(const struct image *im, uint64_t shoff, uint64_t shentsize, uint64_t i,
                    uint64_t *name, uint64_t *off, uint64_t *size, uint64_t *link)
{
    if (i > (UINT64_MAX - shoff) / shentsize)
        return false;
    uint64_t base = shoff + i * shentsize;
    if (im->is64)
        return get(im, base, 4, name) && get(im, base + 24, 8, off) &&
               get(im, base + 32, 8, size) && get(im, base + 40, 4, link);
    return get(im, base, 4, name) && get(im, base + 16, 4, off) && get(im, base + 20, 4, size) &&
           get(im, base + 24, 4, link);
}

/* Copies the version that starts at s (digits and dots, at most max bytes) after prefix. */
static bool version_at(const char *s, const char *end, const char *prefix, char *out, size_t n)
{
    size_t k = 0;
    while (s + k < end && ((s[k] >= '0' && s[k] <= '9') || s[k] == '.'))
        k++;
    if (k == 0 || !(s[0] >= '0' && s[0] <= '9'))
        return false;
    while (k > 0 && s[k - 1] == '.')
        k--;
    return (size_t)snprintf(out, n, "%s %.*s", prefix, (int)k, s) < n;
}

/* Finds needle in [s, end) (not NUL-terminated). */
static const char *find(const char *s, const char *end, const char *needle)
{
    size_t nl = strlen(needle);
    for (; (size_t)(end - s) >= nl; s++)
        if (memcmp(s, needle, nl) == 0)
            return s;
    return NULL;
}

/* Compares dotted versions numerically ("12.2.0" > "9.4.0"); both only digits and dots. */
static int version_cmp(const char *a, const char *b)
{
    while (*a || *b) {
        char *ea, *eb;
        unsigned long x = strtoul(a, &ea, 10), y = strtoul(b, &eb, 10);
        if (x != y)
            return x < y ? -1 : 1;
        if (ea == a && eb == b && *a != '.' && *b != '.')
            break;
        a = *ea == '.' ? ea + 1 : ea;
        b = *eb == '.' ? eb + 1 : eb;
    }
    return 0;
}

/* One .comment string: the toolchain it names into out, with a rank (2 clang/rustc, 1 gcc). */
static int one_comment(const char *s, const char *end, char *out, size_t n)
{
    const char *p;
    if ((p = find(s, end, "clang version ")) && version_at(p + 14, end, "clang", out, n))
        return 2;
    if ((p = find(s, end, "rustc version ")) && version_at(p + 14, end, "rustc", out, n))
        return 2;
    if ((size_t)(end - s) >= 5 && memcmp(s, "GCC: ", 5) == 0) {
        p = s + 5;
        if (p < end && *p == '(') {
            /* The vendor string may hold parentheses of its own: the version follows the ')'
             * that closes the first '('. */
            int depth = 0;
            for (; p < end; p++) {
                if (*p == '(')
                    depth++;
                else if (*p == ')' && --depth == 0)
                    break;
            }
            if (p >= end)
                return 0;
            p++;
            while (p < end && *p == ' ')
                p++;
        }
        if (version_at(p, end, "gcc", out, n))
            return 1;
    }
    return 0;
}

int toolchain_from_elf(const unsigned char *buf, size_t len, char *out, size_t n)
{
    if (n)
        out[0] = '\0';
    if (len < 52 || memcmp(buf, "\177ELF", 4) != 0 || (buf[4] != 1 && buf[4] != 2) ||
        (buf[5] != 1 && buf[5] != 2))
        return 0;
    struct image im = {.p = buf, .len = len, .is64 = buf[4] == 2, .big = buf[5] == 2};
    uint64_t shoff, shentsize, shnum, shstrndx;
    bool ok = im.is64 ? get(&im, 0x28, 8, &shoff) && get(&im, 0x3a, 2, &shentsize) &&
                            get(&im, 0x3c, 2, &shnum) && get(&im, 0x3e, 2, &shstrndx)
                      : get(&im, 0x20, 4, &shoff) && get(&im, 0x2e, 2, &shentsize) &&
                            get(&im, 0x30, 2, &shnum) && get(&im, 0x32, 2, &shstrndx);
    if (!ok || shoff == 0 || shentsize < (im.is64 ? 64u : 40u))
        return 0;
    uint64_t name, off, size, link;
    /* Many sections: the count and the string table's index move into section 0. */
    if (shnum == 0 || shstrndx == 0xffff) {
        if (!section(&im, shoff, shentsize, 0, &name, &off, &size, &link))
            return 0;
        if (shnum == 0)
            shnum = size;
        if (shstrndx == 0xffff)
            shstrndx = link;
    }
    if (shnum > (len - (shoff < len ? shoff : len)) / shentsize)
        return 0;   /* more headers than the file holds */
    uint64_t stroff, strsize;
    if (shstrndx >= shnum ||
        !section(&im, shoff, shentsize, shstrndx, &name, &stroff, &strsize, &link) ||
        stroff > len || strsize > len - stroff)
        return 0;
    int best = 0;
    char cand[64];
    for (uint64_t i = 0; i < shnum; i++) {
        if (!section(&im, shoff, shentsize, i, &name, &off, &size, &link))
            return 0;
        if (name >= strsize || strsize - name < 9 ||
            memcmp(buf + stroff + name, ".comment", 9) != 0)
            continue;
        if (off > len || size > len - off)
            continue;
        const char *s = (const char *)buf + off, *end = s + size;
        while (s < end) {
            const char *z = memchr(s, '\0', end - s);
            const char *e = z ? z : end;
            int rank = one_comment(s, e, cand, sizeof cand);
            /* Clang or rustc over gcc; among gcc's, the newest (the C library's start files
             * may come from an older compiler than the program's own code). */
            if (rank > best || (rank == 1 && best == 1 && version_cmp(cand + 4, out + 4) > 0)) {
                if ((size_t)snprintf(out, n, "%s", cand) < n) {
                    best = rank;
                } else {
                    if (n)
                        out[0] = '\0';
                    best = 0;
                }
            }
            s = e + 1;
        }
    }
    return best > 0;
}

int toolchain_of_command(const char *cmd, const char *dir, char *out, size_t n, struct err *e)
{
    if (n)
        out[0] = '\0';
    char path[4096], rel[4096];
    if (strchr(cmd, '/') && cmd[0] != '/' && dir) {
        if ((size_t)snprintf(rel, sizeof rel, "%s/%s", dir, cmd) >= sizeof rel)
            return err_set(e, ERR_INPUT, "'%s': path too long", cmd);
        cmd = rel;
    }
    if (exe_find(cmd, path, sizeof path, e) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_errno(e, ERR_INPUT, errno, "cannot open '%s'", path);
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int en = errno;
        close(fd);
        return err_errno(e, ERR_INPUT, en, "cannot read '%s'", path);
    }
    if (!S_ISREG(st.st_mode) || st.st_size < 52) {
        close(fd);
        return 0;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return err_errno(e, ERR_INPUT, errno, "cannot read '%s'", path);
    int r = toolchain_from_elf(m, (size_t)st.st_size, out, n);
    munmap(m, (size_t)st.st_size);
    return r;
}
