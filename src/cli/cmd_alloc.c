/* cmd_alloc.c: `tare alloc`, a command's allocations counted by libtare-alloc.so (LD_PRELOAD),
 * and with --stacks by call stack (core/allocstacks.c names and adds them up; alloc_out.c shows
 * them); --from and --diff show saved stack tables. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/alloc_out.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/out.h"
#include "core/allocreport.h"
#include "core/allocstacks.h"
#include "core/exe.h"
#include "core/export.h"
#include "core/json.h"
#include "core/proc.h"

const char cmd_alloc_usage[] =
    "tare alloc [--follow-children] [--format text|json] -- CMD [ARG...]\n"
    "tare alloc --stacks [--unwind auto|fp|dwarf] [--by MEASURE] [-n N] [--follow-children] "
    "[--format text|tsv|json|folded] [-o FILE] -- CMD [ARG...]\n"
    "tare alloc --from TABLE [--by MEASURE] [-n N] [--format text|tsv|json|folded] [-o FILE]\n"
    "tare alloc --diff BEFORE AFTER [--by MEASURE] [-n N] [--format text|tsv|json] [-o FILE]";

static const char alloc_options[] =
    "Options:\n"
    "      --follow-children   add up the command and every process it starts (by fork\n"
    "                          or exec) that inherits the library\n"
    "  -f, --format FORMAT     text (default) or json; with stacks also tsv and folded\n"
    "      --stacks            record the call stack of every allocation: the top stacks\n"
    "                          by --by, with allocations, bytes, temporaries, bytes live\n"
    "                          at the peak and bytes never freed\n"
    "      --unwind MODE       how stacks are taken: auto (default: frame pointers where\n"
    "                          the code has them, else libunwind), fp or dwarf (libunwind\n"
    "                          only); implies --stacks\n"
    "      --by MEASURE        sort stacks by allocations (default), bytes, temporaries,\n"
    "                          peak (bytes live at the peak) or leaked (never freed)\n"
    "  -n N                    stacks to show (default 20; 0: all); folded shows all\n"
    "  -o FILE                 write the output to FILE (whole, or not at all)\n"
    "      --from TABLE        show a stack table saved with --format tsv -n 0\n"
    "      --diff BEFORE AFTER compare two saved stack tables, biggest change first\n"
    "  -h, --help              show this help\n"
    "\n"
    "Environment: TARE_ALLOC_LIB names libtare-alloc.so (default: beside tare, or\n"
    "PREFIX/lib/tare/); TARE_ALLOC_PEAK=exact makes peak_bytes exact in threaded programs.\n";

enum { FMT_FOLDED = 1 << 10 };   /* beside out.h's formats: stack tables only */

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

/* The totals' JSON; the stack table's object follows as "stacks" when st is given. */
static void print_json(FILE *f, const struct alloc_totals *t, const struct astk_table *st,
                       int by, size_t n)
{
    struct jw w;
    jw_init(&w, f);
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
    if (st) {
        jw_key(&w, "stacks");
        alloc_out_json(&w, st, by, n);
    }
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
static void print_procs(FILE *f, const struct alloc_report *r)
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
    fputc('\n', f);
    table_print(&tb, f, FMT_TEXT);
    if (shown < n)
        fprintf(f, "... and %zu more process%s\n", n - shown, n - shown == 1 ? "" : "es");
    table_free(&tb);
    free(order);
}

