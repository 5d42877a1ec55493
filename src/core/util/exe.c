/* exe.c: PATH lookup and the ELF program-header check for PT_INTERP. */
#include "core/util/exe.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int exe_find(const char *name, char *out, size_t n, struct err *e)
{
    if (!name[0])
        return err_set(e, ERR_INPUT, "empty command name");
    if (strchr(name, '/')) {
        if ((size_t)snprintf(out, n, "%s", name) >= n)
            return err_set(e, ERR_INPUT, "'%s': path too long", name);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !path[0])
        path = "/usr/local/bin:/bin:/usr/bin";
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        struct stat st;
        if ((size_t)snprintf(out, n, "%.*s%s%s", (int)len, p, len ? "/" : "", name) < n &&
            stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        if (!colon)
            break;
        p = colon + 1;
    }
    return err_set(e, ERR_INPUT, "'%s': command not found", name);
}

static int elf_kind(int fd, const char *path, enum exe_link *kind, struct err *e)
{
    Elf64_Ehdr h;
    if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
        memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) {
        *kind = EXE_OTHER;
        return 0;
    }
    bool is64 = h.e_ident[EI_CLASS] == ELFCLASS64;
    if (!is64 && h.e_ident[EI_CLASS] != ELFCLASS32)
        return err_set(e, ERR_INPUT, "'%s': unknown ELF class", path);
    unsigned phnum, phentsize;
    unsigned long long phoff;
    if (is64) {
        phoff = h.e_phoff;
        phnum = h.e_phnum;
        phentsize = h.e_phentsize;
    } else {
        Elf32_Ehdr h32;
        memcpy(&h32, &h, sizeof h32);
        phoff = h32.e_phoff;
        phnum = h32.e_phnum;
        phentsize = h32.e_phentsize;
    }
    if (phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || phnum > 65535)
        return err_set(e, ERR_INPUT, "'%s': bad ELF program headers", path);
    *kind = EXE_STATIC;
    for (unsigned i = 0; i < phnum; i++) {
        unsigned char ph[sizeof(Elf64_Phdr)];
        if (pread(fd, ph, phentsize < sizeof ph ? phentsize : sizeof ph,
                  (off_t)(phoff + (unsigned long long)i * phentsize)) <= 0)
            return err_set(e, ERR_INPUT, "'%s': truncated ELF program headers", path);
        uint32_t type;
        memcpy(&type, ph, sizeof type);   /* p_type comes first in both classes */
        if (type == PT_INTERP) {
            *kind = EXE_DYNAMIC;
            break;
        }
    }
    return 0;
}

int exe_link_kind(const char *path, enum exe_link *kind, char *interp, size_t n, struct err *e)
{
    interp[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_errno(e, ERR_INPUT, errno, "cannot open '%s'", path);
    char head[256];
    ssize_t got = pread(fd, head, sizeof head - 1, 0);
    int rc = 0;
    if (got >= 2 && head[0] == '#' && head[1] == '!') {
        head[got] = '\0';
        char *s = head + 2;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strcspn(s, " \t\n");
        close(fd);
        if (len == 0 || len >= n) {
            *kind = EXE_OTHER;
            return 0;
        }
        memcpy(interp, s, len);
        interp[len] = '\0';
        char again[8];
        fd = open(interp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || pread(fd, again, 2, 0) != 2 || (again[0] == '#' && again[1] == '!')) {
            if (fd >= 0)
                close(fd);
            *kind = EXE_OTHER;     /* nested or missing interpreters: let exec decide */
            return 0;
        }
        rc = elf_kind(fd, interp, kind, e);
    } else {
        rc = elf_kind(fd, path, kind, e);
    }
    close(fd);
    return rc;
}
