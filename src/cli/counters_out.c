/* counters_out.c: the words and numbers commands print about perf_event_open counters. */
#include "cli/counters_out.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/out.h"

void counters_explain(const char *cmd, const struct ctr_set *s, bool as_note)
{
    const char *pre = as_note ? "note: " : "";
    bool done[CTR_MAX] = {false}, any = false, any_hw = false;
    for (int i = 0; i < s->n; i++) {
        if (!s->c[i].open_errno || done[i])
            continue;
        any = true;
        any_hw |= s->c[i].ev->source == CTR_HARDWARE;
        /* One line per reason: the events it stops, then the reason, errno last. */
        char names[1024] = "";
        for (int j = i; j < s->n; j++)
            if (s->c[j].open_errno && !done[j] && strcmp(s->c[j].why, s->c[i].why) == 0) {
                size_t len = strlen(names);
                snprintf(names + len, sizeof names - len, "%s'%s'", len ? ", " : "", s->c[j].label);
                done[j] = true;
            }
        cli_error(cmd, "%scannot count %s: %s", pre, names, s->c[i].why);
    }
    if (!any)
        return;
    if (s->paranoid == CTR_PARANOID_UNKNOWN)
        cli_error(cmd, "%sperf_event_paranoid: %s", pre, ctr_paranoid_meaning(s->paranoid));
    else
        cli_error(cmd, "%sperf_event_paranoid is %d: %s%s", pre, s->paranoid,
                  ctr_paranoid_meaning(s->paranoid),
                  s->privileged
                      ? " (tare has CAP_PERFMON or CAP_SYS_ADMIN, so it does not limit tare)"
                      : "");
    char sw[128];
    ctr_working_software(s->kernel, sw, sizeof sw);
    if (any_hw)
        cli_error(cmd, "%sfor deterministic counts (instructions, allocations) use 'tare count', "
                  "which does not need hardware counters%s%s", pre, sw[0] ? "; the software "
                  "events work here: tare stat --event " : "", sw);
    else if (sw[0])
        cli_error(cmd, "%sthe software events that work here: tare stat --event %s", pre, sw);
}

int counters_open_beside(const char *cmd, struct ctr_set *s, int pin_cpu, struct err *e)
{
    struct ctr_config cfg = {.pin_cpu = pin_cpu};
    if (ctr_set_init(s, &cfg, e) < 0)
        return -1;
    if (ctr_set_probe(s) > 0)
        counters_explain(cmd, s, true);
    return 0;
}

static void say_dropped(void *ctx, const struct ctr_counter *c)
{
    cli_error(ctx, "note: '%s' left out: %s", c->label, c->why);
}

void counters_drop_kernel_side(const char *cmd, struct ctr_set *s)
{
    ctr_set_drop_kernel_side(s, say_dropped, (void *)cmd);
}

const char *counters_fmt(char *buf, const struct ctr_counter *c, double v)
{
    if (isnan(v)) {
        snprintf(buf, FMT_BUF_MIN, "%s", "NA");
        return buf;
    }
    if (c->ev->unit && strcmp(c->ev->unit, "ns") == 0)
        return fmt_seconds(buf, v * 1e-9);
    return fmt_count(buf, v);
}

void counters_print_medians(FILE *f, const struct ctr_set *s, int nseries, const char *const *names,
                            struct ctr_sample *const *samples, const int *nruns)
{
    if (s->n == 0 || nseries <= 0)
        return;
    const char **h = calloc((size_t)nseries + 1, sizeof *h);
    if (!h)
        return;
    h[0] = "counter (median)";
    for (int k = 0; k < nseries; k++)
        h[k + 1] = names[k];
    struct table t;
    table_init(&t, nseries + 1, h, 0x1);
    bool any_scaled = false;
    char b[64];
    for (int i = 0; i < s->n; i++) {
        table_row(&t);
        table_set(&t, 0, "%s", s->c[i].label);
        for (int k = 0; k < nseries; k++) {
            if (s->c[i].open_errno) {
                table_set(&t, k + 1, "unavailable");
                continue;
            }
            bool sc = ctr_any_scaled(samples[k], nruns[k], i);
            any_scaled |= sc;
            table_set(&t, k + 1, "%s%s",
                      counters_fmt(b, &s->c[i], ctr_median(samples[k], nruns[k], i)),
                      sc ? "*" : "");
        }
    }
    fprintf(f, "\ncounters, %s:\n", s->kernel ? "user and kernel mode" : "user space only");
    table_print(&t, f, FMT_TEXT);
    if (any_scaled)
        fprintf(f, "* multiplexed: scaled from the share of time the counter ran\n");
    table_free(&t);
    free(h);
}
