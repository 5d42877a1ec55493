/* harness.c: hooks, stdin and stdout options and parameters shared by wall, ab, stat, count. */
#define _GNU_SOURCE
#include "cli/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/measure_opts.h"
#include "cli/hyperfine_export.h"
#include "cli/out.h"
#include "core/words.h"

static const char *const hook_names[HARNESS_NHOOKS] = {"--setup", "--prepare", "--conclude",
                                                       "--cleanup"};

/* The most series parameters may make, so a typo in a scan cannot start a week of runs. */
#define MAX_COMBOS 10000

bool harness_init(struct harness *h, const char *cmd, const char *usage, int argc)
{
    memset(h, 0, sizeof *h);
    h->cmd = cmd;
    h->usage = usage;
    for (int k = 0; k < HARNESS_NHOOKS; k++)
        if (!(h->hook_str[k] = calloc(argc + 1, sizeof *h->hook_str[k])))
            return false;
    return (h->param = calloc(argc + 1, sizeof *h->param)) != NULL;
}

static struct harness_param *new_param(struct harness *h, const char *opt, const char *var)
{
    if (!words_is_env_name(var, strlen(var))) {
        cli_usage_error(h->cmd, h->usage, "bad parameter name '%s' for %s: use letters, digits "
                        "and '_'", var, opt);
        return NULL;
    }
    for (int i = 0; i < h->nparam; i++)
        if (strcmp(h->param[i].var, var) == 0) {
            cli_usage_error(h->cmd, h->usage, "parameter '%s' given twice", var);
            return NULL;
        }
    struct harness_param *p = &h->param[h->nparam++];
    p->var = var;
    return p;
}

int harness_opt_hook(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct harness *h = o->value;
    (void)p;
    h->hook_str[o->defval][h->nhook[o->defval]++] = arg;
    return 0;
}

int harness_opt_output(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct harness *h = o->value;
    /* hyperfine's words: null, pipe, inherit, or a file (./pipe for a file so named) */
    h->output_file = NULL;
    h->show_output = h->output_pipe = false;
    if (strcmp(arg, "inherit") == 0) {
        h->show_output = true;
    } else if (strcmp(arg, "pipe") == 0) {
        h->output_pipe = true;
    } else if (arg[0] == '\0') {
        cli_usage_error(p->cmd, p->usage, "bad value '' for --output: want null, pipe, inherit "
                        "or a file");
        return -1;
    } else if (strcmp(arg, "null") != 0) {
        h->output_file = arg;
    }
    return 0;
}

int harness_opt_show_output(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct harness *h = o->value;
    (void)arg, (void)p;
    h->output_file = NULL;
    h->output_pipe = false;
    h->show_output = true;
    return 0;
}

int harness_opt_time_unit(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    static const char *const units[] = {"second", "millisecond", "microsecond"};
    (void)o;
    for (int i = 0; i < 3; i++)
        if (strcmp(arg, units[i]) == 0) {
            out_time_unit = (enum out_unit)(OUT_UNIT_S + i);
            return 0;
        }
    cli_usage_error(p->cmd, p->usage, "bad value '%s' for --time-unit: want second, "
                    "millisecond or microsecond", arg);
    return -1;
}

int harness_opt_style(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    static const char *const styles[] = {"auto", "basic", "full", "nocolor", "color", "none"};
    (void)o;
    for (int i = 0; i < 6; i++)
        if (strcmp(arg, styles[i]) == 0) {
            cli_style = (enum cli_style)i;
            if (cli_style == CLI_STYLE_NONE && !freopen("/dev/null", "w", stdout)) {
                cli_error(p->cmd, "--style none: cannot open /dev/null");
                return -1;
            }
            return 0;
        }
    cli_usage_error(p->cmd, p->usage, "bad value '%s' for --style: want auto, basic, full, "
                    "nocolor, color or none", arg);
    return -1;
}

int harness_opt_sort(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    (void)o;
    if (strcmp(arg, "auto") && strcmp(arg, "command") && strcmp(arg, "mean-time")) {
        cli_usage_error(p->cmd, p->usage, "bad value '%s' for --sort: want auto, command or "
                        "mean-time", arg);
        return -1;
    }
    hf_sort_by_mean = strcmp(arg, "mean-time") == 0;
    return 0;
}

