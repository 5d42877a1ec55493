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

#include "cli/cg_graph.h"
#include "cli/out.h"
#include "core/profile/alloctree.h"
#include "core/util/json.h"

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

/* What write_data needs, through cg_page_html */
struct page_args {
    const struct atree *t;
    const struct astk_table *after, *before;
    const char *title, *what, *before_what;
    uint32_t *fid;
    struct err *e;
};

static int write_page_data(FILE *f, void *arg)
{
    struct page_args *a = arg;
    struct jw w;
    jw_init(&w, f);
    w.html = true;   /* no "</script>" or "<!--" in a name */
    write_data(&w, a->t, a->after, a->before, a->title, a->what, a->before_what, a->fid);
    return jw_done(&w, a->e);
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
    struct page_args a = {&t, after, before, title, what, before_what, fid, e};
    int rc = cg_page_html(f, title, "measure", write_page_data, &a);
    free(fid);
    atree_free(&t);
    return rc;
}
