/* timing.c: a timed series' summary, its cold first run, and series against a base. */
#include "core/engine/timing.h"

#include <math.h>
#include <stdlib.h>

#include "core/util/stats.h"

struct timing_summary timing_summarize(const struct session_series *s)
{
    struct timing_summary m = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1};
    if (s->state != SESSION_OK || s->n == 0)
        return m;
    m.median = stats_median(s->wall_s, s->n);
    m.min = stats_min(s->wall_s, s->n);
    m.max = stats_max(s->wall_s, s->n);
    m.mad = stats_mad(s->wall_s, s->n);
    m.user = stats_median(s->user_s, s->n);
    m.sys = stats_median(s->sys_s, s->n);
    m.mean = stats_mean(s->wall_s, s->n);
    m.stddev = stats_stddev(s->wall_s, s->n);
    for (int i = 0; i < s->n; i++)
        if (s->max_rss_kb[i] > m.rss_kb)
            m.rss_kb = s->max_rss_kb[i];
    return m;
}

enum timing_cold timing_cold(const struct session_series *s, double *first, double *median)
{
    struct timing_summary m = timing_summarize(s);
    if (isnan(m.median))
        return TIMING_WARM;
    if (!isnan(s->warm_first)) {
        *first = s->warm_first;
        *median = m.median;
        return s->warm_first > m.median + TIMING_COLD_MADS * m.mad &&
               s->warm_first > TIMING_COLD_RATIO * m.median ? TIMING_COLD_WARMUP : TIMING_WARM;
    }
    if (s->n < 3)
        return TIMING_WARM;
    double rest = stats_median(s->wall_s + 1, s->n - 1);
    double mad = stats_mad(s->wall_s + 1, s->n - 1);
    *first = s->wall_s[0];
    *median = rest;
    return s->wall_s[0] > rest + TIMING_COLD_MADS * mad && s->wall_s[0] > TIMING_COLD_RATIO * rest
           ? TIMING_COLD_FIRST : TIMING_WARM;
}

void timing_relative_one(const struct session_series *s, const struct session_series *base,
                         struct timing_relative *r)
{
    *r = (struct timing_relative){.done = true, .verdict = "same", .shift = NAN, .low = NAN,
                                  .high = NAN, .confidence = NAN};
    r->ratio = stats_median(s->wall_s, s->n) / stats_median(base->wall_s, base->n);
    double *lb = malloc(base->n * sizeof *lb), *ls = malloc(s->n * sizeof *ls);
    struct stats_shift sh;
    int rc = -1;
    if (lb && ls) {   /* a time budget can make many runs: not on the stack */
        for (int i = 0; i < base->n; i++)
            lb[i] = log(base->wall_s[i] > 0 ? base->wall_s[i] : 1e-9);
        for (int i = 0; i < s->n; i++)
            ls[i] = log(s->wall_s[i] > 0 ? s->wall_s[i] : 1e-9);
        rc = stats_hl_shift(lb, base->n, ls, s->n, TIMING_RELATIVE_ALPHA, &sh);
    }
    free(lb);
    free(ls);
    if (rc < 0) {   /* out of memory, or past STATS_SHIFT_MAX differences */
        r->none = "too many runs for the interval";
        return;
    }
    r->shift = exp(sh.estimate);
    if (isnan(sh.confidence)) {
        r->none = "too few runs for an interval: 4 or more each";
        return;
    }
    r->low = exp(sh.low);
    r->high = exp(sh.high);
    r->confidence = sh.confidence;
    r->verdict = r->low > 1 ? "slower" : r->high < 1 ? "faster" : "same";
}

void timing_relative_all(const struct session_series *s, int n,
                         const struct session_series *ref, struct timing_relative **rel,
                         const struct session_series **base_out)
{
    int ok = 0;
    const struct session_series *base = NULL;
    *rel = NULL;
    *base_out = NULL;
    for (int k = 0; k < n; k++) {
        const struct session_series *x = &s[k];
        if (x->state != SESSION_OK || x->n == 0)
            continue;
        ok++;
        if (!ref && (!base || stats_median(x->wall_s, x->n) <
                                  stats_median(base->wall_s, base->n)))
            base = x;
    }
    if (ref)
        base = ref->state == SESSION_OK && ref->n > 0 ? ref : NULL;
    if (ok < 2 || !base || !(*rel = calloc(n, sizeof **rel)))
        return;
    *base_out = base;
    for (int k = 0; k < n; k++)
        if (&s[k] != base && s[k].state == SESSION_OK && s[k].n > 0)
            timing_relative_one(&s[k], base, &(*rel)[k]);
}
