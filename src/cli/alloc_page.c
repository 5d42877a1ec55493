/* alloc_page.c: tare alloc --format html: the page of `tare cg page` (its script and style,
 * cg_page.js and cg_page.css, put into tare by cg_page.c) over a stack table. The frames are
 * the exact stacks (core/profile/alloctree.c), the events switch is the five measures, the
 * functions'
 * costs are their self and inclusive values, and a call between two functions counts the
 * stacks that hold it. With BEFORE, AFTER's frames each carry BEFORE's value on the same
 * path, as `cg page --diff` does. The data is one JSON block (core/util/json.h, every string safe
 * inside <script>). */
#include "cli/alloc_page.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/out.h"
#include "core/profile/alloctree.h"
#include "core/util/json.h"
#include "core/util/xml.h"

extern const char cg_page_js_text[], cg_page_css_text[];   /* cg_page.c */

/* cg_page.c's markup with the switch named "measure" */
static const char page_body[] =
    "<header>\n<h1 id=\"title\"></h1>\n"
    "<div class=\"group\" id=\"events\"><span class=\"lab\">measure</span></div>\n"
    "<input type=\"search\" id=\"search\" placeholder=\"search frames\" aria-label=\"search "
    "frames\">\n<span id=\"matched\"></span>\n<button id=\"reset\">reset zoom</button>\n"
    "<span id=\"summary\"></span>\n</header>\n<main>\n"
    "<div class=\"muted\" id=\"command\"></div>\n<p id=\"note\"></p>\n<div id=\"flame\"></div>\n"
    "<div id=\"panes\">\n<section><h2>functions</h2>\n<input type=\"search\" id=\"topfilter\" "
    "placeholder=\"filter functions\" aria-label=\"filter functions\">\n<div id=\"top\"></div>"
    "</section>\n<section id=\"func\"><h2>function</h2><p class=\"muted\">click a frame or a "
    "function</p></section>\n</div>\n</main>\n<div id=\"tip\"></div>\n";

/* The switch's words, in the order of enum astk_measure. */
static const char *const measure_label[ASTK_NMEASURES] = {
    "allocations", "bytes", "temporaries", "peak bytes", "leaked bytes",
};

static const char note_text[] =
    "Each frame is a path of the call stacks libtare-alloc recorded, outermost at the top: its "
    "width is the sum of every stack that starts with that path, in the measure chosen "
    "(allocations; bytes requested; temporaries, blocks freed before any other allocation; "
    "bytes live at the peak; bytes never freed). The stacks are exact: nothing is estimated "
    "or merged, and a recursive function is a frame at each depth of its recursion. In the "
    "tables a function's self value is the stacks it ends, its inclusive value the stacks it "
    "is in (once each), and a call counts the stacks that hold it.";
static const char diff_note[] =
    " The frames are AFTER's, each coloured by the change of its own stack from BEFORE's on "
    "the same path: red more, blue less, grey no change (stacks only BEFORE had are no "
    "frame: see the table); the table lists the functions by the size of the change of "
    "their self value, new and gone marked.";

static void values(struct jw *w, const uint64_t *v)
{
    jw_array_begin_lines(w, "", "");
    for (int m = 0; m < ASTK_NMEASURES; m++)
        jw_u64(w, v[m]);
    jw_end(w);
}

/* "f": AFTER's functions (by name), then those only BEFORE had (gone); fid[] their index. */
static void write_funcs(struct jw *w, const struct atree *t, bool diff, uint32_t *fid)
{
    static const uint64_t zero[ASTK_NMEASURES];
    uint32_t n = 0;
    jw_karray(w, "f");
    for (int gone = 0; gone < 2; gone++)
        for (uint32_t k = 0; k < t->nnames; k++) {
            const struct atree_func *fn = &t->funcs[k];
            if (gone ? !(diff && fn->in_before && !fn->in_after) : !fn->in_after)
                continue;
            fid[k] = n++;
            jw_break(w, "\n");
            jw_array_begin_lines(w, "", "");
            jw_string(w, t->names[k]);
            jw_string(w, "");
            values(w, gone ? zero : fn->self);
            values(w, gone ? zero : fn->incl);
            jw_u64(w, 0);   /* the inclusive value is exact, not a bound */
            if (diff && fn->in_before) {
                values(w, fn->bself);
                values(w, fn->bincl);
            } else if (diff) {
                jw_null(w);
                jw_null(w);
            }
            if (gone)
                jw_u64(w, 1);
            jw_end(w);
        }
    jw_end(w);
}

