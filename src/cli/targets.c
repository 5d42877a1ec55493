/* targets.c: the measuring commands' command line -> series (core/engine/series.c builds them):
 * commands as strings or after "--", --lane values, errors worded for the command. */
#define _GNU_SOURCE
#include "cli/targets.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/measure_opts.h"
#include "core/util/exe.h"
#include "core/util/words.h"

int find_dashdash(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            return i;
    return argc;
}

int series_from_args(const char *cmd, const char *usage, int argc, char **argv, int dd,
                      const struct series_spec *spec, struct series **out, int *nout)
{
    bool dashdash = dd < argc;
    if (dashdash && optind < dd)
        return cli_usage_error(cmd, usage, "give commands either as strings or after '--', "
                               "not both ('%s' comes before '--')", argv[optind]);
    char **cmds = dashdash ? argv + dd + 1 : argv + optind;
    int ncmds = dashdash ? argc - dd - 1 : dd - optind;
    if (ncmds <= 0)
        return cli_usage_error(cmd, usage, "no command to measure");
    if (spec->shell && dashdash)
        return cli_usage_error(cmd, usage,
                               "--shell takes command strings, not a command after '--'");
    struct err e = {0};
    if (series_build(spec, cmds, ncmds, dashdash, out, nout, &e) < 0)
        return cli_fail(cmd, &e);
    return 0;
}

bool series_spec_set_shell(struct series_spec *spec, const char *cmd, const char *usage,
                           const char *arg)
{
    if (strcmp(arg, "none") == 0) {
        spec->shell = NULL;
        return true;
    }
    if (strcmp(arg, "default") == 0) {
        spec->shell = "/bin/sh";
        return true;
    }
    /* --shell was a flag before it took hyperfine's SHELL: a command string given after it
     * must not become the shell, so the shell's program has to exist now. */
    char **w = NULL;
    int n = 0;
    char shell_char = 0, path[4096];
    struct err e = {0};
    if (words_split(arg, &w, &n, &shell_char, &e) < 0 || n == 0 || shell_char ||
        exe_find(w[0], path, sizeof path, &e) < 0 || access(path, X_OK) < 0) {
        words_free(w);
        cli_usage_error(cmd, usage, "bad value '%s' for --shell: want a shell such as sh or "
                        "bash (its name, its path, or 'none'); --shell takes the shell, as "
                        "hyperfine's -S does", arg);
        return false;
    }
    words_free(w);
    spec->shell = arg;
    return true;
}
bool series_spec_add_lane(struct series_spec *spec, const char *cmd, const char *usage,
                          const char *arg)
{
    struct err e = {0};
    if (lane_parse(arg, &spec->lanes[spec->nlanes], &e) < 0) {
        cli_usage_error(cmd, usage, "%s", e.msg);
        return false;
    }
    spec->nlanes++;
    return true;
}

/* The options of measure_opts.h that fill a struct series_spec. */
int series_opt_lane(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    return series_spec_add_lane(o->value, p->cmd, p->usage, arg) ? 0 : -1;
}

int series_opt_name(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct series_spec *spec = o->value;
    (void)p;
    spec->names[spec->nnames++] = (char *)arg;
    return 0;
}

int series_opt_shell(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    return series_spec_set_shell(o->value, p->cmd, p->usage, arg) ? 0 : -1;
}

int series_opt_no_shell(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct series_spec *spec = o->value;
    (void)arg, (void)p;
    spec->shell = NULL;
    return 0;
}