static void print_text(FILE *f, const struct alloc_totals *t, bool follow)
{
    char a[96], b[96];
    fprintf(f, "allocations  %s\n", fmt_count(a, (double)t->allocations));
    fprintf(f, "frees        %s\n", fmt_count(a, (double)t->frees));
    fprintf(f, "bytes        %s\n", fmt_bytes(a, t->bytes));
    if (t->peak_slack)
        fprintf(f, "peak live    %s ± %s%s\n", fmt_bytes(a, t->peak_bytes),
                fmt_kib(b, (double)t->peak_slack / 1024),
                follow && t->nprocs > 1 ? " (largest single process)" : "");
    else
        fprintf(f, "peak live    %s%s\n", fmt_bytes(a, t->peak_bytes),
                follow && t->nprocs > 1 ? " (largest single process)" : "");
    if (follow)
        fprintf(f, "processes    %zu\n", t->nprocs);
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
    fputc('\n', f);
    table_print(&tb, f, FMT_TEXT);
    table_free(&tb);
    char pa[32] = "NA", pb[32] = "NA", n1[32], n2[32];
    if (t->allocations)
        snprintf(pa, sizeof pa, "%.1f%%", 100.0 * (double)ex_a / (double)t->allocations);
    if (t->bytes)
        snprintf(pb, sizeof pb, "%.1f%%", 100.0 * (double)ex_b / (double)t->bytes);
    fprintf(f, "\nscopes cover %s of the allocations (%s of %s) and %s of the bytes\n", pa,
            fmt_count(n1, (double)ex_a), fmt_count(n2, (double)t->allocations), pb);
}

/* The output: stdout, or -o's temporary beside FILE, renamed onto it at the end. */
struct output {
    const char *path;
    char tmp[EXPORT_TMP_MAX];
    FILE *f;
};

static int out_open(struct output *o, struct err *e)
{
    if (!o->path) {
        o->f = stdout;
        return 0;
    }
    o->f = export_file_open(o->path, o->tmp, e);
    return o->f ? 0 : -1;
}

static int out_close(struct output *o, struct err *e)
{
    if (!o->path)
        return fflush(stdout) == 0 ? 0 : err_set(e, ERR_SYSTEM, "cannot write the output");
    return export_file_commit(o->f, o->tmp, o->path, e);
}

static void print_stacks_text(FILE *f, const struct astk_table *st, int by, size_t n)
{
    char a[64], b[64];
    fputc('\n', f);
    if (st->by_fp + st->by_dwarf)
        fprintf(f, "stacks taken %s by frame pointers, %s by libunwind\n",
                fmt_count(a, (double)st->by_fp), fmt_count(b, (double)st->by_dwarf));
    alloc_out_text(f, st, by, n);
}

/* What the reader of the stacks should know: said on stderr. */
static void stack_notes(const struct astk_table *st, const char *cmd)
{
    if (st->no_unwinder)
        cli_error("alloc", "note: libunwind (Debian's libunwind8) could not be loaded: stacks "
                  "were walked by frame pointers only, and frames of code built without them "
                  "may be missing");
    if (st->no_stack)
        cli_error("alloc", "note: %llu allocation%s of '%s' had no stack (made before the "
                  "library started recording, or by a process that did not record): the row "
                  "[no stack]", (unsigned long long)st->no_stack, st->no_stack == 1 ? "" : "s",
                  cmd);
    if (st->changed)
        cli_error("alloc", "note: %u object%s changed on disk since the run: %s frames are "
                  "named by file offset", st->changed, st->changed == 1 ? "" : "s",
                  st->changed == 1 ? "its" : "their");
    if (st->unreadable)
        cli_error("alloc", "note: %u object%s could not be read: %s frames are named by file "
                  "offset", st->unreadable, st->unreadable == 1 ? "" : "s",
                  st->unreadable == 1 ? "its" : "their");
}

/* --from TABLE and --diff BEFORE AFTER: saved tables, no command run. */
static int show_saved(const char *from, char *const *diff, int fmt, int by, long n,
                      struct output *o)
{
    struct err e = {0};
    struct astk_table a, b;
    int status = EXIT_OK;
    if (astk_read_tsv(from ? from : diff[0], &a, &e) < 0)
        return cli_fail("alloc", &e);
    if (diff && astk_read_tsv(diff[1], &b, &e) < 0) {
        astk_free(&a);
        return cli_fail("alloc", &e);
    }
    struct astk_delta *d = NULL;
    size_t nd = 0;
    if (diff && astk_diff(&a, &b, by, &d, &nd, &e) < 0) {
        status = cli_fail("alloc", &e);
        goto done;
    }
    if (!diff)
        astk_sort(&a, by);
    if (out_open(o, &e) < 0) {
        status = cli_fail("alloc", &e);
        goto done;
    }
    if (diff)
        alloc_out_diff(o->f, fmt, &a, &b, d, nd, by, (size_t)n);
    else if (fmt == FMT_TSV)
        astk_write_tsv(&a, o->f, (size_t)n);
    else if (fmt == FMT_FOLDED)
        alloc_out_folded(o->f, &a, by);
    else if (fmt == FMT_JSON) {
        struct jw w;
        jw_init(&w, o->f);
        alloc_out_json(&w, &a, by, (size_t)n);
        out_json_end(&w, "alloc");
    } else
        alloc_out_text(o->f, &a, by, (size_t)n);
    if (out_close(o, &e) < 0)
        status = cli_fail("alloc", &e);
done:
    free(d);
    astk_free(&a);
    if (diff)
        astk_free(&b);
    return status;
}

