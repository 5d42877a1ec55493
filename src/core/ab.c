/* ab.c: tare ab's measuring (worktree, pairs, count pass) and its verdicts as pure rules. */
#define _GNU_SOURCE
#include "core/ab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/proc.h"

/* ---- the rules ---- */

enum ab_wall ab_wall_kind(const struct stats_ab *r)
{
    if (isnan(r->ci_low))
        return AB_WALL_TOO_FEW;
    if (r->verdict == STATS_SLOWER)
        return AB_WALL_SLOWER;
    if (r->verdict == STATS_FASTER)
        return AB_WALL_FASTER;
    return r->significant ? AB_WALL_UNDER_THRESHOLD : AB_WALL_NO_CHANGE;
}

const char *const ab_field_names[AB_NFIELD] = {
    "instructions", "allocations", "bytes", "peak_bytes", "l1i_misses", "l1d_misses",
    "lli_misses", "lld_misses", "misses", "est_cycles",
};

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* A side's passes: the median (rounded to a whole count) and the spread, (max - min) /
 * median; NAN when a pass did not measure it. */
static void side_summary(const double *v, long n, double *med, double *spread)
{
    *med = *spread = NAN;
    double *s = n > 0 ? malloc((size_t)n * sizeof *s) : NULL;
    if (!s)
        return;
    bool all = true;
    for (long i = 0; i < n; i++)
        all &= !isnan(s[i] = v[i]);
    if (all) {
        qsort(s, (size_t)n, sizeof *s, cmp_double);
        *med = round(n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2);
        *spread = s[n - 1] == s[0] ? 0 : *med > 0 ? (s[n - 1] - s[0]) / *med : INFINITY;
    }
    free(s);
}

void ab_count_judge(const double *a, const double *b, long n, struct ab_count *out)
{
    side_summary(a, n, &out->med[0], &out->spread[0]);
    side_summary(b, n, &out->med[1], &out->spread[1]);
    double ma = out->med[0], mb = out->med[1];
    out->ratio = isnan(ma) || isnan(mb) ? NAN : ma == mb ? 1 : mb / ma;   /* inf when A is 0 */
    double sa = out->spread[0], sb = out->spread[1];
    if (isnan(sa) || isnan(sb)) {
        out->limit = NAN;
    } else {
        double l = sa > sb ? sa : sb;
        out->limit = l > AB_COUNT_SAME ? l : AB_COUNT_SAME;
    }
    if (isnan(out->ratio) || isnan(out->limit))
        out->change = AB_CHANGE_NA;
    else if (!(fabs(out->ratio - 1) > out->limit))
        out->change = AB_CHANGE_NONE;
    else
        out->change = out->ratio > 1 ? AB_CHANGE_MORE : AB_CHANGE_LESS;
}

const char *ab_pct(char *buf, size_t size, double ratio)
{
    if (isnan(ratio))
        snprintf(buf, size, "%s", "NA");
    else if (isinf(ratio))
        snprintf(buf, size, "%s", ratio > 0 ? "+inf%" : "-inf%");
    else {
        double p = (ratio - 1) * 100;
        snprintf(buf, size, "%+.*f%%", fabs(p) < 10 ? 2 : 1, p);
    }
    return buf;
}

const char *ab_spread_str(char *buf, size_t size, double s)
{
    if (isnan(s) || isinf(s))
        snprintf(buf, size, "%s", isnan(s) ? "NA" : "inf%");
    else
        snprintf(buf, size, s > 0 && s < 0.0001 ? "%.2g%%" : "%.2f%%", 100 * s);
    return buf;
}

const char *ab_work_name(enum ab_work w)
{
    static const char *const names[] = {
        [AB_WORK_NA] = NULL, [AB_WORK_SAME] = "same", [AB_WORK_MORE] = "more",
        [AB_WORK_LESS] = "less", [AB_WORK_DIFFERENT] = "different",
    };
    return names[w];
}

static bool moved(enum ab_change c)
{
    return c == AB_CHANGE_MORE || c == AB_CHANGE_LESS;
}

