/* series.c: commands x lanes -> named series (struct series), shared by every measuring
 * command: lanes parsed, commands split into words, names defaulted and told apart. */
#define _GNU_SOURCE
#include "core/engine/series.h"

#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/words.h"

char *series_name(const char *name, const char *lane)
{
    char *s;
    if (asprintf(&s, "%s%s%s", name, lane && lane[0] ? "+" : "", lane ? lane : "") < 0)
        return NULL;
    return s;
}

void lane_free(struct suite_lane *l)
{
    free(l->name);
    words_free(l->env);
    l->name = NULL;
    l->env = NULL;
}

int lane_parse(const char *spec, struct suite_lane *out, struct err *e)
{
    memset(out, 0, sizeof *out);
    const char *colon = strchr(spec, ':');
    if (!colon)
        return err_set(e, ERR_INPUT, "bad lane '%s': want NAME:VAR=VALUE[,VAR=VALUE...]", spec);
    for (const char *p = spec; p < colon; p++)
        if (!(isalnum((unsigned char)*p) || strchr("_.-", *p)))
            return err_set(e, ERR_INPUT,
                           "bad lane name in '%s': use letters, digits, '_', '.', '-'", spec);
    out->name = strndup(spec, colon - spec);
    size_t cap = 4, n = 0;
    out->env = calloc(cap, sizeof *out->env);
    if (!out->name || !out->env)
        goto nomem;
    const char *p = colon + 1;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || !words_is_env_name(p, eq - p)) {
            err_set(e, ERR_INPUT, "bad variable '%.*s' in lane '%s': want VAR=VALUE", (int)len, p,
                    spec);
            lane_free(out);
            return -1;
        }
        if (n + 2 > cap) {
            cap *= 2;
            char **env = realloc(out->env, cap * sizeof *env);
            if (!env)
                goto nomem;
            out->env = env;
        }
        if (!(out->env[n++] = strndup(p, len)))
            goto nomem;
        out->env[n] = NULL;
        p += len + (end ? 1 : 0);
    }
    return 0;
nomem:
    lane_free(out);
    return err_set(e, ERR_SYSTEM, "out of memory");
}

static char **strv_dup(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    char **d = calloc(n + 1, sizeof *d);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(d[i] = strdup(v[i]))) {
            words_free(d);
            return NULL;
        }
    return d;
}

/* A name from the command: its first word's basename. */
static char *default_name(char *const *argv)
{
    char *copy = strdup(argv[0]);
    if (!copy)
        return NULL;
    char *name = strdup(basename(copy));
    free(copy);
    return name;
}

static void target_clear(struct series *t)
{
    free(t->name);
    free(t->lane);
    free(t->command);
    words_free(t->argv);
    words_free(t->env);
}

