/* bisect.c: tare bisect's search, pure: the probe (build and count a commit) is the caller's. */
#include "core/history/bisect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct search {
    const struct bisect_opts *o;
    struct bisect_result *r;
    struct err *e;
    double good, sign;
};

/* 0 measured, 1 skipped, -1 stop. */
static int probe(struct search *s, int i)
{
    struct bisect_result *r = s->r;
    double v = 0;
    r->probes++;
    int rc = s->o->probe(s->o->ctx, i, &v, s->e);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        r->state[i] = BISECT_SKIPPED;
        r->skipped++;
        return 1;
    }
    r->state[i] = BISECT_MEASURED;
    r->value[i] = v;
    return 0;
}

/* The unprobed commit strictly between a and b nearest their middle, or -1 if none. */
static int pick(const struct bisect_result *r, int a, int b)
{
    int mid = a + (b - a) / 2;
    for (int d = 0; d < b - a; d++) {
        int c[2] = {mid + d, mid - d};
        for (int k = 0; k < (d ? 2 : 1); k++)
            if (c[k] > a && c[k] < b && r->state[c[k]] == BISECT_UNKNOWN)
                return c[k];
    }
    return -1;
}

/* Probes commits between a and b until one is measured: its index, -1 when none is left
 * (all skipped), -2 when the search must stop. */
static int probe_between(struct search *s, int a, int b)
{
    for (;;) {
        int m = pick(s->r, a, b);
        if (m < 0)
            return -1;
        int rc = probe(s, m);
        if (rc < 0)
            return -2;
        if (rc == 0)
            return m;
    }
}

static int add_step(struct search *s, int before, int first)
{
    struct bisect_result *r = s->r;
    struct bisect_step *p = realloc(r->steps, (size_t)(r->nsteps + 1) * sizeof *p);
    if (!p)
        return err_set(s->e, ERR_SYSTEM, "out of memory");
    r->steps = p;
    p[r->nsteps++] = (struct bisect_step){.before = before, .first = first,
                                          .before_value = r->value[before],
                                          .after_value = r->value[first],
                                          .exact = first == before + 1};
    return 0;
}

/* One step: the first commit whose value moved past the threshold toward the bad end. */
static int search_one(struct search *s)
{
    struct bisect_result *r = s->r;
    int lo = 0, hi = r->n - 1;
    for (;;) {
        int m = probe_between(s, lo, hi);
        if (m == -2)
            return -1;
        if (m < 0)
            break;
        if (s->sign * (r->value[m] - s->good) > r->threshold)
            hi = m;
        else
            lo = m;
    }
    return add_step(s, lo, hi);
}

/* Probes idx[0..k-1] at once: 0, or -1 to stop. */
static int probe_batch(struct search *s, const int *idx, int k)
{
    struct bisect_result *r = s->r;
    double v[BISECT_JOBS_MAX];
    int rc[BISECT_JOBS_MAX];
    r->probes += k;
    if (s->o->probe_many(s->o->ctx, idx, k, v, rc, s->e) < 0)
        return -1;
    for (int j = 0; j < k; j++) {
        if (rc[j] > 0) {
            r->state[idx[j]] = BISECT_SKIPPED;
            r->skipped++;
        } else {
            r->state[idx[j]] = BISECT_MEASURED;
            r->value[idx[j]] = v[j];
        }
    }
    return 0;
}

/* The unprobed commit strictly between a and b nearest t and not in taken[0..k-1], or -1. */
static int pick_near(const struct bisect_result *r, int a, int b, int t, const int *taken,
                     int k)
{
    for (int d = 0; d < b - a; d++)
        for (int sgn = 0; sgn < (d ? 2 : 1); sgn++) {
            int c = sgn ? t - d : t + d;
            bool used = false;
            for (int j = 0; j < k; j++)
                used |= taken[j] == c;
            if (c > a && c < b && r->state[c] == BISECT_UNKNOWN && !used)
                return c;
        }
    return -1;
}

static bool moved(const struct search *s, int i)
{
    return s->sign * (s->r->value[i] - s->good) > s->r->threshold;
}

