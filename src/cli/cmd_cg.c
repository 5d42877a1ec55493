/* cmd_cg.c: `tare cg`, callgrind profiles read directly: top, callers, callees, diff, allocs,
 * lines, info, with a function's inlined pieces and recursion levels merged. */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cg_graph.h"
#include "cli/cg_match_out.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/out.h"
#include "core/util/json.h"
#include "core/profile/profile.h"

/* Each subcommand's usage line, once: the subcommand table and the usage are made of them. */
#define CG_USAGE_TOP \
    "tare cg top FILE... [-n N] [--event EV] [--inclusive] [--grep TEXT] [--format text|tsv|json]"
#define CG_USAGE_CALLERS "tare cg callers NAME FILE... [-n N] [--exact] [--format ...]"
#define CG_USAGE_CALLEES "tare cg callees NAME FILE... [-n N] [--exact] [--format ...]"
#define CG_USAGE_DIFF \
    "tare cg diff BEFORE AFTER [-n N] [--inclusive | --allocs] [--map-object OLD=NEW]... " \
    "[--format ...]"
#define CG_USAGE_ALLOCS "tare cg allocs FILE... [-n N] [--format ...]"
#define CG_USAGE_LINES "tare cg lines NAME FILE... [-n N] [--by-line] [--format ...]"
#define CG_USAGE_INFO "tare cg info FILE... [--format text|json]"
/* The pictures of a profile (cg_graph.c, cg_page.c) parse their own options. */
#define CG_USAGE_FOLDED "tare cg folded FILE... [--event EV] [--threshold PCT]"
#define CG_USAGE_DOT \
    "tare cg dot FILE... [--event EV] [--node-threshold PCT] [--edge-threshold PCT]"
#define CG_USAGE_PAGE \
    "tare cg page FILE... -o OUT [--threshold PCT] [--title TEXT] [--source-root DIR]\n" \
    "tare cg page --diff BEFORE AFTER -o OUT [--threshold PCT] [--title TEXT] " \
    "[--map-object OLD=NEW]..."

const char cmd_cg_usage[] =
    CG_USAGE_TOP "\n"
    CG_USAGE_CALLERS "\n"
    CG_USAGE_CALLEES "\n"
    CG_USAGE_DIFF "\n"
    CG_USAGE_ALLOCS "\n"
    CG_USAGE_LINES "\n"
    CG_USAGE_INFO "\n"
    CG_USAGE_FOLDED "\n"
    CG_USAGE_DOT "\n"
    CG_USAGE_PAGE;

static const char cg_options[] =
    "\nOptions:\n"
    "  -n N                 rows to show (default 20; 0: all)\n"
    "  -e, --event EV       the event to report (default: the first of the profile)\n"
    "      --inclusive      top: sort by inclusive cost; diff: compare inclusive costs\n"
    "      --exact          callers, callees: only the function of that name (without\n"
    "                       it: those whose name contains NAME, exact matches first)\n"
    "      --grep TEXT      top: only functions whose name contains TEXT\n"
    "      --allocs         diff: allocation counts by call site instead of cost\n"
    "      --map-object OLD=NEW\n"
    "                       diff, page --diff: object OLD of BEFORE is object NEW of\n"
    "                       AFTER (a path or a file name; repeatable)\n"
    "      --by-line        lines: the lines shown in source order (default: costliest\n"
    "                       first)\n"
    "  -j, --jobs N         read each file with N threads (default: one per CPU this\n"
    "                       process may use, at most 8; 1: no threads);\n"
    "                       the answer is the same for any N\n"
    "  -f, --format FORMAT  text (default), tsv or json\n"
    "      --threshold PCT  folded, page: callees under PCT% of the total merged into\n"
    "                       'other' (defaults 0.001 and 0.01)\n"
    "      --node-threshold PCT\n"
    "                       dot: functions under PCT% of the total left out (0.5)\n"
    "      --edge-threshold PCT\n"
    "                       dot: calls under PCT% of the total left out (0.1)\n"
    "  -o, --output OUT     page: the HTML file to write\n"
    "      --diff           page: BEFORE AFTER, frames coloured by the change\n"
    "      --title TEXT     page: its title\n"
    "      --source-root DIR  page: where to look for source files not at their path\n"
    "  -h, --help           show this help\n";

struct cg_cli {
    const char *sub;
    long n;
    const char *event;
    bool inclusive, allocs, exact;
    const char *grep;
    struct cg_obj_map maps[64];   /* diff: --map-object */
    int nmaps;
    bool by_line;
    long jobs;
    enum out_format fmt;
    char **args;
    int nargs;
};

static int load(const struct cg_cli *c, struct cg_profile **out, char **files, int nfiles,
                const char *lines_for)
{
    struct cg_read_opts o = {.lines_for = lines_for, .threads = (int)c->jobs};
    return cg_graph_read(files, nfiles, &o, out);
}

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static void pct(char *buf, size_t n, uint64_t part, uint64_t total)
{
    if (total == 0)
        snprintf(buf, n, "NA");
    else
        snprintf(buf, n, "%.2f%%", 100.0 * (double)part / (double)total);
}

/* JSON for a table: an array of objects keyed by the headers, one a line; numeric columns as
 * numbers (NA as null). */
static void json_rows(struct jw *w, const struct table *t, unsigned numeric)
{
    jw_array_begin_lines(w, "\n  ", "\n");
    for (int r = 0; r < t->nrows; r++) {
        jw_object_begin(w);
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[(size_t)r * t->ncols + c];
            jw_key(w, t->headers[c]);
            if (numeric & (1u << c))
                jw_number_text(w, s);
            else
                jw_string(w, s ? s : "");
        }
        jw_end(w);
    }
    jw_end(w);
}