/* The largest spread of a count on either side, 0 when none is known. */
static double max_spread(const struct ab_count *c, double m)
{
    for (int k = 0; k < 2; k++)
        if (!isnan(c->spread[k]) && c->spread[k] > m)
            m = c->spread[k];
    return m;
}

enum ab_work ab_work_verdict(const struct ab_count *instr, const struct ab_count *alloc, long n,
                             char *buf, size_t size)
{
    buf[0] = '\0';
    if (instr->change == AB_CHANGE_NA)
        return AB_WORK_NA;
    char p1[32], p2[32], s[32];
    double spread = max_spread(alloc, max_spread(instr, 0));
    ab_spread_str(s, sizeof s, spread);
    bool mi = moved(instr->change), ma = moved(alloc->change);
    if (!mi && !ma) {
        if (spread > AB_COUNT_SAME)
            snprintf(buf, size, "counts: no change the counts can show (this program's counts "
                     "vary by %s run to run)", s);
        else if (spread > 0)
            snprintf(buf, size, "counts: no change the counts can show (instructions and "
                     "allocations within %.2g%%; this program's counts vary by %s run to run)",
                     100 * AB_COUNT_SAME, s);
        else
            snprintf(buf, size, "counts: no change (instructions %s, allocations %s; each side "
                     "counted the same in all %ld passes)", ab_pct(p1, sizeof p1, instr->ratio),
                     ab_pct(p2, sizeof p2, alloc->ratio), n);
        return AB_WORK_SAME;
    }
    if (mi && ma && instr->change != alloc->change) {
        snprintf(buf, size, "counts: B does different work: instructions %s, allocations %s "
                 "(each side's runs vary by %s at most)", ab_pct(p1, sizeof p1, instr->ratio),
                 ab_pct(p2, sizeof p2, alloc->ratio), s);
        return AB_WORK_DIFFERENT;
    }
    bool more = (mi ? instr->change : alloc->change) == AB_CHANGE_MORE;
    if (mi && ma)
        snprintf(buf, size, "counts: B does %s work: instructions %s, allocations %s (each "
                 "side's runs vary by %s at most)", more ? "more" : "less",
                 ab_pct(p1, sizeof p1, instr->ratio), ab_pct(p2, sizeof p2, alloc->ratio), s);
    else
        snprintf(buf, size, "counts: B does %s work: %s %s (each side's runs vary by %s at "
                 "most)", more ? "more" : "less", mi ? "instructions" : "allocations",
                 ab_pct(p1, sizeof p1, (mi ? instr : alloc)->ratio), s);
    return more ? AB_WORK_MORE : AB_WORK_LESS;
}

/* "+12.3%" when the count moved, else "flat". */
static const char *moved_str(char *buf, size_t size, const struct ab_count *c)
{
    if (moved(c->change))
        return ab_pct(buf, size, c->ratio);
    snprintf(buf, size, "%s", "flat");
    return buf;
}

enum ab_change ab_cache_verdict(const struct ab_count c[AB_NFIELD], char *buf, size_t size)
{
    static const char *const kind[] = {"L1 instr", "L1 data", "LL instr", "LL data"};
    enum ab_change cm = c[AB_MISSES].change;
    if (c[AB_INSTR].change == AB_CHANGE_NA || cm == AB_CHANGE_NA) {
        snprintf(buf, size, "simulated caches: NA (a side's misses were not counted)");
        return AB_CHANGE_NA;
    }
    char pi[32], pm[32], pc[32], kinds[256] = "";
    size_t len = 0;
    for (int f = AB_L1I; f <= AB_LLD; f++) {
        if (!moved(c[f].change))
            continue;
        char p[32];
        len += (size_t)snprintf(kinds + len, sizeof kinds - len, "%s%s %s", len ? ", " : " (",
                                kind[f - AB_L1I], ab_pct(p, sizeof p, c[f].ratio));
        if (len >= sizeof kinds)
            len = sizeof kinds - 1;
    }
    if (len)
        snprintf(kinds + len, sizeof kinds - len, ")");
    snprintf(buf, size, "simulated caches: instructions %s, simulated misses %s%s; est. cycles "
             "%s (a model, not a measurement)", moved_str(pi, sizeof pi, &c[AB_INSTR]),
             moved_str(pm, sizeof pm, &c[AB_MISSES]), kinds,
             moved_str(pc, sizeof pc, &c[AB_CYCLES]));
    return cm == AB_CHANGE_NONE ? AB_CHANGE_NONE : cm;
}

