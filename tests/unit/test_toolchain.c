/* test_toolchain.c: the compiler named in an ELF .comment section: images built here in
 * both classes and byte orders, broken ones, and the fixture programs the test run built. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/profile/toolchain.h"
#include "unit.h"

static void put(unsigned char *p, uint64_t v, int size, int big)
{
    for (int i = 0; i < size; i++)
        p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* An ELF image with three sections (null, .shstrtab, .comment holding clen bytes). */
static size_t make_elf(unsigned char *b, int is64, int big, const char *comment, size_t clen)
{
    static const char strtab[] = "\0.shstrtab\0.comment";   /* names at 1 and 11 */
    memset(b, 0, 4096);
    memcpy(b, "\177ELF", 4);
    b[4] = is64 ? 2 : 1;
    b[5] = big ? 2 : 1;
    b[6] = 1;
    size_t ehsize = is64 ? 64 : 52, shentsize = is64 ? 64 : 40;
    size_t stroff = ehsize, coff = stroff + sizeof strtab;
    size_t shoff = (coff + clen + 7) & ~(size_t)7;
    memcpy(b + stroff, strtab, sizeof strtab);
    memcpy(b + coff, comment, clen);
    if (is64) {
        put(b + 0x28, shoff, 8, big);
        put(b + 0x3a, shentsize, 2, big);
        put(b + 0x3c, 3, 2, big);
        put(b + 0x3e, 1, 2, big);
    } else {
        put(b + 0x20, shoff, 4, big);
        put(b + 0x2e, shentsize, 2, big);
        put(b + 0x30, 3, 2, big);
        put(b + 0x32, 1, 2, big);
    }
    size_t offs[3] = {0, stroff, coff}, sizes[3] = {0, sizeof strtab, clen}, names[3] = {0, 1, 11};
    for (int i = 0; i < 3; i++) {
        unsigned char *h = b + shoff + i * shentsize;
        put(h, names[i], 4, big);
        if (is64) {
            put(h + 24, offs[i], 8, big);
            put(h + 32, sizes[i], 8, big);
        } else {
            put(h + 16, offs[i], 4, big);
            put(h + 20, sizes[i], 4, big);
        }
    }
    return shoff + 3 * shentsize;
}

static const char *tc(const char *comment, size_t clen, int is64, int big, char *out)
{
    static unsigned char b[4096];
    size_t len = make_elf(b, is64, big, comment, clen);
    if (toolchain_from_elf(b, len, out, 64) != 1)
        return "(none)";
    return out;
}

#define C(s) s, sizeof s

