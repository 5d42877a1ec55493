/* cg_graph.c: `tare cg folded` (Brendan Gregg's folded stacks, from the frame tree of
 * core/profile/flame.c) and `tare cg dot` (a Graphviz call graph pruned as gprof2dot prunes). */
#define _GNU_SOURCE
#include "cli/cg_graph.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/out.h"
#include "core/util/esc.h"
#include "core/profile/flame.h"

int cg_graph_read(char **files, int n, const struct cg_read_opts *o, struct cg_profile **out)
{
    struct err e = {0};
    struct cg_profile *p = cg_profile_new();
    if (!p) {
        cli_error("cg", "out of memory");
        return EXIT_USAGE;
    }
    for (int i = 0; i < n; i++)
        if (cg_read_file(p, files[i], o, &e) < 0) {
            cg_profile_free(p);
            return cli_fail("cg", &e);
        }
    if (cg_profile_finish(p, &e) < 0) {
        cg_profile_free(p);
        return cli_fail("cg", &e);
    }
    *out = p;
    return EXIT_OK;
}

int cg_graph_load(char **files, int n, const char *lines_for, struct cg_profile **out)
{
    struct cg_read_opts o = {.lines_for = lines_for};
    return cg_graph_read(files, n, &o, out);
}

int cg_graph_contexts(char **files, int n, const struct cg_profile *p, struct cg_profile **ctx)
{
    *ctx = NULL;
    struct cg_read_opts o = {.keep_callers = true};
    return p->contexts ? cg_graph_read(files, n, &o, ctx) : EXIT_OK;
}

int cg_graph_event(const struct cg_profile *p, const char *name, const char *file)
{
    if (!name) {
        if (p->nev == 0)
            cli_error("cg", "'%s' has no events", file);
        return p->nev > 0 ? 0 : -1;
    }
    int ev = cg_event_index(p, name);
    if (ev < 0) {
        char list[512] = "";
        for (int i = 0; i < p->nev; i++) {
            if (strlen(list) + strlen(cg_event_name(p, i)) + 3 > sizeof list)
                break;
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", cg_event_name(p, i));
        }
        cli_error("cg", "no event '%s' in '%s' (it has: %s)", name, file, list);
    }
    return ev;
}

bool cg_graph_percent(const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= 0 && v <= 100)) {
        cli_usage_error("cg", cmd_cg_usage, "%s wants a percentage from 0 to 100, not '%s'", opt,
                        arg);
        return false;
    }
    *out = v;
    return true;
}

enum { OPT_EVENT = 0x100, OPT_THRESHOLD, OPT_NODE, OPT_EDGE, OPT_HELP };

/* The options folded and dot share; false: the error is printed, *rc its status. */
struct graph_cli {
    const char *sub, *event;
    double threshold, node, edge;
    char **files;
    int nfiles;
};

static bool parse(int argc, char **argv, struct graph_cli *c, int *rc)
{
    static const struct option longopts[] = {
        {"event", required_argument, NULL, OPT_EVENT},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"node-threshold", required_argument, NULL, OPT_NODE},
        {"edge-threshold", required_argument, NULL, OPT_EDGE},
        {"help", no_argument, NULL, OPT_HELP},
        {0},
    };
    bool dot = strcmp(c->sub, "dot") == 0;
    optind = 1;
    opterr = 0;
    int ch;
    *rc = EXIT_USAGE;
    while ((ch = getopt_long(argc, argv, ":e:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'e':
        case OPT_EVENT: c->event = optarg; break;
        case OPT_THRESHOLD:
            if (dot)
                return cli_usage_error("cg", cmd_cg_usage, "dot: --node-threshold and "
                                       "--edge-threshold, not --threshold"), false;
            if (!cg_graph_percent("--threshold", optarg, &c->threshold))
                return false;
            break;
        case OPT_NODE:
        case OPT_EDGE:
            if (!dot)
                return cli_usage_error("cg", cmd_cg_usage, "%s is for 'dot'",
                                       argv[optind - 1]), false;
            if (!cg_graph_percent(ch == OPT_NODE ? "--node-threshold" : "--edge-threshold",
                                  optarg, ch == OPT_NODE ? &c->node : &c->edge))
                return false;
            break;
        case 'h':
        case OPT_HELP:
            cli_print_usage(stdout, cmd_cg_usage);
            *rc = EXIT_OK;
            return false;
        case ':':
            return cli_usage_error("cg", cmd_cg_usage, "option '%s' needs a value",
                                   argv[optind - 1]), false;
        default:
            return cli_usage_error("cg", cmd_cg_usage, "unknown option '%s'",
                                   argv[optind - 1]), false;
        }
    }
    c->files = argv + optind;
    c->nfiles = argc - optind;
    if (c->nfiles < 1)
        return cli_usage_error("cg", cmd_cg_usage, "%s: no profile given", c->sub), false;
    return true;
}

