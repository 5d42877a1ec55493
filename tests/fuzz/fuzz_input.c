/* fuzz_input.c: the bounded reader (core/util/input.c) must accept exactly the inputs within its
 * limits (no NUL, no line over max_line, at most max_file bytes), give them back byte for
 * byte, and name the right line when it refuses one; read from a pipe (as it comes) and
 * from a seekable file alike. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/util/input.h"

#define MAX_FILE 4096
#define MAX_LINE 64

/* The reader's verdict worked out plainly: 0 when it must accept, else the line it names. */
static size_t expected(const uint8_t *d, size_t n)
{
    size_t line = 1, start = 0;
    for (size_t i = 0; i < n && i <= MAX_FILE; i++) {
        if (d[i] == '\0')
            return line;
        if (i - start >= MAX_LINE && d[i] != '\n')
            return line;
        if (d[i] == '\n') {
            line++;
            start = i + 1;
        }
    }
    return n > MAX_FILE ? (size_t)-1 : 0;
}

static void check(int fd, const uint8_t *d, size_t n)
{
    char *out = NULL;
    size_t len = 0;
    struct err e = {0};
    int rc = in_read_all(fd, "in", MAX_FILE, MAX_LINE, &out, &len, &e);
    size_t want = expected(d, n);
    if (want == 0) {
        if (rc != 0 || len != n || memcmp(out, d, n) != 0 || out[n] != '\0')
            abort();
        free(out);
        return;
    }
    if (rc == 0)
        abort();
    if (want != (size_t)-1) {
        char at[64];
        snprintf(at, sizeof at, "'in' line %zu: ", want);
        if (!strstr(e.msg, at))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int mfd = memfd_create("fuzz_input", 0);
    if (mfd < 0)
        return 0;
    if (write(mfd, data, size) == (ssize_t)size)
        check(mfd, data, size);
    close(mfd);
    int p[2];
    if (size <= 60000 && pipe(p) == 0) {   /* fits a pipe's buffer: written, then read */
        if (write(p[1], data, size) == (ssize_t)size) {
            close(p[1]);
            check(p[0], data, size);
        } else {
            close(p[1]);
        }
        close(p[0]);
    }
    return 0;
}