static void print_header(const struct cg_profile *p, int ev, const char *what)
{
    char b[40];
    printf("%s, by %s; program total %s %s over %d file%s, %d part%s\n", what,
           out_vis(cg_event_name(p, ev)), fmt_count(b, (double)cg_total(p, ev)),
           out_vis(cg_event_name(p, ev)),
           p->nfiles, p->nfiles == 1 ? "" : "s", p->nparts, p->nparts == 1 ? "" : "s");
}

/* ---- top ---- */

/* "<=" before an inclusive cost that is only a bound */
static const char *le(const struct cg_profile *p, uint32_t f)
{
    return p->funcs[f].incl_bound ? "<=" : "";
}


/* The order of the functions a name matches (qsort_r's context): exact matches of name
 * first, then by cost of event ev, self or inclusive (cg_cmp_cost). */
struct cost_order {
    const struct cg_profile *p;
    int ev;
    bool incl;
    const char *name;
};
static int cg_top(struct cg_cli *c)
{
    if (c->nargs < 1)
        return cli_usage_error("cg", cmd_cg_usage, "top: no profile given");
    struct cg_profile *p;
    int rc = load(c, &p, c->args, c->nargs, NULL);
    if (rc)
        return rc;
    int ev = cg_graph_event(p, c->event, c->args[0]);
    if (ev < 0) {
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    uint32_t *idx;
    long nidx = cg_top_funcs(p, ev, c->inclusive, c->grep, c->n > 0 ? (uint32_t)c->n : 0, &idx);
    if (nidx < 0) {
        cli_error("cg", "out of memory");
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    uint32_t m = (uint32_t)nidx;
    uint64_t total = cg_total(p, ev);
    struct table t;
    if (c->fmt == FMT_TEXT) {
        static const char *const h[] = {"self", "%", "inclusive", "%", "function", "object"};
        table_init(&t, 6, h, 0x30);
    } else {
        static const char *const h[] = {"function", "object", "self", "inclusive",
                                        "inclusive_bound"};
        table_init(&t, 5, h, 0x3);
    }
    char a[40], b[40];
    bool any_bound = false;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t f = idx[i];
        uint64_t s = cg_self(p, f)[ev], in = cg_incl(p, f)[ev];
        table_row(&t);
        if (c->fmt == FMT_TEXT) {
            table_set(&t, 0, "%s", fmt_count(a, (double)s));
            pct(b, sizeof b, s, total);
            table_set(&t, 1, "%s", b);
            table_set(&t, 2, "%s%s", le(p, f), fmt_count(a, (double)in));
            pct(b, sizeof b, in, total);
            table_set(&t, 3, "%s%s", le(p, f), b);
            table_set(&t, 4, "%s", cg_str(p, p->funcs[f].name));
            any_bound |= p->funcs[f].incl_bound;
            table_set(&t, 5, "%s", base(cg_str(p, p->funcs[f].obj)));
        } else {
            table_set(&t, 0, "%s", cg_str(p, p->funcs[f].name));
            table_set(&t, 1, "%s", cg_str(p, p->funcs[f].obj));
            table_set(&t, 2, "%" PRIu64, s);
            table_set(&t, 3, "%" PRIu64, in);
            table_set(&t, 4, "%d", p->funcs[f].incl_bound ? 1 : 0);
        }
    }
    if (c->fmt == FMT_TEXT) {
        print_header(p, ev,
                     c->inclusive ? "functions by inclusive cost" : "functions by self cost");
        table_print(&t, stdout, FMT_TEXT);
        if (any_bound)
            printf("<= an upper bound: see BOUNDS in tare-cg(1)\n");
    } else if (c->fmt == FMT_TSV) {
        table_print(&t, stdout, FMT_TSV);
    } else {
        struct jw w;
        jw_init(&w, stdout);
        jw_object_begin(&w);
        jw_kstring(&w, "event", cg_event_name(p, ev));
        jw_ku64(&w, "total", total);
        jw_key(&w, "functions");
        json_rows(&w, &t, 0x1c);
        jw_end(&w);
        out_json_end(&w, "cg");
    }
    table_free(&t);
    free(idx);
    cg_profile_free(p);
    return EXIT_OK;
}

/* ---- callers / callees ---- */

/* One row of callers or callees (cg_call_rows), with its cost in the event shown. */
static const char *const row_kind_name[] = {"outer", "recursive", "cycle", "nested"};

struct crow {
    uint32_t edge, other;
    enum cg_row_kind kind;
    uint64_t calls, cost;
};

static int by_crow(const void *a, const void *b)
{
    const struct crow *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return x->edge < y->edge ? -1 : x->edge > y->edge;
}

/* The rows of f's callers (or callees) of edges es[0..ne), by kind, then by cost of ev
 * (rows: room for 2 * ne; tmp too). */
static uint32_t call_rows(const struct cg_profile *p, int ev, const uint32_t *es, uint32_t ne,
                          bool callers, struct crow *rows, struct cg_call_row *tmp)
{
    uint32_t n = cg_call_rows(p, es, ne, callers, tmp);
    for (uint32_t i = 0; i < n; i++)
        rows[i] = (struct crow){tmp[i].edge, tmp[i].other, tmp[i].kind, tmp[i].calls,
                                cg_call_row_cost(p, &tmp[i], callers, ev)};
    qsort(rows, n, sizeof *rows, by_crow);
    return n;
}

/* Exact matches of the name first, then by inclusive cost. */
static int by_match(const void *a, const void *b, void *ctx)
{
    const struct cost_order *o = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    bool ex = strcmp(cg_str(o->p, o->p->funcs[x].name), o->name) == 0;
    bool ey = strcmp(cg_str(o->p, o->p->funcs[y].name), o->name) == 0;
    if (ex != ey)
        return ex ? -1 : 1;
    return cg_cmp_cost(o->p, o->ev, o->incl, x, y);
}

/* The functions NAME names (exactly, or containing it), exact ones first; 0: none. */
static uint32_t match_funcs(const struct cg_profile *p, int ev, const char *name, bool exact,
                            uint32_t *fs)
{
    uint32_t nf = 0;
    for (uint32_t f = 0; f < p->nfunc; f++) {
        const char *s = cg_str(p, p->funcs[f].name);
        if (!p->funcs[f].folded && (exact ? strcmp(s, name) == 0 : strstr(s, name) != NULL))
            fs[nf++] = f;
    }
    struct cost_order order = {p, ev, true, name};
    qsort_r(fs, nf, sizeof *fs, by_match, &order);
    return nf;
}

/* "recursive calls: 1,958 (from A 1,500, B 458)": the calls of one kind, apart */
static void print_apart(const struct cg_profile *p, const struct crow *rows, uint32_t nrows,
                        enum cg_row_kind kind, const char *what, long most)
{
    uint64_t calls = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < nrows; i++)
        if (rows[i].kind == kind)
            calls += rows[i].calls, n++;
    if (!n)
        return;
    char a[40];
    printf("%s: %s (", what, fmt_count(a, (double)calls));
    uint32_t shown = 0;
    for (uint32_t i = 0; i < nrows; i++) {
        if (rows[i].kind != kind)
            continue;
        if (most > 0 && shown == (uint32_t)most) {
            printf(", %u more", n - shown);
            break;
        }
        printf("%s%s %s", shown ? ", " : "", out_vis(cg_str(p, p->funcs[rows[i].other].name)),
               fmt_count(a, (double)rows[i].calls));
        shown++;
    }
    printf(")\n");
}