/* "fr": the frames (function, depth, exact, merged, value by measure); "pb" with BEFORE. */
static void write_frames(struct jw *w, const struct atree *t, bool diff, const uint32_t *fid)
{
    jw_kobject(w, "fr");
    jw_karray(w, "f");
    for (size_t i = 0; i < t->nframes; i++)
        jw_i64(w, t->frames[i].name == ATREE_ROOT ? -2 : (int64_t)fid[t->frames[i].name]);
    jw_end(w);
    jw_karray(w, "d");
    for (size_t i = 0; i < t->nframes; i++)
        jw_u64(w, t->frames[i].depth);
    jw_end(w);
    jw_karray(w, "x");
    for (size_t i = 0; i < t->nframes; i++)
        jw_u64(w, 1);
    jw_end(w);
    jw_karray(w, "m");
    for (size_t i = 0; i < t->nframes; i++)
        jw_u64(w, 0);
    jw_end(w);
    jw_karray(w, "v");
    for (int m = 0; m < ASTK_NMEASURES; m++) {
        jw_break(w, "\n");
        jw_array_begin_lines(w, "", "");
        for (size_t i = 0; i < t->nframes; i++)
            jw_u64(w, t->frames[i].v[m]);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
    if (!diff)
        return;
    jw_karray(w, "pb");   /* BEFORE's own value on the frame's path; -1: not a path of it */
    for (int m = 0; m < ASTK_NMEASURES; m++) {
        jw_break(w, "\n");
        jw_array_begin_lines(w, "", "");
        for (size_t i = 0; i < t->nframes; i++)
            if (t->frames[i].in_before)
                jw_u64(w, t->frames[i].before[m]);
            else
                jw_i64(w, -1);
        jw_end(w);
    }
    jw_end(w);
}

static void write_data(struct jw *w, const struct atree *t, const struct astk_table *after,
                       const struct astk_table *before, const char *title, const char *what,
                       const char *before_what, uint32_t *fid)
{
    char sub[160], note[sizeof note_text + sizeof diff_note], a[64], b[64];
    fmt_count(a, (double)after->nrows);
    if (before)
        snprintf(sub, sizeof sub, "%s stacks before, %s after",
                 fmt_count(b, (double)before->nrows), a);
    else
        snprintf(sub, sizeof sub, "%s stack%s", a, after->nrows == 1 ? "" : "s");
    snprintf(note, sizeof note, "%s%s", note_text, before ? diff_note : "");
    jw_object_begin_lines(w, "", "");
    jw_kstring(w, "title", title);
    jw_kstring(w, "command", what);
    jw_karray(w, "events");
    for (int m = 0; m < ASTK_NMEASURES; m++)
        jw_string(w, measure_label[m]);
    jw_end(w);
    jw_key(w, "totals");
    values(w, t->total);
    jw_kstring(w, "sub", sub);
    jw_kstring(w, "note", note);
    jw_kstring(w, "calls", "stacks");
    jw_ku64(w, "files", before ? 2 : 1);
    jw_ku64(w, "parts", 1);
    jw_ku64(w, "threshold", 0);
    jw_ku64(w, "merged", 0);
    jw_ku64(w, "hidden", 0);
    jw_ku64(w, "unreached", 0);
    jw_ku64(w, "ctx", 0);
    write_funcs(w, t, before != NULL, fid);
    jw_karray(w, "e");
    /* each pair twice, as cg_page.c writes its rows: a row of the callee's callers (view 1)
     * and of the caller's callees (view 0); every call an outer one (kind 0): exact stacks */
    for (size_t k = 0; k < t->nedges; k++) {
        const struct atree_edge *ed = &t->edges[k];
        for (int view = 1; view >= 0; view--) {
            jw_break(w, "\n");
            jw_array_begin_lines(w, "", "");
            jw_u64(w, fid[ed->caller]);
            jw_u64(w, fid[ed->callee]);
            jw_u64(w, ed->stacks);
            values(w, ed->v);
            jw_u64(w, 0);
            jw_u64(w, (uint64_t)view);
            jw_end(w);
        }
    }
    jw_end(w);
    write_frames(w, t, before != NULL, fid);
    if (before) {
        jw_kobject(w, "diff");
        jw_key(w, "totals");
        values(w, t->btotal);
        jw_kstring(w, "command", before_what);
        jw_end(w);
    }
    jw_end(w);
}

int alloc_page_write(FILE *f, const struct astk_table *after, const struct astk_table *before,
                     const char *title, const char *what, const char *before_what,
                     struct err *e)
{
    struct atree t;
    if (atree_build(after, before, &t, e) < 0)
        return -1;
    uint32_t *fid = malloc(((size_t)t.nnames + 1) * sizeof *fid);
    if (!fid) {
        atree_free(&t);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>", f);
    xw_write_escaped(f, title);
    fputs("</title>\n<style>\n", f);
    fputs(cg_page_css_text, f);
    fputs("</style>\n</head>\n<body>\n", f);
    fputs(page_body, f);
    fputs("<script type=\"application/json\" id=\"cg-data\">", f);
    struct jw w;
    jw_init(&w, f);
    w.html = true;   /* no "</script>" or "<!--" in a name */
    write_data(&w, &t, after, before, title, what, before_what, fid);
    int rc = jw_done(&w, e);
    fputs("</script>\n<script>\n", f);
    fputs(cg_page_js_text, f);
    fputs("</script>\n</body>\n</html>\n", f);
    free(fid);
    atree_free(&t);
    return rc;
}
