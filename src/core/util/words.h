/* words.h: split a command string into argv words the way a POSIX shell would. */
#ifndef TARE_WORDS_H
#define TARE_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/err.h"

/*
 * Splits s at unquoted blanks, honouring 'single quotes', "double quotes" (where \ escapes
 * only $ ` " \ and newline) and backslashes. Nothing is expanded. On success *argv_out is a
 * NULL-terminated array (free with words_free) and *shell_char is the first unquoted shell
 * operator or expansion character met (| & ; < > ( ) $ ` *), or 0: running such a string
 * without a shell would not do what the user meant, so the caller should refuse it.
 * Errors: an unterminated quote, a trailing backslash, or an empty command (ERR_INPUT).
 */
int words_split(const char *s, char ***argv_out, int *argc_out, char *shell_char, struct err *e);
void words_free(char **argv);
/* True when s[0..n) is a valid environment variable name: a letter or '_', then letters,
 * digits or '_' (what a lane's or a suite's VAR=VALUE may set). */
bool words_is_env_name(const char *s, size_t n);
/* Joins argv back into one string a shell would split the same way (quoting as needed). */
char *words_join(char *const *argv);

#endif
