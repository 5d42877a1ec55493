/* cmd_alloc.c: `tare alloc`, a command's allocations counted by libtare-alloc.so (LD_PRELOAD),
 * and with --stacks by call stack (core/profile/allocstacks.c names and adds them up; alloc_out.c
 * shows
 * them, alloc_page.c draws them); --from and --diff show saved stack tables. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/alloc_out.h"
#include "cli/alloc_page.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/opt.h"
#include "cli/out.h"
#include "core/profile/allocreport.h"
#include "core/profile/allocstacks.h"
#include "core/util/exe.h"
#include "core/util/export.h"
#include "core/util/json.h"
#include "core/util/proc.h"

const char cmd_alloc_usage[] =
    "tare alloc [--follow-children] [--format text|json] -- CMD [ARG...]\n"
    "tare alloc --stacks [--unwind auto|fp|dwarf] [--by MEASURE] [-n N] [--follow-children] "
    "[--format text|tsv|json|folded|html] [-o FILE] -- CMD [ARG...]\n"
    "tare alloc --from TABLE [--by MEASURE] [-n N] [--format text|tsv|json|folded|html] "
    "[-o FILE]\n"
    "tare alloc --diff BEFORE AFTER [--by MEASURE] [-n N] [--format text|tsv|json|html] "
    "[-o FILE]";

enum { FMT_FOLDED = 1 << 10, FMT_HTML = 1 << 11 };   /* beside out.h's: stack tables only */

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

