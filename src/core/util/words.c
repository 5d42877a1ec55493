/* words.c: POSIX-shell-like word splitting, without expansion, for commands given as one string. */
#include "core/util/words.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct buf {
    char *s;
    size_t len, cap;
};

static bool buf_put(struct buf *b, char c)
{
    if (b->len + 1 >= b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 32;
        char *s = realloc(b->s, cap);
        if (!s)
            return false;
        b->s = s;
        b->cap = cap;
    }
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
    return true;
}

static bool push_word(char ***argv, int *argc, int *cap, char *w)
{
    if (*argc + 2 > *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        char **a = realloc(*argv, ncap * sizeof *a);
        if (!a)
            return false;
        *argv = a;
        *cap = ncap;
    }
    (*argv)[(*argc)++] = w;
    (*argv)[*argc] = NULL;
    return true;
}

void words_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

int words_split(const char *s, char ***argv_out, int *argc_out, char *shell_char, struct err *e)
{
    char **argv = NULL;
    int argc = 0, cap = 0;
    struct buf w = {0};
    bool in_word = false;
    char first_shell = 0;
    const char *p = s;

    while (*p) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) {
                if (!w.s && !(w.s = strdup("")))
                    goto nomem;
                if (!push_word(&argv, &argc, &cap, w.s))
                    goto nomem;
                w = (struct buf){0};
                in_word = false;
            }
            p++;
            continue;
        }
        in_word = true;
        if (c == '\'') {
            const char *end = strchr(p + 1, '\'');
            if (!end) {
                words_free(argv);
                free(w.s);
                return err_set(e, ERR_INPUT, "unterminated single quote in '%s'", s);
            }
            for (const char *q = p + 1; q < end; q++)
                if (!buf_put(&w, *q))
                    goto nomem;
            p = end + 1;
        } else if (c == '"') {
            p++;
            for (;;) {
                if (!*p) {
                    words_free(argv);
                    free(w.s);
                    return err_set(e, ERR_INPUT, "unterminated double quote in '%s'", s);
                }
                if (*p == '"') {
                    p++;
                    break;
                }
                if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
                    if (p[1] != '\n' && !buf_put(&w, p[1]))
                        goto nomem;
                    p += 2;
                    continue;
                }
                if ((*p == '$' || *p == '`') && !first_shell)
                    first_shell = *p;
                if (!buf_put(&w, *p++))
                    goto nomem;
            }
        } else if (c == '\\') {
            if (!p[1]) {
                words_free(argv);
                free(w.s);
                return err_set(e, ERR_INPUT, "trailing backslash in '%s'", s);
            }
            if (p[1] != '\n' && !buf_put(&w, p[1]))
                goto nomem;
            p += 2;
        } else {
            if (strchr("|&;<>()$`*", c) && !first_shell)
                first_shell = c;
            if (!buf_put(&w, c))
                goto nomem;
            p++;
        }
    }
    if (in_word) {
        if (!w.s && !(w.s = strdup("")))
            goto nomem;
        if (!push_word(&argv, &argc, &cap, w.s))
            goto nomem;
        w = (struct buf){0};
    }
    if (argc == 0) {
        free(argv);
        return err_set(e, ERR_INPUT, "empty command");
    }
    *argv_out = argv;
    if (argc_out)
        *argc_out = argc;
    if (shell_char)
        *shell_char = first_shell;
    return 0;

nomem:
    words_free(argv);
    free(w.s);
    return err_set(e, ERR_SYSTEM, "out of memory splitting a command");
}

static bool needs_quotes(const char *a)
{
    if (!*a)
        return true;
    for (const char *p = a; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
              strchr("-_./=:,+@%^", *p)))
            return true;
    return false;
}

char *words_join(char *const *argv)
{
    struct buf b = {0};
    if (!buf_put(&b, 0))
        return NULL;
    b.len = 0;
    b.s[0] = '\0';
    for (char *const *a = argv; *a; a++) {
        if (a != argv && !buf_put(&b, ' '))
            goto nomem;
        if (!needs_quotes(*a)) {
            for (const char *p = *a; *p; p++)
                if (!buf_put(&b, *p))
                    goto nomem;
            continue;
        }
        if (!buf_put(&b, '\''))
            goto nomem;
        for (const char *p = *a; *p; p++) {
            if (*p == '\'') {
                for (const char *q = "'\\''"; *q; q++)
                    if (!buf_put(&b, *q))
                        goto nomem;
            } else if (!buf_put(&b, *p)) {
                goto nomem;
            }
        }
        if (!buf_put(&b, '\''))
            goto nomem;
    }
    return b.s;
nomem:
    free(b.s);
    return NULL;
}

bool words_is_env_name(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}
