/* input.c: bounded reading of whole text inputs (see input.h). */
#define _GNU_SOURCE
#include "core/util/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util/proc.h"

/* A FIFO opened without waiting: has a writer come? A non-blocking read says: EAGAIN is
 * a writer with nothing written yet, data is a writer, 0 is none (yet). The byte read, if
 * any, is kept in *first. 1 when a writer came, 0 when none did in time, -1 on error. */
static int fifo_wait(int fd, char *first, ssize_t *nfirst)
{
    struct timespec nap = {0, 20 * 1000 * 1000};
    for (int i = 0; i < IN_FIFO_WAIT * 50; i++) {
        ssize_t r = read(fd, first, 1);
        if (r == 1) {
            *nfirst = 1;
            return 1;
        }
        if (r < 0 && errno == EAGAIN)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
        if (proc_interrupted())
            return 0;
        nanosleep(&nap, NULL);
    }
    return 0;
}

/* The byte fifo_wait may have taken from a FIFO, handed to in_read_all for that descriptor
 * (a process opens its inputs one at a time). */
static int held_fd = -1;
static char held_byte;

int in_open(const char *path, int oflags, struct err *e)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return err_set(e, ERR_INPUT, "cannot read '%s': a directory", path);
    bool fifo = stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
    if (fifo && (oflags & O_ACCMODE) != O_RDONLY)
        return err_set(e, ERR_INPUT, "cannot write '%s': a FIFO, not a file", path);
    int fd = open(path, oflags | O_CLOEXEC | (fifo ? O_NONBLOCK : 0), 0644);
    if (fd < 0)
        return err_errno(e, errno == ENOENT || errno == EACCES || errno == EISDIR ||
                         errno == ENOTDIR || errno == ELOOP ? ERR_INPUT : ERR_SYSTEM,
                         errno, "cannot open '%s'", path);
    if (!fifo)
        return fd;
    char first;
    ssize_t nfirst = 0;
    int w = fifo_wait(fd, &first, &nfirst);
    if (w <= 0) {
        int en = errno;
        close(fd);
        if (w < 0)
            return err_errno(e, ERR_SYSTEM, en, "cannot read '%s'", path);
        if (proc_interrupted())
            return err_set(e, ERR_INTERRUPTED, "interrupted");
        return err_set(e, ERR_INPUT, "cannot read '%s': a FIFO with no writer (waited %d s)",
                       path, IN_FIFO_WAIT);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);   /* a writer is there: read as it comes */
    if (nfirst) {
        held_fd = fd;
        held_byte = first;
    }
    return fd;
}

size_t in_held(int fd, char *c)
{
    if (fd < 0 || fd != held_fd)
        return 0;
    *c = held_byte;
    held_fd = -1;
    return 1;
}

size_t in_line_of(const char *b, size_t pos)
{
    size_t line = 1;
    for (const char *p = b; (p = memchr(p, '\n', (size_t)(b + pos - p))) != NULL; p++)
        line++;
    return line;
}

/* Checks the new bytes b[from..to) of a buffer whose lines so far have been counted: a NUL,
 * a line over the limit. *line is the line number at b[from], *start where it began. One
 * pass over the bytes (memchr for the NUL, then for each newline). */
static int check_block(const char *b, size_t from, size_t to, size_t *start, size_t *line,
                       const char *name, size_t max_line, struct err *e)
{
    const char *nul = memchr(b + from, '\0', to - from);
    size_t lim = nul ? (size_t)(nul - b) : to;
    for (size_t i = from;;) {
        const char *nl = memchr(b + i, '\n', lim - i);
        size_t end = nl ? (size_t)(nl - b) : lim;
        if (end - *start > max_line)
            return err_set(e, ERR_INPUT, "'%s' line %zu: a line longer than %zu bytes", name,
                           *line, max_line);
        if (!nl)
            break;
        (*line)++;
        *start = end + 1;
        i = end + 1;
    }
    if (nul)
        return err_set(e, ERR_INPUT, "'%s' line %zu: a NUL byte: not a text file", name,
                       *line);
    return 0;
}

int in_read_all(int fd, const char *name, size_t max_file, size_t max_line, char **out,
                size_t *len, struct err *e)
{
    struct stat st;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    size_t cap = regular && st.st_size > 0 && (size_t)st.st_size < max_file
                 ? (size_t)st.st_size + 2 : 1 << 16;
    if (cap > max_file + 2)
        cap = max_file + 2;   /* never more than the limit and the byte that passes it */
    size_t n = 0, start = 0, line = 1;
    char *buf = malloc(cap);
    if (!buf)
        return err_set(e, ERR_SYSTEM, "out of memory");
    n = in_held(fd, buf);
    bool seekable = n == 0;
    for (;;) {
        if (n + 1 >= cap) {
            size_t ncap = cap * 2 > max_file + 2 ? max_file + 2 : cap * 2;
            char *b = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!b) {
                free(buf);
                if (ncap <= cap)
                    return err_set(e, ERR_INPUT, "'%s': more than %zu MiB: not read", name,
                                   max_file >> 20);
                return err_set(e, ERR_SYSTEM, "out of memory reading '%s'", name);
            }
            buf = b;
            cap = ncap;
        }
        ssize_t r = seekable ? pread(fd, buf + n, cap - 1 - n, (off_t)n)
                             : read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == ESPIPE && seekable && n == 0) {
            seekable = false;   /* a pipe (<(...)): read it as it comes, once */
            continue;
        }
        if (r < 0 && errno == EINTR && !proc_interrupted())
            continue;
        if (r < 0) {
            int en = errno;
            free(buf);
            if (en == EINTR)
                return err_set(e, ERR_INTERRUPTED, "interrupted reading '%s'", name);
            return err_errno(e, en == EISDIR ? ERR_INPUT : ERR_SYSTEM, en, "cannot read '%s'",
                             name);
        }
        if (r == 0)
            break;
        size_t from = n;
        n += (size_t)r;
        if (check_block(buf, from, n, &start, &line, name, max_line, e) < 0 ||
            (n > max_file && err_set(e, ERR_INPUT, "'%s': more than %zu MiB: not read", name,
                                     max_file >> 20))) {
            free(buf);
            return -1;
        }
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

int in_read_file(const char *path, char **out, size_t *len, struct err *e)
{
    if (strcmp(path, "-") == 0)
        return in_read_all(0, "<stdin>", IN_MAX_FILE, IN_MAX_LINE, out, len, e);
    int fd = in_open(path, O_RDONLY, e);
    if (fd < 0)
        return -1;
    int rc = in_read_all(fd, path, IN_MAX_FILE, IN_MAX_LINE, out, len, e);
    close(fd);
    return rc;
}