/* --parameter-scan VAR MIN MAX: getopt gave VAR; MIN and MAX follow it, taken here (optind
 * moved past them). */
int harness_opt_scan(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct harness *h = o->value;
    if (optind + 1 >= p->argc) {
        cli_usage_error(h->cmd, h->usage, "--parameter-scan wants VAR MIN MAX");
        return -1;
    }
    for (int i = 0; i < h->nparam; i++)
        if (h->param[i].scan[0]) {
            cli_usage_error(h->cmd, h->usage, "--parameter-scan given twice (use "
                            "--parameter-list for more parameters)");
            return -1;
        }
    struct harness_param *hp = new_param(h, "--parameter-scan", arg);
    if (!hp)
        return -1;
    hp->scan[0] = p->argv[optind];
    hp->scan[1] = p->argv[optind + 1];
    optind += 2;
    return 0;
}

/* --parameter-list VAR A,B,...: the list is the word after VAR. */
int harness_opt_list(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct harness *h = o->value;
    if (optind >= p->argc) {
        cli_usage_error(h->cmd, h->usage, "--parameter-list wants VAR A,B,...");
        return -1;
    }
    struct harness_param *hp = new_param(h, "--parameter-list", arg);
    if (!hp)
        return -1;
    hp->list = p->argv[optind++];
    return 0;
}

/* A finite number, whole or decimal; false when s is not one. */
static bool parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && !*end && errno == 0 && isfinite(*out);
}

static int scan_values(struct harness *h, struct harness_param *p)
{
    double lo, hi, step = 1;
    if (!parse_num(p->scan[0], &lo) || !parse_num(p->scan[1], &hi))
        return cli_usage_error(h->cmd, h->usage, "bad --parameter-scan %s %s %s: want numbers "
                               "MIN <= MAX", p->var, p->scan[0], p->scan[1]);
    if (h->step && (!parse_num(h->step, &step) || !(step > 0)))
        return cli_usage_error(h->cmd, h->usage, "bad value '%s' for --parameter-step-size: "
                               "want a number above 0", h->step);
    if (!(lo <= hi))
        return cli_usage_error(h->cmd, h->usage, "bad --parameter-scan %s %s %s: want numbers "
                               "MIN <= MAX", p->var, p->scan[0], p->scan[1]);
    /* A hair of tolerance, so 0 to 1 by 0.1 ends at 1 despite binary fractions. */
    double n = floor((hi - lo) / step * (1 + 1e-12) + 1e-9) + 1;
    if (n > MAX_COMBOS)
        return cli_usage_error(h->cmd, h->usage, "--parameter-scan %s %s %s makes %.0f values; "
                               "at most %d", p->var, p->scan[0], p->scan[1], n, MAX_COMBOS);
    p->n = (int)n;
    if (!(p->values = calloc(p->n + 1, sizeof *p->values)))
        goto nomem;
    for (int i = 0; i < p->n; i++) {
        double v = lo + i * step;
        v = round(v * 1e9) / 1e9;   /* 0.30000000000000004 is 0.3 */
        if (asprintf(&p->values[i], "%.12g", v == 0 ? 0.0 : v) < 0) {
            p->values[i] = NULL;
            goto nomem;
        }
    }
    return 0;
nomem:
    cli_error(h->cmd, "out of memory");
    return EXIT_USAGE;
}

static int list_values(struct harness *h, struct harness_param *p)
{
    if (!p->list[0])
        return cli_usage_error(h->cmd, h->usage, "--parameter-list %s: no values", p->var);
    p->n = 1;
    for (const char *s = p->list; *s; s++)
        p->n += *s == ',';
    if (p->n > MAX_COMBOS || !(p->values = calloc(p->n + 1, sizeof *p->values)))
        return cli_usage_error(h->cmd, h->usage, "--parameter-list %s: too many values", p->var);
    const char *s = p->list;
    for (int i = 0; i < p->n; i++) {
        size_t len = strcspn(s, ",");
        if (!(p->values[i] = strndup(s, len))) {
            cli_error(h->cmd, "out of memory");
            return EXIT_USAGE;
        }
        s += len + (s[len] == ',');
    }
    return 0;
}