/* After a failure: -o's temporary removed, nothing half written. */
static void out_discard(struct output *o)
{
    if (!o->path)
        return;
    fclose(o->f);
    if (o->tmp[0])
        unlink(o->tmp);
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

/* The words of a command joined by spaces, for people (malloc'd; NULL out of memory). */
static char *joined(char *const *argv)
{
    size_t n = 1;
    for (size_t i = 0; argv[i]; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n), *p = s;
    for (size_t i = 0; s && argv[i]; i++) {
        size_t len = strlen(argv[i]);
        if (i)
            *p++ = ' ';
        memcpy(p, argv[i], len);
        p += len;
    }
    if (s)
        *p = '\0';
    return s;
}

/* The page of after (against before) to f, titled by what it shows; 0, or -1 with e set. */
static int write_page(FILE *f, const struct astk_table *after, const struct astk_table *before,
                      const char *what, const char *before_what, struct err *e)
{
    char *title = NULL;
    if (asprintf(&title, "tare alloc%s: %s%s%s", before ? " diff" : "",
                 before ? before_what : "", before ? " \u2192 " : "", what) < 0)
        return err_set(e, ERR_SYSTEM, "out of memory");
    int rc = alloc_page_write(f, after, before, title, what, before_what, e);
    free(title);
    return rc;
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
    if (diff && fmt != FMT_HTML && astk_diff(&a, &b, by, &d, &nd, &e) < 0) {
        status = cli_fail("alloc", &e);
        goto done;
    }
    if (!diff)
        astk_sort(&a, by);
    if (out_open(o, &e) < 0) {
        status = cli_fail("alloc", &e);
        goto done;
    }
    if (fmt == FMT_HTML) {
        if (write_page(o->f, diff ? &b : &a, diff ? &a : NULL, from ? from : diff[1],
                       diff ? diff[0] : NULL, &e) < 0)
            status = cli_fail("alloc", &e);
    } else if (diff)
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
    if (status != EXIT_OK)
        out_discard(o);
    else if (out_close(o, &e) < 0)
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
    } f[] = {{"text", FMT_TEXT},     {"tsv", FMT_TSV},   {"json", FMT_JSON},
             {"folded", FMT_FOLDED}, {"html", FMT_HTML}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (strcmp(arg, f[i].name) == 0) {
            *fmt = f[i].fmt;
            return true;
        }
    return false;
}

struct alloc_args {
    int fmt, by;
    bool follow, stacks, diff, by_set, n_set;
    const char *unwind, *from;
    char *diff_files[2];
    long n;
    struct output o;
    char **cmd;
};

/* --unwind MODE: auto, fp or dwarf; implies --stacks. */
static int opt_unwind(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct alloc_args *a = o->value;
    if (strcmp(arg, "auto") && strcmp(arg, "fp") && strcmp(arg, "dwarf")) {
        cli_usage_error(p->cmd, p->usage, "--unwind takes auto, fp or dwarf, not '%s'", arg);
        return -1;
    }
    a->unwind = arg;
    a->stacks = true;
    return 0;
}

/* --by MEASURE: what the stacks are sorted by. */
static int opt_by(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    if (astk_measure_parse(arg, o->value) == 0)
        return 0;
    cli_usage_error(p->cmd, p->usage, "--by takes allocations, bytes, temporaries, peak or "
                    "leaked, not '%s'", arg);
    return -1;
}

/* --diff BEFORE AFTER: its two files right after it, options after them. */
static int opt_diff(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    struct alloc_args *a = o->value;
    (void)arg;
    if (p->argc - optind < 2) {
        cli_usage_error(p->cmd, p->usage, "--diff takes two saved tables");
        return -1;
    }
    a->diff_files[0] = p->argv[optind];
    a->diff_files[1] = p->argv[optind + 1];
    optind += 2;
    a->diff = true;
    return 0;
}

/* -f, --format: text, json; with stacks also tsv and folded. */
static int opt_format(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    if (parse_alloc_format(arg, o->value))
        return 0;
    cli_usage_error(p->cmd, p->usage, "unknown format '%s' (text, json; with stacks also tsv, "
                    "folded, html)", arg);
    return -1;
}

/* The options into a: -1 to go on, else the exit status (--help, a usage error). */
static int parse_args(int argc, char **argv, struct alloc_args *a)
{
    *a = (struct alloc_args){.fmt = FMT_TEXT, .by = ASTK_ALLOCS, .unwind = "auto", .n = 20};
    const struct opt opts[] = {
        OPT_GROUP("Options:"),
        OPT_BOOL(0, "follow-children", &a->follow,
                 "add up the command and every process it starts (by fork\n"
                 "or exec) that inherits the library"),
        OPT_CALLBACK('f', "format", &a->fmt, "FORMAT",
                     "text (default) or json; with stacks also tsv, folded and\n"
                     "html (the page of tare cg page, a switch of the measures)",
                     opt_format),
        OPT_BOOL(0, "stacks", &a->stacks,
                 "record the call stack of every allocation: the top stacks\n"
                 "by --by, with allocations, bytes, temporaries, bytes live\n"
                 "at the peak and bytes never freed"),
        OPT_CALLBACK(0, "unwind", a, "MODE",
                     "how stacks are taken: auto (default: frame pointers where\n"
                     "the code has them, else libunwind), fp or dwarf (libunwind\n"
                     "only); implies --stacks", opt_unwind),
        OPT_CALLBACK(0, "by", &a->by, "MEASURE",
                     "sort stacks by allocations (default), bytes, temporaries,\n"
                     "peak (bytes live at the peak) or leaked (never freed)", opt_by,
                     .given = &a->by_set),
        OPT_LONG('n', NULL, &a->n, "N", 0, 1000000000,
                 "stacks to show (default 20; 0: all); folded and html show all",
                 .given = &a->n_set),
        OPT_STRING('o', NULL, &a->o.path, "FILE",
                   "write the output to FILE (whole, or not at all)"),
        OPT_STRING(0, "from", &a->from, "TABLE", "show a stack table saved with --format tsv -n 0"),
        OPT_CALLBACK(0, "diff", a, "BEFORE AFTER",
                     "compare two saved stack tables, biggest change first", opt_diff,
                     .words = true),
        OPT_HELP(),
        OPT_END(),
    };
    struct opt_parser op = {
        .cmd = "alloc", .usage = cmd_alloc_usage, .argc = argc, .argv = argv, .in_order = true,
        .about = "Run a command under libtare-alloc.so and print its allocations, frees,\n"
                 "bytes requested and peak live heap, with any <tare/scope.h> scopes; with\n"
                 "--stacks, where they come from. --from and --diff read saved stack tables.",
        .after = "\nEnvironment: TARE_ALLOC_LIB names libtare-alloc.so (default: beside tare, "
                 "or\nPREFIX/lib/tare/); TARE_ALLOC_PEAK=exact makes peak_bytes exact in "
                 "threaded programs.",
    };
    int rc = opt_parse(&op, opts);
    if (rc != 0)
        return opt_status(rc);
    if (a->from || a->diff) {
        if (a->stacks || a->follow || (a->from && a->diff))
            return cli_usage_error("alloc", cmd_alloc_usage, "%s runs no command: not with "
                                   "%s", a->from ? "--from" : "--diff",
                                   a->diff && a->from ? "--diff"
                                   : a->stacks ? "--stacks or --unwind" : "--follow-children");
        if (a->diff && a->fmt == FMT_FOLDED)
            return cli_usage_error("alloc", cmd_alloc_usage, "--diff has no folded format");
        if (optind != argc)
            return cli_usage_error("alloc", cmd_alloc_usage, "%s runs no command",
                                   a->from ? "--from" : "--diff");
        return -1;
    }
    if (!a->stacks && (a->fmt == FMT_TSV || a->fmt == FMT_FOLDED || a->fmt == FMT_HTML ||
                       a->by_set || a->n_set))
        return cli_usage_error("alloc", cmd_alloc_usage, "%s: only with --stacks",
                               a->by_set ? "--by" : a->n_set ? "-n" : "this format");
    if (optind < argc && strcmp(argv[optind - 1], "--") != 0 && strcmp(argv[optind], "--") == 0)
        optind++;
    if (optind >= argc)
        return cli_usage_error("alloc", cmd_alloc_usage, "no command to run");
    a->cmd = argv + optind;
    return -1;
}

/* The output of a run that reported: the totals (and stacks) printed; the exit status. */
static int print_run(struct alloc_args *a, const struct alloc_report *rep,
                     const struct alloc_totals *t)
{
    struct err e = {0};
    struct astk_table st;
    long ppid = a->follow ? -1 : (long)getpid();
    struct astk_opts so = {ppid, NULL, NULL};
    if (a->stacks && astk_from_report(rep, &so, &st, &e) < 0)
        return cli_fail("alloc", &e);
    if (a->stacks)
        astk_sort(&st, a->by);
    int status = EXIT_OK;
    if (out_open(&a->o, &e) < 0) {
        status = cli_fail("alloc", &e);
        goto done;
    }
    FILE *f = a->o.f;
    if (a->fmt == FMT_JSON)
        print_json(f, t, a->stacks ? &st : NULL, a->by, (size_t)a->n);
    else if (a->fmt == FMT_TSV)
        astk_write_tsv(&st, f, (size_t)a->n);
    else if (a->fmt == FMT_FOLDED)
        alloc_out_folded(f, &st, a->by);
    else if (a->fmt == FMT_HTML) {
        char *what = joined(a->cmd);
        if (!what)
            err_set(&e, ERR_SYSTEM, "out of memory");
        if (!what || write_page(f, &st, NULL, what, NULL, &e) < 0)
            status = cli_fail("alloc", &e);
        free(what);
    } else
        print_text(f, t, a->follow);
    if (a->fmt == FMT_TEXT && a->follow && rep->nprocs > 1)
        print_procs(f, rep);
    if (a->fmt == FMT_TEXT && a->stacks)
        print_stacks_text(f, &st, a->by, (size_t)a->n);
    if (status != EXIT_OK)
        out_discard(&a->o);
    else if (out_close(&a->o, &e) < 0)
        status = cli_fail("alloc", &e);
    if (a->stacks)
        stack_notes(&st, a->cmd[0]);
done:
    if (a->stacks)
        astk_free(&st);
    return status;
}

/* The report the library wrote to out, read and printed; the exit status. */
static int report_run(struct alloc_args *a, const char *out, const struct proc_result *r)
{
    struct err e = {0};
    struct alloc_report rep;
    if (allocreport_read_file(out, &rep, &e) < 0)
        return cli_fail("alloc", &e);
    struct alloc_totals t;
    if (allocreport_sum(&rep, a->follow ? -1 : (long)getpid(), &t, &e) < 0) {
        allocreport_free(&rep);
        return cli_fail("alloc", &e);
    }
    int status;
    char why[128];
    if (t.nprocs == 0) {
        cli_error("alloc", "'%s' wrote no allocation report: it did not load libtare-alloc.so "
                  "(a set-user-ID program, a program that clears LD_PRELOAD, or one that died "
                  "without exiting); nothing was counted", a->cmd[0]);
        status = EXIT_FAIL;
    } else if (t.own_malloc) {
        cli_error("alloc", "'%s' defines its own malloc, found before libtare-alloc.so: its "
                  "allocations never reach the library, so they cannot be counted",
                  t.own_malloc->exe && t.own_malloc->exe[0] ? t.own_malloc->exe : a->cmd[0]);
        status = EXIT_FAIL;
    } else {
        status = print_run(a, &rep, &t);
        if (status == EXIT_OK && r->status == PROC_EXITED) {
            cli_error("alloc", "'%s' %s", a->cmd[0], proc_describe(r, 0, why, sizeof why));
            status = EXIT_FAIL;
        }
    }
    allocreport_totals_free(&t);
    allocreport_free(&rep);
    return status;
}

/* The command run under libtare-alloc.so, its report printed; the exit status. */
static int run_command(struct alloc_args *a)
{
    struct err e = {0};
    char lib[PATH_MAX];
    if (cli_find_alloc_lib(lib, sizeof lib, &e) < 0 || check_dynamic(a->cmd[0], &e) < 0)
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
        asprintf(&stackvar, "TARE_ALLOC_STACKS=%s", a->stacks ? a->unwind : "0") < 0) {
        cli_error("alloc", "out of memory");
        goto done;
    }
    char *env[] = {preload, outvar, "TARE_ALLOC_STATS=0", stackvar, NULL};
    struct proc_opts po = {.argv = a->cmd, .env_set = env, .pin_cpu = -1};
    struct proc_result r;
    cli_install_signal_handlers();
    char why[128];
    if (proc_run(&po, &r, &e) < 0) {
        status = cli_fail("alloc", &e);
    } else if (r.status == PROC_INTERRUPTED || proc_interrupted()) {
        cli_error("alloc", "interrupted");
        status = cli_interrupted_status();
    } else if (r.status == PROC_SIGNALED || r.status == PROC_TIMEOUT) {
        cli_error("alloc", "'%s' %s: its allocations were not reported%s", a->cmd[0],
                  proc_describe(&r, 0, why, sizeof why),
                  r.stderr_tail[0] ? "; its stderr ended with:" : "");
        if (r.stderr_tail[0])
            fprintf(stderr, "%s%s", r.stderr_tail,
                    r.stderr_tail[strlen(r.stderr_tail) - 1] == '\n' ? "" : "\n");
        status = EXIT_FAIL;
    } else {
        status = report_run(a, out, &r);
    }
done:
    unlink(out);
    free(preload);
    free(outvar);
    free(stackvar);
    return status;
}

int cmd_alloc(int argc, char **argv)
{
    struct alloc_args a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    if (a.from || a.diff)
        return show_saved(a.from, a.diff ? a.diff_files : NULL, a.fmt, a.by, a.n, &a.o);
    return run_command(&a);
}
