/* cg_page.c: `tare cg page`: one self-contained HTML file (no external script, style or font;
 * a content security policy that forbids fetching) with a flame graph of the frame tree
 * (core/profile/flame.c), a function view with callers and callees, and the top table. The script
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
#include "cli/cg_match_out.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/profile/flame.h"
#include "core/util/json.h"
#include "core/util/xml.h"

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

/* The markup, around the label of the switch (cg: "event"; alloc's page: "measure"). */
static const char page_body_head[] =
    "<header>\n<h1 id=\"title\"></h1>\n"
    "<div class=\"group\" id=\"events\"><span class=\"lab\">";
static const char page_body_tail[] =
    "</span></div>\n"
    "<input type=\"search\" id=\"search\" placeholder=\"search frames\" aria-label=\"search "
    "frames\">\n<span id=\"matched\"></span>\n<button id=\"reset\">reset zoom</button>\n"
    "<span id=\"summary\"></span>\n</header>\n<main>\n"
    "<div class=\"muted\" id=\"command\"></div>\n<p id=\"note\"></p>\n<div id=\"flame\"></div>\n"
    "<div id=\"panes\">\n<section><h2>functions</h2>\n<input type=\"search\" id=\"topfilter\" "
    "placeholder=\"filter functions\" aria-label=\"filter functions\">\n<div id=\"top\"></div>"
    "</section>\n<section id=\"func\"><h2>function</h2><p class=\"muted\">click a frame or a "
    "function</p></section>\n</div>\n</main>\n<div id=\"tip\"></div>\n";

int cg_page_html(FILE *f, const char *title, const char *switch_label,
                 int (*write_data)(FILE *f, void *arg), void *arg)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>", f);
    xw_write_escaped(f, title);
    fputs("</title>\n<style>\n", f);
    fputs(cg_page_css_text, f);
    fputs("</style>\n</head>\n<body>\n", f);
    fputs(page_body_head, f);
    xw_write_escaped(f, switch_label);
    fputs(page_body_tail, f);
    fputs("<script type=\"application/json\" id=\"cg-data\">", f);
    int rc = write_data(f, arg);
    fputs("</script>\n<script>\n", f);
    fputs(cg_page_js_text, f);
    fputs("</script>\n</body>\n</html>\n", f);
    return rc;
}

/* A JSON string safe inside <script> ('<', '>' and '&' as \u escapes: no "</script>" or
 * "<!--"), by the one JSON writer's rule (core/util/json.h). */
static void js_str(FILE *f, const char *s)
{
    jw_write_string(f, s, true);
}

/* The same text for the HTML <title> (XML's escapes are HTML's). */
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

/* BEFORE's functions by (name, object), for --diff, the objects matched as `tare cg diff`
 * matches them (cg_match_objects: one path, one file name in two work trees, each profile's
 * program under two names, --map-object): key[id] is the key of the object with string id. */
static const struct cg_profile *key_p;
static const uint32_t *key_k;

static int by_key(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(cg_str(key_p, key_p->funcs[x].name), cg_str(key_p, key_p->funcs[y].name));
    uint32_t kx = key_k[key_p->funcs[x].obj], ky = key_k[key_p->funcs[y].obj];
    return c ? c : kx < ky ? -1 : kx > ky;
}

struct side {
    const struct cg_profile *p;
    const uint32_t *key;   /* its objects' keys, by string id */
    uint32_t *sorted, n;   /* its live functions, by name and key */
};

/* The function of b named as function g of a (whose objects' keys are a_key), or
 * UINT32_MAX. */
