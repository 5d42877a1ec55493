/* json.h: the one JSON writer every output goes through, streaming to a FILE (git's
 * json-writer is the model: begin, members, end; commas and escapes are its business). */
#ifndef TARE_JSON_H
#define TARE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util/err.h"

#define JW_MAX_DEPTH 32

struct jw_level {
    bool array, empty;
    const char *item, *close;   /* whitespace before each member / the closing bracket */
};

/*
 * The writer's state. Members are written "key": value, separated by ", " unless the level
 * was begun with its own item whitespace (one member a line). Strings follow esc.h's rule:
 * valid UTF-8 as it is, control characters escaped, a byte that is not UTF-8 as \xNN (the
 * JSON text "\\xNN"). Numbers follow esc_number; NaN and the infinities are null.
 */
struct jw {
    FILE *f;
    int depth;
    bool html;          /* also escape < > & (and U+2028/9): the text can sit in <script> */
    bool key_pending;   /* a key was written; its value comes next */
    bool bad;           /* misused (too deep, a value with no key, an end too many) */
    const char *brk;    /* whitespace before the next member only (jw_break) */
    struct jw_level lv[JW_MAX_DEPTH];
};

/* A writer of one document to f. */
void jw_init(struct jw *w, FILE *f);
/* An object or array as the next value. The _lines forms write item before every member
 * and close before the closing bracket when there was a member ("\n  ", "\n"). */
void jw_object_begin(struct jw *w);
void jw_array_begin(struct jw *w);
void jw_object_begin_lines(struct jw *w, const char *item, const char *close);
void jw_array_begin_lines(struct jw *w, const char *item, const char *close);
/* Closes the innermost object or array. */
void jw_end(struct jw *w);
/* ws (whitespace) before the next member instead of the level's own. */
void jw_break(struct jw *w, const char *ws);

/* In an object: the next member's key; its value follows. */
void jw_key(struct jw *w, const char *key);
/* Values. jw_string writes null for a NULL s. */
void jw_string(struct jw *w, const char *s);
void jw_double(struct jw *w, double v);
void jw_u64(struct jw *w, uint64_t v);
void jw_i64(struct jw *w, int64_t v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* A number held as text (a table cell): written as it is when it is a JSON number, else
 * null ("NA", "", anything else). */
void jw_number_text(struct jw *w, const char *s);

/* Key and value in one call. */
void jw_kstring(struct jw *w, const char *key, const char *s);
void jw_kdouble(struct jw *w, const char *key, double v);
void jw_ku64(struct jw *w, const char *key, uint64_t v);
void jw_ki64(struct jw *w, const char *key, int64_t v);
void jw_kbool(struct jw *w, const char *key, bool v);
void jw_knull(struct jw *w, const char *key);
void jw_kobject(struct jw *w, const char *key);
void jw_karray(struct jw *w, const char *key);

/* 0 when every level was closed and the writer was not misused, else -1 with e set
 * (ERR_SYSTEM: a bug of its caller). Write errors are the FILE's: see ferror. */
int jw_done(const struct jw *w, struct err *e);

/* s as one JSON string literal, quotes included (html as in struct jw). */
void jw_write_string(FILE *f, const char *s, bool html);

#endif
