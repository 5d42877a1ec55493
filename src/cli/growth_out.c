/* growth_out.c: how tare count shows its growth fits (core/engine/growth.h): text, a table, JSON.
 * */
#define _GNU_SOURCE
#include "cli/growth_out.h"

#include "cli/out.h"
#include "core/util/json.h"

void growth_print_text(FILE *f, const struct growth *g, int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(f, "growth of '%s' over %s from %s to %s (%d values; least squares on "
                "log-log):\n", out_vis(g[i].series), out_vis(g[i].param), out_vis(g[i].from),
                out_vis(g[i].to), g[i].nvalues);
        for (int m = 0; m < GROWTH_NMETRICS; m++) {
            if (g[i].why[m][0])
                fprintf(f, "  %s: not fitted: %s\n", growth_metric_names[m], g[i].why[m]);
            else
                fprintf(f, "  %s grow as %s^%.2f (fit R^2 %.6f)\n", growth_metric_names[m],
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
            table_set(&t, 5, "%s", growth_metric_names[m]);
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
            jw_kobject(w, growth_metric_names[m]);
            jw_kdouble(w, "exponent", g[i].k[m]);
            jw_kdouble(w, "r2", g[i].r2[m]);
            jw_kstring(w, "why", g[i].why[m][0] ? g[i].why[m] : NULL);
            jw_end(w);
        }
        jw_end(w);
    }
    jw_end(w);
}