/* ---- folded ---- */

/* The folded line of each frame is its parent's and its own name: the names of the path so
 * far, kept in one buffer (buf[0 .. end[d]) to depth d), so that a line is one write, not a
 * write per name (the writing took 23% of folded's instructions on the cc1 profile). */
struct folded_line {
    char *buf;
    size_t *end;        /* per depth */
};

/* Puts frame name s at depth d (after the path's names to d - 1); ';' separates frames in a
 * line, so one in a name is written ':'. */
static void folded_name(struct folded_line *ln, uint32_t d, const char *s)
{
    size_t at = d > 1 ? ln->end[d - 1] + 1 : 0, len = strlen(s);
    if (d > 1)
        ln->buf[at - 1] = ';';
    char *o = ln->buf + at;
    memcpy(o, s, len);
    for (char *semi = memchr(o, ';', len); semi; semi = memchr(semi + 1, ';', o + len - semi - 1))
        *semi = ':';
    ln->end[d] = at + len;
}

/* Writes the line of the names to depth d and its value. */
static void folded_put(struct folded_line *ln, uint32_t d, uint64_t v)
{
    char *o = ln->buf + ln->end[d], num[24];
    int n = 0;
    do
        num[n++] = (char)('0' + v % 10);
    while ((v /= 10));
    *o++ = ' ';
    while (n)
        *o++ = num[--n];
    *o++ = '\n';
    fwrite(ln->buf, 1, (size_t)(o - ln->buf), stdout);
}

static const char *frame_name(const struct cg_profile *p, const struct cg_flame *fl, uint32_t i)
{
    uint32_t f = fl->frames[i].func;
    if (f == CG_FRAME_OTHER)
        return "[other]";
    if (f == CG_FRAME_ROOT)
        return "[unreached]";
    return cg_str(p, p->funcs[f].name);
}

