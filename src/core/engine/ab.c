/* ab.c: tare ab's measuring (worktree, pairs, count pass) and its verdicts as pure rules. */
#define _GNU_SOURCE
#include "core/engine/ab.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/history/history.h"
#include "core/util/metrics.h"
#include "core/util/proc.h"

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

/* A side's passes: the median (rounded to a whole count), the least and the most, and the
 * spread, (max - min) / median; NAN when a pass did not measure it. */
static void side_summary(const double *v, long n, struct ab_count *c, int k)
{
    c->med[k] = c->spread[k] = c->lo[k] = c->hi[k] = NAN;
    double *s = n > 0 ? malloc((size_t)n * sizeof *s) : NULL;
    if (!s)
        return;
    bool all = true;
    for (long i = 0; i < n; i++)
        all &= !isnan(s[i] = v[i]);
    if (all) {
        qsort(s, (size_t)n, sizeof *s, cmp_double);
        double med = round(n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2);
        c->med[k] = med;
        c->lo[k] = s[0];
        c->hi[k] = s[n - 1];
        c->spread[k] = s[n - 1] == s[0] ? 0 : med > 0 ? (s[n - 1] - s[0]) / med : INFINITY;
    }
    free(s);
}

const char *ab_change_name(enum ab_change c)
{
    static const char *const names[] = {
        [AB_CHANGE_NA] = NULL, [AB_CHANGE_NONE] = "none", [AB_CHANGE_MORE] = "more",
        [AB_CHANGE_LESS] = "less", [AB_CHANGE_UNKNOWN] = "unknown",
    };
    return names[c];
}

void ab_count_judge(const double *a, const double *b, long n, bool varies, struct ab_count *out)
{
    out->n = n;
    side_summary(a, n, out, 0);
    side_summary(b, n, out, 1);
    double ma = out->med[0], mb = out->med[1];
    out->ratio = isnan(ma) || isnan(mb) ? NAN : ma == mb ? 1 : mb / ma;   /* inf when A is 0 */
    double w = fmax(out->hi[0] - out->lo[0], out->hi[1] - out->lo[1]);
    if (isnan(out->ratio))
        out->change = AB_CHANGE_NA;
    else if (n < 2)
        out->change = AB_CHANGE_UNKNOWN;
    else if (!(fabs(out->ratio - 1) > AB_COUNT_SAME))
        out->change = AB_CHANGE_NONE;
    else if (!varies && w == 0)   /* a program that does not vary: any change past SAME */
        out->change = out->ratio > 1 ? AB_CHANGE_MORE : AB_CHANGE_LESS;
    else if (n < AB_COUNT_VARY_RUNS)
        out->change = AB_CHANGE_UNKNOWN;
    else if (out->lo[1] - out->hi[0] > w)
        out->change = AB_CHANGE_MORE;
    else if (out->lo[0] - out->hi[1] > w)
        out->change = AB_CHANGE_LESS;
    else
        out->change = AB_CHANGE_NONE;
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
        [AB_WORK_UNKNOWN] = "unknown",
    };
    return names[w];
}

static bool moved(enum ab_change c)
{
    return c == AB_CHANGE_MORE || c == AB_CHANGE_LESS;
}

/* The larger of a count's two spreads (NAN when neither is known). */
static double spread_of(const struct ab_count *c)
{
    return fmax(c->spread[0], c->spread[1]);
}

/* "across each side's 6 passes instructions vary by 0.09% at most, allocations by 0.00%":
 * the spread of each count named (instr, alloc: whether to name it). */
static const char *spreads(char *buf, size_t size, const struct ab_count *ci,
                           const struct ab_count *ca, bool instr, bool alloc)
{
    char si[32], sa[32];
    ab_spread_str(si, sizeof si, spread_of(ci));
    ab_spread_str(sa, sizeof sa, spread_of(ca));
    if (instr && alloc)
        snprintf(buf, size, "across each side's %ld passes instructions vary by %s at most, "
                 "allocations by %s", ci->n, si, sa);
    else
        snprintf(buf, size, "across each side's %ld passes %s vary by %s at most", ci->n,
                 instr ? "instructions" : "allocations", instr ? si : sa);
    return buf;
}

