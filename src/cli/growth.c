/* growth.c: tare count over a numeric parameter: cost ~ n^k fitted on log-log, per series. */
#define _GNU_SOURCE
#include "cli/growth.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/stats.h"

static const char *const metric_names[GROWTH_NMETRICS] = {"instructions", "allocations",
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
static char *growth_base_name(const struct harness *h, const struct target *t, int combo, int i)
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
                    const struct count_job *jobs, const int *idx)
{
    int n = p->n;
    double y[n];
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

int growth_fit(const struct harness *h, const struct count_job *jobs, const struct target *t,
               int nt, struct growth **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    int nc = h->ncombo, ng = 0, cap = 0;
    struct growth *g = NULL;
    for (int i = 0; i < h->nparam; i++) {
        const struct harness_param *p = &h->param[i];
        double x[p->n];
        if (p->n < 3 || !numeric(p, x))
            continue;
        int stride = 1;   /* the first parameter varies slowest */
        for (int j = i + 1; j < h->nparam; j++)
            stride *= h->param[j].n;
        int idx[p->n];
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
                fit_one(x1, p, x, jobs, idx);
            }
    }
    *out = g;
    *nout = ng;
    return 0;
nomem:
    growth_free(g, ng);
    return -1;
}

void growth_free(struct growth *g, int n)
{
    for (int i = 0; g && i < n; i++)
        free(g[i].series);
    free(g);
}

void growth_print_text(FILE *f, const struct growth *g, int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(f, "growth of '%s' over %s from %s to %s (%d values; least squares on "
                "log-log):\n", out_vis(g[i].series), out_vis(g[i].param), out_vis(g[i].from),
                out_vis(g[i].to), g[i].nvalues);
        for (int m = 0; m < GROWTH_NMETRICS; m++) {
            if (g[i].why[m][0])
                fprintf(f, "  %s: not fitted: %s\n", metric_names[m], g[i].why[m]);
            else
                fprintf(f, "  %s grow as %s^%.2f (fit R^2 %.6f)\n", metric_names[m],
                        g[i].param, g[i].k[m], g[i].r2[m]);
        }
    }
}

void growth_print_table(FILE *f, const struct growth *g, int n, enum out_format fmt)
{
    static const char *const h[] = {"series", "parameter", "values", "from", "to", "metric",
                                    "exponent", "r2"};
    if (n == 0)
        return;
    struct table t;
    table_init(&t, 8, h, 0x3f);
    char b[64];
    for (int i = 0; i < n; i++)
        for (int m = 0; m < GROWTH_NMETRICS; m++) {
            table_row(&t);
            table_set(&t, 0, "%s", g[i].series);
            table_set(&t, 1, "%s", g[i].param);
            table_set(&t, 2, "%d", g[i].nvalues);
            table_set(&t, 3, "%s", g[i].from);
            table_set(&t, 4, "%s", g[i].to);
            table_set(&t, 5, "%s", metric_names[m]);
            table_set(&t, 6, "%s", fmt_num(b, g[i].k[m]));
            table_set(&t, 7, "%s", fmt_num(b, g[i].r2[m]));
        }
    fputc('\n', f);
    table_print(&t, f, fmt);
    table_free(&t);
}

void growth_print_json(struct jw *w, const struct growth *g, int n)
{
    jw_key(w, "growth");
    jw_array_begin_lines(w, "\n  ", "\n");
    for (int i = 0; i < n; i++) {
        jw_object_begin(w);
        jw_kstring(w, "series", g[i].series);
        jw_kstring(w, "parameter", g[i].param);
        jw_ki64(w, "values", g[i].nvalues);
        jw_kstring(w, "from", g[i].from);
        jw_kstring(w, "to", g[i].to);
        for (int m = 0; m < GROWTH_NMETRICS; m++) {
            jw_kobject(w, metric_names[m]);
            jw_kdouble(w, "exponent", g[i].k[m]);
            jw_kdouble(w, "r2", g[i].r2[m]);
            jw_kstring(w, "why", g[i].why[m][0] ? g[i].why[m] : NULL);
            jw_end(w);
        }
        jw_end(w);
    }
    jw_end(w);
}
