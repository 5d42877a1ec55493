/* session.c: the measuring engine: warm-up and measured rounds of a plan's series, in order. */
#define _GNU_SOURCE
#include "core/engine/session.h"
#include "core/util/words.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *session_state_name(enum session_state st)
{
    return st == SESSION_OK ? "ok" : st == SESSION_TIMEOUT ? "timeout" : "failed";
}

const char *session_stop_name(enum session_stop st)
{
    static const char *const names[] = {
        [SESSION_STOP_RUNS] = "runs", [SESSION_STOP_DECIDED] = "decided",
        [SESSION_STOP_MAX_TIME] = "max-time", [SESSION_STOP_MAX_RUNS] = "max-runs",
        [SESSION_STOP_MIN_TIME] = "min-time",
    };
    return st >= 0 && st <= SESSION_STOP_MIN_TIME ? names[st] : "?";
}

const char *session_failure_why(const struct session_failure *f, char *buf, size_t n)
{
    const char *phase = f->warmup ? "warm-up" : "measured";
    if (!f->hook)
        snprintf(buf, n, "%s in %s run %ld", f->what, phase, f->run);
    else if (f->run == 0)
        snprintf(buf, n, "%s failed: '%s' %s", f->hook, f->hook_cmd, f->what);
    else
        snprintf(buf, n, "%s failed: '%s' %s %s %s run %ld", f->hook, f->hook_cmd, f->what,
                 strcmp(f->hook, "prepare") == 0 ? "before" : "after", phase, f->run);
    return buf;
}

int session_looks_planned(long first, long max)
{
    int k = 1;
    for (long n = first; n < max; n = n * 2 < max ? n * 2 : max)
        k++;
    return k;
}

/* The error's subject: "'NAME'" or "LABEL 'NAME'". */
static int prefix(struct err *e, const struct session_series *x)
{
    if (x->label)
        return err_prefix(e, "%s '%s'", x->label, x->name);
    return err_prefix(e, "'%s'", x->name);
}

int session_init(struct session *s, const struct session_plan *plan, struct err *e)
{
    *s = (struct session){.plan = plan};
    if (plan->nseries < 1)
        return 0;   /* nothing to run: an empty shard of a suite */
    for (int k = 1; k < plan->nseries; k++)
        for (int j = 0; j < k - 1; j++)
            if (plan->series[j].group == plan->series[k].group &&
                plan->series[k - 1].group != plan->series[k].group)
                return err_set(e, ERR_INPUT, "series of group %d are not adjacent",
                               plan->series[k].group);
    const struct session_looks *lk = plan->looks;
    if (lk && (lk->first < 1 || lk->max < lk->first || !lk->look ||
               plan->series[0].group != plan->series[plan->nseries - 1].group))
        return err_set(e, ERR_INPUT, "sequential looks want one group and 1 <= first <= max");
    if (plan->min_time_s < 0 || (plan->min_time_s > 0 && plan->max_runs > 0 &&
                                 plan->max_runs < plan->runs))
        return err_set(e, ERR_INPUT, "a time budget wants min_time_s >= 0 and runs <= max_runs");
    long cap = lk ? lk->max : plan->runs;
    if (cap < 1)
        cap = 1;
    for (int k = 0; k < plan->nseries; k++) {
        struct session_series *x = &plan->series[k];
        x->state = SESSION_OK;
        x->n = 0;
        x->warm_first = NAN;
        x->cap = cap;
        x->wall_s = calloc(cap, sizeof *x->wall_s);
        x->user_s = calloc(cap, sizeof *x->user_s);
        x->sys_s = calloc(cap, sizeof *x->sys_s);
        x->max_rss_kb = calloc(cap, sizeof *x->max_rss_kb);
        x->exit_code = calloc(cap, sizeof *x->exit_code);
        x->ctr = plan->ctr ? calloc(cap, sizeof *x->ctr) : NULL;
        if (!x->wall_s || !x->user_s || !x->sys_s || !x->max_rss_kb || !x->exit_code ||
            (plan->ctr && !x->ctr)) {
            session_free(s);
            return err_set(e, ERR_SYSTEM, "out of memory");
        }
    }
    return 0;
}

void session_free(struct session *s)
{
    const struct session_plan *plan = s->plan;
    for (int k = 0; plan && k < plan->nseries; k++) {
        struct session_series *x = &plan->series[k];
        free(x->wall_s);
        free(x->user_s);
        free(x->sys_s);
        free(x->max_rss_kb);
        free(x->exit_code);
        free(x->ctr);
        metrics_free(&x->metrics);
        x->wall_s = x->user_s = x->sys_s = NULL;
        x->max_rss_kb = NULL;
        x->exit_code = NULL;
        x->ctr = NULL;
    }
}

