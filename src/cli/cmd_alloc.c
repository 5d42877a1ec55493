/* cmd_alloc.c: `tare alloc`, a command's allocations counted by libtare-alloc.so (LD_PRELOAD). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/out.h"
#include "core/allocreport.h"
#include "core/exe.h"
#include "core/json.h"
#include "core/proc.h"

const char cmd_alloc_usage[] =
    "tare alloc [--follow-children] [--format text|json] -- CMD [ARG...]";

static const char alloc_options[] =
    "Options:\n"
    "      --follow-children   add up the command and every process it starts (by fork\n"
    "                          or exec) that inherits the library\n"
    "  -f, --format FORMAT     text (default) or json\n"
    "  -h, --help              show this help\n"
    "\n"
    "Environment: TARE_ALLOC_LIB names libtare-alloc.so (default: beside tare, or\n"
    "PREFIX/lib/tare/); TARE_ALLOC_PEAK=exact makes peak_bytes exact in threaded programs.\n";

/* A static binary never loads the library: say so before running it. */
static int check_dynamic(const char *cmd, struct err *e)
{
    char path[PATH_MAX], interp[PATH_MAX];
    enum exe_link kind;
    if (exe_find(cmd, path, sizeof path, e) < 0 ||
        exe_link_kind(path, &kind, interp, sizeof interp, e) < 0)
        return -1;
    if (kind == EXE_STATIC) {
        if (interp[0])
            return err_set(e, ERR_UNSUPPORTED,
                           "'%s' runs '%s', which is statically linked (no PT_INTERP): "
                           "LD_PRELOAD cannot see its allocations; count them with valgrind "
                           "(memcheck's heap summary) instead",
                           cmd, interp);
        return err_set(e, ERR_UNSUPPORTED,
                       "'%s' is statically linked (no PT_INTERP): LD_PRELOAD cannot see its "
                       "allocations; count them with valgrind (memcheck's heap summary) instead",
                       cmd);
    }
    return 0;
}

static void print_json(const struct alloc_totals *t)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_ku64(&w, "allocations", t->allocations);
    jw_ku64(&w, "frees", t->frees);
    jw_ku64(&w, "bytes", t->bytes);
    jw_ku64(&w, "peak_bytes", t->peak_bytes);
    jw_karray(&w, "scopes");
    for (size_t i = 0; i < t->nscopes; i++) {
        const struct alloc_scope *s = &t->scopes[i];
        jw_object_begin(&w);
        jw_kstring(&w, "label", s->label);
        jw_ku64(&w, "entries", s->entries);
        jw_ku64(&w, "allocs_incl", s->allocs_incl);
        jw_ku64(&w, "allocs_excl", s->allocs_excl);
        jw_ku64(&w, "bytes_incl", s->bytes_incl);
        jw_ku64(&w, "bytes_excl", s->bytes_excl);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    out_json_end(&w, "alloc");
}

static const char *fmt_bytes(char *buf, uint64_t b)
{
    char a[32], c[32];
    if (b < 1024)
        snprintf(buf, 96, "%s B", fmt_count(a, (double)b));
    else
        snprintf(buf, 96, "%s (%s B)", fmt_kib(c, (double)b / 1024), fmt_count(a, (double)b));
    return buf;
}

