/* cg_page.c: `tare cg page`: one self-contained HTML file (no external script, style or font;
 * a content security policy that forbids fetching) with a flame graph of the frame tree
 * (core/flame.c), a function view with callers and callees, and the top table. The script
 * and style are cg_page.js and cg_page.css, put into tare at build time (.incbin); the data
 * is one JSON block, every name in it escaped so that it reaches the page only as text. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cg_graph.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/flame.h"
#include "core/json.h"
#include "core/xml.h"

/* the page's script and style, NUL-terminated */
__asm__(".section .rodata\n"
        ".global cg_page_js_text\n"
        "cg_page_js_text:\n"
        ".incbin \"src/cli/cg_page.js\"\n"
        ".byte 0\n"
        ".global cg_page_css_text\n"
        "cg_page_css_text:\n"
        ".incbin \"src/cli/cg_page.css\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char cg_page_js_text[], cg_page_css_text[];

static const char page_body[] =
    "<header>\n<h1 id=\"title\"></h1>\n"
    "<div class=\"group\" id=\"events\"><span class=\"lab\">event</span></div>\n"
    "<input type=\"search\" id=\"search\" placeholder=\"search frames\" aria-label=\"search "
    "frames\">\n<span id=\"matched\"></span>\n<button id=\"reset\">reset zoom</button>\n"
    "<span id=\"summary\"></span>\n</header>\n<main>\n"
    "<div class=\"muted\" id=\"command\"></div>\n<p id=\"note\"></p>\n<div id=\"flame\"></div>\n"
    "<div id=\"panes\">\n<section><h2>functions</h2>\n<input type=\"search\" id=\"topfilter\" "
    "placeholder=\"filter functions\" aria-label=\"filter functions\">\n<div id=\"top\"></div>"
    "</section>\n<section id=\"func\"><h2>function</h2><p class=\"muted\">click a frame or a "
    "function</p></section>\n</div>\n</main>\n<div id=\"tip\"></div>\n";

/* A JSON string safe inside <script> ('<', '>' and '&' as \u escapes: no "</script>" or
 * "<!--"), by the one JSON writer's rule (core/json.h). */
static void js_str(FILE *f, const char *s)
{
    jw_write_string(f, s, true);
}

/* The same text for the HTML <title> (XML's escapes are HTML's). */
static void html_text(FILE *f, const char *s)
{
    xw_write_escaped(f, s);
}

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static void costs(FILE *f, const uint64_t *v, int nev)
{
    fputc('[', f);
    for (int k = 0; k < nev; k++)
        fprintf(f, "%s%" PRIu64, k ? "," : "", v[k]);
    fputc(']', f);
}

static const struct cg_profile *sort_p;

static int by_incl(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t cx = cg_incl(sort_p, x)[0], cy = cg_incl(sort_p, y)[0];
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int write_lines(FILE *f, const struct cg_profile *p, const uint32_t *id, uint32_t n,
                       const char *root);

/* BEFORE's functions by (name, object file name), for --diff: two builds in two work trees
 * compare, as in `tare cg diff`. */
static const struct cg_profile *key_p;

static int by_key(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(cg_str(key_p, key_p->funcs[x].name), cg_str(key_p, key_p->funcs[y].name));
    return c ? c : strcmp(base(cg_str(key_p, key_p->funcs[x].obj)),
                          base(cg_str(key_p, key_p->funcs[y].obj)));
}

struct side {
    const struct cg_profile *p;
    uint32_t *sorted, n;   /* its live functions, by key */
};

/* The function of b named as function g of a, or UINT32_MAX. */
static uint32_t side_find(const struct side *b, const struct cg_profile *a, uint32_t g)
{
    const char *name = cg_str(a, a->funcs[g].name), *obj = base(cg_str(a, a->funcs[g].obj));
    uint32_t lo = 0, hi = b->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2, f = b->sorted[mid];
        int c = strcmp(cg_str(b->p, b->p->funcs[f].name), name);
        if (!c)
            c = strcmp(base(cg_str(b->p, b->p->funcs[f].obj)), obj);
        if (!c)
            return f;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

static bool side_init(struct side *b, const struct cg_profile *p)
{
    b->p = p;
    b->n = 0;
    b->sorted = malloc(((size_t)p->nfunc + 1) * sizeof *b->sorted);
    if (!b->sorted)
        return false;
    for (uint32_t f = 0; f < p->nfunc; f++)
        if (!p->funcs[f].folded)
            b->sorted[b->n++] = f;
    key_p = p;
    qsort(b->sorted, b->n, sizeof *b->sorted, by_key);
    return true;
}

/* True where function g of p is worth a row: its inclusive cost at or above the threshold
 * in some event; *any: it has some cost at all. */
static bool big_func(const struct cg_profile *p, uint32_t g, double threshold, bool *any)
{
    bool big = false;
    *any = false;
    for (int k = 0; k < p->nev; k++) {
        uint64_t in = cg_incl(p, g)[k], s = cg_self(p, g)[k];
        *any |= in || s;
        big |= in && (double)in >= threshold / 100 * (double)cg_total(p, k);
    }
    return big;
}

/* The name of frame i of fl (a function of p; "" for the root and other frames). */
static const char *frame_key(const struct cg_profile *p, const struct cg_flame *fl, uint32_t i)
{
    uint32_t g = fl->frames[i].func;
    return g >= CG_FRAME_OTHER ? "" : cg_str(p, p->funcs[g].name);
}

/* match[i]: for each frame of fl (of p), the frame of bfl (of before) on the same path of
 * function names, or -1. Children of a frame are few: each is looked for among its matched
 * parent's children. Returns 0, -1 out of memory. */
static int match_paths(const struct cg_profile *p, const struct cg_flame *fl,
                       const struct cg_profile *before, const struct cg_flame *bfl, long *match)
{
    uint32_t *first = malloc(((size_t)bfl->n + 1) * sizeof *first);   /* first child */
    uint32_t *next = malloc(((size_t)bfl->n + 1) * sizeof *next);     /* next sibling */
    if (!first || !next) {
        free(first), free(next);
        return -1;
    }
    for (uint32_t i = 0; i < bfl->n; i++)
        first[i] = next[i] = UINT32_MAX;
    for (uint32_t i = bfl->n; i-- > 1;) {   /* children in their order */
        uint32_t up = bfl->frames[i].parent;
        next[i] = first[up];
        first[up] = i;
    }
    match[0] = 0;
    for (uint32_t i = 1; i < fl->n; i++) {
        long up = match[fl->frames[i].parent];
        match[i] = -1;
        if (up < 0 || fl->frames[i].func == CG_FRAME_OTHER)
            continue;
        const char *name = frame_key(p, fl, i);
        for (uint32_t j = first[up]; j != UINT32_MAX; j = next[j])
            if (bfl->frames[j].func < CG_FRAME_OTHER &&
                strcmp(frame_key(before, bfl, j), name) == 0) {
                match[i] = j;
                break;
            }
    }
    free(first), free(next);
    return 0;
}

/* "pb": for each frame of AFTER, the self cost of the frame of BEFORE on the same path of
 * function names (per event; -1 where BEFORE has no such path), so that the page colours a
 * path by its own change, not by its function's change over all paths. BEFORE's frames are
 * drawn at AFTER's threshold (bfl: where nothing changed, the same frames, rounded alike),
 * and at a tenth of it (fine: a path of AFTER that BEFORE merged into "other" was that much
 * smaller). */
static int write_path_before(FILE *f, const struct cg_profile *p, const struct cg_flame *fl,
                             const struct cg_profile *before, const struct cg_flame *bfl,
                             const struct cg_flame *fine)
{
    int nev = p->nev;
    long *match = malloc(((size_t)fl->n + 1) * sizeof *match);
    long *match2 = malloc(((size_t)fl->n + 1) * sizeof *match2);
    uint64_t *self = malloc(((size_t)bfl->n + 1) * sizeof *self);
    uint64_t *self2 = malloc(((size_t)fine->n + 1) * sizeof *self2);
    if (!match || !match2 || !self || !self2 ||
        match_paths(p, fl, before, bfl, match) < 0 ||
        match_paths(p, fl, before, fine, match2) < 0) {
        free(match), free(match2), free(self), free(self2);
        return -1;
    }
    fputs(",\n\"pb\":[", f);
    for (int k = 0; k < nev; k++) {
        cg_flame_self(bfl, k, self);
        cg_flame_self(fine, k, self2);
        fputs(k ? "],\n[" : "[", f);
        for (uint32_t i = 0; i < fl->n; i++) {
            if (match[i] >= 0)
                fprintf(f, "%s%" PRIu64, i ? "," : "", self[match[i]]);
            else if (match2[i] >= 0)
                fprintf(f, "%s%" PRIu64, i ? "," : "", self2[match2[i]]);
            else
                fprintf(f, "%s-1", i ? "," : "");
        }
    }
    fputs("]]", f);
    free(match), free(match2), free(self), free(self2);
    return 0;
}

/* The data: functions at or above the threshold (inclusive, any event) or in a frame, the
 * calls between them, the frames. Returns 0, or -1 out of memory. */
static int write_data(FILE *f, const struct cg_profile *p, const struct cg_flame *fl,
                      double threshold, const char *title, const struct cg_profile *before,
                      const struct cg_flame *bfl, const struct cg_flame *bfine,
                      const char *root)
{
    int nev = p->nev;
    struct side bs = {0}, as = {0};
    uint32_t *gone = NULL, ngone = 0;
    if (before) {
        if (!side_init(&bs, before) || !side_init(&as, p) ||
            !(gone = malloc(((size_t)before->nfunc + 1) * sizeof *gone))) {
            free(bs.sorted);
            free(as.sorted);
            return -1;
        }
        /* functions of BEFORE worth a row that AFTER does not have */
        for (uint32_t g = 0; g < before->nfunc; g++) {
            bool any;
            if (!before->funcs[g].folded && big_func(before, g, threshold, &any) &&
                side_find(&as, before, g) == UINT32_MAX)
                gone[ngone++] = g;
        }
    }
    uint32_t *id = malloc(((size_t)p->nfunc + 1) * sizeof *id);
    uint32_t *order = malloc(((size_t)p->nfunc + 1) * sizeof *order);
    uint64_t *cost = calloc((size_t)nev + 1, sizeof *cost);
    if (!id || !order || !cost) {
        free(id);
        free(order);
        free(cost);
        return -1;
    }
    for (uint32_t g = 0; g < p->nfunc; g++)
        id[g] = 0;
    for (uint32_t i = 0; i < fl->n; i++)
        if (fl->frames[i].func < CG_FRAME_OTHER)
            id[fl->frames[i].func] = 1;
    uint32_t n = 0, hidden = 0;
    for (uint32_t g = 0; g < p->nfunc; g++) {
        if (p->funcs[g].folded)
            continue;
        bool any, big = big_func(p, g, threshold, &any);
        if (before && !big) {   /* a function that was big before is a row too */
            uint32_t b = side_find(&bs, p, g);
            bool bany;
            big = b != UINT32_MAX && big_func(before, b, threshold, &bany);
        }
        if (id[g] || (any && big))
            order[n++] = g;
        else if (any)
            hidden++;
    }
    sort_p = p;
    qsort(order, n, sizeof *order, by_incl);
    for (uint32_t g = 0; g < p->nfunc; g++)
        id[g] = UINT32_MAX;
    for (uint32_t j = 0; j < n; j++)
        id[order[j]] = j;
    fputs("{\"title\":", f);
    js_str(f, title);
    fputs(",\"command\":", f);
    if (p->command)
        js_str(f, p->command);
    else
        fputs("null", f);
    fputs(",\"events\":[", f);
    for (int k = 0; k < nev; k++) {
        if (k)
            fputc(',', f);
        js_str(f, cg_event_name(p, k));
    }
    fputs("],\"totals\":", f);
    for (int k = 0; k < nev; k++)
        cost[k] = cg_total(p, k);
    costs(f, cost, nev);
    fprintf(f, ",\"files\":%d,\"parts\":%d,\"threshold\":%g,\"merged\":%" PRIu32
            ",\"hidden\":%" PRIu32 ",\"unreached\":%" PRIu64 ",\"ctx\":%" PRIu32 ",\n\"f\":[",
            p->nfiles, p->nparts, threshold, fl->merged, hidden, fl->unreached,
            fl->context_depth);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t g = order[j];
        fputs(j ? ",\n[" : "[", f);
        js_str(f, cg_str(p, p->funcs[g].name));
        fputc(',', f);
        js_str(f, base(cg_str(p, p->funcs[g].obj)));
        fputc(',', f);
        costs(f, cg_self(p, g), nev);
        fputc(',', f);
        costs(f, cg_incl(p, g), nev);
        fprintf(f, ",%d", p->funcs[g].incl_bound ? 1 : 0);
        if (before) {   /* BEFORE's self and inclusive cost, null for a new function */
            uint32_t b = side_find(&bs, p, g);
            if (b == UINT32_MAX)
                fputs(",null,null", f);
            else {
                fputc(',', f);
                costs(f, cg_self(before, b), nev);
                fputc(',', f);
                costs(f, cg_incl(before, b), nev);
            }
        }
        fputc(']', f);
    }
    /* gone: only BEFORE had them (zero now; not in the frames, which are AFTER's) */
    for (uint32_t j = 0; j < ngone; j++) {
        uint32_t g = gone[j];
        fputs(n + j ? ",\n[" : "[", f);
        js_str(f, cg_str(before, before->funcs[g].name));
        fputc(',', f);
        js_str(f, base(cg_str(before, before->funcs[g].obj)));
        for (int k = 0; k < nev; k++)
            cost[k] = 0;
        fputc(',', f);
        costs(f, cost, nev);
        fputc(',', f);
        costs(f, cost, nev);
        fputs(",0,", f);
        costs(f, cg_self(before, g), nev);
        fputc(',', f);
        costs(f, cg_incl(before, g), nev);
        fputs(",1]", f);
    }
    fputs("],\n\"e\":[", f);
    bool first = true;
    for (uint32_t x = 0; x < p->nedge; x++) {
        const struct cg_edge *ed = &p->edges[x];
        if (ed->caller == ed->callee || id[ed->caller] == UINT32_MAX ||
            id[ed->callee] == UINT32_MAX)
            continue;
        bool outer = cg_edge_kind(p, x) == CG_EDGE_OUTER;
        for (int k = 0; k < nev; k++)
            cost[k] = outer ? cg_edge_outer_cost(p, x, k) : cg_edge_all(p, x, k);
        fprintf(f, "%s[%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",", first ? "" : ",\n",
                id[ed->caller], id[ed->callee], outer ? cg_edge_outer_calls(p, x) : ed->calls);
        costs(f, cost, nev);
        fputc(']', f);
        first = false;
    }
    fputs("],\n\"fr\":{\"f\":[", f);
    for (uint32_t i = 0; i < fl->n; i++) {
        uint32_t g = fl->frames[i].func;
        long v = g == CG_FRAME_ROOT ? -2 : g == CG_FRAME_OTHER ? -1 : (long)id[g];
        fprintf(f, "%s%ld", i ? "," : "", v);
    }
    fputs("],\n\"d\":[", f);
    for (uint32_t i = 0; i < fl->n; i++)
        fprintf(f, "%s%" PRIu32, i ? "," : "", fl->frames[i].depth);
    fputs("],\n\"x\":[", f);
    for (uint32_t i = 0; i < fl->n; i++)
        fprintf(f, "%s%d", i ? "," : "", fl->frames[i].exact ? 1 : 0);
    fputs("],\n\"m\":[", f);
    for (uint32_t i = 0; i < fl->n; i++)
        fprintf(f, "%s%" PRIu32, i ? "," : "", fl->frames[i].merged);
    fputs("],\n\"v\":[", f);
    for (int k = 0; k < nev; k++) {
        fputs(k ? "],\n[" : "[", f);
        for (uint32_t i = 0; i < fl->n; i++)
            fprintf(f, "%s%" PRIu64, i ? "," : "", cg_frame_value(fl, i, k));
    }
    fputs("]]}", f);
    if (write_lines(f, p, id, n, root) < 0) {
        free(bs.sorted), free(as.sorted), free(gone), free(id), free(order), free(cost);
        return -1;
    }
    if (before && bfl && write_path_before(f, p, fl, before, bfl, bfine) < 0) {
        free(bs.sorted), free(as.sorted), free(gone), free(id), free(order), free(cost);
        return -1;
    }
    if (before) {
        fputs(",\n\"diff\":{\"totals\":", f);
        for (int k = 0; k < nev; k++)
            cost[k] = cg_total(before, k);
        costs(f, cost, nev);
        fputs(",\"command\":", f);
        if (before->command)
            js_str(f, before->command);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputs("}", f);
    free(bs.sorted);
    free(as.sorted);
    free(gone);
    free(id);
    free(order);
    free(cost);
    return 0;
}

/* ---- annotated source ---- */

#define SRC_MAX_LINES 5000               /* of one file: more, line numbers and costs only */
#define SRC_MAX_BYTES ((size_t)4 << 20)   /* of all files' text in one page */

/* The readable file for path as the profile writes it: itself, or with root, root/path
 * (relative) or root/ and the path's last components, longest first (absolute: the
 * profile was made elsewhere). Returns a malloc'd path or NULL. */
static char *find_source(const char *path, const char *root)
{
    if (access(path, R_OK) == 0 && path[0])
        return strdup(path);
    if (!root)
        return NULL;
    for (const char *tail = path; tail; tail = strchr(tail + 1, '/')) {
        const char *t = tail;
        while (*t == '/')
            t++;
        if (!*t)
            break;
        char *cand = NULL;
        if (asprintf(&cand, "%s/%s", root, t) < 0)
            return NULL;
        if (access(cand, R_OK) == 0)
            return cand;
        free(cand);
    }
    return NULL;
}

/* Lines lo..hi of file path as JSON strings into f (an array); false where it is unreadable
 * or longer than the budget left (nothing written then). */
static bool write_source(FILE *f, const char *path, uint32_t lo, uint32_t hi, size_t *budget)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return false;
    char *line = NULL, **keep = calloc((size_t)(hi - lo + 1), sizeof *keep);
    size_t cap = 0, used = 0;
    uint32_t no = 0;
    ssize_t n;
    bool ok = keep != NULL;
    while (ok && no < hi && (n = getline(&line, &cap, in)) >= 0) {
        if (++no < lo)
            continue;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        used += (size_t)n + 8;
        if (used > *budget || !(keep[no - lo] = strdup(line)))
            ok = false;
    }
    fclose(in);
    free(line);
    if (ok) {
        *budget -= used;
        fputc('[', f);
        for (uint32_t i = 0; i + lo <= hi; i++) {
            if (i)
                fputc(',', f);
            js_str(f, keep[i] ? keep[i] : "");
        }
        fputc(']', f);
    }
    for (uint32_t i = 0; keep && i + lo <= hi; i++)
        free(keep[i]);
    free(keep);
    return ok;
}

static const struct cg_profile *line_p;

static int by_line(const void *a, const void *b)
{
    const struct cg_line *x = &line_p->lines[*(const uint32_t *)a];
    const struct cg_line *y = &line_p->lines[*(const uint32_t *)b];
    if (x->file != y->file) {
        int c = strcmp(cg_str(line_p, x->file), cg_str(line_p, y->file));
        if (c)
            return c;
        return x->file < y->file ? -1 : 1;
    }
    return x->line < y->line ? -1 : x->line > y->line;
}

/* "lines": per function of the page (id[]), its lines with cost [file, line, costs...];
 * "sources": each file those name, as the profile writes it, the file read (or null) and the
 * text of the lines around them ("files" is another key: the number of profiles read).
 * Returns 0, -1 out of memory. */
static int write_lines(FILE *f, const struct cg_profile *p, const uint32_t *id, uint32_t n,
                       const char *root)
{
    int nev = p->nev;
    uint32_t *at = calloc((size_t)n + 2, sizeof *at), *by = malloc(((size_t)p->nline + 1) *
                                                                   sizeof *by);
    uint32_t *fidx = calloc((size_t)p->nstr + 1, sizeof *fidx), nfiles = 0;
    uint32_t *files = malloc(((size_t)p->nline + 1) * sizeof *files);
    uint32_t *lo = malloc(((size_t)p->nline + 1) * sizeof *lo);
    uint32_t *hi = malloc(((size_t)p->nline + 1) * sizeof *hi);
    if (!at || !by || !fidx || !files || !lo || !hi) {
        free(at), free(by), free(fidx), free(files), free(lo), free(hi);
        return -1;
    }
    for (uint32_t l = 0; l < p->nline; l++)
        if (id[p->lines[l].func] != UINT32_MAX)
            at[id[p->lines[l].func] + 2]++;
    for (uint32_t j = 0; j < n; j++)
        at[j + 2] += at[j + 1];
    for (uint32_t l = 0; l < p->nline; l++)
        if (id[p->lines[l].func] != UINT32_MAX)
            by[at[id[p->lines[l].func] + 1]++] = l;
    line_p = p;
    fputs(",\n\"lines\":[", f);
    for (uint32_t j = 0; j < n; j++) {
        qsort(by + at[j], at[j + 1] - at[j], sizeof *by, by_line);
        fputs(j ? ",\n[" : "[", f);
        for (uint32_t k = at[j]; k < at[j + 1]; k++) {
            const struct cg_line *ln = &p->lines[by[k]];
            uint32_t fi = fidx[ln->file];
            if (!fi) {
                fi = fidx[ln->file] = ++nfiles;
                files[fi - 1] = ln->file;
                lo[fi - 1] = ln->line;
                hi[fi - 1] = ln->line;
            }
            if (ln->line < lo[fi - 1])
                lo[fi - 1] = ln->line;
            if (ln->line > hi[fi - 1])
                hi[fi - 1] = ln->line;
            fprintf(f, "%s[%" PRIu32 ",%" PRIu32, k > at[j] ? "," : "", fi - 1, ln->line);
            for (int e = 0; e < nev; e++)
                fprintf(f, ",%" PRIu64, p->line_cost[(size_t)by[k] * nev + e]);
            fputc(']', f);
        }
        fputc(']', f);
    }
    fputs("],\n\"sources\":[", f);
    size_t budget = SRC_MAX_BYTES;
    for (uint32_t i = 0; i < nfiles; i++) {
        const char *path = cg_str(p, files[i]);
        char *found = find_source(path, root);
        uint32_t first = lo[i] > 3 ? lo[i] - 3 : 1, last = hi[i] + 3;
        fputs(i ? ",\n{\"path\":" : "{\"path\":", f);
        js_str(f, path);
        fputs(",\"read\":", f);
        if (found)
            js_str(f, found);
        else
            fputs("null", f);
        fprintf(f, ",\"first\":%" PRIu32 ",\"text\":", first);
        if (!found || last - first >= SRC_MAX_LINES ||
            !write_source(f, found, first, last, &budget))
            fputs("null", f);
        fputc('}', f);
        free(found);
    }
    fputc(']', f);
    free(at), free(by), free(fidx), free(files), free(lo), free(hi);
    return 0;
}

enum { OPT_THRESHOLD = 0x100, OPT_TITLE, OPT_DIFF, OPT_SOURCE_ROOT, OPT_HELP };

int cg_page_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"title", required_argument, NULL, OPT_TITLE},
        {"diff", no_argument, NULL, OPT_DIFF},
        {"source-root", required_argument, NULL, OPT_SOURCE_ROOT},
        {"help", no_argument, NULL, OPT_HELP},
        {0},
    };
    const char *outp = NULL, *title = NULL, *root = NULL;
    double threshold = 0.01;
    bool diff = false;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o': outp = optarg; break;
        case OPT_THRESHOLD:
            if (!cg_graph_percent("--threshold", optarg, &threshold))
                return EXIT_USAGE;
            break;
        case OPT_TITLE: title = optarg; break;
        case OPT_DIFF: diff = true; break;
        case OPT_SOURCE_ROOT: root = optarg; break;
        case 'h':
        case OPT_HELP: cli_print_usage(stdout, cmd_cg_usage); return EXIT_OK;
        case ':':
            return cli_usage_error("cg", cmd_cg_usage, "option '%s' needs a value",
                                   argv[optind - 1]);
        default:
            return cli_usage_error("cg", cmd_cg_usage, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("cg", cmd_cg_usage, "page: no profile given");
    if (!outp)
        return cli_usage_error("cg", cmd_cg_usage, "page: no -o OUT");
    if (diff && argc - optind != 2)
        return cli_usage_error("cg", cmd_cg_usage, "page --diff: want BEFORE and AFTER");
    struct cg_profile *p, *before = NULL;
    int rc;
    if (diff) {
        if ((rc = cg_graph_load(argv + optind, 1, NULL, &before)))
            return rc;
        optind++;
    }
    if ((rc = cg_graph_load(argv + optind, argc - optind, "", &p))) {
        if (before)
            cg_profile_free(before);
        return rc;
    }
    bool same = !before || before->nev == p->nev;
    for (int k = 0; same && before && k < p->nev; k++)
        same = strcmp(cg_event_name(before, k), cg_event_name(p, k)) == 0;
    if (!same) {
        cli_error("cg", "page --diff: '%s' and '%s' have different events", argv[optind - 1],
                  argv[optind]);
        cg_profile_free(before);
        cg_profile_free(p);
        return EXIT_USAGE;
    }
    struct cg_flame fl;
    struct err e = {0};
    struct cg_profile *ctx = NULL;
    if ((rc = cg_graph_contexts(argv + optind, argc - optind, p, &ctx))) {
        if (before)
            cg_profile_free(before);
        cg_profile_free(p);
        return rc;
    }
    struct cg_flame_opts o = {.min_frac = threshold / 100, .ctx = ctx};
    int built = cg_flame_build(p, &o, &fl, &e);
    if (ctx)
        cg_profile_free(ctx);
    /* BEFORE's frames too, from its contexts where it has them, at the threshold and down to
     * a tenth of it (write_path_before) */
    struct cg_flame bfl = {0}, bfine = {0};
    struct cg_profile *bctx = NULL;
    if (built == 0 && before) {
        if ((rc = cg_graph_contexts(argv + optind - 1, 1, before, &bctx))) {
            cg_flame_free(&fl);
            cg_profile_free(before);
            cg_profile_free(p);
            return rc;
        }
        struct cg_flame_opts bo = {.min_frac = threshold / 100, .ctx = bctx};
        built = cg_flame_build(before, &bo, &bfl, &e);
        bo.min_frac = threshold / 1000;
        if (built == 0 && (built = cg_flame_build(before, &bo, &bfine, &e)) < 0)
            cg_flame_free(&bfl);
        if (bctx)
            cg_profile_free(bctx);
        if (built < 0)
            cg_flame_free(&fl);
    }
    if (built < 0) {
        if (before)
            cg_profile_free(before);
        cg_profile_free(p);
        return cli_fail("cg", &e);
    }
    char deftitle[300];
    if (!title) {
        snprintf(deftitle, sizeof deftitle, "tare cg%s: %s", before ? " diff" : "",
                 p->command ? p->command : base(argv[optind]));
        title = deftitle;
    }
    char *tmp = NULL;
    FILE *f = NULL;
    int status = EXIT_USAGE;
    if (asprintf(&tmp, "%s.tmp.%d", outp, (int)getpid()) < 0) {
        tmp = NULL;
        cli_error("cg", "out of memory");
        goto fail;
    }
    cli_install_exit_on_signal();   /* Ctrl-C or SIGTERM: the page half written is removed */
    cli_tmp_add(tmp);
    if (!(f = fopen(tmp, "w"))) {
        cli_error("cg", "cannot create '%s': %s", tmp, strerror(errno));
        goto fail;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>", f);
    html_text(f, title);
    fputs("</title>\n<style>\n", f);
    fputs(cg_page_css_text, f);
    fputs("</style>\n</head>\n<body>\n", f);
    fputs(page_body, f);
    fputs("<script type=\"application/json\" id=\"cg-data\">", f);
    int w = write_data(f, p, &fl, threshold, title, before, before ? &bfl : NULL,
                       before ? &bfine : NULL, root);
    fputs("</script>\n<script>\n", f);
    fputs(cg_page_js_text, f);
    fputs("</script>\n</body>\n</html>\n", f);
    if (w < 0 || ferror(f) || fclose(f) != 0) {
        f = NULL;
        cli_error("cg", "cannot write '%s': %s", tmp, w < 0 ? "out of memory" : strerror(errno));
        goto fail;
    }
    f = NULL;
    if (rename(tmp, outp) < 0) {
        cli_error("cg", "cannot rename '%s' to '%s': %s", tmp, outp, strerror(errno));
        goto fail;
    }
    cli_tmp_forget(tmp);
    free(tmp);
    tmp = NULL;
    status = EXIT_OK;
fail:
    if (f)
        fclose(f);
    if (tmp) {
        unlink(tmp);
        cli_tmp_forget(tmp);
        free(tmp);
    }
    cg_flame_free(&fl);
    cg_flame_free(&bfl);
    cg_flame_free(&bfine);
    cg_profile_free(p);
    if (before)
        cg_profile_free(before);
    return status;
}
