/* suite.c: benchmark suite files: INI parsed by libinih, validated here, benchmarks globbed. */
#define _GNU_SOURCE
#include "core/suite.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <ini.h>
#include <libgen.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/words.h"

struct ctx {
    struct suite *s;
    struct err *e;
    const char *name;
    bool failed;
    int line;           /* counted by the handler for messages (inih reports it on return) */
};

static bool valid_lane_name(const char *s)
{
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || strchr("_.-", *s)))
            return false;
    return true;
}

static int fail(struct ctx *c, const char *fmt, const char *a, const char *b)
{
    /* The line is not known here; suite_parse prefixes it from inih's return value. */
    err_set(c->e, ERR_INPUT, fmt, a, b);
    c->failed = true;
    return 0;
}

static int parse_long(const char *v, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < min || x > max)
        return -1;
    *out = x;
    return 0;
}

static struct suite_lane *find_lane(struct suite *s, const char *name, bool add)
{
    for (int i = 0; i < s->nlanes; i++)
        if (strcmp(s->lanes[i].name, name) == 0)
            return &s->lanes[i];
    if (!add)
        return NULL;
    struct suite_lane *l = realloc(s->lanes, (s->nlanes + 1) * sizeof *l);
    if (!l)
        return NULL;
    s->lanes = l;
    l = &s->lanes[s->nlanes];
    l->name = strdup(name);
    l->env = calloc(1, sizeof *l->env);
    if (!l->name || !l->env) {
        free(l->name);
        free(l->env);
        return NULL;
    }
    s->nlanes++;
    return l;
}

static int handler(void *user, const char *section, const char *key, const char *value)
{
    struct ctx *c = user;
    struct suite *s = c->s;
    if (c->failed)
        return 0;
    if (!key)     /* a new section (only with INI_CALL_HANDLER_ON_NEW_SECTION) */
        return 1;
    if (strcmp(section, "suite") == 0) {
        char **slot = NULL;
        if (strcmp(key, "command") == 0)
            slot = &s->command;
        else if (strcmp(key, "reference") == 0)
            slot = &s->reference;
        else if (strcmp(key, "input") == 0)
            slot = &s->input;
        static const char *const hook_keys[4] = {"setup", "prepare", "conclude", "cleanup"};
        for (int k = 0; k < 4; k++)
            if (strcmp(key, hook_keys[k]) == 0) {
                size_t n = 0;
                while (s->hooks[k] && s->hooks[k][n])
                    n++;
                if (!*value)
                    return fail(c, "'%s' is empty%s", key, "");
                char **v = realloc(s->hooks[k], (n + 2) * sizeof *v);
                if (!v)
                    return fail(c, "out of memory%s%s", "", "");
                s->hooks[k] = v;
                v[n + 1] = NULL;
                if (!(v[n] = strdup(value)))
                    return fail(c, "out of memory%s%s", "", "");
                return 1;
            }
        if (slot) {
            if (*slot)
                return fail(c, "'%s' given twice%s", key, "");
            if (!*value)
                return fail(c, "'%s' is empty%s", key, "");
            if (!(*slot = strdup(value)))
                return fail(c, "out of memory%s%s", "", "");
            return 1;
        }
        if (strcmp(key, "benchmarks") == 0) {
            if (!*value)
                return fail(c, "'%s' is empty%s", key, "");
            char **w = NULL;
            int n = 0;
            if (words_split(value, &w, &n, NULL, c->e) < 0) {
                c->failed = true;
                err_prefix(c->e, "benchmarks");
                return 0;
            }
            if (s->patterns)
                words_free(s->patterns);
            s->patterns = w;
            return 1;
        }
        if (strcmp(key, "runs") == 0) {
            if (parse_long(value, 1, 1000000, &s->runs) < 0)
                return fail(c, "runs = '%s': want a whole number from 1%s", value, "");
            return 1;
        }
        if (strcmp(key, "warmup") == 0) {
            if (parse_long(value, 0, 1000000, &s->warmup) < 0)
                return fail(c, "warmup = '%s': want a whole number from 0%s", value, "");
            return 1;
        }
        if (strcmp(key, "timeout") == 0) {
            char *end;
            double t = strtod(value, &end);
            if (end == value || *end || !(t > 0) || t > 1e7)
                return fail(c, "timeout = '%s': want a positive number of seconds%s", value, "");
            s->timeout = t;
            return 1;
        }
        if (strcmp(key, "count") == 0) {
            if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 || strcmp(value, "on") == 0)
                s->count = true;
            else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0 || strcmp(value, "off") == 0)
                s->count = false;
            else
                return fail(c, "count = '%s': want yes or no%s", value, "");
            return 1;
        }
        return fail(c, "unknown key '%s' in [suite]%s", key, "");
    }
    if (strncmp(section, "lane", 4) == 0 && (section[4] == ' ' || section[4] == '\0')) {
        const char *name = section + 4;
        while (*name == ' ')
            name++;
        if (!valid_lane_name(name))
            return fail(c, "bad lane name '%s': use letters, digits, '_', '.', '-'%s", name, "");
        if (strcmp(key, "env") != 0)
            return fail(c, "unknown key '%s' in [lane %s]", key, name);
        struct suite_lane *l = find_lane(s, name, true);
        if (!l)
            return fail(c, "out of memory%s%s", "", "");
        char **w = NULL;
        int n = 0;
        if (!*value) {
            w = calloc(1, sizeof *w);     /* env = (nothing): the inherited environment */
            if (!w)
                return fail(c, "out of memory%s%s", "", "");
        } else if (words_split(value, &w, &n, NULL, c->e) < 0) {
            c->failed = true;
            return 0;
        }
        for (int i = 0; i < n; i++) {
            const char *eq = strchr(w[i], '=');
            if (!eq || !words_is_env_name(w[i], eq - w[i])) {
                err_set(c->e, ERR_INPUT, "bad variable '%s' in [lane %s]: want VAR=VALUE", w[i], name);
                words_free(w);
                c->failed = true;
                return 0;
            }
        }
        words_free(l->env);
        l->env = w;
        return 1;
    }
    return fail(c, "unknown section [%s]%s", section, "");
}

