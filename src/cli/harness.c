/* harness.c: the options and errors of core/engine/harness.c's hooks, stdin, stdout and parameters,
 * shared by wall, ab, stat, count. */
#define _GNU_SOURCE
#include "cli/harness.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/measure_opts.h"
#include "cli/out.h"
#include "core/engine/hyperfine_export.h"

bool harness_init_cli(const char *cmd, struct harness *h, int argc)
{
    struct err e = {0};
    if (harness_init(h, argc, &e) == 0)
        return true;
    cli_fail(cmd, &e);
    return false;
}

/* A new parameter, or NULL after the usage error. */
static struct harness_param *new_param(const struct opt_parser *p, struct harness *h,
                                       const char *opt, const char *var)
{
    struct err e = {0};
    struct harness_param *hp = harness_add_param(h, opt, var, &e);
    if (!hp)
        cli_usage_error(p->cmd, p->usage, "%s", e.msg);
    return hp;
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
            out_time_unit = (enum out_unit)(OUT_UNIT_S + i);   /* the text */
            hf_time_unit = (enum hf_unit)(HF_UNIT_S + i);       /* the markup exports */
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
        cli_usage_error(p->cmd, p->usage, "--parameter-scan wants VAR MIN MAX");
        return -1;
    }
    for (int i = 0; i < h->nparam; i++)
        if (h->param[i].scan[0]) {
            cli_usage_error(p->cmd, p->usage, "--parameter-scan given twice (use "
                            "--parameter-list for more parameters)");
            return -1;
        }
    struct harness_param *hp = new_param(p, h, "--parameter-scan", arg);
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
        cli_usage_error(p->cmd, p->usage, "--parameter-list wants VAR A,B,...");
        return -1;
    }
    struct harness_param *hp = new_param(p, h, "--parameter-list", arg);
    if (!hp)
        return -1;
    hp->list = p->argv[optind++];
    return 0;
}

int harness_finish(const char *cmd, const char *usage, struct harness *h, const char *shell)
{
    struct err e = {0};
    if (harness_expand(h, shell, &e) < 0)
        return e.kind == ERR_INPUT ? cli_usage_error(cmd, usage, "%s", e.msg) : cli_fail(cmd, &e);
    if (harness_open_files(h, &e) < 0)
        return cli_fail(cmd, &e);
    return 0;
}

int harness_targets(const char *cmd, const char *usage, const struct harness *h, int argc,
                    char **argv, int dd, const struct series_spec *spec, struct series **out,
                    int *nout)
{
    struct series *raw = NULL;
    int nraw = 0, st;
    if ((st = series_from_args(cmd, usage, argc, argv, dd, spec, &raw, &nraw)) != 0)
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
    const char *unused = harness_param_unused(h, cmds, ncmds);
    struct err e = {0};
    if (unused)
        st = cli_usage_error(cmd, usage, "parameter '%s' is in no command or hook (write {%s} "
                             "where its value goes)", unused, unused);
    else if (harness_series(h, spec, cmds, ncmds, dashdash, raw, nraw, out, nout, &e) < 0)
        st = cli_fail(cmd, &e);
    series_free(raw, nraw);
    free(raw);
    return st;
}

int harness_count_finish(const char *cmd, const char *usage, const struct harness *h,
                         long *runs)
{
    struct err e = {0};
    return harness_runs(h, runs, &e) < 0 ? cli_usage_error(cmd, usage, "%s", e.msg) : 0;
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
