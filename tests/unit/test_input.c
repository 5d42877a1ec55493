/* test_input.c: the bounded reader: limits per line and per file, a NUL named by its line,
 * pipes read as they come, a directory and a FIFO for writing refused. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/input.h"
#include "unit.h"

/* Reads s through a pipe with the given limits: 0 and the text, or -1 and the message. */
static int via_pipe(const char *s, size_t len, size_t max_file, size_t max_line, char **out,
                    struct err *e)
{
    int p[2];
    if (pipe(p) < 0)
        return -2;
    if (write(p[1], s, len) != (ssize_t)len)
        return -2;
    close(p[1]);
    size_t n;
    int rc = in_read_all(p[0], "in", max_file, max_line, out, &n, e);
    close(p[0]);
    return rc;
}

int main(void)
{
    char *out = NULL;
    struct err e = {0};
    CHECK_INT(via_pipe("a\tb\nc\n", 6, 100, 10, &out, &e), 0);
    CHECK_STR(out, "a\tb\nc\n");
    free(out);
    CHECK_INT(via_pipe("one\ntwo\nth\0ree\n", 15, 100, 10, &out, &e), -1);
    CHECK_STR(e.msg, "'in' line 3: a NUL byte: not a text file");
    CHECK_INT(via_pipe("short\n0123456789A\n", 18, 100, 10, &out, &e), -1);
    CHECK_STR(e.msg, "'in' line 2: a line longer than 10 bytes");
    CHECK_INT(via_pipe("0123456789\n", 11, 100, 10, &out, &e), 0);   /* exactly the limit */
    free(out);
    char big[3000];
    memset(big, '\n', sizeof big);
    CHECK_INT(via_pipe(big, sizeof big, 2048, 10, &out, &e), -1);
    CHECK(strstr(e.msg, "'in': more than") != NULL);

    /* a seekable file is read from its start, its offset left alone */
    char path[] = "/tmp/test_input.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "x\ny\n", 4) == 4);
    size_t n;
    CHECK_INT(in_read_all(fd, "f", 100, 10, &out, &n, &e), 0);
    CHECK_INT(n, 4);
    CHECK_INT(lseek(fd, 0, SEEK_CUR), 4);
    free(out);
    close(fd);
    CHECK_INT(in_read_file(path, &out, &n, &e), 0);
    CHECK_STR(out, "x\ny\n");
    free(out);
    unlink(path);

    CHECK_INT(in_open("/tmp", O_RDONLY, &e), -1);
    CHECK_STR(e.msg, "cannot read '/tmp': a directory");
    char fifo[] = "/tmp/test_input_fifo.XXXXXX";
    int t = mkstemp(fifo);
    close(t);
    unlink(fifo);
    CHECK_INT(mkfifo(fifo, 0600), 0);
    CHECK_INT(in_open(fifo, O_RDWR, &e), -1);
    CHECK(strstr(e.msg, "a FIFO, not a file") != NULL);
    unlink(fifo);
    CHECK_INT(in_line_of("a\nb\nc", 4), 3);
    CHECK_INT(in_line_of("abc", 0), 1);
    return unit_done("test_input");
}
