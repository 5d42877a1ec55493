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
#include "cli/hyperfine_export.h"
#include "cli/out.h"
#include "core/words.h"

const char harness_options_help[] =
    "  -s, --setup CMD         run CMD once before each series' runs (repeatable, in order)\n"
    "  -p, --prepare CMD       run CMD before every run, warm-ups included; never timed\n"
    "  -C, --conclude CMD      run CMD after every run; never timed\n"
    "  -c, --cleanup CMD       run CMD once after each series' runs, even after a failure\n"
    "                          (hooks get TARE_SERIES and TARE_ITERATION: 1, 2, ... for\n"
    "                          measured runs, -1, -2, ... for warm-ups, 0 for setup/cleanup)\n"
    "      --input FILE        every run reads FILE on stdin (default: /dev/null)\n"
    "      --output WHERE      the runs' stdout: null (default), pipe (read through a pipe\n"
    "                          and thrown away), inherit (stdout and stderr passed\n"
    "                          through), or a FILE (every run's output, appended)\n"
    "      --show-output       the same as --output inherit\n";

const char harness_param_help[] =
    "  -P, --parameter-scan VAR MIN MAX\n"
    "                          one series per value of VAR from MIN to MAX, {VAR} replaced\n"
    "                          in the commands and hooks\n"
    "  -D, --parameter-step-size STEP\n"
    "                          the scan's step (default 1)\n"
    "  -L, --parameter-list VAR A,B,...\n"
    "                          one series per value (repeatable: every combination)\n";

const char harness_count_help[] =
    "The run count by time, in place of --runs:\n"
    "  -m, --min-runs N        at least N measured runs (default: --runs's 7)\n"
    "  -M, --max-runs N        at most N measured runs\n"
    "      --min-time SECONDS  measure until the runs (hooks included) took this long, at\n"
    "                          least --min-runs and at most --max-runs of them\n"
    "      --min-benchmarking-time SECONDS\n"
    "                          the same as --min-time (hyperfine's name)\n";

const char harness_show_help[] =
    "  -u, --time-unit UNIT    every time in second, millisecond or microsecond (the text\n"
    "                          and the Markdown, AsciiDoc and org-mode exports; default:\n"
    "                          a unit for each value)\n"
    "      --style STYLE       auto (default), basic (no colour, no progress line), full,\n"
    "                          nocolor, color, or none (nothing on standard output)\n"
    "      --sort METHOD       the exported tables' rows: auto or command (as given), or\n"
    "                          mean-time (fastest first)\n";

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

