/* ini.c: the INI reader of suite files (grammar in ini.h): any line length, no inline comments. */
#define _GNU_SOURCE
#include "core/util/ini.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

__attribute__((format(printf, 4, 5)))
static int bad(struct err *e, const char *name, unsigned long line, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(e, ERR_INPUT, "'%s' line %lu: %s", name, line, msg);
}

/* At most this much of a name in a message: a line may be megabytes long. */
#define SHOW 80

void ini_free(struct ini *ini)
{
    for (size_t i = 0; i < ini->nsec; i++) {
        struct ini_section *s = &ini->sec[i];
        for (size_t k = 0; k < s->nkeys; k++) {
            free(s->keys[k].key);
            free(s->keys[k].value);
        }
        free(s->keys);
        free(s->name);
    }
    free(ini->sec);
    memset(ini, 0, sizeof *ini);
}

static int add_section(struct ini *ini, const char *b, const char *t, unsigned long line)
{
    if (ini->nsec % 16 == 0) {
        struct ini_section *n = realloc(ini->sec, (ini->nsec + 16) * sizeof *n);
        if (!n)
            return -1;
        ini->sec = n;
    }
    struct ini_section *s = &ini->sec[ini->nsec];
    memset(s, 0, sizeof *s);
    if (!(s->name = strndup(b, t - b)))
        return -1;
    s->line = line;
    ini->nsec++;
    return 0;
}

static int add_key(struct ini_section *s, const char *kb, const char *kt, const char *vb,
                   const char *vt, unsigned long line)
{
    if (s->nkeys % 16 == 0) {
        struct ini_key *n = realloc(s->keys, (s->nkeys + 16) * sizeof *n);
        if (!n)
            return -1;
        s->keys = n;
    }
    struct ini_key *k = &s->keys[s->nkeys];
    k->key = strndup(kb, kt - kb);
    k->value = strndup(vb, vt - vb);
    k->line = line;
    if (!k->key || !k->value) {
        free(k->key);
        free(k->value);
        return -1;
    }
    s->nkeys++;
    return 0;
}

/* value + " " + [b, t) */
static int append(struct ini_key *k, const char *b, const char *t)
{
    size_t n = strlen(k->value), m = (size_t)(t - b);
    char *v = realloc(k->value, n + m + 2);
    if (!v)
        return -1;
    if (n)
        v[n++] = ' ';
    memcpy(v + n, b, m);
    v[n + m] = '\0';
    k->value = v;
    return 0;
}

/* Is the key of n bytes at k one of list's (NULL-terminated, or NULL)? */
static bool listed(const char *const *list, const char *k, size_t n)
{
    for (; list && *list; list++)
        if (strlen(*list) == n && memcmp(*list, k, n) == 0)
            return true;
    return false;
}

int ini_parse(const char *name, const char *text, size_t len, const char *const *repeatable,
              struct ini *out, struct err *e)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        unsigned long line = 1;
        for (const char *q = text; q < nul; q++)
            line += *q == '\n';
        return bad(e, name, line, "a NUL byte: not a text file");
    }
    if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    unsigned long line = 0;
    bool cont = false;          /* an indented line now continues the last key */
    while (p < end) {
        line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *b = p, *t = nl ? nl : end;
        p = nl ? nl + 1 : end;
        if (t > b && t[-1] == '\r')
            t--;
        const char *s = b;
        while (b < t && blank(*b))
            b++;
        while (t > b && blank(t[-1]))
            t--;
        if (b == t || *b == ';' || *b == '#') {
            cont = false;
            continue;
        }
        struct ini_section *cur = out->nsec ? &out->sec[out->nsec - 1] : NULL;
        if (b > s && cont) {
            if (append(&cur->keys[cur->nkeys - 1], b, t) < 0)
                goto nomem;
            continue;
        }
        cont = false;
        if (*b == '[') {
            if (t[-1] != ']' || t - b < 2) {
                bad(e, name, line, "not INI: a section line is [NAME], with nothing after the ']'");
                goto fail;
            }
            const char *nb = b + 1, *nt = t - 1;
            while (nb < nt && blank(*nb))
                nb++;
            while (nt > nb && blank(nt[-1]))
                nt--;
            if (memchr(nb, '[', nt - nb) || memchr(nb, ']', nt - nb)) {
                bad(e, name, line, "not INI: a bracket inside the section name");
                goto fail;
            }
            for (size_t i = 0; i < out->nsec; i++)
                if (strlen(out->sec[i].name) == (size_t)(nt - nb) &&
                    memcmp(out->sec[i].name, nb, nt - nb) == 0) {
                    bad(e, name, line,
                        "[%.*s] again (it began on line %lu): give each section once", SHOW,
                        out->sec[i].name, out->sec[i].line);
                    goto fail;
                }
            if (add_section(out, nb, nt, line) < 0)
                goto nomem;
            continue;
        }
        const char *eq = memchr(b, '=', (size_t)(t - b));
        if (!eq) {
            bad(e, name, line, "not INI (want [section] or key = value)");
            goto fail;
        }
        const char *kt = eq, *vb = eq + 1;
        while (kt > b && blank(kt[-1]))
            kt--;
        while (vb < t && blank(*vb))
            vb++;
        if (kt == b) {
            bad(e, name, line, "not INI: no key before '='");
            goto fail;
        }
        if (!cur) {
            bad(e, name, line, "'%.*s' before any [section]", (int)(kt - b < SHOW ? kt - b : SHOW),
                b);
            goto fail;
        }
        for (size_t k = 0; k < cur->nkeys && !listed(repeatable, b, kt - b); k++)
            if (strlen(cur->keys[k].key) == (size_t)(kt - b) &&
                memcmp(cur->keys[k].key, b, kt - b) == 0) {
                bad(e, name, line, "'%.*s' given twice in [%.*s] (first on line %lu)", SHOW,
                    cur->keys[k].key, SHOW, cur->name, cur->keys[k].line);
                goto fail;
            }
        if (add_key(cur, b, kt, vb, t, line) < 0)
            goto nomem;
        cont = true;
    }
    return 0;
nomem:
    err_set(e, ERR_SYSTEM, "'%s': out of memory", name);
fail:
    ini_free(out);
    return -1;
}