/*
 * Says so when the counts and the clock disagree: the clock still where the counts moved,
 * or moved where the counts did not, or the two in opposite directions. A count moved only
 * past both sides' own spread (ab_count_judge).
 */
enum ab_reading ab_reading(const struct ab_count c[AB_NFIELD], bool cache_sim,
                           const struct stats_ab *wall, char *buf, size_t size)
{
    buf[0] = '\0';
    double ri = c[AB_INSTR].ratio, ra = c[AB_ALLOC].ratio;
    if (isnan(ri) || isnan(wall->ci_low))
        return AB_READING_NONE;
    bool moved_i = moved(c[AB_INSTR].change), moved_a = moved(c[AB_ALLOC].change);
    char p1[32], p2[32];
    if (wall->verdict == STATS_SAME && (moved_i || moved_a)) {
        bool less = moved_i ? ri < 1 : ra < 1;
        snprintf(buf, size, "wall clock does not move while the counts do (instructions %s, "
                 "allocations %s): B does %s work, which this run's wall clock does not show",
                 ab_pct(p1, sizeof p1, ri), ab_pct(p2, sizeof p2, ra), less ? "less" : "more");
        return AB_READING_CLOCK_FLAT;
    }
    if (wall->verdict != STATS_SAME && !moved_i && !moved_a) {
        /* With --cache-sim, whether the simulated misses moved: a lead, not a cause. */
        enum ab_change cm = cache_sim ? c[AB_MISSES].change : AB_CHANGE_NA;
        char sim[96] = "", p3[32];
        if (moved(cm))
            snprintf(sim, sizeof sim, "; the simulated misses did move (%s)",
                     ab_pct(p3, sizeof p3, c[AB_MISSES].ratio));
        else if (cm == AB_CHANGE_NONE)
            snprintf(sim, sizeof sim, "; nor did the simulated misses");
        snprintf(buf, size, "the wall clock moved but the counts did not (instructions %s, "
                 "allocations %s): the difference is not in the instructions run or the "
                 "allocations made (waiting, I/O, caches, code layout, or the machine)%s",
                 ab_pct(p1, sizeof p1, ri), ab_pct(p2, sizeof p2, ra), sim);
        return AB_READING_COUNTS_FLAT;
    }
    if (wall->verdict != STATS_SAME && moved_i && (ri < 1) != (wall->verdict == STATS_FASTER)) {
        snprintf(buf, size, "the wall clock and the instructions disagree: B is %s but runs %s "
                 "instructions (%s)", stats_verdict_name(wall->verdict),
                 ri < 1 ? "fewer" : "more", ab_pct(p1, sizeof p1, ri));
        return AB_READING_OPPOSITE;
    }
    return AB_READING_NONE;
}

/* ---- the run ---- */

void ab_opts_init(struct ab_opts *o)
{
    *o = (struct ab_opts){.pairs = 20, .warmup = 1, .max_pairs = 200, .threshold = 0.01,
                          .pin_cpu = -1, .count_runs = 2};
}

static void progress(struct ab_result *r, const char *what)
{
    if (r->o->progress)
        r->o->progress(r->o->ctx, what, what ? proc_now() - r->t_start : 0);
}

static void on_run_progress(void *ctx, const struct session *ss, const struct session_event *ev)
{
    struct ab_result *r = ctx;
    char what[128];
    if (ev->pos != 0)
        return;
    r->t_start = ev->warmup ? ss->t_start : ss->t_measure;
    snprintf(what, sizeof what, "%s %ld/%ld", ev->warmup ? "warm-up" : "pair", ev->run, ev->runs);
    progress(r, what);
}

