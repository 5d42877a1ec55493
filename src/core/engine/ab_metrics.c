/* ab_metrics.c: tare ab's per-counter verdict on the programs' own counters (ab_metrics.h). */
#include "core/engine/ab_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* One counter, m from A and/or B (NULL where the side lacks it). */
static void judge_one(const struct metrics *a, const struct metric *ma, const struct metrics *b,
                      const struct metric *mb, struct ab_metric *out)
{
    snprintf(out->name, sizeof out->name, "%s", ma ? ma->name : mb->name);
    out->c = (struct ab_count){.med = {NAN, NAN}, .spread = {NAN, NAN}, .lo = {NAN, NAN},
                               .hi = {NAN, NAN}, .ratio = NAN, .change = AB_CHANGE_NA};
    out->n[0] = ma ? ma->nv : 0;
    out->n[1] = mb ? mb->nv : 0;
    out->varied[0] = ma && ma->varied;
    out->varied[1] = mb && mb->varied;
    const struct metric *m[2] = {ma, mb};
    const struct metrics *ms[2] = {a, b};
    for (int k = 0; k < 2; k++)
        if (m[k]) {   /* each side's own figures, even without a verdict */
            double *v = malloc((size_t)m[k]->nv * sizeof *v);
            for (int i = 0; v && i < m[k]->nv; i++)
                v[i] = (double)m[k]->v[i];
            struct ab_count one;
            if (v) {
                ab_count_judge(v, v, m[k]->nv, false, &one);
                out->c.med[k] = one.med[0];
                out->c.spread[k] = one.spread[0];
                out->c.lo[k] = one.lo[0];
                out->c.hi[k] = one.hi[0];
            }
            free(v);
        }
    if (!ma || !mb) {
        out->why = ma ? "only in A" : "only in B";
        return;
    }
    for (int k = 0; k < 2; k++)
        if (m[k]->nv < ms[k]->nruns) {
            out->why = k ? "not in every run of B" : "not in every run of A";
            return;
        }
    if (ma->nv < 2 || mb->nv < 2) {
        out->why = "one reading a side: no spread to judge against";
        return;
    }
    long n = ma->nv < mb->nv ? ma->nv : mb->nv;
    double *va = malloc((size_t)n * sizeof *va), *vb = malloc((size_t)n * sizeof *vb);
    if (!va || !vb) {
        free(va);
        free(vb);
        out->why = "out of memory";
        return;
    }
    /* Equal numbers of readings (the same runs on each side); else each side's middle n. */
    for (long i = 0; i < n; i++) {
        va[i] = (double)ma->v[(ma->nv - n) / 2 + i];
        vb[i] = (double)mb->v[(mb->nv - n) / 2 + i];
    }
    /* A counter's own readings say whether it varies (ab's rule for a count that does). */
    ab_count_judge(va, vb, n, false, &out->c);
    if (out->c.change == AB_CHANGE_UNKNOWN)
        out->why = "it varies: a verdict needs every reading of B past every reading of A, in "
                   STR(AB_COUNT_VARY_RUNS) " readings a side at least";
    free(va);
    free(vb);
}

int ab_metrics_judge(const struct metrics *a, const struct metrics *b, struct ab_metrics *out,
                     struct err *e)
{
    *out = (struct ab_metrics){0};
    if (!(out->m = calloc((size_t)(a->n + b->n) + 1, sizeof *out->m)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int i = 0; i < a->n; i++)
        judge_one(a, &a->m[i], b, metrics_find(b, a->m[i].name), &out->m[out->n++]);
    for (int i = 0; i < b->n; i++)
        if (!metrics_find(a, b->m[i].name))
            judge_one(a, NULL, b, &b->m[i], &out->m[out->n++]);
    return 0;
}

void ab_metrics_free(struct ab_metrics *m)
{
    free(m->m);
    *m = (struct ab_metrics){0};
}