/* What cg_calls prints, function by function: the rows of TSV (all functions') and JSON in t,
 * JSON through w. */
struct calls_out {
    const struct cg_profile *p;
    const struct cg_cli *c;
    int ev;
    bool callers, json, text;
    uint64_t total;
    struct crow *rows;
    struct cg_call_row *tmp;
    const uint32_t *at, *by;   /* each function's edges: by[at[f] .. at[f + 1]) */
    struct table t;
    struct jw w;
};

/* Text: the total row under the table of function f, the table, and the calls apart. */
static void calls_text_end(struct calls_out *o, uint32_t nr, uint64_t tcalls, uint64_t tcost,
                           bool cut)
{
    char a[40], b[40];
    struct table *t = &o->t;
    table_row(t);
    table_set(t, 0, "%s", fmt_count(a, (double)tcalls));
    table_set(t, 1, "%s", fmt_count(a, (double)tcost));
    pct(b, sizeof b, tcost, o->total);
    table_set(t, 2, "%s", b);
    table_set(t, 3, "%s%s", o->callers ? "total: the calls from outside its recursion"
                                       : "total: the calls its outermost level made",
              cut ? " (all, not only those shown)" : "");
    table_print(t, stdout, FMT_TEXT);
    table_free(t);
    long n = o->c->n;
    if (o->callers) {
        print_apart(o->p, o->rows, nr, CG_ROW_RECURSIVE,
                    "recursive calls (inside the calls above)", n);
        print_apart(o->p, o->rows, nr, CG_ROW_CYCLE,
                    "calls within a cycle of functions (inside the calls above; the "
                    "profile has no recursion marks to tell more)", n);
    } else {
        print_apart(o->p, o->rows, nr, CG_ROW_RECURSIVE, "recursive calls (to itself)", n);
        print_apart(o->p, o->rows, nr, CG_ROW_NESTED,
                    "calls from its recursion levels (inside the calls above)", n);
    }
}

/* One row of function f's table: text (calls, cost, %, function, object) or TSV/JSON */
static void calls_row(struct calls_out *o, uint32_t f, const struct crow *r)
{
    const struct cg_profile *p = o->p;
    struct table *t = &o->t;
    char a[40], b[40];
    table_row(t);
    if (o->text) {
        table_set(t, 0, "%s", fmt_count(a, (double)r->calls));
        table_set(t, 1, "%s", fmt_count(a, (double)r->cost));
        pct(b, sizeof b, r->cost, o->total);
        table_set(t, 2, "%s", b);
        table_set(t, 3, "%s", cg_str(p, p->funcs[r->other].name));
        table_set(t, 4, "%s", base(cg_str(p, p->funcs[r->other].obj)));
    } else {
        table_set(t, 0, "%s", cg_str(p, p->funcs[f].name));
        table_set(t, 1, "%s", cg_str(p, p->funcs[r->other].name));
        table_set(t, 2, "%" PRIu64, r->calls);
        table_set(t, 3, "%" PRIu64, r->cost);
        table_set(t, 4, "%s", row_kind_name[r->kind]);
        table_set(t, 5, "%s", cg_str(p, p->funcs[f].obj));
        table_set(t, 6, "%s", cg_str(p, p->funcs[r->other].obj));
    }
}

static const char *const h_callers[] = {"callee", "caller", "calls", "inclusive", "kind",
                                        "callee_object", "caller_object"};
static const char *const h_callees[] = {"caller", "callee", "calls", "inclusive", "kind",
                                        "caller_object", "callee_object"};

/* Function f's callers (or callees): its heading, table and calls apart (text), its rows
 * (TSV), its object (JSON) */