/* A look at the pairs so far: the interval at this look's alpha; 1 when it settles it. */
static int look(void *ctx, const struct session *ss, double alpha, struct err *e)
{
    struct ab_result *r = ctx;
    if (stats_paired_ratio(r->series[0].wall_s, r->series[1].wall_s, (size_t)ss->rounds, alpha,
                           r->o->threshold, &r->wall) < 0 && ss->rounds > 0)
        return err_set(e, ERR_SYSTEM, "out of memory");
    return r->wall.settled;
}

/* Where side k runs: A in git mode's worktree. */
static const char *side_cwd(const struct ab_opts *o, int k)
{
    return k == 0 && o->git ? o->git->cwd : o->side[k].cwd;
}

/* Why a measuring failure stopped the pairs, named by side, into e. */
static void measure_why(const struct ab_result *r, struct err *e)
{
    for (int i = 0; i < 2; i++) {
        const struct session_series *x = &r->series[i];
        char why[512];
        if (x->state != SESSION_OK && x->fail.hook)
            err_set(e, ERR_MEASURE, "%s '%s': %s", x->label, x->name,
                    session_failure_why(&x->fail, why, sizeof why));
        else if (x->state != SESSION_OK)
            err_set(e, ERR_MEASURE, "%s '%s' failed: %s in %s", x->label, x->name, x->fail.what,
                    x->fail.warmup ? "the warm-up" : "a measured run");
    }
}

/* The warm-up and the pairs (session.h's engine, alternating order, sequential looks). A
 * failed run stops the whole A/B, since a pair needs both. */
static int measure(struct ab_result *r, struct err *e)
{
    const struct ab_opts *o = r->o;
    static const char *const labels[2] = {"A", "B"};
    for (int i = 0; i < 2; i++)
        r->series[i] = (struct session_series){
            .name = o->side[i].name, .label = labels[i], .argv = o->side[i].argv,
            .env = o->side[i].env, .cwd = side_cwd(o, i), .setup = o->setup,
            .prepare = o->prepare, .conclude = o->conclude, .cleanup = o->cleanup,
        };
    r->seq = (struct session_looks){
        .first = o->pairs, .max = o->until ? o->max_pairs : o->pairs,
        .max_time_s = o->until ? o->max_time_s : 0, .alpha = AB_ALPHA, .look = look, .ctx = r,
    };
    r->plan = (struct session_plan){
        .series = r->series, .nseries = 2, .warmup = o->warmup, .order = SESSION_ALTERNATE,
        .timeout_s = o->timeout_s, .pin_cpu = o->pin_cpu, .stop_on_failure = true,
        .ctr = o->ctr, .looks = &r->seq, .progress = o->progress ? on_run_progress : NULL,
        .progress_ctx = r, .stdin_path = o->stdin_path, .stdout_path = o->stdout_path,
        .show_output = o->show_output,
    };
    if (session_init(&r->sess, &r->plan, e) < 0)
        return -1;
    int rc = session_run(&r->sess, e);
    r->t_start = r->sess.t_measure;
    if (rc < 0 && e->kind == ERR_MEASURE)
        measure_why(r, e);
    if (rc < 0)
        return -1;
    r->n = r->sess.rounds;
    r->looks = r->sess.looks;
    r->planned_looks = r->sess.planned_looks;
    r->stopped = r->sess.stopped;
    progress(r, NULL);
    return 0;
}

static void on_count_progress(void *ctx, const struct count_job *job, bool finished, int done,
                              int total)
{
    (void)job;
    (void)finished;
    struct ab_result *r = ctx;
    char what[128];
    snprintf(what, sizeof what, "counting under %s, %d/%d done",
             count_engine_name(r->o->copt.engine), done, total);
    progress(r, what);
}

/* The deterministic pass (tare count's): every run of both sides side by side, since counts
 * do not depend on load. Each side runs count_runs times: a program that seeds itself from
 * the clock or an address (an interpreter's string hash) counts differently run to run, and
 * only that spread tells a change from noise. A side that fails is NA with its reason; -1
 * only when tare cannot go on. */