/* s with every {VAR} of the parameters replaced by combination c's value; NULL: no memory. */
static char *subst(const struct harness *h, const struct harness_combo *c, const char *s)
{
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
        fputs(h->param[hit].values[c->pick[hit]], f);
        s += strlen(h->param[hit].var) + 2;
    }
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* True when {VAR} of parameter i appears in s. */
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

int harness_finish(struct harness *h, const char *shell)
{
    int st;
    h->ncombo = 1;
    for (int i = 0; i < h->nparam; i++) {
        struct harness_param *p = &h->param[i];
        if ((st = p->scan[0] ? scan_values(h, p) : list_values(h, p)) != 0)
            return st;
        if ((long)h->ncombo * p->n > MAX_COMBOS)
            return cli_usage_error(h->cmd, h->usage, "the parameters make more than %d "
                                   "combinations", MAX_COMBOS);
        h->ncombo *= p->n;
    }
    if (h->step) {
        bool any = false;
        for (int i = 0; i < h->nparam; i++)
            any |= h->param[i].scan[0] != NULL;
        if (!any)
            return cli_usage_error(h->cmd, h->usage, "--parameter-step-size wants a "
                                   "--parameter-scan");
    }
    if (!(h->combo = calloc(h->ncombo, sizeof *h->combo)))
        goto nomem;
    for (int c = 0; c < h->ncombo; c++) {
        struct harness_combo *co = &h->combo[c];
        if (!(co->pick = calloc(h->nparam + 1, sizeof *co->pick)))
            goto nomem;
        /* The first parameter varies slowest. */
        char *label = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&label, &len);
        if (!f)
            goto nomem;
        for (int i = h->nparam - 1, rest = c; i >= 0; i--) {
            co->pick[i] = rest % h->param[i].n;
            rest /= h->param[i].n;
        }
        for (int i = 0; i < h->nparam; i++)
            fprintf(f, "%s%s=%s", i ? " " : "", h->param[i].var, h->param[i].values[co->pick[i]]);
        if (fclose(f) != 0)
            goto nomem;
        co->label = label;
        for (int k = 0; k < HARNESS_NHOOKS; k++) {
            if (h->nhook[k] == 0)
                continue;
            if (!(co->hook_argv[k] = calloc(h->nhook[k], sizeof *co->hook_argv[k])))
                goto nomem;
            for (int i = 0; i < h->nhook[k]; i++) {
                struct err e = {0};
                char *s = subst(h, co, h->hook_str[k][i]);
                if (!s)
                    goto nomem;
                int rc = target_split(s, shell, &co->hook_argv[k][i], &e);
                free(s);
                if (rc < 0)
                    return cli_usage_error(h->cmd, h->usage, "%s: %s", hook_names[k], e.msg);
            }
        }
    }
    if (h->input) {
        /* Here, once, rather than as a failed spawn in every run. */
        int fd = open(h->input, O_RDONLY);
        if (fd < 0) {
            cli_error(h->cmd, "cannot read '%s': %s", h->input, strerror(errno));
            return EXIT_USAGE;
        }
        close(fd);
    }
    if (h->output_file) {
        /* Emptied once here; every run (warm-ups too) then appends its stdout to it. */
        int fd = open(h->output_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            cli_error(h->cmd, "cannot write '%s': %s", h->output_file, strerror(errno));
            return EXIT_USAGE;
        }
        close(fd);
    }
    return 0;
nomem:
    cli_error(h->cmd, "out of memory");
    return EXIT_USAGE;
}