static void calls_func(struct calls_out *o, uint32_t f)
{
    const struct cg_profile *p = o->p;
    int ev = o->ev;
    bool callers = o->callers;
    uint32_t nr = call_rows(p, ev, o->by + o->at[f], o->at[f + 1] - o->at[f], callers, o->rows,
                            o->tmp);
    uint32_t nouter = 0;
    uint64_t tcalls = 0, tcost = 0;
    for (uint32_t k = 0; k < nr; k++)
        if (o->rows[k].kind == CG_ROW_OUTER)
            tcalls += o->rows[k].calls, tcost += o->rows[k].cost, nouter++;
    const char *fname = cg_str(p, p->funcs[f].name);
    uint64_t incl = cg_incl(p, f)[ev];
    long n = o->c->n;
    uint32_t shown = n > 0 && (uint32_t)n < nouter ? (uint32_t)n : nouter;
    char a[40], b[40], d[40];
    if (o->text) {
        printf("\n%s (%s): self %s, inclusive %s%s; %s %s call%s %s\n", out_vis(fname),
               out_vis(base(cg_str(p, p->funcs[f].obj))),
               fmt_count(a, (double)cg_self(p, f)[ev]), le(p, f), fmt_count(b, (double)incl),
               fmt_count(d, (double)tcalls),
               callers ? "outer" : "outermost", tcalls == 1 ? "" : "s",
               callers ? "into it (from outside its recursion)" : "from it to other functions");
        static const char *const h[] = {"calls", "inclusive", "%", "function", "object"};
        table_init(&o->t, 5, h, 0x18);
    } else if (o->json)
        table_init(&o->t, 7, callers ? h_callers : h_callees, 0x13);
    for (uint32_t k = 0; k < nr; k++)
        if (!o->text || (o->rows[k].kind == CG_ROW_OUTER && k < shown))
            calls_row(o, f, &o->rows[k]);
    if (o->text) {
        calls_text_end(o, nr, tcalls, tcost, shown < nouter);
    } else if (o->json) {
        struct jw *w = &o->w;
        jw_object_begin(w);
        jw_kstring(w, "function", fname);
        jw_kstring(w, "object", cg_str(p, p->funcs[f].obj));
        jw_ku64(w, "self", cg_self(p, f)[ev]);
        jw_ku64(w, "inclusive", incl);
        jw_kbool(w, "inclusive_bound", p->funcs[f].incl_bound);
        jw_ku64(w, "calls", tcalls);
        jw_ku64(w, "outer", tcost);
        jw_key(w, callers ? "callers" : "callees");
        json_rows(w, &o->t, 0xc);
        jw_end(w);
        table_free(&o->t);
    }
}