/* No verdict: one pass, or counts that vary with too few passes to tell. */
static enum ab_work work_unknown(const struct ab_count *ci, const struct ab_count *ca,
                                 char *buf, size_t size)
{
    char p1[32], p2[32], sp[160];
    ab_pct(p1, sizeof p1, ci->ratio);
    ab_pct(p2, sizeof p2, ca->ratio);
    if (ci->n < 2)
        snprintf(buf, size, "counts: no verdict (instructions %s, allocations %s): one pass of "
                 "each side cannot show how much this program's counts vary run to run "
                 "(--count-runs 2 or more)", p1, p2);
    else
        snprintf(buf, size, "counts: no verdict (instructions %s, allocations %s): this "
                 "program's counts vary (%s), and a verdict on counts that vary takes %d "
                 "passes of each side", p1, p2, spreads(sp, sizeof sp, ci, ca, true, true),
                 AB_COUNT_VARY_RUNS);
    return AB_WORK_UNKNOWN;
}

enum ab_work ab_work_verdict(const struct ab_count *instr, const struct ab_count *alloc,
                             char *buf, size_t size)
{
    buf[0] = '\0';
    if (instr->change == AB_CHANGE_NA)
        return AB_WORK_NA;
    if (instr->change == AB_CHANGE_UNKNOWN || alloc->change == AB_CHANGE_UNKNOWN)
        return work_unknown(instr, alloc, buf, size);
    char p1[32], p2[32], sp[160];
    ab_pct(p1, sizeof p1, instr->ratio);
    ab_pct(p2, sizeof p2, alloc->ratio);
    bool mi = moved(instr->change), ma = moved(alloc->change);
    bool has_a = alloc->change != AB_CHANGE_NA;
    if (!mi && !ma) {
        double s = fmax(spread_of(instr), has_a ? spread_of(alloc) : 0);
        if (s == 0 && instr->ratio == 1 && (!has_a || alloc->ratio == 1))
            snprintf(buf, size, "counts: no change (instructions %s, allocations %s; each side "
                     "counted the same in all %ld passes)", p1, p2, instr->n);
        else
            snprintf(buf, size, "counts: no change the counts can show (instructions %s, "
                     "allocations %s; %s)", p1, p2,
                     spreads(sp, sizeof sp, instr, alloc, true, has_a));
        return AB_WORK_SAME;
    }
    if (mi && ma && instr->change != alloc->change) {
        snprintf(buf, size, "counts: B does different work: instructions %s, allocations %s "
                 "(%s)", p1, p2, spreads(sp, sizeof sp, instr, alloc, true, true));
        return AB_WORK_DIFFERENT;
    }
    bool more = (mi ? instr->change : alloc->change) == AB_CHANGE_MORE;
    spreads(sp, sizeof sp, instr, alloc, mi, ma);
    if (mi && ma)
        snprintf(buf, size, "counts: B does %s work: instructions %s, allocations %s (%s)",
                 more ? "more" : "less", p1, p2, sp);
    else
        snprintf(buf, size, "counts: B does %s work: %s %s (%s)", more ? "more" : "less",
                 mi ? "instructions" : "allocations", mi ? p1 : p2, sp);
    return more ? AB_WORK_MORE : AB_WORK_LESS;
}

/* "+12.3%" when the count moved, else "flat". */
static const char *moved_str(char *buf, size_t size, const struct ab_count *c)
{
    if (moved(c->change))
        return ab_pct(buf, size, c->ratio);
    snprintf(buf, size, "%s", c->change == AB_CHANGE_UNKNOWN ? "unknown" : "flat");
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
    return cm;
}