int cg_folded_main(int argc, char **argv)
{
    /* 0.001%: on the 27 MB cc1 profile of bench/, 70,384 lines (48 MB) in about a second;
     * every frame (0) is more than 4,000,000 */
    struct graph_cli c = {.sub = "folded", .threshold = 0.001};
    int rc;
    if (!parse(argc, argv, &c, &rc))
        return rc;
    struct cg_profile *p;
    if ((rc = cg_graph_load(c.files, c.nfiles, NULL, &p)))
        return rc;
    int ev = cg_graph_event(p, c.event, c.files[0]);
    if (ev < 0) {
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    struct cg_flame fl;
    struct err e = {0};
    struct cg_profile *ctx;
    if ((rc = cg_graph_contexts(c.files, c.nfiles, p, &ctx))) {
        cg_profile_free(p);
        return rc;
    }
    struct cg_flame_opts o = {.min_frac = c.threshold / 100, .ctx = ctx};
    int built = cg_flame_build(p, &o, &fl, &e);
    if (ctx)
        cg_profile_free(ctx);
    if (built < 0) {
        cg_profile_free(p);
        return cli_fail("cg", &e);
    }
    uint64_t *self = malloc(((size_t)fl.n + 1) * sizeof *self);
    uint32_t *path = malloc(((size_t)fl.n + 1) * sizeof *path);
    if (!self || !path) {
        free(self);
        free(path);
        cg_flame_free(&fl);
        cg_profile_free(p);
        cli_error("cg", "out of memory");
        return EXIT_USAGE;
    }
    cg_flame_self(&fl, ev, self);
    /* self cost that is an estimate, and in all: a frame's self is its value less its
     * children's, exact only where they all are (path: scratch, a frame's estimate mark) */
    uint64_t guessed = 0, all = 0;
    for (uint32_t i = 0; i < fl.n; i++)
        path[i] = !fl.frames[i].exact;
    for (uint32_t i = 1; i < fl.n; i++)
        path[fl.frames[i].parent] |= !fl.frames[i].exact;
    for (uint32_t i = 0; i < fl.n; i++) {
        all += self[i];
        guessed += path[i] ? self[i] : 0;
    }
    if (fl.context_depth)
        fprintf(stderr, "tare cg folded: stacks from --separate-callers=%" PRIu32
                " contexts: %.2f%% of the cost exact, %.2f%% an estimate (tare-cg(1) STACKS)\n",
                fl.context_depth, all ? 100.0 * (double)(all - guessed) / (double)all : 100.0,
                all ? 100.0 * (double)guessed / (double)all : 0.0);
    if (fl.checked && (fl.self_est || fl.incl_est)) {
        uint32_t nf = 0, bounds = 0;
        for (uint32_t f = 0; f < p->nfunc; f++) {
            nf += !p->funcs[f].folded;
            bounds += !p->funcs[f].folded && p->funcs[f].incl_bound;
        }
        /* (cut: the functions whose sums are off by more than the merged frames hide) */
        const char *least = fl.cut ? "at least " : "";
        fprintf(stderr, "tare cg folded: of %" PRIu32 " functions, ", nf);
        if (fl.self_est)
            fprintf(stderr, "the frames of %s%" PRIu32 " do not hold their self cost%s", least,
                    fl.self_est, fl.incl_est ? ", and " : "");
        if (fl.incl_est)
            fprintf(stderr, "the outermost frames of %s%" PRIu32 " only an estimate of their "
                    "inclusive cost (%" PRIu32 " of those costs only bounds in the profile",
                    least, fl.incl_est, bounds);
        fprintf(stderr, "%s%stare-cg(1) STACKS)\n", fl.incl_est ? "; " : " (",
                fl.cut ? "--threshold 0 checks every function; " : "");
    }
    /* the longest line first (one buffer, no failure halfway through the output) */
    struct folded_line ln = {.end = malloc(((size_t)fl.n + 1) * sizeof *ln.end)};
    size_t longest = 0;
    for (uint32_t i = 1; ln.end && i < fl.n; i++) {
        uint32_t d = fl.frames[i].depth;
        ln.end[d] = (d > 1 ? ln.end[d - 1] + 1 : 0) + strlen(frame_name(p, &fl, i));
        longest = ln.end[d] > longest ? ln.end[d] : longest;
    }
    bool ok = ln.end && (ln.buf = malloc(longest + 24));
    if (ok && self[0])     /* cost no root's calls hold */
        printf("[unreached] %" PRIu64 "\n", self[0]);
    for (uint32_t i = 1; ok && i < fl.n; i++) {
        uint32_t d = fl.frames[i].depth;
        folded_name(&ln, d, frame_name(p, &fl, i));
        if (self[i])
            folded_put(&ln, d, self[i]);
    }
    free(ln.end);
    free(ln.buf);
    free(self);
    free(path);
    if (!ok) {
        cg_flame_free(&fl);
        cg_profile_free(p);
        cli_error("cg", "out of memory");
        return EXIT_USAGE;
    }
    cg_flame_free(&fl);
    cg_profile_free(p);
    return EXIT_OK;
}

/* ---- dot ---- */

/* A name inside a DOT double-quoted string: quote and backslash escaped, control characters
 * and bytes that are not UTF-8 visibly as everywhere (esc.h: \x1b, its backslash escaped),
 * long names cut (Graphviz lays out every character). */
static void put_dot_name(FILE *f, const char *s)
{
    size_t shown = 0;
    while (*s) {
        if (shown == 80) {
            fputs("...", f);
            return;
        }
        uint32_t cp;
        int n = esc_utf8(s, &cp);
        if (n == 0 || esc_is_control(cp)) {
            char vis[8];
            if (n == 0)
                esc_visible_byte(vis, (unsigned char)*s);
            else
                esc_visible_code(vis, cp);
            fprintf(f, "\\%s", vis + 1);
            s += n == 0 ? 1 : n;
        } else {
            if (*s == '"' || *s == '\\')
                fputc('\\', f);
            fwrite(s, 1, (size_t)n, f);
            s += n;
        }
        shown++;
    }
}

/* gprof2dot's colours: from blue (cold) through green and yellow to red (hot), by the
 * share of the total. */
static void dot_colour(char *buf, size_t n, double frac)
{
    double h = (1.0 - (frac < 0 ? 0 : frac > 1 ? 1 : frac)) * 0.66;
    snprintf(buf, n, "%.3f 0.45 1.0", h);
}

static void pct_of(char *buf, size_t n, uint64_t part, uint64_t total)
{
    snprintf(buf, n, "%.2f%%", total ? 100.0 * (double)part / (double)total : 0.0);
}

/* The edges between kept nodes (at or above edge_min), each call as `tare cg callers` counts
 * it (core cg_call_rows): the calls that add up to the callee's inclusive cost solid; the
 * calls inside them -- into its recursion levels, a function calling itself (a loop), within
 * a cycle the profile cannot break -- dashed and named, so that a recursive eval loop is not
 * drawn as a leaf. Returns how many. */
static uint32_t dot_edges(const struct cg_profile *p, int ev, const bool *keep, double edge_min)
{
    static const char *const kind_name[] = {"", "recursive", "cycle", "nested"};
    uint64_t total = cg_total(p, ev);
    uint32_t edges = 0;
    char a[40], b[40], col[40];
    for (uint32_t x = 0; x < p->nedge; x++) {
        const struct cg_edge *ed = &p->edges[x];
        if (!keep[ed->caller] || !keep[ed->callee])
            continue;
        struct cg_call_row rows[2];
        uint32_t nr = cg_call_rows(p, &x, 1, true, rows);
        for (uint32_t k = 0; k < nr; k++) {
            uint64_t cost = cg_call_row_cost(p, &rows[k], true, ev);
            if ((double)cost < edge_min || (cost == 0 && rows[k].calls == 0))
                continue;
            edges++;
            bool outer = rows[k].kind == CG_ROW_OUTER;
            pct_of(a, sizeof a, cost, total);
            dot_colour(col, sizeof col, total ? (double)cost / (double)total : 0);
            printf("  f%" PRIu32 " -> f%" PRIu32
                   " [label=\"%s\\n%s\u00d7%s%s\", color=\"%s\"%s];\n",
                   ed->caller, ed->callee, a, fmt_count(b, (double)rows[k].calls),
                   outer ? "" : "\\n", kind_name[rows[k].kind], col,
                   outer ? "" : ", style=dashed");
        }
    }
    return edges;
}

int cg_dot_main(int argc, char **argv)
{
    struct graph_cli c = {.sub = "dot", .node = 0.5, .edge = 0.1};
    int rc;
    if (!parse(argc, argv, &c, &rc))
        return rc;
    struct cg_profile *p;
    if ((rc = cg_graph_load(c.files, c.nfiles, NULL, &p)))
        return rc;
    int ev = cg_graph_event(p, c.event, c.files[0]);
    if (ev < 0) {
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    uint64_t total = cg_total(p, ev);
    bool *keep = calloc((size_t)p->nfunc + 1, sizeof *keep);
    if (!keep) {
        cg_profile_free(p);
        cli_error("cg", "out of memory");
        return EXIT_USAGE;
    }
    double node_min = c.node / 100 * (double)total, edge_min = c.edge / 100 * (double)total;
    char a[40], b[40], col[40];
    printf("digraph \"callgraph\" {\n");
    printf("  graph [fontname=\"sans\", label=\"");
    put_dot_name(stdout, p->command ? p->command : "profile");
    printf("\\n%s %s; nodes under %.2f%%, edges under %.2f%% not shown\", labelloc=t];\n",
           cg_event_name(p, ev), fmt_count(a, (double)total), c.node, c.edge);
    printf("  node [fontname=\"sans\", shape=box, style=filled];\n");
    printf("  edge [fontname=\"sans\"];\n");
    uint32_t nodes = 0, edges = 0;
    for (uint32_t f = 0; f < p->nfunc; f++) {
        uint64_t in = cg_incl(p, f)[ev], s = cg_self(p, f)[ev];
        if (p->funcs[f].folded || (in == 0 && s == 0) || (double)in < node_min)
            continue;
        keep[f] = true;
        nodes++;
        pct_of(a, sizeof a, in, total);
        pct_of(b, sizeof b, s, total);
        dot_colour(col, sizeof col, total ? (double)in / (double)total : 0);
        printf("  f%" PRIu32 " [label=\"", f);
        put_dot_name(stdout, cg_str(p, p->funcs[f].name));
        printf("\\n%s%s\\n(%s)\", fillcolor=\"%s\", tooltip=\"", p->funcs[f].incl_bound ? "<=" : "",
               a, b, col);
        put_dot_name(stdout, cg_str(p, p->funcs[f].obj));
        printf("\"];\n");
    }
    edges = dot_edges(p, ev, keep, edge_min);
    printf("}\n");
    free(keep);
    cg_profile_free(p);
    (void)nodes, (void)edges;
    return EXIT_OK;
}
