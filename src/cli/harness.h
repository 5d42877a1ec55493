/* harness.h: what every wall-clock command shares around its runs: hooks, stdin, stdout. */
#ifndef TARE_HARNESS_H
#define TARE_HARNESS_H

#include <stdbool.h>

#include "core/session.h"

/* Long-only option values, clear of every short letter. */
enum {
    HARNESS_OPT_SETUP = 0x100, HARNESS_OPT_PREPARE, HARNESS_OPT_CONCLUDE, HARNESS_OPT_CLEANUP,
    HARNESS_OPT_INPUT, HARNESS_OPT_OUTPUT, HARNESS_OPT_SHOW_OUTPUT,
};

/* The entries to put in a command's getopt_long table. */
#define HARNESS_LONGOPTS \
    {"setup", required_argument, NULL, HARNESS_OPT_SETUP}, \
    {"prepare", required_argument, NULL, HARNESS_OPT_PREPARE}, \
    {"conclude", required_argument, NULL, HARNESS_OPT_CONCLUDE}, \
    {"cleanup", required_argument, NULL, HARNESS_OPT_CLEANUP}, \
    {"input", required_argument, NULL, HARNESS_OPT_INPUT}, \
    {"output", required_argument, NULL, HARNESS_OPT_OUTPUT}, \
    {"show-output", no_argument, NULL, HARNESS_OPT_SHOW_OUTPUT}

/* The lines of --help for those options. */
extern const char harness_options_help[];

enum harness_hook { HARNESS_SETUP, HARNESS_PREPARE, HARNESS_CONCLUDE, HARNESS_CLEANUP, HARNESS_NHOOKS };

struct harness {
    const char *cmd, *usage;          /* for messages: "wall", its usage */
    const char **hook_str[HARNESS_NHOOKS];   /* as given, in order */
    int nhook[HARNESS_NHOOKS];
    char **(*hook_argv[HARNESS_NHOOKS]); /* split by harness_finish */
    const char *input;                /* --input FILE, or NULL */
    const char *output_file;          /* --output FILE, or NULL */
    bool show_output;                 /* --output inherit / --show-output */
};

/* Room for argc hook options of each kind; false when out of memory. */
bool harness_init(struct harness *h, const char *cmd, const char *usage, int argc);
/* 1 when c was one of HARNESS_LONGOPTS (taken), 0 when not, -1 when its value is bad (the
 * usage error printed). */
int harness_option(struct harness *h, int c, const char *arg);
/* Splits the hooks into argv as the commands are (sh -c with shell) and checks that the
 * input can be read. 0, or the exit status after printing the error. */
int harness_finish(struct harness *h, bool shell);
/* The hooks of a series (borrowed from h). */
void harness_apply(const struct harness *h, struct session_series *x);
/* stdin, stdout and show_output of a plan. */
void harness_plan(const struct harness *h, struct session_plan *p);
void harness_free(struct harness *h);

#endif
