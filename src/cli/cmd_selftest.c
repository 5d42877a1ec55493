/* cmd_selftest.c: `tare self-test`, the reader and the counting pipeline against known answers
 * (core/engine/selftest.h), one line per check. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/opt.h"
#include "core/util/proc.h"
#include "core/engine/selftest.h"

const char cmd_selftest_usage[] = "tare self-test";

/* The known-answer program (tests/fixtures/allocmix.c), embedded at build time. */
static const unsigned char allocmix_src[] = {
#include "allocmix.inc"
    0};
static int passed, failed, skipped;

/* One line per check as it ends: ok, FAIL or skip, what, what was found. */
static void print_check(void *ctx, enum selftest_result r, const char *what, const char *detail)
{
    (void)ctx;
    if (r == SELFTEST_SKIP) {
        printf("skip %s: %s\n", what, detail);
        skipped++;
        return;
    }
    printf("%-4s %s%s%s\n", r == SELFTEST_OK ? "ok" : "FAIL", what, detail[0] ? ": " : "",
           detail);
    if (r == SELFTEST_OK)
        passed++;
    else
        failed++;
}

int cmd_selftest(int argc, char **argv)
{
    const struct opt opts[] = {OPT_GROUP("Options:"), OPT_HELP(), OPT_END()};
    struct opt_parser op = {
        .cmd = "self-test", .usage = cmd_selftest_usage, .argc = argc, .argv = argv,
        .about = "Check tare's callgrind reader against profiles with known answers, and\n"
                 "(with valgrind and a C compiler) tare count against a program that makes a\n"
                 "known number of allocator calls. Exit 1 if any check fails.",
    };
    int rc = opt_parse(&op, opts);
    if (rc != 0)
        return opt_status(rc);
    if (optind < argc)
        return cli_usage_error("self-test", cmd_selftest_usage, "unexpected argument '%s'",
                               argv[optind]);
    /* An interrupt ends the runs it starts; the checks then clean up their files. */
    cli_install_signal_handlers();
    char alloc_lib[4096];
    struct err lib_err = {0};
    bool have_lib = cli_find_alloc_lib(alloc_lib, sizeof alloc_lib, &lib_err) == 0;
    struct selftest_opts o = {
        .program = (const char *)allocmix_src, .program_len = sizeof allocmix_src - 1,
        .alloc_lib = have_lib ? alloc_lib : NULL, .no_alloc_lib = lib_err.msg,
        .report = print_check,
    };
    selftest_run(&o);
    if (proc_interrupted()) {
        cli_error("self-test", "interrupted");
        return cli_interrupted_status();
    }
    printf("self-test: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? EXIT_FAIL : EXIT_OK;
}