const char *ab_reading_name(enum ab_reading r)
{
    static const char *const names[] = {
        [AB_READING_NONE] = NULL, [AB_READING_AGREE] = "agree",
        [AB_READING_CLOCK_FLAT] = "clock_flat", [AB_READING_COUNTS_FLAT] = "counts_flat",
        [AB_READING_OPPOSITE] = "opposite",
    };
    return names[r];
}

/* "+0.99% (+0.41 .. +1.52%)": the clock's change and its interval. */
static const char *clock_words(char *buf, size_t size, const struct ab_reading_in *in)
{
    char r[32], lo[32], hi[32];
    ab_pct(lo, sizeof lo, in->lo);
    lo[strcspn(lo, "%")] = '\0';
    snprintf(buf, size, "%s (%s .. %s)", ab_pct(r, sizeof r, in->ratio), lo,
             ab_pct(hi, sizeof hi, in->hi));
    return buf;
}

/* What the simulated misses did, for a line about caches ("" without --cache-sim). */
static const char *misses_words(char *buf, size_t size, const struct ab_reading_in *in,
                                const char *still)
{
    char p[32];
    if (moved(in->misses))
        snprintf(buf, size, "; the simulated misses did move (%s)",
                 ab_pct(p, sizeof p, in->misses_ratio));
    else if (in->misses == AB_CHANGE_NONE)
        snprintf(buf, size, "; %s", still);
    else
        buf[0] = '\0';
    return buf;
}

enum ab_reading ab_reading(const struct ab_reading_in *in, char *buf, size_t size)
{
    buf[0] = '\0';
    bool judged = in->clock_words != NULL;   /* a fence decided, not an interval */
    if (!in->clock || (!judged && isnan(in->lo)) ||
        !(in->work == AB_CHANGE_NONE || moved(in->work)))
        return AB_READING_NONE;
    bool up = judged ? in->clock_dir > 0 : in->lo > 1;
    bool down = judged ? in->clock_dir < 0 : in->hi < 1;
    const char *who = in->who ? in->who : "B";
    char cw[128], mw[96];
    if (judged)
        snprintf(cw, sizeof cw, "%s", in->clock_words);
    else
        clock_words(cw, sizeof cw, in);
    if (in->work == AB_CHANGE_NONE) {
        bool past = judged ? up || down : (up && in->ratio >= 1 + in->threshold) ||
                                          (down && in->ratio <= 1 - in->threshold);
        if (!past)
            return AB_READING_NONE;
        snprintf(buf, size, "the wall clock moved but the counts did not (%s): the difference "
                 "is not in the instructions run or the allocations made (waiting, I/O, "
                 "caches, code layout, or the machine)%s", in->counts,
                 misses_words(mw, sizeof mw, in, "nor did the simulated misses"));
        return AB_READING_COUNTS_FLAT;
    }
    bool less = in->work == AB_CHANGE_LESS;
    if (!up && !down) {
        snprintf(buf, size, "wall clock does not move while the counts do (%s): %s does %s "
                 "work, which %s wall clock does not show", in->counts, who,
                 less ? "less" : "more", judged ? "the" : "this run's");
        return AB_READING_CLOCK_FLAT;
    }
    if (less == down) {
        snprintf(buf, size, "the counts and the clock agree: %s does %s work (%s) and is %s: %s",
                 who, less ? "less" : "more", in->counts, down ? "faster" : "slower", cw);
        return AB_READING_AGREE;
    }
    if (in->misses == AB_CHANGE_NA)
        snprintf(mw, sizeof mw, "; look at cache behaviour: `--cache-sim`");
    else
        misses_words(mw, sizeof mw, in, "the simulated misses did not move");
    snprintf(buf, size, "%s does %s work (%s) but is %s: %s%s", who, less ? "less" : "more",
             in->counts, up ? "slower" : "faster", cw, mw);
    return AB_READING_OPPOSITE;
}

/* ---- a history's commit ---- */