static bool parse_alloc_format(const char *arg, int *fmt)
{
    static const struct {
        const char *name;
        int fmt;
    } f[] = {{"text", FMT_TEXT}, {"tsv", FMT_TSV}, {"json", FMT_JSON}, {"folded", FMT_FOLDED}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (strcmp(arg, f[i].name) == 0) {
            *fmt = f[i].fmt;
            return true;
        }
    return false;
}

int cmd_alloc(int argc, char **argv)
{
    enum { OPT_FOLLOW = 0x100, OPT_STACKS, OPT_UNWIND, OPT_BY, OPT_FROM, OPT_DIFF };
    static const struct option longopts[] = {
        {"follow-children", no_argument, NULL, OPT_FOLLOW},
        {"format", required_argument, NULL, 'f'},
        {"stacks", no_argument, NULL, OPT_STACKS},
        {"unwind", required_argument, NULL, OPT_UNWIND},
        {"by", required_argument, NULL, OPT_BY},
        {"from", required_argument, NULL, OPT_FROM},
        {"diff", no_argument, NULL, OPT_DIFF},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    int fmt = FMT_TEXT, by = ASTK_ALLOCS;
    bool follow = false, stacks = false, diff = false, by_set = false, n_set = false;
    const char *unwind = "auto", *from = NULL;
    char *diff_files[2] = {NULL, NULL};
    long n = 20;
    struct output o = {NULL, "", NULL};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+f:n:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_FOLLOW: follow = true; break;
        case OPT_STACKS: stacks = true; break;
        case OPT_UNWIND:
            if (strcmp(optarg, "auto") && strcmp(optarg, "fp") && strcmp(optarg, "dwarf"))
                return cli_usage_error("alloc", cmd_alloc_usage,
                                       "--unwind takes auto, fp or dwarf, not '%s'", optarg);
            unwind = optarg;
            stacks = true;
            break;
        case OPT_BY:
            if (astk_measure_parse(optarg, &by) < 0)
                return cli_usage_error("alloc", cmd_alloc_usage, "--by takes allocations, "
                                       "bytes, temporaries, peak or leaked, not '%s'", optarg);
            by_set = true;
            break;
        case OPT_FROM: from = optarg; break;
        case OPT_DIFF:              /* its two files right after it, options after them */
            if (argc - optind < 2)
                return cli_usage_error("alloc", cmd_alloc_usage,
                                       "--diff takes two saved tables");
            diff_files[0] = argv[optind];
            diff_files[1] = argv[optind + 1];
            optind += 2;
            diff = true;
            break;
        case 'n':
            if (!cli_parse_count("alloc", cmd_alloc_usage, "-n", optarg, 0, 1000000000, &n))
                return EXIT_USAGE;
            n_set = true;
            break;
        case 'o': o.path = optarg; break;
        case 'f':
            if (!parse_alloc_format(optarg, &fmt))
                return cli_usage_error("alloc", cmd_alloc_usage, "unknown format '%s' (text, "
                                       "json; with stacks also tsv, folded)", optarg);
            break;
        case 'h':
            cli_print_usage(stdout, cmd_alloc_usage);
            printf("\nRun a command under libtare-alloc.so and print its allocations, frees,\n"
                   "bytes requested and peak live heap, with any <tare/scope.h> scopes; with\n"
                   "--stacks, where they come from. --from and --diff read saved stack tables.\n"
                   "\n%s", alloc_options);
            return EXIT_OK;
        default:
            cli_print_usage(stderr, cmd_alloc_usage);
            fprintf(stderr, "Try 'tare alloc --help' for the options.\n");
            return EXIT_USAGE;
        }
    }
    if (from || diff) {
        if (stacks || follow || (from && diff))
            return cli_usage_error("alloc", cmd_alloc_usage, "%s runs no command: not with "
                                   "%s", from ? "--from" : "--diff",
                                   diff && from ? "--diff" : stacks ? "--stacks or --unwind"
                                                                    : "--follow-children");
        if (diff && fmt == FMT_FOLDED)
            return cli_usage_error("alloc", cmd_alloc_usage, "--diff has no folded format");
        if (optind != argc)
            return cli_usage_error("alloc", cmd_alloc_usage, "%s runs no command",
                                   from ? "--from" : "--diff");
        return show_saved(from, diff ? diff_files : NULL, fmt, by, n, &o);
    }
    if (!stacks && (fmt == FMT_TSV || fmt == FMT_FOLDED || by_set || n_set))
        return cli_usage_error("alloc", cmd_alloc_usage, "%s: only with --stacks",
                               by_set ? "--by" : n_set ? "-n" : "this format");
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
    char *preload = NULL, *outvar = NULL, *stackvar = NULL;
    int status = EXIT_USAGE;
    if (asprintf(&preload, "LD_PRELOAD=%s%s%s", lib, old && old[0] ? ":" : "",
                 old ? old : "") < 0 ||
        asprintf(&outvar, "TARE_ALLOC_OUT=%s", out) < 0 ||
        asprintf(&stackvar, "TARE_ALLOC_STACKS=%s", stacks ? unwind : "0") < 0) {
        cli_error("alloc", "out of memory");
        goto done;
    }
    char *env[] = {preload, outvar, "TARE_ALLOC_STATS=0", stackvar, NULL};
    struct proc_opts po = {.argv = cmd, .env_set = env, .pin_cpu = -1};
    struct proc_result r;
    cli_install_signal_handlers();
    if (proc_run(&po, &r, &e) < 0) {
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
    long ppid = follow ? -1 : (long)getpid();
    struct alloc_totals t;
    if (allocreport_sum(&rep, ppid, &t, &e) < 0) {
        allocreport_free(&rep);
        status = cli_fail("alloc", &e);
        goto done;
    }
    struct astk_table st;
    bool have_st = false;
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
        struct astk_opts so = {ppid, NULL, NULL};
        if (stacks && astk_from_report(&rep, &so, &st, &e) < 0) {
            status = cli_fail("alloc", &e);
            goto free_report;
        }
        have_st = stacks;
        if (have_st)
            astk_sort(&st, by);
        if (out_open(&o, &e) < 0) {
            status = cli_fail("alloc", &e);
            goto free_report;
        }
        if (fmt == FMT_JSON)
            print_json(o.f, &t, have_st ? &st : NULL, by, (size_t)n);
        else if (fmt == FMT_TSV)
            astk_write_tsv(&st, o.f, (size_t)n);
        else if (fmt == FMT_FOLDED)
            alloc_out_folded(o.f, &st, by);
        else
            print_text(o.f, &t, follow);
        if (fmt == FMT_TEXT && follow && rep.nprocs > 1)
            print_procs(o.f, &rep);
        if (fmt == FMT_TEXT && have_st)
            print_stacks_text(o.f, &st, by, (size_t)n);
        status = EXIT_OK;
        if (out_close(&o, &e) < 0)
            status = cli_fail("alloc", &e);
        if (have_st)
            stack_notes(&st, cmd[0]);
        if (r.status == PROC_EXITED) {
            cli_error("alloc", "'%s' %s", cmd[0], proc_describe(&r, 0, why, sizeof why));
            status = EXIT_FAIL;
        }
    }
free_report:
    if (have_st)
        astk_free(&st);
    allocreport_totals_free(&t);
    allocreport_free(&rep);
done:
    unlink(out);
    free(preload);
    free(outvar);
    free(stackvar);
    return status;
}