int harness_targets(struct harness *h, int argc, char **argv, int dd,
                    const struct target_spec *spec, struct target **out, int *nout)
{
    struct target *raw = NULL;
    int nraw = 0, st;
    if ((st = targets_from_args(h->cmd, h->usage, argc, argv, dd, spec, &raw, &nraw)) != 0)
        return st;
    if (h->nparam == 0) {
        *out = raw;
        *nout = nraw;
        return 0;
    }
    /* The commands as given (after "--": its words), to substitute into. */
    bool dashdash = dd < argc;
    char **cmds = dashdash ? argv + dd + 1 : argv + optind;
    int ncmds = dashdash ? argc - dd - 1 : dd - optind;
    for (int i = 0; i < h->nparam; i++) {
        bool used = false;
        for (int j = 0; j < ncmds && !used; j++)
            used = uses(&h->param[i], cmds[j]);
        for (int k = 0; k < HARNESS_NHOOKS && !used; k++)
            for (int j = 0; j < h->nhook[k] && !used; j++)
                used = uses(&h->param[i], h->hook_str[k][j]);
        if (!used) {
            targets_free(raw, nraw);
            free(raw);
            return cli_usage_error(h->cmd, h->usage, "parameter '%s' is in no command or hook "
                                   "(write {%s} where its value goes)", h->param[i].var,
                                   h->param[i].var);
        }
    }
    struct target *all = calloc((size_t)nraw * h->ncombo, sizeof *all);
    char **sub = calloc(ncmds + 1, sizeof *sub);
    struct err e = {0};
    st = 0;
    if (!all || !sub)
        goto nomem;
    for (int c = 0; c < h->ncombo && st == 0; c++) {
        for (int j = 0; j < ncmds; j++) {
            free(sub[j]);
            if (!(sub[j] = subst(h, &h->combo[c], cmds[j])))
                goto nomem;
        }
        struct target *t = NULL;
        int nt = 0;
        if (targets_build(spec, sub, ncmds, dashdash, &t, &nt, &e) < 0) {
            st = cli_fail(h->cmd, &e);
            break;
        }
        for (int i = 0; i < nt && i < nraw; i++) {
            struct target *d = &all[(size_t)i * h->ncombo + c];
            *d = t[i];
            /* Named as the command is, unless the name itself holds a parameter ("{py}"). */
            const char *base = strchr(raw[i].name, '{') ? t[i].name : raw[i].name;
            char *name;
            if (asprintf(&name, "%s %s", base, h->combo[c].label) < 0)
                name = NULL;
            free(d->name);
            d->name = name;
            t[i] = (struct target){0};
            if (!d->name)
                st = -1;
        }
        targets_free(t, nt);
        free(t);
        if (st < 0)
            goto nomem;
    }
    for (int j = 0; j < ncmds; j++)
        free(sub[j]);
    free(sub);
    targets_free(raw, nraw);
    free(raw);
    if (st != 0) {
        targets_free(all, nraw * h->ncombo);
        free(all);
        return st;
    }
    *out = all;
    *nout = nraw * h->ncombo;
    return 0;
nomem:
    for (int j = 0; sub && j < ncmds; j++)
        free(sub[j]);
    free(sub);
    targets_free(raw, nraw);
    free(raw);
    targets_free(all, all ? nraw * h->ncombo : 0);
    free(all);
    cli_error(h->cmd, "out of memory");
    return EXIT_USAGE;
}

int harness_count_finish(struct harness *h, long *runs)
{
    bool by_time = h->min_runs || h->max_runs || h->min_time > 0;
    if (h->runs_given && by_time)
        return cli_usage_error(h->cmd, h->usage, "--runs fixes the count: give it or "
                               "--min-runs/--max-runs/--min-time, not both");
    if (h->min_runs && h->max_runs && h->min_runs > h->max_runs)
        return cli_usage_error(h->cmd, h->usage, "--min-runs %ld is above --max-runs %ld",
                               h->min_runs, h->max_runs);
    if (h->min_runs)
        *runs = h->min_runs;
    if (h->max_runs && *runs > h->max_runs)
        *runs = h->max_runs;
    return 0;
}

const char *harness_count_why(const struct harness *h, const struct session *s, char *buf,
                              size_t n)
{
    char a[32], b[32];
    buf[0] = '\0';
    if (s->stopped == SESSION_STOP_MIN_TIME)
        snprintf(buf, n, " (--min-time %s reached)", fmt_seconds(a, h->min_time));
    else if (s->stopped == SESSION_STOP_MAX_RUNS && h->min_time > 0)
        snprintf(buf, n, " (--max-runs reached before --min-time %s)",
                 fmt_seconds(b, h->min_time));
    return buf;
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

void harness_progress(void *ctx, const struct session *ss, const struct session_event *ev)
{
    (void)ctx;
    char of[32] = "";
    if (ev->runs > 0)   /* a time budget does not know the count ahead */
        snprintf(of, sizeof of, "/%ld", ev->runs);
    fprintf(stderr, "\r\033[K%s %s %ld%s  %.1f s", out_vis(ev->series->name),
            ev->warmup ? "warm-up" : "run", ev->run, of, proc_now() - ss->t_start);
    fflush(stderr);
}