/* The judgement of metric m of series si in c, or NULL. */
static const struct hist_judgement *judgement(const struct hist_check *c, size_t si, int m)
{
    for (size_t k = 0; k < c->n; k++)
        if (c->j[k].series == si && c->j[k].metric == m)
            return &c->j[k];
    return NULL;
}

enum ab_reading ab_reading_at(const struct hist_db *db, const struct hist_check *c, size_t si,
                              char *buf, size_t size)
{
    buf[0] = '\0';
    const struct hist_series *s = &db->series[si];
    const struct hist_judgement *w = judgement(c, si, HM_RATIO);
    if (!w)
        w = judgement(c, si, HM_MEDIAN_S);
    const struct hist_judgement *ins = judgement(c, si, HM_INSTRUCTIONS);
    if (!w || !ins || w->verdict == HIST_PENDING || w->verdict == HIST_NA ||
        w->verdict == HIST_UNTESTED)
        return AB_READING_NONE;
    bool step = w->verdict == HIST_REGRESSION || w->verdict == HIST_IMPROVEMENT;
    /* the counts over the clock's step; a flat clock beside the counts' own step */
    size_t from = step ? w->step_point : ins->step_point, at = w->point;
    if (from == 0 || (!step && ins->verdict != HIST_REGRESSION &&
                      ins->verdict != HIST_IMPROVEMENT))
        return AB_READING_NONE;
    double before = s->v[HM_INSTRUCTIONS][from - 1], after = s->v[HM_INSTRUCTIONS][at];
    /* the series' own noise before the step, the least change that is one */
    double noise = hist_change_quantile(s, HM_INSTRUCTIONS, from, SIZE_MAX, 0.9);
    noise = isnan(noise) ? NAN : fmax(noise, AB_COUNT_SAME);
    if (isnan(before) || isnan(after) || before == 0 || isnan(noise))
        return AB_READING_NONE;
    double r = after / before;
    char counts[64], pc[32], cw[128], pw[32], pf[32];
    snprintf(counts, sizeof counts, "instructions %s", ab_pct(pc, sizeof pc, r));
    struct ab_reading_in in = {
        .work = fabs(r - 1) <= noise ? AB_CHANGE_NONE : r > 1 ? AB_CHANGE_MORE : AB_CHANGE_LESS,
        .counts = counts, .misses = AB_CHANGE_NA, .clock = true, .ratio = NAN, .lo = NAN,
        .hi = NAN, .clock_dir = !step ? 0 : w->st.change > 0 ? 1 : -1, .who = "this commit",
    };
    char who[64];   /* a clock's step began before the commit it was confirmed at */
    if (s->commit[from] != c->commit) {
        snprintf(who, sizeof who, "the step from `%.12s`", db->commit[s->commit[from]]);
        in.who = who;
    }
    snprintf(cw, sizeof cw, "wall clock %s (%s, past its fence of %s)",
             ab_pct(pw, sizeof pw, 1 + w->st.change), hist_metric_names[w->metric],
             ab_pct(pf, sizeof pf, 1 + w->st.fence) + 1);
    in.clock_words = cw;
    return ab_reading(&in, buf, size);
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

/* Where side k runs: in git mode its tree's current directory by its link (git_paths). */
static const char *side_cwd(const struct ab_result *r, int k)
{
    return r->tree_cwd[k] ? r->tree_cwd[k] : r->o->side[k].cwd;
}

/* Side k's environment overrides: in git mode with PWD its directory (git_paths). */
static char *const *side_env(const struct ab_result *r, int k)
{
    return r->tree_env[k] ? r->tree_env[k] : r->o->side[k].env;
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
            .env = side_env(r, i), .cwd = side_cwd(r, i), .setup = o->setup,
            .prepare = o->prepare, .conclude = o->conclude, .cleanup = o->cleanup,
        };
    r->seq = (struct session_looks){
        .first = o->pairs, .max = o->until ? o->max_pairs : o->pairs,
        .max_time_s = o->until ? o->max_time_s : 0, .alpha = AB_ALPHA, .look = look, .ctx = r,
    };
    r->plan = (struct session_plan){
        .series = r->series, .nseries = 2, .warmup = o->warmup, .order = SESSION_ALTERNATE,
        .timeout_s = o->timeout_s, .pin_cpu = o->pin_cpu, .stop_on_failure = true,
        .ctr = o->ctr, .metrics = o->metrics, .looks = &r->seq,
        .progress = o->progress ? on_run_progress : NULL,
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

static void on_count_progress(void *ctx, const struct count_job *job, bool finished, int done,
                              int total)
{
    (void)job;
    (void)finished;
    (void)total;
    struct ab_result *r = ctx;
    char what[128];
    snprintf(what, sizeof what, "counting under %s, %ld/%ld done",
             count_engine_name(r->o->copt.engine), r->count_done + done, r->count_total);
    progress(r, what);
}

/* Sleeps until the clock's second is past t (wall clock, as time(NULL) reads it): the wait
 * is what makes a program that seeds itself from time(NULL) see another seed. */
static int wait_past(time_t t, struct err *e)
{
    while (time(NULL) <= t) {
        if (proc_interrupted())
            return err_set(e, ERR_INTERRUPTED, "interrupted");
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        struct timespec d = {0, 1000000000L - now.tv_nsec + 1000000L};
        if (d.tv_nsec >= 1000000000L) {
            d.tv_sec = 1;
            d.tv_nsec -= 1000000000L;
        }
        nanosleep(&d, NULL);
    }
    return proc_interrupted() ? err_set(e, ERR_INTERRUPTED, "interrupted") : 0;
}

/* Whether a count measured in both of the first `rounds` rounds differs between a side's
 * passes (work: A's and B's pass of each round, side by side). */
static bool counts_vary(const struct count_job *work, long rounds, int nfield)
{
    for (int k = 0; k < 2; k++)
        for (int f = 0; f < nfield; f++)
            for (long i = 1; i < rounds; i++) {
                double v0 = job_value(&work[k], f), v = job_value(&work[2 * i + k], f);
                if (!isnan(v0) && !isnan(v) && v != v0)
                    return true;
            }
    return false;
}

/* Whether a program's own counter (core/util/metrics.h) varied in a side's passes so far: within
 * a pass (its two native runs) or from pass to pass. */
static bool metrics_vary(const struct count_job *work, long rounds)
{
    for (int k = 0; k < 2; k++)
        for (long i = 0; i < rounds; i++) {
            const struct metrics *ms = &work[2 * i + k].metrics;
            for (int c = 0; c < ms->n; c++) {
                const struct metric *first = metrics_find(&work[k].metrics, ms->m[c].name);
                if (ms->m[c].varied || !first || first->varied || first->max != ms->m[c].max)
                    return true;
            }
        }
    return false;
}

/* Whether every pass so far measured. */
static bool all_ok(const struct count_job *work, long rounds)
{
    for (long i = 0; i < 2 * rounds; i++)
        if (work[i].status != COUNT_OK)
            return false;
    return true;
}

/*
 * The deterministic pass (tare count's), in rounds: one pass of A and one of B side by side
 * (counts do not depend on load), and each round in a later second of the clock than the
 * last, so that a program that seeds itself from time(NULL) (Lua's string hash) or its pid
 * counts differently from pass to pass as it does from run to run, and a side's spread shows
 * it. count_runs rounds; when a count varied, more up to AB_COUNT_VARY_RUNS; when only a
 * program's own counter did, up to half that (two readings a pass). A side that fails is NA
 * with its reason; -1 only when tare cannot go on.
 */
static int count_both(struct ab_result *r, struct err *e)
{
    const struct ab_opts *o = r->o;
    long want = o->count_runs < 1 ? 1 : o->count_runs;
    long cap = want > 1 && want < AB_COUNT_VARY_RUNS ? AB_COUNT_VARY_RUNS : want;
    /* A program's own counter that varies takes AB_COUNT_VARY_RUNS readings a side for a
     * verdict (ab_metrics.h): two a pass, so half as many passes as a count that varies. */
    long mcap = (AB_COUNT_VARY_RUNS + 1) / 2;
    mcap = want > 1 && want < mcap ? mcap : want;
    struct count_job *work = calloc(2 * (size_t)cap, sizeof *work);
    r->cjob = calloc(2 * (size_t)cap, sizeof *r->cjob);
    if (!work || !r->cjob) {
        free(work);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    static const char *const labels[2] = {"A", "B"};
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct count_opts co = o->copt;
    co.jobs = ncpu > 1 ? 2 : 1;
    co.timeout_s = COUNT_TIMEOUT_S;
    co.progress = o->progress ? on_count_progress : NULL;
    co.ctx = r;
    r->count_total = 2 * want;
    progress(r, co.engine == COUNT_CACHEGRIND ? "counting under cachegrind"
                                              : "counting under callgrind");
    int nfield = co.cache_sim ? AB_NFIELD : AB_NPLAIN;
    long n = 0;
    time_t last = 0;
    int rc = 0;
    while (rc == 0 && n < cap) {
        bool counts_varied = false;
        if (n >= want) {
            counts_varied = all_ok(work, n) && counts_vary(work, n, nfield);
            if (!counts_varied && !(n < mcap && all_ok(work, n) && metrics_vary(work, n)))
                break;
        }
        if (n >= want && 2 * (counts_varied ? cap : mcap) > r->count_total)
            r->count_total = 2 * (counts_varied ? cap : mcap);
        double t0 = proc_now();
        if (n > 0 && wait_past(last, e) < 0) {
            rc = -1;
            break;
        }
        r->count_wait_s += proc_now() - t0;
        for (int k = 0; k < 2; k++)
            work[2 * n + k] = (struct count_job){
                .name = labels[k], .argv = o->side[k].argv, .env = side_env(r, k),
                .cwd = side_cwd(r, k),
            };
        r->count_done = 2 * n;
        rc = count_run(&work[2 * n], 2, &co, e);
        last = time(NULL);
        n++;
    }
    progress(r, NULL);
    r->count_runs = n;
    r->varies = n > 1 && counts_vary(work, n, nfield);
    for (long i = 0; i < n; i++)   /* A's passes, then B's */
        for (int k = 0; k < 2; k++)
            r->cjob[k * n + i] = work[2 * i + k];
    free(work);
    r->counted = rc == 0;
    return rc;
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
        ab_count_judge(v, v + n, n, r->varies, &r->count[f]);
    }
    free(v);
    const struct ab_count *ci = &r->count[AB_INSTR], *ca = &r->count[AB_ALLOC];
    r->work = ab_work_verdict(ci, ca, r->work_line, sizeof r->work_line);
    r->cache = AB_CHANGE_NA;
    if (r->o->copt.cache_sim)
        r->cache = ab_cache_verdict(r->count, r->cache_line, sizeof r->cache_line);
    /* The clock against the work: the instructions' direction where they moved, else the
     * allocations'. */
    char p1[32], p2[32], words[96];
    snprintf(words, sizeof words, "instructions %s, allocations %s",
             ab_pct(p1, sizeof p1, ci->ratio), ab_pct(p2, sizeof p2, ca->ratio));
    enum ab_change dir = ci->change;
    if (dir == AB_CHANGE_NONE && moved(ca->change))
        dir = ca->change;
    if (ca->change == AB_CHANGE_UNKNOWN)
        dir = AB_CHANGE_UNKNOWN;
    struct ab_reading_in in = {
        .work = dir, .counts = words, .misses = r->cache,
        .misses_ratio = r->count[AB_MISSES].ratio, .clock = !isnan(r->wall.ci_low),
        .ratio = r->wall.ratio, .lo = r->wall.ci_low, .hi = r->wall.ci_high,
        .threshold = r->o->threshold,
    };
    r->reading = ab_reading(&in, r->reading_line, sizeof r->reading_line);
    return 0;
}

/* Runs the build command with /bin/sh -c in one tree (cwd, with PWD it; NULL: here, as the
 * user's shell left it), by its real path: what the build writes into the user's tree (a
 * binary's source directory in its debug information) names no link of tare's; a failed
 * build is ERR_MEASURE with build_failed and the end of its stderr. */
static int build_tree(struct ab_result *r, const char *cwd, const char *which, struct err *e)
{
    char what[320];
    snprintf(what, sizeof what, "building %s", which);
    progress(r, what);
    char *argv[] = {"/bin/sh", "-c", (char *)r->o->build, NULL};
    char *pwd = NULL;
    if (cwd && asprintf(&pwd, "PWD=%s", cwd) < 0)
        return err_set(e, ERR_SYSTEM, "out of memory");
    char *env[] = {pwd, NULL};
    struct proc_opts po = {.argv = argv, .cwd = cwd, .env_set = pwd ? env : NULL, .pin_cpu = -1,
                           .stdout_path = "/dev/null"};
    struct proc_result pr;
    int rc = proc_run(&po, &pr, e);
    free(pwd);
    if (rc < 0)
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

/*
 * Git mode: each tree reached by a path of one length, links TMP/a (the worktree) and TMP/b
 * (the user's tree) beside the worktree, each side run there with PWD that path. A command's
 * environment is then the same size on both sides (its size moves a count: tare-count(1))
 * and tells the truth: with A's PWD left at the user's tree, a shell asked getcwd, which
 * allocates, and A/A through sh counted 4 KB more bytes on A alone. A PWD of the side's own
 * (its env) is left as given.
 */
static int git_paths(struct ab_result *r, struct err *e)
{
    const struct gitwt *git = r->o->git;
    for (int k = 0; k < 2; k++) {
        char *link = NULL;
        const char *to = k == 0 ? git->dir : git->top;
        if (asprintf(&link, "%s/%c", git->tmp, 'a' + k) < 0)
            return err_set(e, ERR_SYSTEM, "out of memory");
        int rc = symlink(to, link);
        if (rc == 0 && asprintf(&r->tree_cwd[k], "%s%s%s", link, *git->prefix ? "/" : "",
                                git->prefix) < 0)
            r->tree_cwd[k] = NULL;
        free(link);
        if (rc < 0)
            return err_set(e, ERR_SYSTEM, "cannot link '%s' in '%s': %s", to, git->tmp,
                           strerror(errno));
        if (!r->tree_cwd[k])
            return err_set(e, ERR_SYSTEM, "out of memory");
        size_t len = strlen(r->tree_cwd[k]);
        while (len > 1 && r->tree_cwd[k][len - 1] == '/')
            r->tree_cwd[k][--len] = '\0';
        size_t n = 0;
        bool own = false;
        for (char *const *v = r->o->side[k].env; v && *v; v++, n++)
            own |= strncmp(*v, "PWD=", 4) == 0;
        if (own)
            continue;
        r->tree_env[k] = calloc(n + 2, sizeof *r->tree_env[k]);
        if (!r->tree_env[k] || asprintf(&r->tree_pwd[k], "PWD=%s", r->tree_cwd[k]) < 0)
            return err_set(e, ERR_SYSTEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            r->tree_env[k][i] = r->o->side[k].env[i];
        r->tree_env[k][n] = r->tree_pwd[k];
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
    if (git_paths(r, e) < 0)
        return -1;
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
    for (long i = 0; r->cjob && i < 2 * r->count_runs; i++)
        count_job_free(&r->cjob[i]);
    free(r->cjob);
    r->cjob = NULL;
    for (int k = 0; k < 2; k++) {
        free(r->tree_cwd[k]);
        free(r->tree_env[k]);
        free(r->tree_pwd[k]);
        r->tree_cwd[k] = r->tree_pwd[k] = NULL;
        r->tree_env[k] = NULL;
    }
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