static int count_both(struct ab_result *r, struct err *e)
{
    const struct ab_opts *o = r->o;
    long n = r->count_runs = o->count_runs;
    r->cjob = calloc((size_t)(2 * n), sizeof *r->cjob);
    if (!r->cjob)
        return err_set(e, ERR_SYSTEM, "out of memory");
    static const char *const labels[2] = {"A", "B"};
    for (long i = 0; i < 2 * n; i++) {
        int k = (int)(i / n);
        r->cjob[i] = (struct count_job){
            .name = labels[k], .argv = o->side[k].argv, .env = o->side[k].env,
            .cwd = side_cwd(o, k),
        };
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct count_opts co = o->copt;
    co.jobs = (int)(ncpu > 1 ? (ncpu < 2 * n ? ncpu : 2 * n) : 1);
    co.timeout_s = COUNT_TIMEOUT_S;
    co.progress = o->progress ? on_count_progress : NULL;
    co.ctx = r;
    progress(r, co.engine == COUNT_CACHEGRIND ? "counting under cachegrind"
                                              : "counting under callgrind");
    int rc = count_run(r->cjob, (int)(2 * n), &co, e);
    progress(r, NULL);
    r->counted = rc == 0;
    return rc;
}

/* One count of one pass, NAN when it was not measured. */
static double job_value(const struct count_job *j, int field)
{
    if (j->status != COUNT_OK)
        return NAN;
    const uint64_t v[] = {j->instructions, j->allocations, j->bytes, j->peak_bytes,
                          j->l1i_misses, j->l1d_misses, j->lli_misses, j->lld_misses};
    if (field == AB_CYCLES)
        return j->est_cycles == COUNT_NA ? NAN : (double)j->est_cycles;
    if (field != AB_MISSES)
        return v[field] == COUNT_NA ? NAN : (double)v[field];
    double sum = 0;
    for (int f = AB_L1I; f <= AB_LLD; f++) {
        if (v[f] == COUNT_NA)
            return NAN;
        sum += (double)v[f];
    }
    return sum;
}

/* The counts judged and the verdicts on them. */
static int summarize(struct ab_result *r, struct err *e)
{
    long n = r->count_runs;
    double *v = malloc(2 * (size_t)n * sizeof *v);
    if (!v)
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int k = 0; k < 2; k++) {
        r->bad[k] = NULL;
        for (long i = 0; i < n && !r->bad[k]; i++)
            if (r->cjob[k * n + i].status != COUNT_OK)
                r->bad[k] = &r->cjob[k * n + i];
    }
    for (int f = 0; f < AB_NFIELD; f++) {
        for (long i = 0; i < 2 * n; i++)
            v[i] = job_value(&r->cjob[i], f);
        ab_count_judge(v, v + n, n, &r->count[f]);
    }
    free(v);
    r->work = ab_work_verdict(&r->count[AB_INSTR], &r->count[AB_ALLOC], n, r->work_line,
                              sizeof r->work_line);
    r->cache = AB_CHANGE_NA;
    if (r->o->copt.cache_sim)
        r->cache = ab_cache_verdict(r->count, r->cache_line, sizeof r->cache_line);
    r->reading = ab_reading(r->count, r->o->copt.cache_sim, &r->wall, r->reading_line,
                            sizeof r->reading_line);
    return 0;
}

/* Runs the build command with /bin/sh -c in one tree; a failed build is ERR_MEASURE with
 * build_failed and the end of its stderr. */