int harness_option(struct harness *h, int c, int argc, char **argv)
{
    /* hyperfine's letters (HARNESS_SHORTOPTS, HARNESS_PARAM_SHORTOPTS) mean the long options */
    switch (c) {
    case 's': c = HARNESS_OPT_SETUP; break;
    case 'p': c = HARNESS_OPT_PREPARE; break;
    case 'C': c = HARNESS_OPT_CONCLUDE; break;
    case 'c': c = HARNESS_OPT_CLEANUP; break;
    case 'P': c = HARNESS_OPT_SCAN; break;
    case 'D': c = HARNESS_OPT_STEP; break;
    case 'L': c = HARNESS_OPT_LIST; break;
    }
    switch (c) {
    case HARNESS_OPT_SETUP:
    case HARNESS_OPT_PREPARE:
    case HARNESS_OPT_CONCLUDE:
    case HARNESS_OPT_CLEANUP: {
        int k = c - HARNESS_OPT_SETUP;
        h->hook_str[k][h->nhook[k]++] = optarg;
        return 1;
    }
    case HARNESS_OPT_INPUT:
        h->input = optarg;
        return 1;
    case HARNESS_OPT_OUTPUT:
        /* hyperfine's words: null, pipe, inherit, or a file (./pipe for a file so named) */
        h->output_file = NULL;
        h->show_output = h->output_pipe = false;
        if (strcmp(optarg, "inherit") == 0) {
            h->show_output = true;
        } else if (strcmp(optarg, "pipe") == 0) {
            h->output_pipe = true;
        } else if (optarg[0] == '\0') {
            cli_usage_error(h->cmd, h->usage, "bad value '' for --output: want null, pipe, "
                            "inherit or a file");
            return -1;
        } else if (strcmp(optarg, "null") != 0) {
            h->output_file = optarg;
        }
        return 1;
    case 'u': {
        static const char *const units[] = {"second", "millisecond", "microsecond"};
        for (int i = 0; i < 3; i++)
            if (strcmp(optarg, units[i]) == 0) {
                out_time_unit = (enum out_unit)(OUT_UNIT_S + i);
                return 1;
            }
        cli_usage_error(h->cmd, h->usage, "bad value '%s' for --time-unit: want second, "
                        "millisecond or microsecond", optarg);
        return -1;
    }
    case HARNESS_OPT_STYLE: {
        static const char *const styles[] = {"auto", "basic", "full", "nocolor", "color",
                                             "none"};
        for (int i = 0; i < 6; i++)
            if (strcmp(optarg, styles[i]) == 0) {
                cli_style = (enum cli_style)i;
                if (cli_style == CLI_STYLE_NONE && !freopen("/dev/null", "w", stdout)) {
                    cli_error(h->cmd, "--style none: cannot open /dev/null");
                    return -1;
                }
                return 1;
            }
        cli_usage_error(h->cmd, h->usage, "bad value '%s' for --style: want auto, basic, "
                        "full, nocolor, color or none", optarg);
        return -1;
    }
    case HARNESS_OPT_SORT:
        if (strcmp(optarg, "auto") && strcmp(optarg, "command") && strcmp(optarg, "mean-time")) {
            cli_usage_error(h->cmd, h->usage, "bad value '%s' for --sort: want auto, command "
                            "or mean-time", optarg);
            return -1;
        }
        hf_sort_by_mean = strcmp(optarg, "mean-time") == 0;
        return 1;
    case HARNESS_OPT_SHOW_OUTPUT:
        h->output_file = NULL;
        h->output_pipe = false;
        h->show_output = true;
        return 1;
    case HARNESS_OPT_SCAN: {
        /* getopt gave VAR; MIN and MAX follow it, and getopt moves them with the option. */
        if (optind + 1 >= argc) {
            cli_usage_error(h->cmd, h->usage, "--parameter-scan wants VAR MIN MAX");
            return -1;
        }
        for (int i = 0; i < h->nparam; i++)
            if (h->param[i].scan[0]) {
                cli_usage_error(h->cmd, h->usage, "--parameter-scan given twice (use "
                                "--parameter-list for more parameters)");
                return -1;
            }
        struct harness_param *p = new_param(h, "--parameter-scan", optarg);
        if (!p)
            return -1;
        p->scan[0] = argv[optind];
        p->scan[1] = argv[optind + 1];
        optind += 2;
        return 1;
    }
    case HARNESS_OPT_STEP:
        h->step = optarg;
        return 1;
    case 'm':
        return cli_parse_count(h->cmd, h->usage, "--min-runs", optarg, 1, 1000000, &h->min_runs)
                   ? 1 : -1;
    case 'M':
        return cli_parse_count(h->cmd, h->usage, "--max-runs", optarg, 1, 1000000, &h->max_runs)
                   ? 1 : -1;
    case HARNESS_OPT_MIN_TIME:
        if (!cli_parse_seconds(h->cmd, h->usage, "--min-time", optarg, &h->min_time))
            return -1;
        if (!(h->min_time > 0)) {
            cli_usage_error(h->cmd, h->usage, "bad value '%s' for --min-time: want seconds "
                            "above 0", optarg);
            return -1;
        }
        return 1;
    case HARNESS_OPT_LIST: {
        if (optind >= argc) {
            cli_usage_error(h->cmd, h->usage, "--parameter-list wants VAR A,B,...");
            return -1;
        }
        struct harness_param *p = new_param(h, "--parameter-list", optarg);
        if (!p)
            return -1;
        p->list = argv[optind++];
        return 1;
    }
    }
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