int session_hooks_run(const struct session_cmds *c, const char *which,
                      const struct session_hook_env *h, long iteration,
                      struct session_failure *f, struct err *e)
{
    if (c->n == 0)
        return 0;
    size_t nenv = 0;
    while (h->env && h->env[nenv])
        nenv++;
    char iter[48], *series = NULL;
    snprintf(iter, sizeof iter, "TARE_ITERATION=%ld", iteration);
    char **env = calloc(nenv + 3, sizeof *env);
    if (!env || asprintf(&series, "TARE_SERIES=%s", h->series) < 0) {
        free(env);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    for (size_t i = 0; i < nenv; i++)
        env[i] = h->env[i];
    env[nenv] = iter;
    env[nenv + 1] = series;
    int rc = 0;
    for (int i = 0; i < c->n && rc == 0; i++) {
        struct proc_opts o = {
            .argv = c->argv[i], .env_set = env, .cwd = h->cwd, .timeout_s = h->timeout_s,
            .pin_cpu = -1, .show_output = h->show_output,
        };
        struct proc_result r;
        struct err why = {0};
        int started = proc_run(&o, &r, &why);
        if (proc_stopping() || (started == 0 && r.status == PROC_INTERRUPTED)) {
            rc = err_set(e, ERR_INTERRUPTED, "interrupted");
            break;
        }
        if (started == 0 && r.status == PROC_OK)
            continue;
        *f = (struct session_failure){.hook = which};
        if (started < 0) {
            f->status = PROC_EXITED;
            snprintf(f->what, sizeof f->what, "could not start: %.100s", why.msg);
        } else {
            f->status = r.status;
            proc_describe(&r, h->timeout_s, f->what, sizeof f->what);
            memcpy(f->tail, r.stderr_tail, sizeof f->tail);
        }
        char *cmd = words_join(c->argv[i]);
        snprintf(f->hook_cmd, sizeof f->hook_cmd, "%s", cmd ? cmd : c->argv[i][0]);
        free(cmd);
        rc = 1;
    }
    free(series);
    free(env);
    return rc;
}

/*
 * Runs one list of hook commands of series x, never timed. 0 when all succeeded, 1 when one
 * failed (x is then failed, with the record), -1 when tare cannot go on (interrupted).
 */
static int run_hooks(const struct session_plan *p, struct session_series *x, const char *which,
                     const struct session_cmds *c, bool warmup, long run, struct err *e)
{
    struct session_hook_env h = {
        .env = x->env, .cwd = x->cwd, .series = x->name, .timeout_s = p->timeout_s,
        .show_output = p->show_output,
    };
    struct session_failure f;
    int rc = session_hooks_run(c, which, &h, warmup ? -run : run, &f, e);
    if (rc > 0 && x->state == SESSION_OK) {   /* the first failure is the one to tell */
        x->state = f.status == PROC_TIMEOUT ? SESSION_TIMEOUT : SESSION_FAILED;
        f.warmup = warmup;
        f.run = run;
        x->fail = f;
    }
    return rc;
}

/* After a series failed (how: " failed" for its run, "" for a hook, whose record says so):
 * 0, or with stop_on_failure the error that ends the session. */
static int series_failed(const struct session_plan *p, const struct session_series *x,
                         const char *how, struct err *e)
{
    if (!p->stop_on_failure)
        return 0;
    char why[512];
    session_failure_why(&x->fail, why, sizeof why);
    if (x->label)
        return err_set(e, ERR_MEASURE, "%s '%s'%s: %s", x->label, x->name, how, why);
    return err_set(e, ERR_MEASURE, "'%s'%s: %s", x->name, how, why);
}

/* *arr (a malloc'd array of elem-sized items) resized to cap items; false (unchanged) when out
 * of memory. */
static bool resize(void *arr, size_t elem, long cap)
{
    void **p = arr, *q = realloc(*p, (size_t)cap * elem);
    if (q)
        *p = q;
    return q != NULL;
}

/* Room for one more measured run of x: the arrays doubled when full (a time budget). */
static int grow(const struct session_plan *p, struct session_series *x, struct err *e)
{
    if (x->n < x->cap)
        return 0;
    long cap = x->cap * 2;
    if (!resize(&x->wall_s, sizeof *x->wall_s, cap) ||
        !resize(&x->user_s, sizeof *x->user_s, cap) || !resize(&x->sys_s, sizeof *x->sys_s, cap) ||
        !resize(&x->max_rss_kb, sizeof *x->max_rss_kb, cap) ||
        !resize(&x->exit_code, sizeof *x->exit_code, cap) ||
        (p->ctr && !resize(&x->ctr, sizeof *x->ctr, cap)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    x->cap = cap;
    return 0;
}

/* One run of one series; -1 only when tare itself cannot go on. */
static int run_one(struct session *s, const struct session_event *ev, struct err *e)
{
    const struct session_plan *p = s->plan;
    struct session_series *x = &p->series[ev->index];
    struct proc_opts o = {
        .argv = x->argv, .env_set = x->env, .cwd = x->cwd, .timeout_s = p->timeout_s,
        .pin_cpu = p->pin_cpu, .show_output = p->show_output,
        .stdin_path = x->stdin_path ? x->stdin_path : p->stdin_path,
        .stdout_path = p->stdout_path, .stdout_append = true, .stdout_pipe = p->stdout_pipe,
    };
    if (!ev->warmup && grow(p, x, e) < 0)
        return -1;
    if (p->ctr) {
        o.before_exec = ctr_attach;
        o.before_exec_arg = p->ctr;
    }
    int hk = run_hooks(p, x, "prepare", &x->prepare, ev->warmup, ev->run, e);
    if (hk != 0)
        return hk < 0 ? -1 : series_failed(p, x, "", e);
    struct proc_result r;
    struct metrics_run mr = {0};
    struct metrics_capture cap;
    const struct metrics_spec *ms = x->metrics_from ? x->metrics_from : p->metrics;
    if (ms && metrics_capture_begin(&cap, ms, NULL, x->env, x->cwd, &o, &mr, e) < 0)
        return prefix(e, x);
    int started = proc_run(&o, &r, e);
    if (ms) {
        metrics_capture_end(&cap);
        struct err me = {0};
        /* A measured run's, as its time is kept: exit 0, or any exit with ignore_failure. */
        bool keep = started == 0 && !ev->warmup &&
                    (r.status == PROC_OK || (r.status == PROC_EXITED && p->ignore_failure));
        if (keep && metrics_add_run(&x->metrics, &mr, &me) < 0) {
            *e = me;
            started = -1;
        }
        metrics_run_free(&mr);
    }
    if (started < 0)
        return prefix(e, x);
    struct ctr_sample scratch;
    int rd = p->ctr ? ctr_read(p->ctr, ev->warmup ? &scratch : &x->ctr[x->n], e) : 0;
    if (r.status == PROC_INTERRUPTED || proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    if (rd < 0)
        return prefix(e, x);
    bool failed = r.status == PROC_SIGNALED || r.status == PROC_TIMEOUT ||
                  (r.status == PROC_EXITED && !p->ignore_failure);
    if (failed) {
        x->state = r.status == PROC_TIMEOUT ? SESSION_TIMEOUT : SESSION_FAILED;
        x->fail = (struct session_failure){
            .status = r.status, .warmup = ev->warmup, .run = ev->run,
        };
        proc_describe(&r, p->timeout_s, x->fail.what, sizeof x->fail.what);
        memcpy(x->fail.tail, r.stderr_tail, sizeof x->fail.tail);
    }
    /* The conclusion comes after every run that started; a failed run's record stays first. */
    hk = run_hooks(p, x, "conclude", &x->conclude, ev->warmup, ev->run, e);
    if (hk < 0)
        return -1;
    if (hk > 0 && !failed)
        return series_failed(p, x, "", e);
    if (failed)
        return series_failed(p, x, " failed", e);
    if (ev->warmup) {
        if (isnan(x->warm_first))
            x->warm_first = r.wall_s;
        return 0;
    }
    x->wall_s[x->n] = r.wall_s;
    x->user_s[x->n] = r.user_s;
    x->sys_s[x->n] = r.sys_s;
    x->max_rss_kb[x->n] = r.max_rss_kb;
    x->exit_code[x->n] = r.exit_code;
    x->n++;
    return 0;
}

/* One round of the group [g0, g1): every series once, backwards when `reverse`. */
static int round_of(struct session *s, int g0, int g1, int group, int ngroups, bool warmup,
                    long run, long runs, bool reverse, struct err *e)
{
    const struct session_plan *p = s->plan;
    for (int pos = 0; pos < g1 - g0; pos++) {
        int k = reverse ? g1 - 1 - pos : g0 + pos;
        struct session_event ev = {
            .index = k, .series = &p->series[k], .group = group, .ngroups = ngroups, .pos = pos,
            .warmup = warmup, .run = run, .runs = runs,
        };
        if (p->progress)
            p->progress(p->progress_ctx, s, &ev);
        if (p->series[k].state != SESSION_OK)
            continue;
        if (run_one(s, &ev, e) < 0)
            return -1;
    }
    return 0;
}

/* Measured rounds with looks at first, 2 first, ... max, or when time runs out. */
static int run_looks(struct session *s, int g0, int g1, int group, int ngroups, struct err *e)
{
    const struct session_plan *p = s->plan;
    const struct session_looks *lk = p->looks;
    long look_at = lk->first;
    s->planned_looks = session_looks_planned(lk->first, lk->max);
    double alpha = lk->alpha / s->planned_looks;
    for (;;) {
        bool out_of_time = lk->max_time_s > 0 && proc_now() - s->t_measure >= lk->max_time_s;
        if (s->rounds == look_at || out_of_time) {
            s->looks++;
            int rc = lk->look(lk->ctx, s, alpha, e);
            if (rc < 0)
                return -1;
            if (rc > 0 && s->rounds > 0) {
                s->stopped = SESSION_STOP_DECIDED;
                return 0;
            }
            if (out_of_time) {
                s->stopped = SESSION_STOP_MAX_TIME;
                return 0;
            }
            if (s->rounds >= lk->max) {
                s->stopped = SESSION_STOP_MAX_RUNS;
                return 0;
            }
            look_at = look_at * 2 < lk->max ? look_at * 2 : lk->max;
        }
        bool reverse = p->order == SESSION_ALTERNATE && s->rounds % 2;
        if (round_of(s, g0, g1, group, ngroups, false, s->rounds + 1, look_at,
                     reverse, e) < 0)
            return -1;
        s->rounds++;
    }
}

/* The warm-up and measured rounds of the group [g0, g1). */
static int run_group(struct session *s, int g0, int g1, int group, int ngroups, struct err *e)
{
    const struct session_plan *p = s->plan;
    for (long i = 0; i < p->warmup; i++)
        if (round_of(s, g0, g1, group, ngroups, true, i + 1, p->warmup, false, e) < 0)
            return -1;
    s->t_measure = proc_now();
    s->rounds = 0;
    if (p->looks)
        return run_looks(s, g0, g1, group, ngroups, e);
    long max = p->max_runs > 0 ? p->max_runs : 1000000;
    for (long i = 0;; i++) {
        if (p->min_time_s > 0 && i >= p->runs) {
            bool any_ok = false;
            for (int k = g0; k < g1; k++)
                any_ok |= p->series[k].state == SESSION_OK;
            if (!any_ok)
                break;   /* every series failed: no time to fill */
            if (proc_now() - s->t_measure >= p->min_time_s) {
                s->stopped = SESSION_STOP_MIN_TIME;
                break;
            }
            if (i >= max) {
                s->stopped = SESSION_STOP_MAX_RUNS;
                break;
            }
        } else if (p->min_time_s <= 0 && i >= p->runs) {
            s->stopped = SESSION_STOP_RUNS;
            break;
        }
        bool reverse = p->order == SESSION_ALTERNATE && i % 2;
        /* With a time budget the count is not known ahead: the event says 0. */
        long runs = p->min_time_s > 0 ? 0 : p->runs;
        if (round_of(s, g0, g1, group, ngroups, false, i + 1, runs, reverse, e) < 0)
            return -1;
        s->rounds++;
    }
    return 0;
}

/* Ends the series [g0, g1) that began; the first error wins. */
static int end_series(struct session *s, int g0, int g1, int rc, struct err *e)
{
    /* After an interrupt too, within a grace (a second interrupt ends it) */
    bool grace = proc_grace(SESSION_CLEANUP_GRACE_S);
    for (int k = g0; k < g1; k++) {
        /* Cleanup after a failure too; a series that failed keeps its first record. */
        struct err scratch = {0};
        struct session_series *x = &s->plan->series[k];
        metrics_finish(&x->metrics);
        bool was_ok = x->state == SESSION_OK;
        int hk = run_hooks(s->plan, x, "cleanup", &x->cleanup, false, 0, rc < 0 ? &scratch : e);
        if (hk < 0 ||
            (hk > 0 && was_ok && series_failed(s->plan, x, "", rc < 0 ? &scratch : e) < 0))
            rc = -1;
    }
    if (grace)
        proc_grace(0);
    return rc;
}

int session_run(struct session *s, struct err *e)
{
    const struct session_plan *p = s->plan;
    int ngroups = 1;
    for (int k = 1; k < p->nseries; k++)
        ngroups += p->series[k].group != p->series[k - 1].group;
    s->t_start = proc_now();
    s->stopped = SESSION_STOP_RUNS;
    for (int g0 = 0, group = 0; g0 < p->nseries; group++) {
        int g1 = g0 + 1;
        while (g1 < p->nseries && p->series[g1].group == p->series[g0].group)
            g1++;
        for (int k = g0; k < g1; k++) {
            int hk = run_hooks(p, &p->series[k], "setup", &p->series[k].setup, false, 0, e);
            if (hk < 0 || (hk > 0 && series_failed(p, &p->series[k], "", e) < 0))
                return end_series(s, g0, g1, -1, e);
        }
        if (end_series(s, g0, g1, run_group(s, g0, g1, group, ngroups, e), e) < 0)
            return -1;
        g0 = g1;
    }
    return 0;
}