static int cg_calls(struct cg_cli *c, bool callers)
{
    if (c->nargs < 2)
        return cli_usage_error("cg", cmd_cg_usage, "%s: want NAME and at least one profile",
                               c->sub);
    const char *name = c->args[0];
    struct cg_profile *p;
    int rc = load(c, &p, c->args + 1, c->nargs - 1, NULL);
    if (rc)
        return rc;
    int ev = cg_graph_event(p, c->event, c->args[1]);
    if (ev < 0) {
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    uint32_t *fs = malloc((p->nfunc + 1) * sizeof *fs);
    struct crow *rows = malloc((2 * (size_t)p->nedge + 1) * sizeof *rows);
    struct cg_call_row *tmp = malloc((2 * (size_t)p->nedge + 1) * sizeof *tmp);
    /* each function's edges (as callee, or as caller), found once: by[at[f] .. at[f + 1]) */
    uint32_t *at = calloc((size_t)p->nfunc + 2, sizeof *at),
             *by = malloc(((size_t)p->nedge + 1) * sizeof *by);
    uint32_t nf = 0;
    rc = EXIT_USAGE;
    if (!fs || !rows || !at || !by || !tmp) {
        cli_error("cg", "out of memory");
        goto out;
    }
    for (uint32_t x = 0; x < p->nedge; x++)
        at[(callers ? p->edges[x].callee : p->edges[x].caller) + 2]++;
    for (uint32_t f = 0; f < p->nfunc; f++)
        at[f + 2] += at[f + 1];
    for (uint32_t x = 0; x < p->nedge; x++)
        by[at[(callers ? p->edges[x].callee : p->edges[x].caller) + 1]++] = x;
    if (!(nf = match_funcs(p, ev, name, c->exact, fs))) {
        cli_error("cg", "no function %s '%s'", c->exact ? "named" : "whose name contains", name);
        goto out;
    }
    struct calls_out o = {.p = p, .c = c, .ev = ev, .callers = callers,
                          .json = c->fmt == FMT_JSON, .text = c->fmt == FMT_TEXT,
                          .total = cg_total(p, ev), .rows = rows, .tmp = tmp, .at = at, .by = by};
    table_init(&o.t, 7, callers ? h_callers : h_callees, 0x3);
    if (o.text)
        print_header(p, ev, callers ? "callers" : "callees");
    jw_init(&o.w, stdout);
    if (o.json) {
        jw_object_begin(&o.w);
        jw_kstring(&o.w, "event", cg_event_name(p, ev));
        jw_ku64(&o.w, "total", o.total);
        jw_key(&o.w, "functions");
        jw_array_begin_lines(&o.w, "\n ", "\n");
    }
    bool any_bound = false;
    for (uint32_t i = 0; i < nf; i++) {
        any_bound |= p->funcs[fs[i]].incl_bound;
        calls_func(&o, fs[i]);
    }
    if (o.text && any_bound)
        printf("\n<= an upper bound: see BOUNDS in tare-cg(1)\n");
    if (c->fmt == FMT_TSV) {
        table_print(&o.t, stdout, FMT_TSV);
        table_free(&o.t);
    }
    if (o.json) {
        jw_end(&o.w);
        jw_end(&o.w);
        out_json_end(&o.w, "cg");
    }
    rc = EXIT_OK;
out:
    free(rows);
    free(tmp);
    free(fs);
    free(at);
    free(by);
    cg_profile_free(p);
    return rc;
}

/* ---- allocation sites ---- */

/* Allocation counts per call site (see cg_alloc_sites). */
static bool alloc_sites(const struct cg_profile *p, struct cg_site **out, uint32_t *nsites)
{
    *out = NULL;
    long n = cg_alloc_sites(p, out);
    if (n < 0) {
        cli_error("cg", "out of memory");
        return false;
    }
    *nsites = (uint32_t)n;
    return true;
}

static int by_site(const void *a, const void *b, void *ctx)
{
    const struct cg_profile *site_p = ctx;
    const struct cg_site *x = a, *y = b;
    if (x->allocations != y->allocations)
        return x->allocations > y->allocations ? -1 : 1;
    return strcmp(cg_str(site_p, site_p->funcs[x->func].name),
                  cg_str(site_p, site_p->funcs[y->func].name));
}

static int cg_allocs(struct cg_cli *c)
{
    if (c->nargs < 1)
        return cli_usage_error("cg", cmd_cg_usage, "allocs: no profile given");
    struct cg_profile *p;
    int rc = load(c, &p, c->args, c->nargs, NULL);
    if (rc)
        return rc;
    uint32_t n;
    struct cg_site *s;
    if (!alloc_sites(p, &s, &n)) {
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    qsort_r(s, n, sizeof *s, by_site, p);
    uint32_t shown = c->n > 0 && (uint32_t)c->n < n ? (uint32_t)c->n : n;
    uint64_t total = cg_allocations(p);
    struct table t;
    char a[40], b[40];
    if (c->fmt == FMT_TEXT) {
        static const char *const h[] = {"allocations", "%", "caller", "object"};
        table_init(&t, 4, h, 0xc);
    } else {
        static const char *const h[] = {"caller", "object", "allocations"};
        table_init(&t, 3, h, 0x3);
    }
    for (uint32_t i = 0; i < shown; i++) {
        const struct cg_func *f = &p->funcs[s[i].func];
        table_row(&t);
        if (c->fmt == FMT_TEXT) {
            table_set(&t, 0, "%s", fmt_count(a, (double)s[i].allocations));
            pct(b, sizeof b, s[i].allocations, total);
            table_set(&t, 1, "%s", b);
            table_set(&t, 2, "%s", cg_str(p, f->name));
            table_set(&t, 3, "%s", base(cg_str(p, f->obj)));
        } else {
            table_set(&t, 0, "%s", cg_str(p, f->name));
            table_set(&t, 1, "%s", cg_str(p, f->obj));
            table_set(&t, 2, "%" PRIu64, s[i].allocations);
        }
    }
    if (c->fmt == FMT_TEXT) {
        printf("allocations by call site: %s in all (calls into malloc, calloc, realloc, ... "
               "from outside the allocator)\n", fmt_count(a, (double)total));
        table_print(&t, stdout, FMT_TEXT);
    } else if (c->fmt == FMT_TSV)
        table_print(&t, stdout, FMT_TSV);
    else {
        struct jw w;
        jw_init(&w, stdout);
        jw_object_begin(&w);
        jw_ku64(&w, "allocations", total);
        jw_key(&w, "sites");
        json_rows(&w, &t, 0x4);
        jw_end(&w);
        out_json_end(&w, "cg");
    }
    table_free(&t);
    free(s);
    cg_profile_free(p);
    return EXIT_OK;
}

/* ---- diff ---- */

static int cg_diff(struct cg_cli *c)
{
    if (c->nargs != 2)
        return cli_usage_error("cg", cmd_cg_usage, "diff: want BEFORE and AFTER");
    struct cg_profile *pa, *pb;
    int rc = load(c, &pa, c->args, 1, NULL);
    if (rc)
        return rc;
    if ((rc = load(c, &pb, c->args + 1, 1, NULL))) {
        cg_profile_free(pa);
        return rc;
    }
    int ea = cg_graph_event(pa, c->event ? c->event : cg_event_name(pa, 0), c->args[0]);
    int eb = ea < 0 ? -1 : cg_graph_event(pb, cg_event_name(pa, ea), c->args[1]);
    if (ea < 0 || eb < 0) {
        cg_profile_free(pa);
        cg_profile_free(pb);
        return EXIT_USAGE;
    }
    struct cg_diff_row *rows;
    enum cg_diff_by by = c->allocs      ? CG_DIFF_ALLOCS
                         : c->inclusive ? CG_DIFF_INCLUSIVE
                                        : CG_DIFF_SELF;
    struct cg_match m;
    if ((rc = cg_diff_match("cg diff", pa, ea, pb, eb, c->args[0], c->args[1], c->maps,
                            (size_t)c->nmaps, &m))) {
        cg_profile_free(pa);
        cg_profile_free(pb);
        return rc;
    }
    long nrows = cg_profile_diff_keyed(pa, ea, pb, eb, by, m.key_a, m.key_b, &rows);
    cg_match_free(&m);
    if (nrows < 0) {
        cli_error("cg", "out of memory");
        cg_profile_free(pa);
        cg_profile_free(pb);
        return EXIT_USAGE;
    }
    int n = (int)nrows;
    int shown = c->n > 0 && c->n < n ? (int)c->n : n;
    uint64_t ta = c->allocs ? cg_allocations(pa) : cg_total(pa, ea);
    uint64_t tb = c->allocs ? cg_allocations(pb) : cg_total(pb, eb);
    const char *unit = c->allocs ? "allocations" : cg_event_name(pa, ea);
    struct table t;
    char x[40], y[40], z[40];
    bool any_bound = false;
    if (c->fmt == FMT_TEXT) {
        static const char *const h[] = {"before", "after", "delta", "change", "function", "object"};
        table_init(&t, 6, h, 0x30);
    } else {
        static const char *const h[] = {"function", "object", "before", "after", "delta", "pct",
                                        "inclusive_bound"};
        table_init(&t, c->inclusive ? 7 : 6, h, 0x3);
    }
    for (int i = 0; i < shown; i++) {
        const struct cg_diff_row *r = &rows[i];
        int64_t d = (int64_t)(r->b - r->a);
        char change[40];
        bool bound = r->bound_a || r->bound_b;
        any_bound |= bound;
        if (!r->has_a)
            snprintf(change, sizeof change, "new");
        else if (!r->has_b)
            snprintf(change, sizeof change, "gone");
        else if (r->a == 0 || bound)    /* a change between bounds is no figure */
            snprintf(change, sizeof change, "NA");
        else
            snprintf(change, sizeof change, "%+.2f%s", 100.0 * (double)d / (double)r->a,
                     c->fmt == FMT_TEXT ? "%" : "");
        table_row(&t);
        if (c->fmt == FMT_TEXT) {
            table_set(&t, 0, "%s%s", r->bound_a ? "<=" : "",
                      r->has_a ? fmt_count(x, (double)r->a) : "-");
            table_set(&t, 1, "%s%s", r->bound_b ? "<=" : "",
                      r->has_b ? fmt_count(y, (double)r->b) : "-");
            table_set(&t, 2, "%s%s", d > 0 ? "+" : "", fmt_count(z, (double)d));
            table_set(&t, 3, "%s", change);
            table_set(&t, 4, "%s", r->name);
            table_set(&t, 5, "%s", base(r->obj));
        } else {
            table_set(&t, 0, "%s", r->name);
            table_set(&t, 1, "%s", r->obj);
            if (r->has_a) table_set(&t, 2, "%" PRIu64, r->a); else table_set(&t, 2, "NA");
            if (r->has_b) table_set(&t, 3, "%" PRIu64, r->b); else table_set(&t, 3, "NA");
            table_set(&t, 4, "%" PRId64, d);
            table_set(&t, 5, "%s", change);
            if (c->inclusive)
                table_set(&t, 6, "%d", bound ? 1 : 0);
        }
    }
    int64_t td = (int64_t)(tb - ta);
    char tp[40];
    if (ta == 0)
        snprintf(tp, sizeof tp, "NA");
    else
        snprintf(tp, sizeof tp, "%+.2f", 100.0 * (double)td / (double)ta);
    if (c->fmt == FMT_TEXT) {
        printf("total %s: before %s, after %s, change %s%s (%s%s)\n", out_vis(unit),
               fmt_count(x, (double)ta), fmt_count(y, (double)tb), td > 0 ? "+" : "",
               fmt_count(z, (double)td), tp, ta ? "%" : "");
        printf("%s by the size of their change, biggest first\n", c->allocs ? "call sites"
                                                                  : c->inclusive
                                                                      ? "functions (inclusive cost)"
                                                                      : "functions (self cost)");
        table_print(&t, stdout, FMT_TEXT);
        if (any_bound)
            printf("<= an upper bound: see BOUNDS in tare-cg(1)\n");
    } else if (c->fmt == FMT_TSV)
        table_print(&t, stdout, FMT_TSV);
    else {
        struct jw w;
        jw_init(&w, stdout);
        jw_object_begin(&w);
        jw_kstring(&w, "event", unit);
        jw_ku64(&w, "before", ta);
        jw_ku64(&w, "after", tb);
        jw_ki64(&w, "delta", td);
        jw_key(&w, "pct");
        jw_number_text(&w, ta ? tp : NULL);
        jw_key(&w, c->allocs ? "sites" : "functions");
        /* pct is a number except new/gone/NA */
        json_rows(&w, &t, 0x5c);
        jw_end(&w);
        out_json_end(&w, "cg");
    }
    table_free(&t);
    free(rows);
    cg_profile_free(pa);
    cg_profile_free(pb);
    return EXIT_OK;
}

/* ---- lines ---- */

static int by_line(const void *a, const void *b, void *ctx)
{
    const struct cg_profile *line_p = ctx;
    const struct cg_line *x = &line_p->lines[*(const uint32_t *)a],
                         *y = &line_p->lines[*(const uint32_t *)b];
    if (x->func != y->func) {
        int c = strcmp(cg_str(line_p, line_p->funcs[x->func].name),
                       cg_str(line_p, line_p->funcs[y->func].name));
        if (c)
            return c;
        return x->func < y->func ? -1 : 1;
    }
    if (x->file != y->file)
        return strcmp(cg_str(line_p, x->file), cg_str(line_p, y->file));
    return x->line < y->line ? -1 : x->line > y->line;
}

/* The costliest line first (of event ev), then in line order. */
struct line_order {
    const struct cg_profile *p;
    int ev;
};
static int by_line_cost(const void *a, const void *b, void *ctx)
{
    const struct line_order *o = ctx;
    uint64_t x = o->p->line_cost[(size_t)*(const uint32_t *)a * o->p->nev + o->ev],
             y = o->p->line_cost[(size_t)*(const uint32_t *)b * o->p->nev + o->ev];
    if (x != y)
        return x > y ? -1 : 1;
    return by_line(a, b, (void *)o->p);
}

static int cg_lines(struct cg_cli *c)
{
    if (c->nargs < 2)
        return cli_usage_error("cg", cmd_cg_usage, "lines: want NAME and at least one profile");
    struct cg_profile *p;
    int rc = load(c, &p, c->args + 1, c->nargs - 1, c->args[0]);
    if (rc)
        return rc;
    int ev = cg_graph_event(p, c->event, c->args[1]);
    if (ev < 0) {
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    bool any = false;
    for (uint32_t f = 0; f < p->nfunc; f++)
        any |= p->funcs[f].want_lines;
    if (!any) {
        cli_error("cg", "no function whose name contains '%s'", c->args[0]);
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    uint32_t *idx = malloc((p->nline + 1) * sizeof *idx), n = 0;
    if (!idx) {
        cli_error("cg", "out of memory");
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    for (uint32_t i = 0; i < p->nline; i++)
        if (p->line_cost[(size_t)i * p->nev + ev])
            idx[n++] = i;
    /* the n costliest lines (-n), in line order with --by-line */
    struct line_order order = {p, ev};
    qsort_r(idx, n, sizeof *idx, by_line_cost, &order);
    uint32_t shown = c->n > 0 && (uint32_t)c->n < n ? (uint32_t)c->n : n;
    uint64_t rest = 0;
    for (uint32_t i = shown; i < n; i++)
        rest += p->line_cost[(size_t)idx[i] * p->nev + ev];
    if (c->by_line)
        qsort_r(idx, shown, sizeof *idx, by_line, p);
    struct table t;
    char a[40], b[40];
    if (c->fmt == FMT_TEXT) {
        static const char *const h[] = {"self", "%", "file:line", "function"};
        table_init(&t, 4, h, 0xc);
    } else {
        static const char *const h[] = {"function", "file", "line", "self"};
        table_init(&t, 4, h, 0x3);
    }
    for (uint32_t i = 0; i < shown; i++) {
        const struct cg_line *l = &p->lines[idx[i]];
        uint64_t v = p->line_cost[(size_t)idx[i] * p->nev + ev];
        table_row(&t);
        if (c->fmt == FMT_TEXT) {
            table_set(&t, 0, "%s", fmt_count(a, (double)v));
            pct(b, sizeof b, v, cg_self(p, l->func)[ev]);
            table_set(&t, 1, "%s", b);
            table_set(&t, 2, "%s:%" PRIu32, cg_str(p, l->file), l->line);
            table_set(&t, 3, "%s", cg_str(p, p->funcs[l->func].name));
        } else {
            table_set(&t, 0, "%s", cg_str(p, p->funcs[l->func].name));
            table_set(&t, 1, "%s", cg_str(p, l->file));
            table_set(&t, 2, "%" PRIu32, l->line);
            table_set(&t, 3, "%" PRIu64, v);
        }
    }
    if (c->fmt == FMT_TEXT) {
        print_header(p, ev, c->by_line ? "self cost by source line, in line order (% of the "
                                         "function's self cost)"
                                       : "self cost by source line, costliest first (% of the "
                                         "function's self cost)");
        table_print(&t, stdout, FMT_TEXT);
        if (shown < n)
            printf("%s more line%s with %s %s (-n 0 shows them)\n",
                   fmt_count(b, (double)(n - shown)), n - shown == 1 ? "" : "s",
                   fmt_count(a, (double)rest),
                   out_vis(cg_event_name(p, ev)));
    } else if (c->fmt == FMT_TSV)
        table_print(&t, stdout, FMT_TSV);
    else {
        struct jw w;
        jw_init(&w, stdout);
        jw_object_begin(&w);
        jw_kstring(&w, "event", cg_event_name(p, ev));
        jw_key(&w, "lines");
        json_rows(&w, &t, 0xc);
        jw_end(&w);
        out_json_end(&w, "cg");
    }
    table_free(&t);
    free(idx);
    cg_profile_free(p);
    return EXIT_OK;
}

/* ---- info ---- */

static int cg_info(struct cg_cli *c)
{
    if (c->nargs < 1)
        return cli_usage_error("cg", cmd_cg_usage, "info: no profile given");
    if (c->fmt == FMT_TSV)
        return cli_usage_error("cg", cmd_cg_usage, "info: --format is text or json");
    struct cg_profile *p;
    int rc = load(c, &p, c->args, c->nargs, NULL);
    if (rc)
        return rc;
    char a[40];
    if (c->fmt == FMT_JSON) {
        struct jw w;
        jw_init(&w, stdout);
        jw_object_begin(&w);
        jw_kstring(&w, "command", p->command);
        jw_karray(&w, "events");
        for (int i = 0; i < p->nev; i++)
            jw_string(&w, cg_event_name(p, i));
        jw_end(&w);
        jw_kobject(&w, "totals");
        for (int i = 0; i < p->nev; i++)
            jw_ku64(&w, cg_event_name(p, i), cg_total(p, i));
        jw_end(&w);
        jw_ki64(&w, "parts", p->nparts);
        if (p->threads)     /* none named: the profile did not tell threads apart */
            jw_ki64(&w, "threads", p->threads);
        else
            jw_knull(&w, "threads");
        jw_ki64(&w, "files", p->nfiles);
        jw_ku64(&w, "functions", p->nfunc - p->folded);
        jw_ku64(&w, "stubs_folded", p->folded);
        jw_ku64(&w, "inclusive_bounds", p->bounded);
        jw_ku64(&w, "allocations", cg_allocations(p));
        jw_end(&w);
        out_json_end(&w, "cg");
    } else {
        printf("command:     %s\n", p->command ? out_vis(p->command) : "(none given)");
        printf("files:       %d\nparts:       %d\n", p->nfiles, p->nparts);
        if (p->threads)
            printf("threads:     %d\n", p->threads);
        else
            printf("threads:     not told apart (profiled without --separate-threads=yes)\n");
        printf("functions:   %" PRIu32 " (and %" PRIu32 " PLT stub%s folded into them)\n",
               p->nfunc - p->folded, p->folded, p->folded == 1 ? "" : "s");
        if (p->bounded)
            printf("bounds:      %" PRIu32 " inclusive cost%s only an upper bound (see BOUNDS in "
                   "tare-cg(1))\n", p->bounded, p->bounded == 1 ? " is" : "s are");
        printf("events:     ");
        for (int i = 0; i < p->nev; i++)
            printf(" %s", out_vis(cg_event_name(p, i)));
        printf("\ntotals:\n");
        for (int i = 0; i < p->nev; i++)
            printf("  %-10s %s\n", out_vis(cg_event_name(p, i)),
                   fmt_count(a, (double)cg_total(p, i)));
        printf("allocations: %s\n", fmt_count(a, (double)cg_allocations(p)));
    }
    cg_profile_free(p);
    return EXIT_OK;
}

static int cg_callers(struct cg_cli *c)
{
    return cg_calls(c, true);
}

static int cg_callees(struct cg_cli *c)
{
    return cg_calls(c, false);
}

/* The subcommands: adding one is a function, a usage line above (and in cmd_cg_usage), a line
 * here, and its part of doc/tare-cg.1. */
static const struct cg_sub {
    const char *name;
    int (*run)(struct cg_cli *c);
    const char *usage;
} cg_subs[] = {
    {"top", cg_top, CG_USAGE_TOP},
    {"callers", cg_callers, CG_USAGE_CALLERS},
    {"callees", cg_callees, CG_USAGE_CALLEES},
    {"diff", cg_diff, CG_USAGE_DIFF},
    {"allocs", cg_allocs, CG_USAGE_ALLOCS},
    {"lines", cg_lines, CG_USAGE_LINES},
    {"info", cg_info, CG_USAGE_INFO},
};

int cmd_cg(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"event", required_argument, NULL, 'e'},
        {"inclusive", no_argument, NULL, 'I'},
        {"grep", required_argument, NULL, 'g'},
        {"allocs", no_argument, NULL, 'A'},
        {"exact", no_argument, NULL, 'x'},
        {"map-object", required_argument, NULL, 'M'},
        {"by-line", no_argument, NULL, 'L'},
        {"jobs", required_argument, NULL, 'j'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    struct cg_cli c = {.n = 20, .fmt = FMT_TEXT};
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        cli_print_usage(stdout, cmd_cg_usage);
        fputs(cg_options, stdout);
        return EXIT_OK;
    }
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2)
            return cli_usage_error("cg", cmd_cg_usage, "unknown option '%s'", argv[1]);
        return cli_usage_error("cg", cmd_cg_usage, "no subcommand given");
    }
    c.sub = argv[1];
    if (strcmp(c.sub, "folded") == 0)     /* pictures of a profile: cg_graph.c, own options */
        return cg_folded_main(argc - 1, argv + 1);
    if (strcmp(c.sub, "dot") == 0)
        return cg_dot_main(argc - 1, argv + 1);
    if (strcmp(c.sub, "page") == 0)
        return cg_page_main(argc - 1, argv + 1);
    const struct cg_sub *sub = NULL;
    for (size_t i = 0; i < sizeof cg_subs / sizeof cg_subs[0]; i++)
        if (strcmp(c.sub, cg_subs[i].name) == 0)
            sub = &cg_subs[i];
    if (!sub)
        return cli_usage_error("cg", cmd_cg_usage, "unknown subcommand '%s'", c.sub);
    argc--, argv++;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":n:e:j:f:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'n':
            if (!cli_parse_count("cg", cmd_cg_usage, "-n", optarg, 0, 1000000000, &c.n))
                return EXIT_USAGE;
            break;
        case 'e': c.event = optarg; break;
        case 'I': c.inclusive = true; break;
        case 'g': c.grep = optarg; break;
        case 'A': c.allocs = true; break;
        case 'x': c.exact = true; break;
        case 'L': c.by_line = true; break;
        case 'M': {
            struct err e;
            if (c.nmaps == (int)(sizeof c.maps / sizeof c.maps[0]))
                return cli_usage_error("cg", cmd_cg_usage, "more than %d --map-object", c.nmaps);
            if (cg_obj_map_parse(optarg, &c.maps[c.nmaps++], &e) < 0)
                return cli_usage_error("cg", cmd_cg_usage, "%s", e.msg);
            break;
        }
        case 'j':
            if (!cli_parse_count("cg", cmd_cg_usage, "--jobs", optarg, 1, 8, &c.jobs))
                return EXIT_USAGE;
            break;
        case 'f':
            if (!cli_parse_format("cg", cmd_cg_usage, optarg,
                                  strcmp(c.sub, "info") == 0 ? FMT_TEXT | FMT_JSON
                                                             : FMT_TEXT | FMT_TSV | FMT_JSON,
                                  &c.fmt))
                return EXIT_USAGE;
            break;
        case 'h':
            cli_print_usage(stdout, cmd_cg_usage);
            fputs(cg_options, stdout);
            return EXIT_OK;
        case ':':
            return cli_usage_error("cg", cmd_cg_usage, "option '%s' needs a value",
                                   argv[optind - 1]);
        default:
            return cli_usage_error("cg", cmd_cg_usage, "unknown option '%s'", argv[optind - 1]);
        }
    }
    c.args = argv + optind;
    c.nargs = argc - optind;
    if (c.grep && strcmp(c.sub, "top") != 0)
        return cli_usage_error("cg", cmd_cg_usage, "--grep is for 'top'");
    if (c.inclusive && strcmp(c.sub, "top") != 0 && strcmp(c.sub, "diff") != 0)
        return cli_usage_error("cg", cmd_cg_usage, "--inclusive is for 'top' and 'diff'");
    if (c.allocs && strcmp(c.sub, "diff") != 0)
        return cli_usage_error("cg", cmd_cg_usage, "--allocs is for 'diff'");
    if (c.allocs && c.inclusive)
        return cli_usage_error("cg", cmd_cg_usage, "diff: --allocs or --inclusive, not both");
    if (c.nmaps && strcmp(c.sub, "diff") != 0)
        return cli_usage_error("cg", cmd_cg_usage, "--map-object is for 'diff'");
    if (c.by_line && strcmp(c.sub, "lines") != 0)
        return cli_usage_error("cg", cmd_cg_usage, "--by-line is for 'lines'");
    if (c.exact && strcmp(c.sub, "callers") != 0 && strcmp(c.sub, "callees") != 0)
        return cli_usage_error("cg", cmd_cg_usage, "--exact is for 'callers' and 'callees'");
    return sub->run(&c);
}
