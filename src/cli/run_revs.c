/* run_revs.c: tare run --revisions (run_revs.h) as people see it: the backfill is the
 * library's (core/engine/revs.h); this says what it does as it goes and what it did. */
#define _GNU_SOURCE
#include "cli/run_revs.h"

#include <stdio.h>

#include "cli/cli.h"

/* "1m20s" */
static const char *dur(char *buf, size_t n, double s)
{
    if (s >= 60)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, n, "%.1fs", s);
    return buf;
}

static void say_start(void *pctx, size_t npick, size_t total, int jobs)
{
    cli_error(pctx, "%zu of the range's %zu commits to measure, %d at a time", npick, total,
              jobs);
}

/* "[3/10] HASH subject: 2 of 5 series failed (1m20s); about 9m20s left" */
static void say_progress(void *pctx, const struct revs_event *ev)
{
    char a[32], b[32], fails[64] = "";
    if (ev->nobuild)
        snprintf(fails, sizeof fails, ": did not build, its rows NA");
    else if (ev->nfailed)
        snprintf(fails, sizeof fails, ": %d of %d series failed", ev->nfailed, ev->nseries);
    size_t left = ev->npick - ev->done;
    cli_error(pctx, "[%zu/%zu] %.12s %.50s%s (%s)%s%s%s", ev->done, ev->npick, ev->hash,
              ev->subject, fails, dur(a, sizeof a, ev->took), left ? "; about " : "",
              left ? dur(b, sizeof b, ev->elapsed / (double)ev->done * (double)left) : "",
              left ? " left" : "");
}

/* The end: what was measured, skipped, and each commit that did not build, once. */
static int summary(const char *cmd, const struct revs_opts *o, const struct revs_result *r)
{
    char a[32];
    printf("%zu of %zu commits measured in %s", r->done, r->total,
           dur(a, sizeof a, r->seconds));
    if (r->skipped)
        printf(", %zu already in the history (--skip-existing)", r->skipped);
    if (o->every > 1)
        printf(" (--every %d)", o->every);
    printf("\n");
    if (r->nnobuild) {
        printf("%zu commit%s did not build (rows NA, with the reason):\n", r->nnobuild,
               r->nnobuild == 1 ? "" : "s");
        for (size_t i = 0; i < r->nnobuild; i++)
            printf("  %.12s %s: %s\n", r->nobuild[i].hash, r->nobuild[i].subject,
                   r->nobuild[i].why);
    }
    if (r->nfailed_series)
        printf("%zu series failed at commits that built (rows NA, with the reason)\n",
               r->nfailed_series);
    if (r->stopped)
        return cli_fail(cmd, &r->err);
    return r->nnobuild || r->nfailed_series ? EXIT_FAIL : EXIT_OK;
}

int run_revisions(const char *cmd, const struct revs_opts *opts)
{
    struct revs_opts o = *opts;
    o.start = say_start;
    o.progress = say_progress;
    o.pctx = (void *)cmd;
    struct revs_result r;
    struct err e = {0};
    if (revs_run(&o, &r, &e) < 0)
        return cli_fail(cmd, &e);
    int status = summary(cmd, &o, &r);
    revs_result_free(&r);
    return status;
}