static int make_argv(const char *cmd, const char *shell, char ***argv, struct err *e)
{
    if (shell) {
        /* SHELL's own words (it may be "bash --norc"), then -c and the command string. */
        char **sh = NULL;
        int n = 0;
        if (words_split(shell, &sh, &n, NULL, e) < 0)
            return -1;
        char **v = calloc(n + 3, sizeof *v);
        if (!v) {
            words_free(sh);
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
        for (int i = 0; i < n; i++)
            v[i] = sh[i];
        v[n] = "-c";
        v[n + 1] = (char *)cmd;
        *argv = strv_dup(v);
        free(v);
        words_free(sh);
        return *argv ? 0 : err_set(e, ERR_SYSTEM, "out of memory");
    }
    char shell_char = 0;
    if (words_split(cmd, argv, NULL, &shell_char, e) < 0)
        return -1;
    if (shell_char) {
        words_free(*argv);
        *argv = NULL;
        return err_set(e, ERR_INPUT,
                       "command '%s' uses shell syntax ('%c') that tare does not interpret; "
                       "quote it, or pass --shell sh (-S sh) to run it with sh -c", cmd,
                       shell_char);
    }
    return 0;
}

int series_split(const char *cmd, const char *shell, char ***argv, struct err *e)
{
    return make_argv(cmd, shell, argv, e);
}

int series_from_string(const char *cmd, const char *name, const char *shell, struct series *t,
                       struct err *e)
{
    memset(t, 0, sizeof *t);
    if (make_argv(cmd, shell, &t->argv, e) < 0)
        return -1;
    t->command = strdup(cmd);
    t->name = name ? strdup(name) : default_name(shell ? (char *[]){"sh", NULL} : t->argv);
    if (shell && !name && t->name) {
        /* For sh -c, name it after the command's own first word. */
        char **w = NULL;
        struct err ignored;
        if (words_split(cmd, &w, NULL, NULL, &ignored) == 0) {
            free(t->name);
            t->name = default_name(w);
            words_free(w);
        }
    }
    if (!t->command || !t->name) {
        series_free(t, 1);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    return 0;
}

void series_free(struct series *t, int n)
{
    if (!t)
        return;
    for (int i = 0; i < n; i++)
        target_clear(&t[i]);
}

static char *join_env_command(char *const *env, const char *command)
{
    size_t len = strlen(command) + 1;
    for (char *const *v = env; v && *v; v++)
        len += strlen(*v) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t o = 0;
    for (char *const *v = env; v && *v; v++) {
        size_t k = strlen(*v);
        memcpy(s + o, *v, k);
        s[o + k] = ' ';
        o += k + 1;
    }
    memcpy(s + o, command, strlen(command) + 1);
    return s;
}

/* A longer name for commands whose short names clash: the basename and the arguments. */
static char *long_name(char *const *argv)
{
    char *first = default_name(argv);
    if (!first)
        return NULL;
    char **v = strv_dup(argv);
    if (!v) {
        free(first);
        return NULL;
    }
    free(v[0]);
    v[0] = first;
    char *name = words_join(v);
    words_free(v);
    return name;
}

/*
 * Default names that clash become "basename args"; commands that are still alike get "#2",
 * "#3". Names the user gave must be distinct as given.
 */
static int disambiguate(struct series *b, const bool *named, int n, struct err *e)
{
    /* Every name that clashes is found before any is renamed: renaming a pair at a time
     * left the third of three alike with its short name. */
    bool *clash = calloc(n ? n : 1, sizeof *clash);
    if (!clash)
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (strcmp(b[i].name, b[j].name) != 0)
                continue;
            if (named[i] && named[j]) {
                free(clash);
                return err_set(e, ERR_INPUT, "two commands are both named '%s'", b[i].name);
            }
            clash[i] = clash[j] = true;
        }
    for (int k = 0; k < n; k++)
        if (clash[k] && !named[k]) {
            char *l = long_name(b[k].argv);
            if (!l) {
                free(clash);
                return err_set(e, ERR_SYSTEM, "out of memory");
            }
            free(b[k].name);
            b[k].name = l;
        }
    free(clash);
    for (int i = 0; i < n; i++) {
        int seen = 1;
        for (int j = i + 1; j < n; j++) {
            if (strcmp(b[i].name, b[j].name) != 0)
                continue;
            if (named[j])
                return err_set(e, ERR_INPUT, "two commands are both named '%s'", b[j].name);
            char *l;
            if (asprintf(&l, "%s #%d", b[j].name, ++seen) < 0)
                return err_set(e, ERR_SYSTEM, "out of memory");
            free(b[j].name);
            b[j].name = l;
        }
    }
    return 0;
}

int series_build(const struct series_spec *spec, char **argv, int argc, bool dashdash,
                  struct series **out, int *nout, struct err *e)
{
    int ncmd = dashdash ? 1 : argc;
    int nl = spec->nlanes ? spec->nlanes : 1;
    if (ncmd == 0 || (dashdash && argc == 0))
        return err_set(e, ERR_INPUT, "no command to measure");
    if (spec->nnames > ncmd)
        return err_set(e, ERR_INPUT, "%d --name options for %d command%s", spec->nnames, ncmd,
                       ncmd == 1 ? "" : "s");
    struct series *base = calloc(ncmd, sizeof *base);
    bool *named = calloc(ncmd, sizeof *named);
    struct series *t = calloc((size_t)ncmd * nl, sizeof *t);
    int n = 0, nbase = 0;
    if (!base || !named || !t) {
        err_set(e, ERR_SYSTEM, "out of memory");
        goto fail;
    }
    for (int c = 0; c < ncmd; c++) {
        struct series *b = &base[nbase];
        named[c] = spec->nnames > c;
        if (dashdash) {
            b->argv = strv_dup(argv);
            b->command = words_join(argv);
            b->name = named[c] ? strdup(spec->names[c]) : default_name(argv);
            nbase++;
            if (!b->argv || !b->command || !b->name) {
                err_set(e, ERR_SYSTEM, "out of memory");
                goto fail;
            }
        } else {
            if (series_from_string(argv[c], named[c] ? spec->names[c] : NULL, spec->shell, b,
                                   e) < 0)
                goto fail;
            nbase++;
        }
    }
    if (disambiguate(base, named, ncmd, e) < 0)
        goto fail;
    for (int c = 0; c < ncmd; c++) {
        for (int l = 0; l < nl; l++) {
            struct series *s = &t[n++];
            const struct suite_lane *lane = spec->nlanes ? &spec->lanes[l] : NULL;
            s->argv = strv_dup(base[c].argv);
            if (lane && lane->name[0])
                s->lane = strdup(lane->name);
            s->name = series_name(base[c].name, lane ? lane->name : NULL);
            s->env = lane ? strv_dup(lane->env) : NULL;
            s->command = join_env_command(s->env, base[c].command);
            if (!s->argv || !s->name || !s->command || (lane && !s->env) ||
                (lane && lane->name[0] && !s->lane)) {
                err_set(e, ERR_SYSTEM, "out of memory");
                goto fail;
            }
        }
    }
    /* Lanes must have distinct names too ("--lane a:.. --lane a:.."). */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(t[i].name, t[j].name) == 0) {
                err_set(e, ERR_INPUT, "two series are both named '%s'; give each lane its own name",
                        t[i].name);
                goto fail;
            }
    series_free(base, nbase);
    free(base);
    free(named);
    *out = t;
    *nout = n;
    return 0;
fail:
    series_free(base, nbase);
    free(base);
    free(named);
    series_free(t, n);
    free(t);
    return -1;
}

bool series_spec_init(struct series_spec *spec, int argc)
{
    memset(spec, 0, sizeof *spec);
    spec->names = calloc(argc, sizeof *spec->names);
    spec->lanes = calloc(argc, sizeof *spec->lanes);
    return spec->names && spec->lanes;
}

void series_spec_free(struct series_spec *spec)
{
    for (int i = 0; spec->lanes && i < spec->nlanes; i++)
        lane_free(&spec->lanes[i]);
    free(spec->lanes);
    free(spec->names);
    spec->lanes = NULL;
    spec->names = NULL;
}
