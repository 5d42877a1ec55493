/* growth.c: tare count over a numeric parameter: cost ~ n^k fitted on log-log, per series. */
#define _GNU_SOURCE
#include "core/engine/growth.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/stats.h"

const char *const growth_metric_names[GROWTH_NMETRICS] = {"instructions", "allocations",
                                                          "bytes"};

/* True when every value of parameter p is a finite number above 0. */
static bool numeric(const struct harness_param *p, double *v)
{
    for (int i = 0; i < p->n; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(p->values[i], &end);
        if (end == p->values[i] || *end || errno || !isfinite(v[i]) || !(v[i] > 0))
            return false;
    }
    return true;
}

static uint64_t metric(const struct count_job *j, int m)
{
    return m == GROWTH_INSTRUCTIONS ? j->instructions
           : m == GROWTH_ALLOCATIONS ? j->allocations : j->bytes;
}

/* The series' name without parameter i: the target's name less its combination's label,
 * then the other parameters' values. */
static char *growth_base_name(const struct harness *h, const struct series *t, int combo, int i)
{
    const struct harness_combo *co = &h->combo[combo];
    size_t base = strlen(t->name) - strlen(co->label) - (co->label[0] ? 1 : 0);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    fprintf(f, "%.*s", (int)base, t->name);
    for (int j = 0; j < h->nparam; j++)
        if (j != i)
            fprintf(f, " %s=%s", h->param[j].var, h->param[j].values[co->pick[j]]);
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* One series' fit over parameter i: the jobs at idx[0 .. n). */
static void fit_one(struct growth *g, const struct harness_param *p, const double *x,
                    double *y, const struct count_job *jobs, const int *idx)
{
    int n = p->n;
    for (int m = 0; m < GROWTH_NMETRICS; m++) {
        g->k[m] = g->r2[m] = NAN;
        g->why[m][0] = '\0';
        int v = 0;
        for (; v < n; v++) {
            const struct count_job *j = &jobs[idx[v]];
            uint64_t c = metric(j, m);
            if (j->status != COUNT_OK || c == COUNT_NA || c == 0)
                break;
            y[v] = (double)c;
        }
        if (v < n) {
            const struct count_job *j = &jobs[idx[v]];
            snprintf(g->why[m], sizeof g->why[m], "%s at %s=%s", j->status != COUNT_OK
                     ? "the series failed" : metric(j, m) == 0 ? "0" : "NA", p->var,
                     p->values[v]);
            continue;
        }
        if (stats_power_fit(x, y, n, &g->k[m], &g->r2[m]) < 0)
            snprintf(g->why[m], sizeof g->why[m], "no fit");
    }
}

int growth_fit(const struct harness *h, const struct count_job *jobs, const struct series *t,
               int nt, struct growth **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    int nc = h->ncombo, ng = 0, cap = 0;
    struct growth *g = NULL;
    /* Room for the values of any parameter: x, y and the series' jobs. */
    int most = 0;
    for (int i = 0; i < h->nparam; i++)
        if (h->param[i].n > most)
            most = h->param[i].n;
    double *x = malloc((most + 1) * sizeof *x), *y = malloc((most + 1) * sizeof *y);
    int *idx = malloc((most + 1) * sizeof *idx);
    if (!x || !y || !idx)
        goto nomem;
    for (int i = 0; i < h->nparam; i++) {
        const struct harness_param *p = &h->param[i];
        if (p->n < 3 || !numeric(p, x))
            continue;
        int stride = 1;   /* the first parameter varies slowest */
        for (int j = i + 1; j < h->nparam; j++)
            stride *= h->param[j].n;
        for (int r = 0; r < nt / nc; r++)
            for (int c = 0; c < nc; c++) {
                if (h->combo[c].pick[i] != 0)
                    continue;
                if (ng == cap) {
                    cap = cap ? 2 * cap : 8;
                    struct growth *ng_ = realloc(g, cap * sizeof *g);
                    if (!ng_)
                        goto nomem;
                    g = ng_;
                }
                for (int v = 0; v < p->n; v++)
                    idx[v] = r * nc + c + v * stride;
                struct growth *x1 = &g[ng];
                *x1 = (struct growth){.param = p->var, .nvalues = p->n, .from = p->values[0],
                                      .to = p->values[p->n - 1]};
                if (!(x1->series = growth_base_name(h, &t[r * nc + c], c, i)))
                    goto nomem;
                ng++;
                fit_one(x1, p, x, y, jobs, idx);
            }
    }
    free(x);
    free(y);
    free(idx);
    *out = g;
    *nout = ng;
    return 0;
nomem:
    free(x);
    free(y);
    free(idx);
    growth_free(g, ng);
    return -1;
}

void growth_free(struct growth *g, int n)
{
    for (int i = 0; g && i < n; i++)
        free(g[i].series);
    free(g);
}

