/* err.c: filling struct err; the CLI decides how to show it. */
#include "core/util/err.h"

#include <stdio.h>
#include <string.h>

int err_set(struct err *e, enum err_kind kind, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    e->kind = kind;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int err_errno(struct err *e, enum err_kind kind, int errnum, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    e->kind = kind;
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof e->msg)
        snprintf(e->msg + n, sizeof e->msg - n, ": %s", strerror(errnum));
    return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    char old[sizeof e->msg];
    memcpy(old, e->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n + 3 < sizeof e->msg) {
        size_t room = sizeof e->msg - n - 3;   /* ": ", then the old message and its '\0' */
        size_t len = strnlen(old, room);
        memcpy(e->msg + n, ": ", 2);
        memcpy(e->msg + n + 2, old, len);
        e->msg[n + 2 + len] = '\0';
    }
    return -1;
}
