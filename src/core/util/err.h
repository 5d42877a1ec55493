/* err.h: how the library reports failure without printing: a kind and a message. */
#ifndef TARE_ERR_H
#define TARE_ERR_H

#include <stdarg.h>

/* The kind decides the exit status the CLI gives (see cli_exit_for). */
enum err_kind {
    ERR_NONE = 0,
    ERR_INPUT,     /* bad input or usage: a malformed file, an unknown name (exit 2) */
    ERR_SYSTEM,    /* the system refused: fork, open, out of memory (exit 2) */
    ERR_MEASURE,   /* a measurement failed: the measured command crashed (exit 1) */
    ERR_UNSUPPORTED, /* this machine cannot do it: no counters, no valgrind (exit 1) */
    ERR_INTERRUPTED, /* the user interrupted (exit 130) */
};

struct err {
    enum err_kind kind;
    char msg[1024];
};

/* Sets e (if not NULL) and returns -1, so callers write `return err_set(e, ...)`. */
int err_set(struct err *e, enum err_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, with ": strerror(errnum)" appended, the errno last as the guide asks. */
int err_errno(struct err *e, enum err_kind kind, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prefixes the existing message: "context: old message". */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