static uint32_t side_find(const struct side *b, const struct side *a, uint32_t g)
{
    const char *name = cg_str(a->p, a->p->funcs[g].name);
    uint32_t k = a->key[a->p->funcs[g].obj];
    uint32_t lo = 0, hi = b->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2, f = b->sorted[mid];
        int c = strcmp(cg_str(b->p, b->p->funcs[f].name), name);
        if (!c) {
            uint32_t kf = b->key[b->p->funcs[f].obj];
            c = kf < k ? -1 : kf > k;
        }
        if (!c)
            return f;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

static bool side_init(struct side *b, const struct cg_profile *p, const uint32_t *key)
{
    b->p = p;
    b->key = key;
    b->n = 0;
    b->sorted = malloc(((size_t)p->nfunc + 1) * sizeof *b->sorted);
    if (!b->sorted)
        return false;
    for (uint32_t f = 0; f < p->nfunc; f++)
        if (!p->funcs[f].folded)
            b->sorted[b->n++] = f;
    key_p = p;
    key_k = key;
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

/* What the page draws: p, its frames, the threshold; with --diff, BEFORE (its functions by
 * key in bs, p's in as; the keys of their objects in match) and its frames at the threshold
 * and a tenth of it. */
struct page_in {
    const struct cg_profile *p, *before;
    const struct cg_match *match;
    const struct cg_flame *fl, *bfl, *bfine;
    double threshold;
    const char *title, *root;
    struct side bs, as;
};

/* The functions of BEFORE worth a row that AFTER does not have, into gone; how many. */
static uint32_t find_gone(const struct page_in *in, uint32_t *gone)
{
    uint32_t n = 0;
    for (uint32_t g = 0; g < in->before->nfunc; g++) {
        bool any;
        if (!in->before->funcs[g].folded && big_func(in->before, g, in->threshold, &any) &&
            side_find(&in->as, &in->bs, g) == UINT32_MAX)
            gone[n++] = g;
    }
    return n;
}

/* The functions drawn: at or above the threshold (or, with --diff, before it), or in a frame,
 * by inclusive cost, into order; id[g] their index there (UINT32_MAX: not drawn). Returns how
 * many; *hidden: those with some cost left out. */
static uint32_t pick_funcs(const struct page_in *in, uint32_t *id, uint32_t *order,
                           uint32_t *hidden)
{
    const struct cg_profile *p = in->p;
    for (uint32_t g = 0; g < p->nfunc; g++)
        id[g] = 0;
    for (uint32_t i = 0; i < in->fl->n; i++)
        if (in->fl->frames[i].func < CG_FRAME_OTHER)
            id[in->fl->frames[i].func] = 1;
    uint32_t n = 0;
    *hidden = 0;
    for (uint32_t g = 0; g < p->nfunc; g++) {
        if (p->funcs[g].folded)
            continue;
        bool any, big = big_func(p, g, in->threshold, &any);
        if (in->before && !big) {   /* a function that was big before is a row too */
            uint32_t b = side_find(&in->bs, &in->as, g);
            bool bany;
            big = b != UINT32_MAX && big_func(in->before, b, in->threshold, &bany);
        }
        if (id[g] || (any && big))
            order[n++] = g;
        else if (any)
            (*hidden)++;
    }
    sort_p = p;
    qsort(order, n, sizeof *order, by_incl);
    for (uint32_t g = 0; g < p->nfunc; g++)
        id[g] = UINT32_MAX;
    for (uint32_t j = 0; j < n; j++)
        id[order[j]] = j;
    return n;
}

/* One function's row of "f": name, object, self, inclusive, bound; with --diff BEFORE's self
 * and inclusive (null, null: new) */
static void write_func(FILE *f, const struct page_in *in, uint32_t g)
{
    const struct cg_profile *p = in->p;
    int nev = p->nev;
    js_str(f, cg_str(p, p->funcs[g].name));
    fputc(',', f);
    js_str(f, base(cg_str(p, p->funcs[g].obj)));
    fputc(',', f);
    costs(f, cg_self(p, g), nev);
    fputc(',', f);
    costs(f, cg_incl(p, g), nev);
    /* 1: the inclusive cost only a bound; 2: the outermost frames an estimate of it (an exact
     * one); 4: the frames do not hold its self cost (flame.h: where cut, those surely off) */
    unsigned flag = in->fl->checked ? in->fl->flag[g] : 0;
    fprintf(f, ",%u", (p->funcs[g].incl_bound ? 1u : (flag & CG_FLAME_INCL_EST ? 2u : 0u)) |
                      (flag & CG_FLAME_SELF_EST ? 4u : 0u));
    if (!in->before)
        return;
    uint32_t b = side_find(&in->bs, &in->as, g);
    if (b == UINT32_MAX) {
        fputs(",null,null", f);
        return;
    }
    fputc(',', f);
    costs(f, cg_self(in->before, b), nev);
    fputc(',', f);
    costs(f, cg_incl(in->before, b), nev);
}

/* "f": the functions drawn, then those gone (only BEFORE had them: zero now, in no frame) */
static void write_funcs(FILE *f, const struct page_in *in, const uint32_t *order, uint32_t n,
                        const uint32_t *gone, uint32_t ngone, uint64_t *cost)
{
    const struct cg_profile *before = in->before;
    int nev = in->p->nev;
    fputs("\n\"f\":[", f);
    for (uint32_t j = 0; j < n; j++) {
        fputs(j ? ",\n[" : "[", f);
        write_func(f, in, order[j]);
        fputc(']', f);
    }
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
    fputc(']', f);
}

/* "e": the calls between functions drawn, as `tare cg callers` and `callees` show them (one
 * model: core cg_call_rows): [caller, callee, calls, costs, kind, view], kind 0 outer,
 * 1 recursive, 2 cycle, 3 nested; view 1 a row of the callee's callers, 0 of the caller's
 * callees. A call's outer rows differ by view: into the callee's outermost level from outside
 * its recursion (callers), made by the caller's outermost level (callees). */
static void write_calls(FILE *f, const struct cg_profile *p, const uint32_t *id, uint64_t *cost)
{
    bool first = true;
    fputs(",\n\"e\":[", f);
    for (uint32_t x = 0; x < p->nedge; x++) {
        const struct cg_edge *ed = &p->edges[x];
        if (id[ed->caller] == UINT32_MAX || id[ed->callee] == UINT32_MAX)
            continue;
        for (int view = 0; view < 2; view++) {
            struct cg_call_row rows[2];
            uint32_t nr = cg_call_rows(p, &x, 1, view, rows);
            for (uint32_t r = 0; r < nr; r++) {
                for (int k = 0; k < p->nev; k++)
                    cost[k] = cg_call_row_cost(p, &rows[r], view, k);
                fprintf(f, "%s[%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",", first ? "" : ",\n",
                        id[ed->caller], id[ed->callee], rows[r].calls);
                costs(f, cost, p->nev);
                fprintf(f, ",%d,%d]", (int)rows[r].kind, view);
                first = false;
            }
        }
    }
    fputc(']', f);
}

/* "fr": the frames, function (-2 the root, -1 "other"), depth, exact, merged, values */
static void write_frames(FILE *f, const struct cg_profile *p, const struct cg_flame *fl,
                         const uint32_t *id)
{
    fputs(",\n\"fr\":{\"f\":[", f);
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
    for (int k = 0; k < p->nev; k++) {
        fputs(k ? "],\n[" : "[", f);
        for (uint32_t i = 0; i < fl->n; i++)
            fprintf(f, "%s%" PRIu64, i ? "," : "", cg_frame_value(fl, i, k));
    }
    fputs("]]}", f);
}

/* The title, command, events, totals and counts the page heads with */
static void write_head(FILE *f, const struct page_in *in, uint32_t hidden, uint64_t *cost)
{
    const struct cg_profile *p = in->p;
    const struct cg_flame *fl = in->fl;
    fputs("{\"title\":", f);
    js_str(f, in->title);
    fputs(",\"command\":", f);
    if (p->command)
        js_str(f, p->command);
    else
        fputs("null", f);
    fputs(",\"events\":[", f);
    for (int k = 0; k < p->nev; k++) {
        if (k)
            fputc(',', f);
        js_str(f, cg_event_name(p, k));
    }
    fputs("],\"totals\":", f);
    for (int k = 0; k < p->nev; k++)
        cost[k] = cg_total(p, k);
    costs(f, cost, p->nev);
    fprintf(f, ",\"files\":%d,\"parts\":%d,\"threshold\":%g,\"merged\":%" PRIu32
            ",\"hidden\":%" PRIu32 ",\"unreached\":%" PRIu64 ",\"ctx\":%" PRIu32 ",",
            p->nfiles, p->nparts, in->threshold, fl->merged, hidden, fl->unreached,
            fl->context_depth);
    /* the functions whose frames are an estimate of their own numbers (flame.h), and whether
     * frames were merged (then those surely off only) */
    uint32_t incl_est = 0;    /* (those whose inclusive cost is exact: not a bound) */
    for (uint32_t g = 0; fl->checked && g < p->nfunc; g++)
        incl_est += !p->funcs[g].folded && !p->funcs[g].incl_bound &&
                    fl->flag[g] & CG_FLAME_INCL_EST;
    if (fl->checked)
        fprintf(f, "\"est\":[%" PRIu32 ",%" PRIu32 ",%d],", fl->self_est, incl_est,
                fl->cut ? 1 : 0);
}

/* --diff: BEFORE's totals and command */
static void write_before(FILE *f, const struct cg_profile *before, uint64_t *cost)
{
    fputs(",\n\"diff\":{\"totals\":", f);
    for (int k = 0; k < before->nev; k++)
        cost[k] = cg_total(before, k);
    costs(f, cost, before->nev);
    fputs(",\"command\":", f);
    if (before->command)
        js_str(f, before->command);
    else
        fputs("null", f);
    fputc('}', f);
}

/* The data: functions at or above the threshold (inclusive, any event) or in a frame, the
 * calls between them, the frames. Returns 0, or -1 out of memory. */
static int write_data(FILE *f, struct page_in *in)
{
    const struct cg_profile *p = in->p, *before = in->before;
    uint32_t *gone = NULL, ngone = 0, hidden = 0;
    uint32_t *id = malloc(((size_t)p->nfunc + 1) * sizeof *id);
    uint32_t *order = malloc(((size_t)p->nfunc + 1) * sizeof *order);
    uint64_t *cost = calloc((size_t)p->nev + 1, sizeof *cost);
    int rc = -1;
    if (!id || !order || !cost)
        goto out;
    if (before) {
        if (!side_init(&in->bs, before, in->match->key_a) ||
            !side_init(&in->as, p, in->match->key_b) ||
            !(gone = malloc(((size_t)before->nfunc + 1) * sizeof *gone)))
            goto out;
        ngone = find_gone(in, gone);
    }
    uint32_t n = pick_funcs(in, id, order, &hidden);
    write_head(f, in, hidden, cost);
    write_funcs(f, in, order, n, gone, ngone, cost);
    write_calls(f, p, id, cost);
    write_frames(f, p, in->fl, id);
    if (write_lines(f, p, id, n, in->root) < 0)
        goto out;
    if (before && write_path_before(f, p, in->fl, before, in->bfl, in->bfine) < 0)
        goto out;
    if (before)
        write_before(f, before, cost);
    fputs("}", f);
    rc = 0;
out:
    free(in->bs.sorted), free(in->as.sorted);
    in->bs.sorted = in->as.sorted = NULL;
    free(gone), free(id), free(order), free(cost);
    return rc;
}

/* write_data as cg_page_html calls it */
static int write_page_data(FILE *f, void *in)
{
    return write_data(f, in);
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

enum { OPT_THRESHOLD = 0x100, OPT_TITLE, OPT_DIFF, OPT_SOURCE_ROOT, OPT_MAP, OPT_HELP };

struct page_cli {
    const char *outp, *title, *root;
    double threshold;
    bool diff;
    struct cg_obj_map maps[64];   /* --map-object */
    int nmaps;
};

/* The options; -1 to go on, else the exit status. */
static int page_parse(int argc, char **argv, struct page_cli *c)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"title", required_argument, NULL, OPT_TITLE},
        {"diff", no_argument, NULL, OPT_DIFF},
        {"source-root", required_argument, NULL, OPT_SOURCE_ROOT},
        {"map-object", required_argument, NULL, OPT_MAP},
        {"help", no_argument, NULL, OPT_HELP},
        {0},
    };
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o': c->outp = optarg; break;
        case OPT_THRESHOLD:
            if (!cg_graph_percent("--threshold", optarg, &c->threshold))
                return EXIT_USAGE;
            break;
        case OPT_TITLE: c->title = optarg; break;
        case OPT_DIFF: c->diff = true; break;
        case OPT_SOURCE_ROOT: c->root = optarg; break;
        case OPT_MAP: {
            struct err e;
            if (c->nmaps == (int)(sizeof c->maps / sizeof c->maps[0]))
                return cli_usage_error("cg", cmd_cg_usage, "more than %d --map-object", c->nmaps);
            if (cg_obj_map_parse(optarg, &c->maps[c->nmaps++], &e) < 0)
                return cli_usage_error("cg", cmd_cg_usage, "%s", e.msg);
            break;
        }
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
    if (!c->outp)
        return cli_usage_error("cg", cmd_cg_usage, "page: no -o OUT");
    if (c->diff && argc - optind != 2)
        return cli_usage_error("cg", cmd_cg_usage, "page --diff: want BEFORE and AFTER");
    if (c->nmaps && !c->diff)
        return cli_usage_error("cg", cmd_cg_usage, "page: --map-object is for --diff");
    return -1;
}

