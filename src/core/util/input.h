/* input.h: a whole text input read with bounds (a file, standard input, a pipe, a FIFO,
 * a device): a limit per file and per line, a NUL byte refused in the block that holds it,
 * a FIFO with no writer an error after a short wait, never a hang. */
#ifndef TARE_INPUT_H
#define TARE_INPUT_H

#include <stddef.h>

#include "core/util/err.h"

/* The limits every text reader of tare uses unless it says otherwise: a file of at most
 * 512 MiB (the seed's real history is 4 MB; 1,000,000 rows of it are about 150 MB), a
 * line of at most 1 MiB. */
#define IN_MAX_FILE ((size_t)512 << 20)
#define IN_MAX_LINE ((size_t)1 << 20)
/* How long a FIFO may have no writer before reading it is an error (seconds). */
#define IN_FIFO_WAIT 3

/*
 * Opens path with open(2)'s oflags (O_CLOEXEC added). A directory is refused (ERR_INPUT,
 * "a directory"). A FIFO is refused for writing; for reading it is opened without waiting,
 * then waited on until a writer has come (at most IN_FIFO_WAIT seconds: then ERR_INPUT, "a
 * FIFO with no writer") and read as it comes. Returns the descriptor, or -1 with e set
 * (ERR_INPUT for a missing, unreadable or unsuitable path, ERR_SYSTEM otherwise).
 */
int in_open(const char *path, int oflags, struct err *e);

/*
 * Reads fd to its end into a new buffer (NUL-terminated; free it), from offset 0 when fd
 * can seek (a shared descriptor's position is left alone), else as it comes. Refused with
 * ERR_INPUT, naming name and the line: a NUL byte (as soon as the block holding it is read:
 * /dev/zero fails at once), a line longer than max_line bytes, more than max_file bytes in
 * all (an endless input stops there). 0, or -1 with e set.
 */
int in_read_all(int fd, const char *name, size_t max_file, size_t max_line, char **out,
                size_t *len, struct err *e);

/* The byte in_open took from FIFO fd while it waited for a writer, into *c: 1, or 0 when
 * none (a reader of its own calls this before its first read; in_read_all does). */
size_t in_held(int fd, char *c);
/* The line (from 1) that holds byte pos of b. */
size_t in_line_of(const char *b, size_t pos);

/* in_open(path, O_RDONLY) and in_read_all with the default limits; "-" is standard input. */
int in_read_file(const char *path, char **out, size_t *len, struct err *e);

#endif