static int accept_all(void *user, const char *section, const char *key, const char *value)
{
    (void)user, (void)section, (void)key, (void)value;
    return 1;
}

int suite_parse(const char *name, const char *text, const char *dir, struct suite *s,
                struct err *e)
{
    memset(s, 0, sizeof *s);
    s->runs = 7;
    s->warmup = 1;
    if (!(s->dir = strdup(dir)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    struct ctx c = {.s = s, .e = e, .name = name};
    int rc = ini_parse_string(text, handler, &c);
    if (rc != 0) {
        /* inih reports the first bad line, a syntax error or a value we refused: a second pass
         * that refuses nothing tells which. */
        int syntax = rc > 0 ? ini_parse_string(text, accept_all, NULL) : 0;
        if (rc > 0 && c.failed && syntax != rc)
            err_prefix(e, "'%s' line %d", name, rc);
        else if (rc > 0)
            err_set(e, ERR_INPUT, "'%s' line %d: not INI (want [section] or key = value)", name, rc);
        else
            err_set(e, ERR_SYSTEM, "'%s': out of memory", name);
        suite_free(s);
        return -1;
    }
    if (!s->command || !s->patterns || !s->patterns[0]) {
        err_set(e, ERR_INPUT, "'%s': [suite] needs %s", name,
                !s->command ? "command = ..." : "benchmarks = PATTERN...");
        suite_free(s);
        return -1;
    }
    return 0;
}

static char *bench_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

int suite_load(const char *path, struct suite *s, struct err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_errno(e, ERR_INPUT, errno, "cannot open '%s'", path);
    char *text = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&text, &cap, '\0', f);
    int rerr = ferror(f);
    fclose(f);
    if (n < 0 && !rerr) {           /* an empty file */
        free(text);
        text = strdup("");
    } else if (rerr || !text) {
        free(text);
        return err_errno(e, ERR_SYSTEM, errno, "cannot read '%s'", path);
    }
    if ((size_t)strlen(text) != (n < 0 ? 0 : (size_t)n)) {
        free(text);
        return err_set(e, ERR_INPUT, "'%s': a NUL byte: not a text file", path);
    }
    char *pcopy = strdup(path);
    int rc = pcopy ? suite_parse(path, text, dirname(pcopy), s, e) : err_set(e, ERR_SYSTEM, "out of memory");
    free(pcopy);
    free(text);
    if (rc < 0)
        return -1;
    /* Globs relative to the suite's directory; names kept relative to it. */
    size_t dlen = strlen(s->dir);
    for (char **p = s->patterns; *p; p++) {
        char *pat = NULL;
        if (asprintf(&pat, "%s/%s", s->dir, *p) < 0) {
            suite_free(s);
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
        glob_t g;
        int grc = glob(**p == '/' ? *p : pat, 0, NULL, &g);
        free(pat);
        if (grc == GLOB_NOMATCH) {
            err_set(e, ERR_INPUT, "'%s': benchmarks = '%s' matches no file in '%s'", path, *p, s->dir);
            suite_free(s);
            return -1;
        }
        if (grc != 0) {
            suite_free(s);
            return err_set(e, ERR_SYSTEM, "'%s': cannot search for '%s'", path, *p);
        }
        struct suite_bench *b = realloc(s->bench, (s->nbench + g.gl_pathc) * sizeof *b);
        if (!b) {
            globfree(&g);
            suite_free(s);
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
        s->bench = b;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *m = g.gl_pathv[i];
            if (**p != '/' && strncmp(m, s->dir, dlen) == 0 && m[dlen] == '/')
                m += dlen + 1;
            struct suite_bench *nb = &s->bench[s->nbench];
            nb->path = strdup(m);
            nb->name = bench_name(m);
            if (!nb->path || !nb->name) {
                free(nb->path);
                free(nb->name);
                globfree(&g);
                suite_free(s);
                return err_set(e, ERR_SYSTEM, "out of memory");
            }
            for (int k = 0; k < s->nbench; k++)
                if (strcmp(s->bench[k].name, nb->name) == 0) {
                    err_set(e, ERR_INPUT, "'%s': two benchmarks named '%s' ('%s' and '%s')", path,
                            nb->name, s->bench[k].path, nb->path);
                    free(nb->path);
                    free(nb->name);
                    globfree(&g);
                    suite_free(s);
                    return -1;
                }
            s->nbench++;
        }
        globfree(&g);
    }
    return 0;
}

void suite_free(struct suite *s)
{
    free(s->dir);
    free(s->command);
    free(s->reference);
    free(s->input);
    for (int k = 0; k < 4; k++)
        words_free(s->hooks[k]);
    words_free(s->patterns);
    for (int i = 0; i < s->nlanes; i++) {
        free(s->lanes[i].name);
        words_free(s->lanes[i].env);
    }
    free(s->lanes);
    for (int i = 0; i < s->nbench; i++) {
        free(s->bench[i].name);
        free(s->bench[i].path);
    }
    free(s->bench);
    memset(s, 0, sizeof *s);
}

void suite_shard(struct suite *s, int k, int n)
{
    int out = 0;
    for (int i = 0; i < s->nbench; i++) {
        if (i % n == k - 1) {
            s->bench[out++] = s->bench[i];
        } else {
            free(s->bench[i].name);
            free(s->bench[i].path);
        }
    }
    s->nbench = out;
}

/* word with every {bench} and {name} replaced. */
static char *subst(const char *w, const struct suite_bench *b)
{
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    if (!m)
        return NULL;
    while (*w) {
        if (strncmp(w, "{bench}", 7) == 0) {
            fputs(b->path, m);
            w += 7;
        } else if (strncmp(w, "{name}", 6) == 0) {
            fputs(b->name, m);
            w += 6;
        } else {
            fputc(*w++, m);
        }
    }
    fclose(m);
    return out;
}

int suite_argv(const char *tmpl, const struct suite_bench *b, char ***argv, struct err *e)
{
    char **w = NULL, sh = 0;
    int n = 0;
    if (words_split(tmpl, &w, &n, &sh, e) < 0)
        return err_prefix(e, "command '%s'", tmpl);
    if (sh) {
        words_free(w);
        return err_set(e, ERR_INPUT, "command '%s': shell syntax '%c' (tare runs commands without "
                       "a shell: use a script, or sh -c '...')", tmpl, sh);
    }
    for (int i = 0; i < n; i++) {
        char *s = subst(w[i], b);
        if (!s) {
            words_free(w);
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
        free(w[i]);
        w[i] = s;
    }
    *argv = w;
    return 0;
}