/* With --follow-children: the processes that allocated most, one row per process image. */
static void print_procs(const struct alloc_report *r)
{
    size_t n = r->nprocs, shown = n < 10 ? n : 10;
    const struct alloc_proc **order = malloc(n * sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < n; i++)
        order[i] = &r->procs[i];
    for (size_t i = 1; i < n; i++) {
        const struct alloc_proc *x = order[i];
        size_t j = i;
        while (j > 0 && order[j - 1]->allocations < x->allocations) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    static const char *const h[] = {"pid", "ppid", "end", "allocations", "bytes", "peak",
                                    "program"};
    struct table tb;
    table_init(&tb, 7, h, 0x44);
    char a[96];
    for (size_t i = 0; i < shown; i++) {
        const struct alloc_proc *p = order[i];
        const char *slash = p->exe ? strrchr(p->exe, '/') : NULL;
        table_row(&tb);
        table_set(&tb, 0, "%ld", p->pid);
        table_set(&tb, 1, "%ld", p->ppid);
        table_set(&tb, 2, "%s", p->end);
        table_set(&tb, 3, "%s", fmt_count(a, (double)p->allocations));
        table_set(&tb, 4, "%s", fmt_count(a, (double)p->bytes));
        table_set(&tb, 5, "%s", fmt_count(a, (double)p->peak_bytes));
        table_set(&tb, 6, "%s", slash ? slash + 1 : p->exe ? p->exe : "?");
    }
    putchar('\n');
    table_print(&tb, stdout, FMT_TEXT);
    if (shown < n)
        printf("... and %zu more process%s\n", n - shown, n - shown == 1 ? "" : "es");
    table_free(&tb);
    free(order);
}

static void print_text(const struct alloc_totals *t, bool follow)
{
    char a[96], b[96];
    printf("allocations  %s\n", fmt_count(a, (double)t->allocations));
    printf("frees        %s\n", fmt_count(a, (double)t->frees));
    printf("bytes        %s\n", fmt_bytes(a, t->bytes));
    if (t->peak_slack)
        printf("peak live    %s ± %s%s\n", fmt_bytes(a, t->peak_bytes),
               fmt_kib(b, (double)t->peak_slack / 1024),
               follow && t->nprocs > 1 ? " (largest single process)" : "");
    else
        printf("peak live    %s%s\n", fmt_bytes(a, t->peak_bytes),
               follow && t->nprocs > 1 ? " (largest single process)" : "");
    if (follow)
        printf("processes    %zu\n", t->nprocs);
    if (t->nscopes == 0)
        return;
    static const char *const h[] = {"scope", "entries", "allocs incl", "allocs excl", "bytes incl",
                                    "bytes excl", "allocs/entry"};
    struct table tb;
    table_init(&tb, 7, h, 0x1);
    uint64_t ex_a = 0, ex_b = 0;
    for (size_t i = 0; i < t->nscopes; i++) {
        const struct alloc_scope *s = &t->scopes[i];
        table_row(&tb);
        table_set(&tb, 0, "%s", s->label);
        table_set(&tb, 1, "%s", fmt_count(a, (double)s->entries));
        table_set(&tb, 2, "%s", fmt_count(a, (double)s->allocs_incl));
        table_set(&tb, 3, "%s", fmt_count(a, (double)s->allocs_excl));
        table_set(&tb, 4, "%s", fmt_count(a, (double)s->bytes_incl));
        table_set(&tb, 5, "%s", fmt_count(a, (double)s->bytes_excl));
        if (s->entries)
            table_set(&tb, 6, "%.1f", (double)s->allocs_incl / (double)s->entries);
        else
            table_set(&tb, 6, "NA");
        ex_a += s->allocs_excl;
        ex_b += s->bytes_excl;
    }
    putchar('\n');
    table_print(&tb, stdout, FMT_TEXT);
    table_free(&tb);
    char pa[32] = "NA", pb[32] = "NA", n1[32], n2[32];
    if (t->allocations)
        snprintf(pa, sizeof pa, "%.1f%%", 100.0 * (double)ex_a / (double)t->allocations);
    if (t->bytes)
        snprintf(pb, sizeof pb, "%.1f%%", 100.0 * (double)ex_b / (double)t->bytes);
    printf("\nscopes cover %s of the allocations (%s of %s) and %s of the bytes\n", pa,
           fmt_count(n1, (double)ex_a), fmt_count(n2, (double)t->allocations), pb);
}

int cmd_alloc(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"follow-children", no_argument, NULL, 'F'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    enum out_format fmt = FMT_TEXT;
    bool follow = false;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'F': follow = true; break;
        case 'f':
            if (!cli_parse_format("alloc", cmd_alloc_usage, optarg, FMT_TEXT | FMT_JSON, &fmt))
                return EXIT_USAGE;
            break;
        case 'h':
            cli_print_usage(stdout, cmd_alloc_usage);
            printf("\nRun a command under libtare-alloc.so and print its allocations, frees,\n"
                   "bytes requested and peak live heap, with any <tare/scope.h> scopes.\n\n%s",
                   alloc_options);
            return EXIT_OK;
        default:
            cli_print_usage(stderr, cmd_alloc_usage);
            fprintf(stderr, "Try 'tare alloc --help' for the options.\n");
            return EXIT_USAGE;
        }
    }
    if (optind < argc && strcmp(argv[optind - 1], "--") != 0 && strcmp(argv[optind], "--") == 0)
        optind++;
    if (optind >= argc)
        return cli_usage_error("alloc", cmd_alloc_usage, "no command to run");
    char **cmd = argv + optind;

    struct err e = {0};
    char lib[PATH_MAX];
    if (cli_find_alloc_lib(lib, sizeof lib, &e) < 0 || check_dynamic(cmd[0], &e) < 0)
        return cli_fail("alloc", &e);

    const char *tmpdir = getenv("TMPDIR");
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/tare-alloc-XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    int fd = mkstemp(out);
    if (fd < 0) {
        cli_error("alloc", "cannot create '%s': %s", out, strerror(errno));
        return EXIT_USAGE;
    }
    close(fd);

    /* Ours first, so it comes before anything else preloaded (and the program's libraries). */
    const char *old = getenv("LD_PRELOAD");
    char *preload = NULL, *outvar = NULL;
    int status = EXIT_USAGE;
    if (asprintf(&preload, "LD_PRELOAD=%s%s%s", lib, old && old[0] ? ":" : "",
                 old ? old : "") < 0 ||
        asprintf(&outvar, "TARE_ALLOC_OUT=%s", out) < 0) {
        cli_error("alloc", "out of memory");
        goto done;
    }
    char *env[] = {preload, outvar, "TARE_ALLOC_STATS=0", NULL};
    struct proc_opts o = {.argv = cmd, .env_set = env, .pin_cpu = -1};
    struct proc_result r;
    cli_install_signal_handlers();
    if (proc_run(&o, &r, &e) < 0) {
        status = cli_fail("alloc", &e);
        goto done;
    }
    if (r.status == PROC_INTERRUPTED || proc_interrupted()) {
        cli_error("alloc", "interrupted");
        status = cli_interrupted_status();
        goto done;
    }
    char why[128];
    if (r.status == PROC_SIGNALED || r.status == PROC_TIMEOUT) {
        cli_error("alloc", "'%s' %s: its allocations were not reported%s", cmd[0],
                  proc_describe(&r, 0, why, sizeof why),
                  r.stderr_tail[0] ? "; its stderr ended with:" : "");
        if (r.stderr_tail[0])
            fprintf(stderr, "%s%s", r.stderr_tail,
                    r.stderr_tail[strlen(r.stderr_tail) - 1] == '\n' ? "" : "\n");
        status = EXIT_FAIL;
        goto done;
    }

    struct alloc_report rep;
    if (allocreport_read_file(out, &rep, &e) < 0) {
        status = cli_fail("alloc", &e);
        goto done;
    }
    struct alloc_totals t;
    if (allocreport_sum(&rep, follow ? -1 : (long)getpid(), &t, &e) < 0) {
        allocreport_free(&rep);
        status = cli_fail("alloc", &e);
        goto done;
    }
    if (t.nprocs == 0) {
        cli_error("alloc", "'%s' wrote no allocation report: it did not load libtare-alloc.so "
                  "(a set-user-ID program, a program that clears LD_PRELOAD, or one that died "
                  "without exiting); nothing was counted", cmd[0]);
        status = EXIT_FAIL;
    } else if (t.own_malloc) {
        cli_error("alloc", "'%s' defines its own malloc, found before libtare-alloc.so: its "
                  "allocations never reach the library, so they cannot be counted",
                  t.own_malloc->exe && t.own_malloc->exe[0] ? t.own_malloc->exe : cmd[0]);
        status = EXIT_FAIL;
    } else {
        if (fmt == FMT_JSON)
            print_json(&t);
        else
            print_text(&t, follow);
        if (fmt == FMT_TEXT && follow && rep.nprocs > 1)
            print_procs(&rep);
        status = EXIT_OK;
        if (r.status == PROC_EXITED) {
            cli_error("alloc", "'%s' %s", cmd[0], proc_describe(&r, 0, why, sizeof why));
            status = EXIT_FAIL;
        }
    }
    allocreport_totals_free(&t);
    allocreport_free(&rep);
done:
    unlink(out);
    free(preload);
    free(outvar);
    return status;
}
