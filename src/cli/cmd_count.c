/* cmd_count.c: `tare count`, deterministic instructions, allocations, bytes and peak heap. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/count_out.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/count.h"

const char cmd_count_usage[] =
    "tare count [options] -- CMD [ARG...]\n"
    "tare count [options] 'CMD 1' 'CMD 2' ...";

static const char count_options[] =
    "Options:\n"
    "  -j, --jobs N            commands measured at once (default: the number of CPUs)\n"
    "  -l, --lane NAME:VAR=VALUE[,VAR=VALUE...]\n"
    "                          run each command in this environment, as series NAME+LANE\n"
    "      --name NAME         name the commands in order (default: first word's basename)\n"
    "      --shell             run each command string with /bin/sh -c\n"
    "  -t, --timeout SECONDS   kill a run after this long (default 1800: callgrind is slow)\n"
    "      --keep-profile DIR  keep each callgrind profile as DIR/NAME.callgrind.out\n"
    "      --check-warm        two callgrind passes; flag counts that differ by over 0.01%\n"
    "      --show-output       pass the commands' stdout and stderr through\n"
    "  -f, --format FORMAT     text (default), tsv or json\n"
    "  -h, --help              show this help\n";

static const char *status_name(enum count_status s)
{
    switch (s) {
    case COUNT_OK: return "ok";
    case COUNT_TIMEOUT: return "timeout";
    case COUNT_UNSTABLE: return "unstable";
    default: return "failed";
    }
}

static void print_json(const struct count_job *jobs, const struct target *t, int n, bool check_warm)
{
    fputs("{\"series\": [", stdout);
    for (int i = 0; i < n; i++) {
        const struct count_job *j = &jobs[i];
        fputs(i ? ",\n  {" : "\n  {", stdout);
        fputs("\"name\": ", stdout); json_str(stdout, t[i].name);
        fputs(", \"lane\": ", stdout);
        if (t[i].lane) json_str(stdout, t[i].lane); else fputs("null", stdout);
        fputs(", \"command\": ", stdout); json_str(stdout, t[i].command);
        fputs(", \"instructions\": ", stdout); count_json(stdout, j->instructions);
        fputs(", \"allocations\": ", stdout); count_json(stdout, j->allocations);
        fputs(", \"bytes\": ", stdout); count_json(stdout, j->bytes);
        fputs(", \"peak_bytes\": ", stdout); count_json(stdout, j->peak_bytes);
        if (check_warm) {
            fputs(", \"instructions_pass2\": ", stdout); count_json(stdout, j->instructions2);
            fputs(", \"allocations_pass2\": ", stdout); count_json(stdout, j->allocations2);
        }
        printf(", \"status\": \"%s\"", status_name(j->status));
        if (j->status != COUNT_OK) {
            fputs(", \"error\": ", stdout);
            json_str(stdout, j->why);
        }
        fputs("}", stdout);
    }
    fputs("\n]}\n", stdout);
}

static void print_table(const struct count_job *jobs, const struct target *t, int n,
                        enum out_format fmt)
{
    static const char *const tsv_h[] = {"name", "lane", "instructions", "allocations", "bytes",
                                        "peak_bytes", "status"};
    static const char *const text_h[] = {"series", "instructions", "allocations", "bytes",
                                         "peak heap", "status"};
    bool text = fmt == FMT_TEXT;
    struct table tb;
    table_init(&tb, text ? 6 : 7, text ? text_h : tsv_h, text ? 0x1 : 0x3);
    char b[64];
    for (int i = 0; i < n; i++) {
        const struct count_job *j = &jobs[i];
        int c = 0;
        table_row(&tb);
        table_set(&tb, c++, "%s", t[i].name);
        if (!text)
            table_set(&tb, c++, "%s", t[i].lane ? t[i].lane : "-");
        table_set(&tb, c++, "%s", count_cell(b, j->instructions, text));
        table_set(&tb, c++, "%s", count_cell(b, j->allocations, text));
        table_set(&tb, c++, "%s", count_cell(b, j->bytes, text));
        table_set(&tb, c++, "%s", count_cell(b, j->peak_bytes, text));
        if (text && j->status != COUNT_OK && cli_use_color(stdout))
            table_set(&tb, c++, "\033[31m%s\033[0m", status_name(j->status));
        else
            table_set(&tb, c++, "%s", status_name(j->status));
    }
    if (text)
        printf("instructions (Ir) and allocations from one callgrind run after a native warm-up;\n"
               "bytes and peak heap from a native run under the counting allocator\n");
    table_print(&tb, stdout, fmt);
    table_free(&tb);
}

int cmd_count(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"jobs", required_argument, NULL, 'j'},
        {"lane", required_argument, NULL, 'l'},
        {"name", required_argument, NULL, 'N'},
        {"shell", no_argument, NULL, 'S'},
        {"timeout", required_argument, NULL, 't'},
        {"keep-profile", required_argument, NULL, 'K'},
        {"check-warm", no_argument, NULL, 'C'},
        {"show-output", no_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct count_opts co = {.jobs = ncpu > 0 ? (int)ncpu : 1, .timeout_s = COUNT_TIMEOUT_S};
    struct target_spec spec = {0};
    enum out_format fmt = FMT_TEXT;
    struct err e = {0};
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);
    struct target *targets = NULL;
    struct count_job *jobs = NULL;
    int nt = 0;
    long v;

    if (!target_spec_init(&spec, argc))
        goto done;
    optind = 1;
    int c;
    while ((c = getopt_long(dd, argv, "j:l:t:f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            if (!cli_parse_count("count", cmd_count_usage, "--jobs", optarg, 1, 1024, &v))
                goto done;
            co.jobs = (int)v;
            break;
        case 'l':
            if (!target_spec_add_lane(&spec, "count", cmd_count_usage, optarg))
                goto done;
            break;
        case 'N': spec.names[spec.nnames++] = optarg; break;
        case 'S': spec.shell = true; break;
        case 't':
            if (!cli_parse_seconds("count", cmd_count_usage, "--timeout", optarg, &co.timeout_s))
                goto done;
            break;
        case 'K': co.keep_dir = optarg; break;
        case 'C': co.check_warm = true; break;
        case 'o': co.show_output = true; break;
        case 'f':
            if (!cli_parse_format("count", cmd_count_usage, optarg, FMT_TEXT | FMT_TSV | FMT_JSON,
                                  &fmt))
                goto done;
            break;
        case 'h':
            cli_print_usage(stdout, cmd_count_usage);
            printf("\nDeterministic counts: instructions and allocations from one callgrind run\n"
                   "after a native warm-up, bytes and peak heap from the counting allocator.\n"
                   "Counts do not depend on load, so commands run side by side (-j).\n\n%s",
                   count_options);
            status = EXIT_OK;
            goto done;
        default:
            cli_print_usage(stderr, cmd_count_usage);
            fprintf(stderr, "Try 'tare count --help' for the options.\n");
            goto done;
        }
    }
    if ((status = targets_from_args("count", cmd_count_usage, argc, argv, dd, &spec, &targets,
                                    &nt)) != 0)
        goto done;
    status = EXIT_USAGE;
    char valgrind[4096];
    if (count_find_valgrind(valgrind, sizeof valgrind, &e) < 0) {
        status = cli_fail("count", &e);
        goto done;
    }
    co.valgrind = valgrind;
    /* Without the counting allocator, bytes and peak heap are NA, and tare says why once. */
    char alloc_lib[4096];
    struct err lib_err = {0};
    if (cli_find_alloc_lib(alloc_lib, sizeof alloc_lib, &lib_err) == 0)
        co.alloc_lib = alloc_lib;
    if (co.keep_dir && mkdir(co.keep_dir, 0777) < 0 && errno != EEXIST) {
        cli_error("count", "cannot make the profile directory '%s': %s", co.keep_dir,
                  strerror(errno));
        goto done;
    }
    jobs = calloc(nt, sizeof *jobs);
    if (!jobs) {
        cli_error("count", "out of memory");
        goto done;
    }
    for (int i = 0; i < nt; i++) {
        jobs[i].name = targets[i].name;
        jobs[i].argv = targets[i].argv;
        jobs[i].env = targets[i].env;
    }
    struct count_progress ps = {.on = isatty(STDERR_FILENO) && !co.show_output, .t0 = proc_now()};
    co.progress = count_progress_print;
    co.ctx = &ps;
    cli_install_signal_handlers();
    int rc = count_run(jobs, nt, &co, &e);
    if (ps.on)
        fputs("\r\033[K", stderr);
    if (rc < 0) {
        status = cli_fail("count", &e);
        goto done;
    }
    bool any_failed = false;
    if (!co.alloc_lib)
        cli_error("count", "note: bytes and peak heap are NA: %s", lib_err.msg);
    for (int i = 0; i < nt; i++) {
        if (jobs[i].note[0])
            cli_error("count", "note: '%s': %s", targets[i].name, jobs[i].note);
        if (jobs[i].status == COUNT_OK)
            continue;
        any_failed = true;
        if (jobs[i].status == COUNT_UNSTABLE) {
            cli_error("count", "'%s' is %s", targets[i].name, jobs[i].why);
            continue;
        }
        cli_error("count", "'%s' failed: %s%s", targets[i].name, jobs[i].why,
                  jobs[i].tail[0] ? "; its stderr ended with:" : "");
        if (jobs[i].tail[0])
            cli_print_stderr_tail(jobs[i].tail);
    }
    if (fmt == FMT_JSON)
        print_json(jobs, targets, nt, co.check_warm);
    else
        print_table(jobs, targets, nt, fmt);
    status = any_failed ? EXIT_FAIL : EXIT_OK;

done:
    free(jobs);
    targets_free(targets, nt);
    free(targets);
    target_spec_free(&spec);
    return status;
}