/* The profiles named at argv[optind..argc) (--diff: BEFORE first), with the same events:
 * 0, or the exit status (nothing left to free). */
static int page_load(int argc, char **argv, bool diff, struct cg_profile **pp,
                     struct cg_profile **bp)
{
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
    *pp = p, *bp = before;
    return 0;
}

/* The frames of the profile(s) at argv[optind..argc), from their contexts where they have
 * them; BEFORE's too (argv[optind - 1]), at the threshold and down to a tenth of it
 * (write_path_before). 0, or the exit status (no frame left to free). */
static int page_frames(int argc, char **argv, const struct cg_profile *p,
                       const struct cg_profile *before, double threshold, struct cg_flame *fl,
                       struct cg_flame *bfl, struct cg_flame *bfine)
{
    struct err e = {0};
    struct cg_profile *ctx = NULL;
    int rc;
    if ((rc = cg_graph_contexts(argv + optind, argc - optind, p, &ctx)))
        return rc;
    struct cg_flame_opts o = {.min_frac = threshold / 100, .ctx = ctx};
    int built = cg_flame_build(p, &o, fl, &e);
    if (ctx)
        cg_profile_free(ctx);
    struct cg_profile *bctx = NULL;
    if (built == 0 && before) {
        if ((rc = cg_graph_contexts(argv + optind - 1, 1, before, &bctx))) {
            cg_flame_free(fl);
            return rc;
        }
        struct cg_flame_opts bo = {.min_frac = threshold / 100, .ctx = bctx};
        built = cg_flame_build(before, &bo, bfl, &e);
        bo.min_frac = threshold / 1000;
        if (built == 0 && (built = cg_flame_build(before, &bo, bfine, &e)) < 0)
            cg_flame_free(bfl);
        if (bctx)
            cg_profile_free(bctx);
        if (built < 0)
            cg_flame_free(fl);
    }
    return built < 0 ? cli_fail("cg", &e) : 0;
}