static int build_tree(struct ab_result *r, const char *cwd, const char *which, struct err *e)
{
    char what[320];
    snprintf(what, sizeof what, "building %s", which);
    progress(r, what);
    char *argv[] = {"/bin/sh", "-c", (char *)r->o->build, NULL};
    struct proc_opts po = {.argv = argv, .cwd = cwd, .pin_cpu = -1, .stdout_path = "/dev/null"};
    struct proc_result pr;
    if (proc_run(&po, &pr, e) < 0)
        return -1;
    progress(r, NULL);
    if (pr.status == PROC_INTERRUPTED || proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    if (pr.status != PROC_OK) {
        char d[128];
        r->build_failed = true;
        snprintf(r->build_which, sizeof r->build_which, "%s", which);
        snprintf(r->build_tail, sizeof r->build_tail, "%s", pr.stderr_tail);
        return err_set(e, ERR_MEASURE, "build of %s failed: '%s' %s", which, r->o->build,
                       proc_describe(&pr, 0, d, sizeof d));
    }
    return 0;
}

/* Git mode: the worktree made, there as the current directory, both trees built. */
static int git_prepare(struct ab_result *r, struct err *e)
{
    struct gitwt *git = r->o->git;
    if (gitwt_add(git, e) < 0)
        return -1;
    struct stat st;
    if (stat(git->cwd, &st) < 0 || !S_ISDIR(st.st_mode))
        return err_set(e, ERR_INPUT, "the current directory '%s' does not exist in '%s'",
                       git->prefix, git->rev);
    if (!r->o->build)
        return 0;
    char which[256];
    snprintf(which, sizeof which, "'%.200s' (%.12s) in its worktree", git->rev, git->commit);
    if (build_tree(r, git->cwd, which, e) < 0)
        return -1;
    return build_tree(r, NULL, "the working tree", e);
}

/*
 * Git mode: A runs in a worktree of the revision, where a file the user has but git does
 * not (an untracked script, a program built in the working tree) is missing, and the
 * command fails with "cannot open bench/fib.lua" and no word why. Names the first argument
 * that is a path in the working tree but not in the worktree, into r->hint (or leaves it
 * ""). Called while the worktree still exists.
 */
static void missing_in_worktree(struct ab_result *r)
{
    const struct gitwt *git = r->o->git;
    r->hint[0] = '\0';
    for (char *const *w = r->o->side[0].argv; *w; w++) {
        const char *path = *w;
        if (path[0] == '-' && strchr(path, '='))
            path = strchr(path, '=') + 1;   /* --file=bench/x.lua */
        if (!*path || path[0] == '/' || (w == r->o->side[0].argv && !strchr(path, '/')))
            continue;   /* the same in both trees, or a program found on PATH */
        char there[8192];
        snprintf(there, sizeof there, "%s/%s", git->cwd, path);
        struct stat st;
        if (stat(path, &st) == 0 && stat(there, &st) != 0) {
            snprintf(r->hint, sizeof r->hint, "'%s' is in the working tree but not in '%s' "
                     "(untracked, ignored or not committed there), and A runs in a temporary "
                     "worktree of '%s': commit it, make it there with --build, or name it by "
                     "its absolute path", path, git->rev, git->rev);
            return;
        }
    }
}

int ab_run(const struct ab_opts *o, struct ab_result *r, struct err *e)
{
    *r = (struct ab_result){.o = o, .t_start = proc_now()};
    for (int k = 0; k < 2; k++)
        r->series[k].warm_first = NAN;
    int rc = o->git ? git_prepare(r, e) : 0;
    if (rc == 0)
        rc = measure(r, e);
    if (rc == 0 && o->count)
        rc = count_both(r, e);
    if (rc == 0 && r->counted)
        rc = summarize(r, e);
    progress(r, NULL);
    if (rc < 0 && o->git)
        missing_in_worktree(r);
    struct err rm_err = {0};
    if (o->git && gitwt_remove(o->git, &rm_err) < 0)
        snprintf(r->rm_error, sizeof r->rm_error, "%s", rm_err.msg);
    return rc;
}

void ab_result_free(struct ab_result *r)
{
    session_free(&r->sess);
    free(r->cjob);
    r->cjob = NULL;
}

const char *ab_stopped_name(const struct ab_result *r)
{
    static const char *const names[] = {
        [SESSION_STOP_RUNS] = "pairs", [SESSION_STOP_DECIDED] = "decided",
        [SESSION_STOP_MAX_TIME] = "max-time", [SESSION_STOP_MAX_RUNS] = "max-pairs",
        [SESSION_STOP_MIN_TIME] = "pairs",
    };
    return r->o && r->o->until ? names[r->stopped] : "pairs";
}
