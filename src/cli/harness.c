/* harness.c: hook commands, stdin and stdout options shared by wall, ab and stat. */
#define _GNU_SOURCE
#include "cli/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/targets.h"
#include "core/words.h"

const char harness_options_help[] =
    "      --setup CMD         run CMD once before each series' runs (repeatable, in order)\n"
    "      --prepare CMD       run CMD before every run, warm-ups included; never timed\n"
    "      --conclude CMD      run CMD after every run; never timed\n"
    "      --cleanup CMD       run CMD once after each series' runs, even after a failure\n"
    "                          (hooks get TARE_SERIES and TARE_ITERATION: 1, 2, ... for\n"
    "                          measured runs, -1, -2, ... for warm-ups, 0 for setup/cleanup)\n"
    "      --input FILE        every run reads FILE on stdin (default: /dev/null)\n"
    "      --output WHERE      the runs' stdout: null (default), inherit (stdout and stderr\n"
    "                          passed through), or a FILE (the last run's output)\n"
    "      --show-output       the same as --output inherit\n";

static const char *const hook_names[HARNESS_NHOOKS] = {"--setup", "--prepare", "--conclude",
                                                       "--cleanup"};

bool harness_init(struct harness *h, const char *cmd, const char *usage, int argc)
{
    memset(h, 0, sizeof *h);
    h->cmd = cmd;
    h->usage = usage;
    for (int k = 0; k < HARNESS_NHOOKS; k++)
        if (!(h->hook_str[k] = calloc(argc + 1, sizeof *h->hook_str[k])))
            return false;
    return true;
}

int harness_option(struct harness *h, int c, const char *arg)
{
    switch (c) {
    case HARNESS_OPT_SETUP:
    case HARNESS_OPT_PREPARE:
    case HARNESS_OPT_CONCLUDE:
    case HARNESS_OPT_CLEANUP: {
        int k = c - HARNESS_OPT_SETUP;
        h->hook_str[k][h->nhook[k]++] = arg;
        return 1;
    }
    case HARNESS_OPT_INPUT:
        h->input = arg;
        return 1;
    case HARNESS_OPT_OUTPUT:
        if (strcmp(arg, "null") == 0) {
            h->output_file = NULL;
            h->show_output = false;
        } else if (strcmp(arg, "inherit") == 0) {
            h->output_file = NULL;
            h->show_output = true;
        } else if (arg[0] == '\0') {
            cli_usage_error(h->cmd, h->usage, "bad value '' for --output: want null, inherit "
                            "or a file");
            return -1;
        } else {
            h->output_file = arg;
            h->show_output = false;
        }
        return 1;
    case HARNESS_OPT_SHOW_OUTPUT:
        h->output_file = NULL;
        h->show_output = true;
        return 1;
    }
    return 0;
}

int harness_finish(struct harness *h, bool shell)
{
    for (int k = 0; k < HARNESS_NHOOKS; k++) {
        if (h->nhook[k] == 0)
            continue;
        if (!(h->hook_argv[k] = calloc(h->nhook[k], sizeof *h->hook_argv[k]))) {
            cli_error(h->cmd, "out of memory");
            return EXIT_USAGE;
        }
        for (int i = 0; i < h->nhook[k]; i++) {
            struct err e = {0};
            if (target_split(h->hook_str[k][i], shell, &h->hook_argv[k][i], &e) < 0)
                return cli_usage_error(h->cmd, h->usage, "%s: %s", hook_names[k], e.msg);
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
    return 0;
}

void harness_apply(const struct harness *h, struct session_series *x)
{
    struct session_cmds *c[HARNESS_NHOOKS] = {&x->setup, &x->prepare, &x->conclude, &x->cleanup};
    for (int k = 0; k < HARNESS_NHOOKS; k++)
        *c[k] = (struct session_cmds){.argv = (char *const *const *)h->hook_argv[k],
                                      .n = h->hook_argv[k] ? h->nhook[k] : 0};
}

void harness_plan(const struct harness *h, struct session_plan *p)
{
    p->stdin_path = h->input;
    p->stdout_path = h->output_file;
    p->show_output = h->show_output;
}

void harness_free(struct harness *h)
{
    for (int k = 0; k < HARNESS_NHOOKS; k++) {
        for (int i = 0; h->hook_argv[k] && i < h->nhook[k]; i++)
            words_free(h->hook_argv[k][i]);
        free(h->hook_argv[k]);
        free(h->hook_str[k]);
        h->hook_argv[k] = NULL;
        h->hook_str[k] = NULL;
    }
}