/* search_one, k-ary: up to jobs cut points of the open part probed at once per round. */
static int search_k(struct search *s)
{
    struct bisect_result *r = s->r;
    int jobs = s->o->jobs, lo = 0, hi = r->n - 1;
    int idx[BISECT_JOBS_MAX];
    for (;;) {
        int k = 0;
        for (int j = 1; j <= jobs; j++) {
            int t = lo + (int)(((long)(hi - lo) * j + (jobs + 1) / 2) / (jobs + 1));
            int c = pick_near(r, lo, hi, t, idx, k);
            if (c >= 0)
                idx[k++] = c;
        }
        if (k == 0)
            break;
        if (probe_batch(s, idx, k) < 0)
            return -1;
        int nhi = hi;
        for (int i = lo + 1; i < hi; i++)
            if (r->state[i] == BISECT_MEASURED && moved(s, i)) {
                nhi = i;
                break;
            }
        for (int i = nhi - 1; i > lo; i--)
            if (r->state[i] == BISECT_MEASURED && !moved(s, i)) {
                lo = i;
                break;
            }
        hi = nhi;
    }
    return add_step(s, lo, hi);
}

int bisect_max_builds(int n, int jobs)
{
    int builds = 2;
    for (int m = n - 2; m > 0;) {
        int p = m < jobs ? m : jobs;
        builds += p;
        m = (m - p + jobs) / (jobs + 1);
    }
    return builds;
}

/* Every step between a and b (both measured), in order. */
static int search_all(struct search *s, int a, int b)
{
    struct bisect_result *r = s->r;
    if (fabs(r->value[b] - r->value[a]) <= r->threshold)
        return 0;
    int m = probe_between(s, a, b);
    if (m == -2)
        return -1;
    if (m < 0)
        return add_step(s, a, b);
    if (search_all(s, a, m) < 0)
        return -1;
    return search_all(s, m, b);
}

int bisect_run(int n, const struct bisect_opts *o, struct bisect_result *r, struct err *e)
{
    memset(r, 0, sizeof *r);
    if (n < 2)
        return err_set(e, ERR_INPUT, "the range has no commit after the good one");
    r->n = n;
    r->state = calloc((size_t)n, sizeof *r->state);
    r->value = calloc((size_t)n, sizeof *r->value);
    if (!r->state || !r->value)
        return err_set(e, ERR_SYSTEM, "out of memory");
    struct search s = {.o = o, .r = r, .e = e};
    if (o->jobs > BISECT_JOBS_MAX)
        return err_set(e, ERR_INPUT, "at most %d probes at once, not %d", BISECT_JOBS_MAX,
                       o->jobs);
    bool k_ary = o->jobs > 1 && o->probe_many && !o->all_steps;
    int rc;
    if (k_ary) {
        int ends[2] = {0, n - 1};
        if (probe_batch(&s, ends, 2) < 0)
            return -1;
        if (r->state[0] == BISECT_SKIPPED)
            return err_set(e, ERR_MEASURE, "the good end cannot be measured");
        rc = r->state[n - 1] == BISECT_SKIPPED;
    } else {
        rc = probe(&s, 0);
        if (rc < 0)
            return -1;
        if (rc > 0)
            return err_set(e, ERR_MEASURE, "the good end cannot be measured");
        rc = probe(&s, n - 1);
    }
    if (rc < 0)
        return -1;
    if (rc > 0)
        return err_set(e, ERR_MEASURE, "the bad end cannot be measured");
    s.good = r->value[0];
    double change = r->value[n - 1] - s.good;
    s.sign = change < 0 ? -1 : 1;
    double floor = 0.01 * fabs(s.good);
    if (o->threshold_rel > 0)
        r->threshold = o->threshold_rel * fabs(s.good);
    else if (o->threshold > 0)
        r->threshold = o->threshold;
    else if (o->all_steps)
        r->threshold = floor;
    else
        r->threshold = fmax(fabs(change) / 2, floor);
    if (o->all_steps)
        return search_all(&s, 0, n - 1);
    if (fabs(change) <= r->threshold)
        return 0;
    return k_ary ? search_k(&s) : search_one(&s);
}

void bisect_result_free(struct bisect_result *r)
{
    free(r->state);
    free(r->value);
    free(r->steps);
    memset(r, 0, sizeof *r);
}
