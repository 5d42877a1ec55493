/* suite.c: benchmark suite files: INI read by ini.c, checked here, benchmarks globbed. */
#define _GNU_SOURCE
#include "core/engine/suite.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/ini.h"
#include "core/util/input.h"
#include "core/util/metrics.h"
#include "core/util/words.h"

static bool valid_lane_name(const char *s)
{
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || strchr("_.-", *s)))
            return false;
    return true;
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

/* At most this much of a value in a message. */
#define SHOW 200

/* The hook keys of [suite], in struct suite's hooks[] order; each may be given many times. */
static const char *const suite_hook_keys[5] = {"setup", "prepare", "conclude", "cleanup", NULL};
/* The keys of [suite] that may be given many times: the hooks and valgrind-arg. */
static const char *const suite_repeat_keys[6] = {"setup", "prepare", "conclude", "cleanup",
                                                 "valgrind-arg", NULL};

/* value appended to the NULL-terminated list *list (which may be NULL). */
static int list_add(char ***list, const char *value, struct err *e)
{
    size_t n = 0;
    while (*list && (*list)[n])
        n++;
    char **w = realloc(*list, (n + 2) * sizeof *w);
    if (!w)
        return err_set(e, ERR_SYSTEM, "out of memory");
    *list = w;
    w[n + 1] = NULL;
    if (!(w[n] = strdup(value)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    return 0;
}

/* yes/true/on or no/false/off into *out: 0, or -1 when it is neither. */
static int parse_yes_no(const char *v, bool *out)
{
    if (strcmp(v, "yes") == 0 || strcmp(v, "true") == 0 || strcmp(v, "on") == 0)
        *out = true;
    else if (strcmp(v, "no") == 0 || strcmp(v, "false") == 0 || strcmp(v, "off") == 0)
        *out = false;
    else
        return -1;
    return 0;
}

static int suite_key(const char *name, struct suite *s, const struct ini_key *k, struct err *e)
{
    const char *v = k->value;
#define BAD(...) err_set(e, ERR_INPUT, "'%s' line %lu: " __VA_ARGS__)
    if (strcmp(k->key, "command") == 0 || strcmp(k->key, "reference") == 0) {
        char **slot = k->key[0] == 'c' ? &s->command : &s->reference;
        if (!*v)
            return BAD("'%s' is empty", name, k->line, k->key);
        if (!(*slot = strdup(v)))
            return err_set(e, ERR_SYSTEM, "out of memory");
        return 0;
    }
    if (strcmp(k->key, "keep-stacks") == 0) {
        if (!*v)
            return BAD("'%s' is empty", name, k->line, k->key);
        int rc = *v == '/' ? ((s->keep_stacks = strdup(v)) ? 0 : -1)
                           : asprintf(&s->keep_stacks, "%s/%s", s->dir, v);
        if (rc < 0) {
            s->keep_stacks = NULL;
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
        return 0;
    }
    if (strcmp(k->key, "input") == 0 || strcmp(k->key, "subtract") == 0 ||
        strcmp(k->key, "build") == 0) {
        char **slot = strcmp(k->key, "input") == 0 ? &s->input
                      : k->key[0] == 'b' ? &s->build : &s->subtract;
        if (!*v)
            return BAD("'%s' is empty", name, k->line, k->key);
        if (!(*slot = strdup(v)))
            return err_set(e, ERR_SYSTEM, "out of memory");
        return 0;
    }
    for (int h = 0; h < 4; h++)     /* hooks: repeatable, run in the order given */
        if (strcmp(k->key, suite_hook_keys[h]) == 0) {
            if (!*v)
                return BAD("'%s' is empty", name, k->line, k->key);
            return list_add(&s->hooks[h], v, e);
        }
    if (strcmp(k->key, "benchmarks") == 0) {
        if (!*v)
            return BAD("'%s' is empty", name, k->line, k->key);
        int n = 0;
        if (words_split(v, &s->patterns, &n, NULL, e) < 0)
            return err_prefix(e, "'%s' line %lu: benchmarks", name, k->line);
        return 0;
    }
    if (strcmp(k->key, "runs") == 0) {
        if (parse_long(v, 1, 1000000, &s->runs) < 0)
            return BAD("runs = '%.*s': want a whole number from 1", name, k->line, SHOW, v);
        return 0;
    }
    if (strcmp(k->key, "warmup") == 0) {
        if (parse_long(v, 0, 1000000, &s->warmup) < 0)
            return BAD("warmup = '%.*s': want a whole number from 0", name, k->line, SHOW, v);
        return 0;
    }
    if (strcmp(k->key, "timeout") == 0) {
        char *end;
        double t = strtod(v, &end);
        if (end == v || *end || !(t > 0) || t > 1e7)
            return BAD("timeout = '%.*s': want a positive number of seconds", name, k->line, SHOW,
                       v);
        s->timeout = t;
        return 0;
    }
    if (strcmp(k->key, "count") == 0 || strcmp(k->key, "cache-sim") == 0) {
        if (parse_yes_no(v, strcmp(k->key, "count") == 0 ? &s->count : &s->cache_sim) < 0)
            return BAD("%s = '%.*s': want yes or no", name, k->line, k->key, SHOW, v);
        return 0;
    }
    if (strcmp(k->key, "engine") == 0) {
        if (count_engine_parse(v, &s->engine) < 0)
            return BAD("engine = '%.*s': want callgrind or cachegrind", name, k->line, SHOW, v);
        return 0;
    }
    if (strcmp(k->key, "valgrind-arg") == 0) {
        if (count_vg_arg_check(v, e) < 0)
            return err_prefix(e, "'%s' line %lu: valgrind-arg", name, k->line);
        return list_add(&s->vg_args, v, e);
    }
    int mk = metrics_ini_key(name, k->line, k->key, v, &s->metrics_from, &s->metrics_pattern, e);
    if (mk != 0)
        return mk < 0 ? -1 : 0;
    return BAD("unknown key '%.*s' in [suite]", name, k->line, SHOW, k->key);
#undef BAD
}

/* env = VAR=VALUE...: words split at spaces and tabs, and nothing else: each is taken as
 * written, quotes and backslashes included, as --lane takes it (a shell's quoting here once
 * turned collectgarbage("generational") into collectgarbage(generational), silently). */
static int lane_env(const char *name, struct suite_lane *l, const struct ini_key *k, struct err *e)
{
    size_t n = 0;
    for (const char *p = k->value; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p)
            n++;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    char **w = calloc(n + 1, sizeof *w);
    if (!w)
        return err_set(e, ERR_SYSTEM, "out of memory");
    size_t i = 0;
    for (const char *p = k->value; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *b = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (p == b)
            continue;
        const char *eq = memchr(b, '=', p - b);
        if (!eq || !words_is_env_name(b, eq - b)) {
            err_set(e, ERR_INPUT, "'%s' line %lu: bad variable '%.*s' in [lane %s]: want VAR=VALUE",
                    name, k->line, (int)(p - b < SHOW ? p - b : SHOW), b, l->name);
            words_free(w);
            return -1;
        }
        if (!(w[i++] = strndup(b, p - b))) {
            words_free(w);
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
    }
    l->env = w;
    return 0;
}

static int suite_lane(const char *name, struct suite *s, const struct ini_section *sec,
                      struct err *e)
{
    const char *ln = sec->name + 4;
    while (*ln == ' ' || *ln == '\t')
        ln++;
    if (!valid_lane_name(ln))
        return err_set(e, ERR_INPUT,
                       "'%s' line %lu: bad lane name '%.*s': use letters, digits, '_', "
                       "'.', '-'",
                       name, sec->line, SHOW, ln);
    for (int i = 0; i < s->nlanes; i++)
        if (strcmp(s->lanes[i].name, ln) == 0)
            return err_set(e, ERR_INPUT, "'%s' line %lu: lane '%s' again: give each lane once",
                           name, sec->line, ln);
    /* A lane without env = is a lane all the same: the inherited environment. */
    struct suite_lane *l = realloc(s->lanes, (s->nlanes + 1) * sizeof *l);
    if (!l)
        return err_set(e, ERR_SYSTEM, "out of memory");
    s->lanes = l;
    l = &s->lanes[s->nlanes];
    l->env = calloc(1, sizeof *l->env);
    if (!(l->name = strdup(ln)) || !l->env) {
        free(l->name);
        free(l->env);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    s->nlanes++;
    l->metrics_from = l->metrics_pattern = NULL;
    for (size_t i = 0; i < sec->nkeys; i++) {
        const struct ini_key *k = &sec->keys[i];
        int mk = metrics_ini_key(name, k->line, k->key, k->value, &l->metrics_from,
                                 &l->metrics_pattern, e);
        if (mk < 0)
            return -1;
        if (mk > 0)
            continue;
        if (strcmp(k->key, "env") != 0)
            return err_set(e, ERR_INPUT, "'%s' line %lu: unknown key '%.*s' in [lane %s]", name,
                           k->line, SHOW, k->key, l->name);
        words_free(l->env);
        l->env = NULL;
        if (lane_env(name, l, k, e) < 0)
            return -1;
    }
    return 0;
}

/* A [bench NAME] section (core/engine/budget.c reads it); a name given twice is refused. */
static int suite_budget(const char *name, struct suite *s, const struct ini_section *sec,
                        struct err *e)
{
    struct budget b;
    if (budget_section(name, sec, &b, e) < 0)
        return -1;
    const struct budget *dup = budget_find(s->budgets, s->nbudgets, b.bench);
    if (dup) {
        err_set(e, ERR_INPUT, "'%s' line %lu: [bench %s] again (first at line %lu)", name,
                sec->line, b.bench, dup->line);
        free(b.bench);
        return -1;
    }
    struct budget *nb = realloc(s->budgets, (s->nbudgets + 1) * sizeof *nb);
    if (!nb) {
        free(b.bench);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    s->budgets = nb;
    s->budgets[s->nbudgets++] = b;
    return 0;
}

int suite_parse(const char *name, const char *text, const char *dir, struct suite *s,
                struct err *e)
{
    memset(s, 0, sizeof *s);
    s->runs = 7;
    s->warmup = 1;
    if (!(s->dir = strdup(dir)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    struct ini ini;
    if (ini_parse(name, text, strlen(text), suite_repeat_keys, &ini, e) < 0) {
        suite_free(s);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < ini.nsec && rc == 0; i++) {
        const struct ini_section *sec = &ini.sec[i];
        if (strcmp(sec->name, "suite") == 0) {
            for (size_t k = 0; k < sec->nkeys && rc == 0; k++)
                rc = suite_key(name, s, &sec->keys[k], e);
        } else if (strncmp(sec->name, "lane", 4) == 0 &&
                   (sec->name[4] == ' ' || sec->name[4] == '\t' || sec->name[4] == '\0')) {
            rc = suite_lane(name, s, sec, e);
        } else if (strncmp(sec->name, "bench", 5) == 0 &&
                   (sec->name[5] == ' ' || sec->name[5] == '\t' || sec->name[5] == '\0')) {
            rc = suite_budget(name, s, sec, e);
        } else {
            rc = err_set(e, ERR_INPUT, "'%s' line %lu: unknown section [%.*s]", name, sec->line,
                         SHOW, sec->name);
        }
    }
    ini_free(&ini);
    if (rc == 0 && (!s->command || !s->patterns || !s->patterns[0]))
        rc = err_set(e, ERR_INPUT, "'%s': [suite] needs %s", name,
                     !s->command ? "command = ..." : "benchmarks = PATTERN...");
    if (rc < 0)
        suite_free(s);
    return rc;
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
    char *text = NULL;
    size_t n;
    if (in_read_file(path, &text, &n, e) < 0)   /* bounded; a NUL or a directory refused */
        return -1;
    char *pcopy = strdup(path);
    int rc = pcopy ? suite_parse(path, text, dirname(pcopy), s, e)
                   : err_set(e, ERR_SYSTEM, "out of memory");
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
            err_set(e, ERR_INPUT, "'%s': benchmarks = '%s' matches no file in '%s'", path, *p,
                    s->dir);
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
    free(s->keep_stacks);
    free(s->subtract);
    free(s->metrics_from);
    free(s->metrics_pattern);
    free(s->build);
    for (int k = 0; k < 4; k++)
        words_free(s->hooks[k]);
    words_free(s->vg_args);
    words_free(s->patterns);
    for (int i = 0; i < s->nlanes; i++) {
        free(s->lanes[i].name);
        words_free(s->lanes[i].env);
        free(s->lanes[i].metrics_from);
        free(s->lanes[i].metrics_pattern);
    }
    free(s->lanes);
    for (int i = 0; i < s->nbudgets; i++)
        budget_free(&s->budgets[i]);
    free(s->budgets);
    for (int i = 0; i < s->nbench; i++) {
        free(s->bench[i].name);
        free(s->bench[i].path);
    }
    free(s->bench);
    memset(s, 0, sizeof *s);
}

void suite_metrics(const struct suite *s, int b, int l, const char **from, const char **pattern)
{
    const struct budget *bb = b >= 0 && b < s->nbench
                              ? budget_find(s->budgets, s->nbudgets, s->bench[b].name) : NULL;
    const struct suite_lane *ln = l >= 0 && l < s->nlanes ? &s->lanes[l] : NULL;
    *from = bb && bb->metrics_from ? bb->metrics_from
            : ln && ln->metrics_from ? ln->metrics_from : s->metrics_from;
    *pattern = bb && bb->metrics_pattern ? bb->metrics_pattern
               : ln && ln->metrics_pattern ? ln->metrics_pattern : s->metrics_pattern;
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
