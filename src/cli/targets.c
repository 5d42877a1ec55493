/* targets.c: the measuring commands' command line -> series (core/series.c builds them):
 * commands as strings or after "--", --lane values, errors worded for the command. */
#define _GNU_SOURCE
#include "cli/targets.h"

#include <getopt.h>
#include <string.h>

#include "cli/cli.h"

int find_dashdash(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            return i;
    return argc;
}

int targets_from_args(const char *cmd, const char *usage, int argc, char **argv, int dd,
                      const struct target_spec *spec, struct target **out, int *nout)
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
    if (targets_build(spec, cmds, ncmds, dashdash, out, nout, &e) < 0)
        return cli_fail(cmd, &e);
    return 0;
}

bool target_spec_add_lane(struct target_spec *spec, const char *cmd, const char *usage,
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
