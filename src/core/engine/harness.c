/* harness.c: hooks, stdin, stdout and parameters around a measuring command's series: the
 * parameters' values and combinations, each combination's hooks and series. */
#define _GNU_SOURCE
#include "core/engine/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/words.h"

static const char *const hook_names[HARNESS_NHOOKS] = {"--setup", "--prepare", "--conclude",
                                                       "--cleanup"};

int harness_init(struct harness *h, int room, struct err *e)
{
    memset(h, 0, sizeof *h);
    for (int k = 0; k < HARNESS_NHOOKS; k++)
        if (!(h->hook_str[k] = calloc(room + 1, sizeof *h->hook_str[k])))
            return err_set(e, ERR_SYSTEM, "out of memory");
    if (!(h->param = calloc(room + 1, sizeof *h->param)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    return 0;
}

struct harness_param *harness_add_param(struct harness *h, const char *opt, const char *var,
                                        struct err *e)
{
    if (!words_is_env_name(var, strlen(var))) {
        err_set(e, ERR_INPUT, "bad parameter name '%s' for %s: use letters, digits and '_'",
                var, opt);
        return NULL;
    }
    for (int i = 0; i < h->nparam; i++)
        if (strcmp(h->param[i].var, var) == 0) {
            err_set(e, ERR_INPUT, "parameter '%s' given twice", var);
            return NULL;
        }
    struct harness_param *p = &h->param[h->nparam++];
    p->var = var;
    return p;
}

/* A finite number, whole or decimal; false when s is not one. */
static bool parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && !*end && errno == 0 && isfinite(*out);
}

static int scan_values(const struct harness *h, struct harness_param *p, struct err *e)
{
    double lo, hi, step = 1;
    if (!parse_num(p->scan[0], &lo) || !parse_num(p->scan[1], &hi))
        return err_set(e, ERR_INPUT, "bad --parameter-scan %s %s %s: want numbers MIN <= MAX",
                       p->var, p->scan[0], p->scan[1]);
    if (h->step && (!parse_num(h->step, &step) || !(step > 0)))
        return err_set(e, ERR_INPUT, "bad value '%s' for --parameter-step-size: want a number "
                       "above 0", h->step);
    if (!(lo <= hi))
        return err_set(e, ERR_INPUT, "bad --parameter-scan %s %s %s: want numbers MIN <= MAX",
                       p->var, p->scan[0], p->scan[1]);
    /* A hair of tolerance, so 0 to 1 by 0.1 ends at 1 despite binary fractions. */
    double n = floor((hi - lo) / step * (1 + 1e-12) + 1e-9) + 1;
    if (n > HARNESS_MAX_COMBOS)
        return err_set(e, ERR_INPUT, "--parameter-scan %s %s %s makes %.0f values; at most %d",
                       p->var, p->scan[0], p->scan[1], n, HARNESS_MAX_COMBOS);
    p->n = (int)n;
    if (!(p->values = calloc(p->n + 1, sizeof *p->values)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int i = 0; i < p->n; i++) {
        double v = lo + i * step;
        v = round(v * 1e9) / 1e9;   /* 0.30000000000000004 is 0.3 */
        if (asprintf(&p->values[i], "%.12g", v == 0 ? 0.0 : v) < 0) {
            p->values[i] = NULL;
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
    }
    return 0;
}

static int list_values(struct harness_param *p, struct err *e)
{
    if (!p->list[0])
        return err_set(e, ERR_INPUT, "--parameter-list %s: no values", p->var);
    p->n = 1;
    for (const char *s = p->list; *s; s++)
        p->n += *s == ',';
    if (p->n > HARNESS_MAX_COMBOS || !(p->values = calloc(p->n + 1, sizeof *p->values)))
        return err_set(e, ERR_INPUT, "--parameter-list %s: too many values", p->var);
    const char *s = p->list;
    for (int i = 0; i < p->n; i++) {
        size_t len = strcspn(s, ",");
        if (!(p->values[i] = strndup(s, len)))
            return err_set(e, ERR_SYSTEM, "out of memory");
        s += len + (s[len] == ',');
    }
    return 0;
}

char *harness_subst(const struct harness *h, int c, const char *s)
{
    const struct harness_combo *co = &h->combo[c];
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    while (*s) {
        int hit = -1;
        if (*s == '{')
            for (int i = 0; i < h->nparam && hit < 0; i++) {
                size_t n = strlen(h->param[i].var);
                if (strncmp(s + 1, h->param[i].var, n) == 0 && s[1 + n] == '}')
                    hit = i;
            }
        if (hit < 0) {
            fputc(*s++, f);
            continue;
        }
        fputs(h->param[hit].values[co->pick[hit]], f);
        s += strlen(h->param[hit].var) + 2;
    }
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* True when {VAR} of parameter p appears in s. */
static bool uses(const struct harness_param *p, const char *s)
{
    size_t n = strlen(p->var);
    for (const char *q = strchr(s, '{'); q; q = strchr(q + 1, '{'))
        if (strncmp(q + 1, p->var, n) == 0 && q[1 + n] == '}')
            return true;
    return false;
}

const char *harness_param_in(const struct harness *h, const char *s)
{
    for (int i = 0; i < h->nparam; i++)
        if (uses(&h->param[i], s))
            return h->param[i].var;
    return NULL;
}

const char *harness_param_unused(const struct harness *h, char *const *cmds, int n)
{
    for (int i = 0; i < h->nparam; i++) {
        bool used = false;
        for (int j = 0; j < n && !used; j++)
            used = uses(&h->param[i], cmds[j]);
        for (int k = 0; k < HARNESS_NHOOKS && !used; k++)
            for (int j = 0; j < h->nhook[k] && !used; j++)
                used = uses(&h->param[i], h->hook_str[k][j]);
        if (!used)
            return h->param[i].var;
    }
    return NULL;
}

/* Combination c's label ("n=30 m=2") and picks: the first parameter varies slowest. */
static int make_combo(struct harness *h, int c, struct err *e)
{
    struct harness_combo *co = &h->combo[c];
    if (!(co->pick = calloc(h->nparam + 1, sizeof *co->pick)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int i = h->nparam - 1, rest = c; i >= 0; i--) {
        co->pick[i] = rest % h->param[i].n;
        rest /= h->param[i].n;
    }
    char *label = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&label, &len);
    if (!f)
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int i = 0; i < h->nparam; i++)
        fprintf(f, "%s%s=%s", i ? " " : "", h->param[i].var, h->param[i].values[co->pick[i]]);
    if (fclose(f) != 0)
        return err_set(e, ERR_SYSTEM, "out of memory");
    co->label = label;
    return 0;
}

/* Combination c's hooks, its values substituted, split into argv. */
static int combo_hooks(struct harness *h, int c, const char *shell, struct err *e)
{
    struct harness_combo *co = &h->combo[c];
    for (int k = 0; k < HARNESS_NHOOKS; k++) {
        if (h->nhook[k] == 0)
            continue;
        if (!(co->hook_argv[k] = calloc(h->nhook[k], sizeof *co->hook_argv[k])))
            return err_set(e, ERR_SYSTEM, "out of memory");
        for (int i = 0; i < h->nhook[k]; i++) {
            char *s = harness_subst(h, c, h->hook_str[k][i]);
            if (!s)
                return err_set(e, ERR_SYSTEM, "out of memory");
            int rc = series_split(s, shell, &co->hook_argv[k][i], e);
            free(s);
            if (rc < 0) {
                e->kind = ERR_INPUT;
                return err_prefix(e, "%s", hook_names[k]);
            }
        }
    }
    return 0;
}

int harness_expand(struct harness *h, const char *shell, struct err *e)
{
    h->ncombo = 1;
    for (int i = 0; i < h->nparam; i++) {
        struct harness_param *p = &h->param[i];
        if ((p->scan[0] ? scan_values(h, p, e) : list_values(p, e)) < 0)
            return -1;
        if ((long)h->ncombo * p->n > HARNESS_MAX_COMBOS)
            return err_set(e, ERR_INPUT, "the parameters make more than %d combinations",
                           HARNESS_MAX_COMBOS);
        h->ncombo *= p->n;
    }
    if (h->step) {
        bool any = false;
        for (int i = 0; i < h->nparam; i++)
            any |= h->param[i].scan[0] != NULL;
        if (!any)
            return err_set(e, ERR_INPUT, "--parameter-step-size wants a --parameter-scan");
    }
    if (!(h->combo = calloc(h->ncombo, sizeof *h->combo)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int c = 0; c < h->ncombo; c++)
        if (make_combo(h, c, e) < 0 || combo_hooks(h, c, shell, e) < 0)
            return -1;
    return 0;
}

int harness_open_files(const struct harness *h, struct err *e)
{
    if (h->input) {
        int fd = open(h->input, O_RDONLY);
        if (fd < 0)
            return err_errno(e, ERR_INPUT, errno, "cannot read '%s'", h->input);
        close(fd);
    }
    if (h->output_file) {
        int fd = open(h->output_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return err_errno(e, ERR_INPUT, errno, "cannot write '%s'", h->output_file);
        close(fd);
    }
    return 0;
}

/* Combination c's series into all (series i at i * ncombo + c), named after raw's. */
static int combo_series(const struct harness *h, const struct series_spec *spec, char **sub,
                        int n, bool dashdash, const struct series *raw, int nraw, int c,
                        struct series *all, struct err *e)
{
    struct series *t = NULL;
    int nt = 0, rc = 0;
    if (series_build(spec, sub, n, dashdash, &t, &nt, e) < 0)
        return -1;
    for (int i = 0; i < nt && i < nraw; i++) {
        struct series *d = &all[(size_t)i * h->ncombo + c];
        *d = t[i];
        /* Named as the command is, unless the name itself holds a parameter ("{py}"). */
        const char *base = strchr(raw[i].name, '{') ? t[i].name : raw[i].name;
        char *name;
        if (asprintf(&name, "%s %s", base, h->combo[c].label) < 0)
            name = NULL;
        free(d->name);
        d->name = name;
        t[i] = (struct series){0};
        if (!d->name)
            rc = err_set(e, ERR_SYSTEM, "out of memory");
    }
    series_free(t, nt);
    free(t);
    return rc;
}

int harness_series(const struct harness *h, const struct series_spec *spec, char **cmds, int n,
                   bool dashdash, const struct series *raw, int nraw, struct series **out,
                   int *nout, struct err *e)
{
    size_t nall = (size_t)nraw * h->ncombo;
    struct series *all = calloc(nall + 1, sizeof *all);
    char **sub = calloc(n + 1, sizeof *sub);
    int rc = all && sub ? 0 : err_set(e, ERR_SYSTEM, "out of memory");
    for (int c = 0; c < h->ncombo && rc == 0; c++) {
        for (int j = 0; j < n && rc == 0; j++) {
            free(sub[j]);
            if (!(sub[j] = harness_subst(h, c, cmds[j])))
                rc = err_set(e, ERR_SYSTEM, "out of memory");
        }
        if (rc == 0)
            rc = combo_series(h, spec, sub, n, dashdash, raw, nraw, c, all, e);
    }
    for (int j = 0; sub && j < n; j++)
        free(sub[j]);
    free(sub);
    if (rc < 0) {
        series_free(all, all ? (int)nall : 0);
        free(all);
        return -1;
    }
    *out = all;
    *nout = (int)nall;
    return 0;
}

int harness_runs(const struct harness *h, long *runs, struct err *e)
{
    bool by_time = h->min_runs || h->max_runs || h->min_time > 0;
    if (h->runs_given && by_time)
        return err_set(e, ERR_INPUT, "--runs fixes the count: give it or "
                       "--min-runs/--max-runs/--min-time, not both");
    if (h->min_runs && h->max_runs && h->min_runs > h->max_runs)
        return err_set(e, ERR_INPUT, "--min-runs %ld is above --max-runs %ld", h->min_runs,
                       h->max_runs);
    if (h->min_runs)
        *runs = h->min_runs;
    if (h->max_runs && *runs > h->max_runs)
        *runs = h->max_runs;
    return 0;
}

void harness_cmds(const struct harness *h, int combo, struct session_cmds out[HARNESS_NHOOKS])
{
    const struct harness_combo *co = &h->combo[combo];
    for (int k = 0; k < HARNESS_NHOOKS; k++)
        out[k] = (struct session_cmds){.argv = (char *const *const *)co->hook_argv[k],
                                       .n = co->hook_argv[k] ? h->nhook[k] : 0};
}

void harness_apply(const struct harness *h, struct session_series *x, int combo)
{
    struct session_cmds c[HARNESS_NHOOKS];
    harness_cmds(h, combo, c);
    x->setup = c[HARNESS_SETUP];
    x->prepare = c[HARNESS_PREPARE];
    x->conclude = c[HARNESS_CONCLUDE];
    x->cleanup = c[HARNESS_CLEANUP];
}

void harness_plan(const struct harness *h, struct session_plan *p)
{
    p->stdin_path = h->input;
    p->stdout_path = h->output_file;
    p->stdout_pipe = h->output_pipe;
    p->show_output = h->show_output;
    p->min_time_s = h->min_time;
    p->max_runs = h->max_runs;
}

void harness_free(struct harness *h)
{
    for (int c = 0; h->combo && c < h->ncombo; c++) {
        struct harness_combo *co = &h->combo[c];
        for (int k = 0; k < HARNESS_NHOOKS; k++) {
            for (int i = 0; co->hook_argv[k] && i < h->nhook[k]; i++)
                words_free(co->hook_argv[k][i]);
            free(co->hook_argv[k]);
        }
        free(co->label);
        free(co->pick);
    }
    free(h->combo);
    h->combo = NULL;
    for (int i = 0; h->param && i < h->nparam; i++) {
        for (int j = 0; h->param[i].values && j < h->param[i].n; j++)
            free(h->param[i].values[j]);
        free(h->param[i].values);
    }
    free(h->param);
    h->param = NULL;
    for (int k = 0; k < HARNESS_NHOOKS; k++) {
        free(h->hook_str[k]);
        h->hook_str[k] = NULL;
    }
}