int main(void)
{
    char out[64];
    /* The forms compilers write. */
    CHECK_STR(tc(C("GCC: (Debian 12.2.0-14) 12.2.0"), 1, 0, out), "gcc 12.2.0");
    CHECK_STR(tc(C("GCC: (GNU) 11.2.1 20211203 (Red Hat 11.2.1-7)"), 1, 0, out), "gcc 11.2.1");
    CHECK_STR(tc(C("GCC: (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0"), 1, 0, out), "gcc 9.4.0");
    CHECK_STR(tc(C("GCC: (crosstool-NG (x) 1.2) 10.3.0"), 1, 0, out), "gcc 10.3.0");
    CHECK_STR(tc(C("GCC: 4.8.5"), 1, 0, out), "gcc 4.8.5");
    /* A clang program also holds the C library's start files, built by gcc; and a linker note. */
    CHECK_STR(
        tc(C("GCC: (Debian 12.2.0-14) 12.2.0\0Debian clang version 14.0.6\0Linker: LLD 14.0.6"), 1,
           0, out),
        "clang 14.0.6");
    CHECK_STR(
        tc(C("Ubuntu clang version 14.0.0-1ubuntu1.1\0GCC: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0"),
           1, 0, out),
        "clang 14.0.0");
    CHECK_STR(tc(C("rustc version 1.63.0 (4b91a6ea7 2022-08-08)\0GCC: (Debian 12.2.0-14) 12.2.0"),
                 1, 0, out),
              "rustc 1.63.0");
    /* Two gcc versions: the newer, numerically (9 < 12). */
    CHECK_STR(
        tc(C("GCC: (GNU) 9.4.0\0GCC: (Debian 12.2.0-14) 12.2.0\0GCC: (GNU) 10.1.0"), 1, 0, out),
        "gcc 12.2.0");
    /* Both classes and byte orders. */
    CHECK_STR(tc(C("GCC: (Debian 12.2.0-14) 12.2.0"), 0, 0, out), "gcc 12.2.0");
    CHECK_STR(tc(C("GCC: (Debian 12.2.0-14) 12.2.0"), 0, 1, out), "gcc 12.2.0");
    CHECK_STR(tc(C("GCC: (Debian 12.2.0-14) 12.2.0"), 1, 1, out), "gcc 12.2.0");
    /* Nothing named, or not a version: unknown. */
    CHECK_STR(tc(C("Linker: LLD 14.0.6"), 1, 0, out), "(none)");
    CHECK_STR(tc(C("GCC: (Debian 12.2.0-14"), 1, 0, out), "(none)");
    CHECK_STR(tc(C("GCC: (Debian) snapshot"), 1, 0, out), "(none)");
    CHECK_STR(tc("", 0, 1, 0, out), "(none)");
    /* No NUL at the end of the section: still read, still bounded. */
    CHECK_STR(tc("GCC: (x) 8.1", 12, 1, 0, out), "gcc 8.1");

    /* Broken images: every truncation of a good one is refused, never read past. */
    unsigned char b[4096];
    size_t len = make_elf(b, 1, 0, C("GCC: (Debian 12.2.0-14) 12.2.0"));
    int bad = 0;
    for (size_t cut = 0; cut < len; cut++) {
        unsigned char *copy = malloc(cut ? cut : 1);
        memcpy(copy, b, cut);
        if (toolchain_from_elf(copy, cut, out, sizeof out) != 0 || out[0])
            bad++;
        free(copy);
    }
    CHECK_INT(bad, 0);
    /* A section count and offsets that point past the end. */
    put(b + 0x3c, 60000, 2, 0);
    CHECK_INT(toolchain_from_elf(b, len, out, sizeof out), 0);
    make_elf(b, 1, 0, C("GCC: (x) 1.0"));
    put(b + 0x28, UINT64_MAX - 10, 8, 0);
    CHECK_INT(toolchain_from_elf(b, len, out, sizeof out), 0);
    /* A small output buffer: nothing, rather than a cut name. */
    make_elf(b, 1, 0, C("GCC: (x) 12.2.0"));
    CHECK_INT(toolchain_from_elf(b, len, out, 8), 0);
    CHECK_STR(out, "");
    CHECK_INT(toolchain_from_elf((const unsigned char *)"#!/bin/sh\n", 10, out, sizeof out), 0);

    /* Real programs: the fixtures this test run built with the system's cc. */
    const char *fx = getenv("FIXTURES");
    if (!fx)
        fx = "build/fixtures";
    char path[4096], want[64] = "";
    struct err e = {0};
    FILE *p = popen("cc --version 2>/dev/null | head -n 1", "r");
    char line[256] = "";
    if (p) {
        if (!fgets(line, sizeof line, p))
            line[0] = '\0';
        pclose(p);
    }
    bool cc_is_gcc = strstr(line, "gcc") || strstr(line, "GCC");
    p = popen("cc -dumpfullversion 2>/dev/null || cc -dumpversion", "r");
    if (p) {
        if (fgets(want + 4, sizeof want - 4, p)) {
            memcpy(want, "gcc ", 4);
            want[strcspn(want, "\n")] = '\0';
        }
        pclose(p);
    }
    snprintf(path, sizeof path, "%s/busy", fx);
    int r = toolchain_of_command(path, NULL, out, sizeof out, &e);
    CHECK_INT(r, 1);
    if (cc_is_gcc && want[0])
        CHECK_STR(out, want);
    else
        CHECK(strncmp(out, "clang ", 6) == 0 || strncmp(out, "gcc ", 4) == 0);
    /* Relative to a directory, as a suite's command is. */
    r = toolchain_of_command("./busy", fx, out, sizeof out, &e);
    CHECK_INT(r, 1);
    if (cc_is_gcc && want[0])
        CHECK_STR(out, want);
    /* A static program holds the same note; one with its .comment removed cannot be known. */
    snprintf(path, sizeof path, "%s/static_hello", fx);
    CHECK_INT(toolchain_of_command(path, NULL, out, sizeof out, &e), 1);
    if (cc_is_gcc && want[0])
        CHECK_STR(out, want);
    char cmd[8192], nocomment[] = "/tmp/tare-tc-nc-XXXXXX";
    int nfd = mkstemp(nocomment);
    CHECK(nfd >= 0);
    if (nfd >= 0) {
        close(nfd);
        snprintf(cmd, sizeof cmd, "objcopy --remove-section=.comment '%s' '%s'", path, nocomment);
        CHECK_INT(system(cmd), 0);
        CHECK_INT(toolchain_of_command(nocomment, NULL, out, sizeof out, &e), 0);
        CHECK_STR(out, "");
        unlink(nocomment);
    }
    /* Found on PATH: sh is some compiler's program, or unknown; never an error. */
    CHECK(toolchain_of_command("sh", NULL, out, sizeof out, &e) >= 0);
    /* A script cannot be known. */
    char tmpl[] = "/tmp/tare-tc-XXXXXX";
    int fd = mkstemp(tmpl);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, "#!/bin/sh\nexit 0\n# padding padding padding padding padding\n", 58) ==
              58);
        close(fd);
        CHECK_INT(toolchain_of_command(tmpl, NULL, out, sizeof out, &e), 0);
        CHECK_STR(out, "");
        unlink(tmpl);
    }
    /* A program that is not there: an error naming it. */
    CHECK_INT(toolchain_of_command("tare-no-such-program-x", NULL, out, sizeof out, &e), -1);
    CHECK(strstr(e.msg, "tare-no-such-program-x") != NULL);
    return unit_done("test_toolchain");
}
