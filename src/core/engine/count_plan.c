/* count_plan.c: tare count's jobs from its series, baselines by lane, and its limit rule. */
#include "core/engine/count_plan.h"

#include <stdlib.h>
#include <string.h>

struct count_job *count_jobs_make(const struct series *t, int n, int nhooked,
                                  const struct harness *h)
{
    struct count_job *jobs = calloc(n + 1, sizeof *jobs);
    if (!jobs)
        return NULL;
    for (int i = 0; i < n; i++) {
        jobs[i].name = t[i].name;
        jobs[i].argv = t[i].argv;
        jobs[i].env = t[i].env;
        struct session_cmds hk[HARNESS_NHOOKS] = {{0}};
        if (i < nhooked)
            harness_cmds(h, i % h->ncombo, hk);
        jobs[i].setup = hk[HARNESS_SETUP];
        jobs[i].prepare = hk[HARNESS_PREPARE];
        jobs[i].conclude = hk[HARNESS_CONCLUDE];
        jobs[i].cleanup = hk[HARNESS_CLEANUP];
    }
    return jobs;
}

int count_add_baselines(const struct series_spec *spec, const char *cmd, struct series **t,
                        int *n, struct err *e)
{
    struct series_spec bs = *spec;
    char *name = "baseline", *argv1[] = {(char *)cmd, NULL};
    bs.names = &name;
    bs.nnames = 1;
    struct series *b = NULL;
    int nb = 0;
    if (series_build(&bs, argv1, 1, false, &b, &nb, e) < 0)
        return -1;
    struct series *all = realloc(*t, (size_t)(*n + nb) * sizeof *all);
    if (!all) {
        series_free(b, nb);
        free(b);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    memcpy(all + *n, b, (size_t)nb * sizeof *b);
    free(b);
    *t = all;
    *n += nb;
    return 0;
}

void count_subtract_lanes(struct count_job *jobs, int nt, int nall, int ncombo)
{
    for (int i = 0; nall > nt && i < nt; i++)
        count_subtract(&jobs[i], &jobs[nt + (i / ncombo) % (nall - nt)]);
}

int count_limit_check(const struct count_job *j, const struct count_limits *l, uint64_t *v)
{
    *v = count_job_metric(j, l->metric);
    if (j->status != COUNT_OK || *v == COUNT_NA)
        return COUNT_LIMIT_NA;
    return (l->above && *v > l->above_n ? COUNT_LIMIT_ABOVE : 0) |
           (l->below && *v < l->below_n ? COUNT_LIMIT_BELOW : 0);
}
