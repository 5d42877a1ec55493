/* main.c: tare's entry point and its command table. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/util/proc.h"

/*
 * Adding a command is this list, and nothing else (HACKING.md, "Adding a command"):
 *   1. src/cli/cmd_NAME.c: `int cmd_NAME(int, char **)`, its usage string and its options as
 *      an opt.h table (a command that measures lists measure_opts.h's shared entries in it;
 *      --help is made from the table); the Makefile finds the file by wildcard;
 *   2. one line in cli/commands.h and one line in the table below;
 *   3. doc/tare-NAME.1, whose SYNOPSIS equals the usage and whose OPTIONS name the table's
 *      options, and a line under COMMANDS in doc/tare.1 (tests/cli/test_usage.sh checks all
 *      three for every command `tare help --commands` lists);
 *   4. tests/cli/test_NAME.sh (tests/run finds it by wildcard), and a README section with
 *      real output.
 * A command that times runs describes them as a plan for core/engine/session.h (series, warm-up,
 * order, hooks) and prints what the engine reports; it keeps no run loop of its own.
 */
const struct cli_command cli_commands[] = {
    {.name = "wall", .usage = cmd_wall_usage, .run = cmd_wall,
     .summary = "time whole commands: warm-up, median, spread, reference ratio"},
    {.name = "ab", .usage = cmd_ab_usage, .run = cmd_ab,
     .summary = "paired, interleaved A/B of two commands or a git revision: faster, slower, same"},
    {.name = "count", .usage = cmd_count_usage, .run = cmd_count,
     .summary = "deterministic instructions, allocations, bytes and peak heap"},
    {.name = "cg", .usage = cmd_cg_usage, .run = cmd_cg,
     .summary = "read callgrind profiles: top, callers, diff, allocation sites, lines"},
    {.name = "alloc", .usage = cmd_alloc_usage, .run = cmd_alloc,
     .summary = "count a command's allocations, bytes and peak heap (LD_PRELOAD), with scopes"},
    {.name = "stat", .usage = cmd_stat_usage, .run = cmd_stat,
     .summary = "count cycles, instructions, faults of whole commands (perf_event_open)"},
    {.name = "run", .usage = cmd_run_usage, .run = cmd_run,
     .summary = "run a benchmark suite (INI): wall-clock pass, lanes, reference, history rows"},
    {.name = "history", .usage = cmd_history_usage, .run = cmd_history,
     .summary = "per-commit history files: append safely, check for regressions, noise, merge"},
    {.name = "report", .usage = cmd_report_usage, .run = cmd_report,
     .summary = "one Markdown block for a pull request: what moved, verdict, failures"},
    {.name = "trend", .usage = cmd_trend_usage, .run = cmd_trend,
     .summary = "a self-contained HTML trend page of history files"},
    {.name = "goal", .usage = cmd_goal_usage, .run = cmd_goal,
     .summary = "the multiple a goal needs and how many compounding slices reach it"},
    {.name = "bisect", .usage = cmd_bisect_usage, .run = cmd_bisect,
     .summary = "the first commit that moved a deterministic count, built in a git worktree"},
    {.name = "self-test", .usage = cmd_selftest_usage, .run = cmd_selftest,
     .summary = "check the callgrind reader and tare count against known answers"},
};
const int cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

static const char tare_usage[] =
    "tare [--version] [--help] COMMAND [ARGS...]\n"
    "tare help [COMMAND]";

static void print_help(FILE *f)
{
    cli_print_usage(f, tare_usage);
    fprintf(f, "\ntare: performance measurement that does not fool its user.\n\nCommands:\n");
    for (int i = 0; i < cli_command_count; i++)
        fprintf(f, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(f, "\nRun 'tare COMMAND --help' for a command's options, or 'man tare-COMMAND'.\n"
               "Exit status: 0 ok, 1 a measurement failed, 2 bad usage or input, 3 a regression "
               "was found.\n");
}

/*
 * Standard output written whole, or exit status 2 and a message (git's close_stdout): a CI
 * step that sends tare's output to a full disk must fail, not pass with a cut or empty
 * file. An interrupt keeps its own status, and wins over any other.
 */
static int finish(int rc)
{
    /* A signal that came late (while a temporary worktree was removed, say) still ends in
     * 128 + signal: a script must not read an interrupted run as a finished one. */
    if (proc_interrupted() && rc != 129 && rc != 130 && rc != 143)
        rc = cli_interrupted_status();
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (errno)
        cli_error(NULL, "cannot write standard output: %s", strerror(errno));
    else
        cli_error(NULL, "cannot write standard output: a write failed");
    return rc == 130 || rc == 143 || rc == 129 ? rc : EXIT_USAGE;
}

static const struct cli_command *find_command(const char *name)
{
    for (int i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("tare %s\n", TARE_VERSION);
        return EXIT_OK;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_help(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            print_help(stdout);
            return EXIT_OK;
        }
        if (strcmp(argv[2], "--commands") == 0) {   /* for scripts and the usage test */
            for (int i = 0; i < cli_command_count; i++)
                printf("%s\n", cli_commands[i].name);
            return EXIT_OK;
        }
        const struct cli_command *c = find_command(argv[2]);
        if (!c) {
            cli_error("help", "unknown command '%s'", argv[2]);
            return EXIT_USAGE;
        }
        char *help_argv[] = {argv[2], "--help", NULL};
        return c->run(2, help_argv);
    }
    const struct cli_command *c = find_command(name);
    if (!c) {
        cli_error(NULL, "unknown command '%s'; see 'tare help'", name);
        return EXIT_USAGE;
    }
    /* getopt names its messages after argv[0]: make that "tare NAME". */
    char prog[64];
    snprintf(prog, sizeof prog, "tare %s", c->name);
    argv[1] = prog;
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    return finish(run(argc, argv));
}
