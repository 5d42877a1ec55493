/* bisect.c: tare bisect's search, pure: the probe (build and count a commit) is the caller's. */
#include "core/bisect.h"

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
    int rc = probe(&s, 0);
    if (rc < 0)
        return -1;
    if (rc > 0)
        return err_set(e, ERR_MEASURE, "the good end cannot be measured");
    rc = probe(&s, n - 1);
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
    return search_one(&s);
}

void bisect_result_free(struct bisect_result *r)
{
    free(r->state);
    free(r->value);
    free(r->steps);
    memset(r, 0, sizeof *r);
}
