/* ini.h: tare's reader of INI files (suite files): no line length limit, comments only on
 * lines of their own, indented continuation lines appended, duplicates refused. */
#ifndef TARE_INI_H
#define TARE_INI_H

#include <stddef.h>

#include "core/util/err.h"

struct ini_key {
    char *key, *value;          /* trimmed; continuation lines joined with one space */
    unsigned long line;         /* where the key is */
};

struct ini_section {
    char *name;                 /* between the brackets, trimmed */
    unsigned long line;
    struct ini_key *keys;
    size_t nkeys;
};

struct ini {
    struct ini_section *sec;    /* in file order */
    size_t nsec;
};

/*
 * Parses len bytes of text. The grammar, line by line ('\r' before '\n' ignored, a UTF-8
 * byte order mark at the start too):
 *   blank, or ';' or '#' first after spaces and tabs   nothing (a comment)
 *   [NAME]                                             a section (spaces may follow ']')
 *   KEY = VALUE                                        a key of the section before it
 *   indented text right after a key or its continuation  more of that key's value
 * Anything else is refused, and so are a section or a key given twice (their first line is
 * named; the keys in repeatable, a NULL-terminated list or NULL, may come many times, kept in
 * order), a key before any section and a NUL byte. Errors are "'name' line N: ..." (ERR_INPUT).
 */
int ini_parse(const char *name, const char *text, size_t len, const char *const *repeatable,
              struct ini *out, struct err *e);
void ini_free(struct ini *ini);

#endif
