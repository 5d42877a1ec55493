/* history_check.c: the verdicts at one commit (history check, report, trend, the CI files):
 * every series' metrics judged by the step test, with the values compared and the tallies. */
#define _GNU_SOURCE
#include "core/history/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void hist_judge(const struct hist_series *s, int m, size_t point, const struct hist_check_opts *o,
                struct hist_judgement *j)
{
    struct hist_check_opts so = *o;
    double own = o->threshold_of ? o->threshold_of(s->name, o->threshold_ctx) : 0;
    if (own > 0)
        so.det_threshold = own;
    *j = (struct hist_judgement){.metric = m, .point = point, .step_point = point,
                                 .now = point < s->n ? s->v[m][point] : NAN,
                                 .prev = point > 0 && point <= s->n ? s->v[m][point - 1] : NAN};
    hist_check_point(s, m, point, &so, &j->st);
    struct hist_step *st = &j->st;
    if (st->found || st->pending)
        j->step_point = st->at;
    /* A count's fence is its threshold, also where nothing was compared (a chip's range). */
    if (hist_deterministic(s, m) && isnan(st->fence))
        st->fence = so.det_threshold;
    if (st->untested == HIST_NO_VALUE) {
        j->verdict = HIST_NA;
        j->failure = hist_failure(s, point);
    }
    else if (st->untested != HIST_TESTED)
        j->verdict = HIST_UNTESTED;
    else if (st->found)
        j->verdict = st->change > 0 ? HIST_REGRESSION : HIST_IMPROVEMENT;
    else if (st->pending)
        j->verdict = HIST_PENDING;
    else
        j->verdict = isnan(st->change) ? HIST_ECHO : HIST_SAME;
}

/* The point of series s at commit ci (its commits ascend), or s->n when it has none. */
static size_t point_at(const struct hist_series *s, size_t ci)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->commit[mid] < ci)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->commit[lo] == ci ? lo : s->n;
}

static bool ever_has(const struct hist_series *s, int m)
{
    for (size_t k = 0; k < s->n; k++)
        if (!isnan(s->v[m][k]))
            return true;
    return false;
}

int hist_check_commit(const struct hist_db *db, size_t ci, const struct hist_check_opts *o,
                      struct hist_check *out, struct err *e)
{
    *out = (struct hist_check){.commit = ci};
    int nm = hist_db_nmetrics(db);
    out->j = calloc(db->nseries * nm + 1, sizeof *out->j);
    if (!out->j)
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (size_t si = 0; si < db->nseries; si++) {
        const struct hist_series *s = &db->series[si];
        size_t at = point_at(s, ci);
        if (at == s->n) {
            out->nabsent++;   /* not run at this commit: not checked */
            continue;
        }
        out->nseries++;
        for (int m = 0; m < nm; m++) {
            if (!hist_alarms(s, m) || !ever_has(s, m))
                continue;
            struct hist_judgement *j = &out->j[out->n++];
            hist_judge(s, m, at, o, j);
            j->series = si;
            switch (j->verdict) {
            case HIST_NA: out->nna++; break;
            case HIST_UNTESTED: out->nskip++; break;
            case HIST_REGRESSION: out->nreg++; break;
            case HIST_IMPROVEMENT: out->nimp++; break;
            case HIST_PENDING: out->npend++; break;
            default: break;
            }
        }
    }
    out->ntested = out->n - out->nna - out->nskip;
    return 0;
}

void hist_check_free(struct hist_check *c)
{
    free(c->j);
    c->j = NULL;
    c->n = 0;
}

const char *hist_untested_why(const struct hist_step *st, bool terse, char *buf, size_t n)
{
    switch (st->untested) {
    case HIST_NO_VALUE: return "no value at this commit (NA)";
    case HIST_NO_EARLIER: return terse ? "no earlier value" : "no earlier value to compare with";
    case HIST_EARLIER_ZERO:
        return terse ? "the earlier value is 0"
                     : "the earlier value is 0: a change from 0 has no ratio";
    case HIST_TOO_FEW:
        snprintf(buf, n, terse ? "too few points: %zu of %zu"
                               : "too few points: %zu of the %zu a step test needs",
                 st->points, st->needed);
        return buf;
    default: return "";
    }
}