/* The page, written to a temporary file renamed to outp once whole: the exit status. */
static int page_write(const char *outp, struct page_in *in)
{
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
    int w = cg_page_html(f, in->title, "event", write_page_data, in);
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
    return status;
}

int cg_page_main(int argc, char **argv)
{
    struct page_cli c = {.threshold = 0.01};
    int rc = page_parse(argc, argv, &c);
    if (rc >= 0)
        return rc;
    struct cg_profile *p, *before;
    if ((rc = page_load(argc, argv, c.diff, &p, &before)))
        return rc;
    /* the objects of the two taken as one, as `tare cg diff` takes them (said on stderr) */
    struct cg_match match = {0};
    if (before && (rc = cg_diff_match("cg page", before, 0, p, 0, argv[optind - 1], argv[optind],
                                      c.maps, (size_t)c.nmaps, &match))) {
        cg_profile_free(before);
        cg_profile_free(p);
        return rc;
    }
    struct cg_flame fl = {0}, bfl = {0}, bfine = {0};
    if ((rc = page_frames(argc, argv, p, before, c.threshold, &fl, &bfl, &bfine))) {
        if (before) {
            cg_match_free(&match);
            cg_profile_free(before);
        }
        cg_profile_free(p);
        return rc;
    }
    char deftitle[300];
    if (!c.title) {
        snprintf(deftitle, sizeof deftitle, "tare cg%s: %s", before ? " diff" : "",
                 p->command ? p->command : base(argv[optind]));
        c.title = deftitle;
    }
    struct page_in in = {.p = p, .before = before, .match = &match, .fl = &fl,
                         .bfl = before ? &bfl : NULL, .bfine = before ? &bfine : NULL,
                         .threshold = c.threshold,
                         .title = c.title, .root = c.root};
    int status = page_write(c.outp, &in);
    cg_flame_free(&fl);
    cg_flame_free(&bfl);
    cg_flame_free(&bfine);
    cg_profile_free(p);
    if (before) {
        cg_match_free(&match);
        cg_profile_free(before);
    }
    return status;
}
