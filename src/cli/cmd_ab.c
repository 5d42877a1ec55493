/* cmd_ab.c: `tare ab`, paired interleaved A/B with an interval and an honest verdict. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/count_out.h"
#include "cli/counters_out.h"
#include "cli/export_out.h"
#include "cli/harness.h"
#include "cli/hyperfine_export.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/count.h"
#include "core/counters.h"
#include "core/gitwt.h"
#include "core/proc.h"
#include "core/session.h"
#include "core/stats.h"

#define AB_ALPHA 0.05   /* the A/B's error rate, shared out among its looks */

const char cmd_ab_usage[] =
    "tare ab [options] 'CMD A' 'CMD B'\n"
    "tare ab [options] [--base REV] [--build 'BUILD CMD'] -- CMD [ARG...]";

static const char ab_options[] =
    "Options (hyperfine's letters, with hyperfine's meanings):\n"
    "  -r, --pairs N           pairs of runs, that is runs of each (default 20; at least 6\n"
    "                          for a 95% interval; --runs is the same)\n"
    "  -w, --warmup N          runs of each before the pairs, never counted (default 1)\n"
    "      --threshold PCT     the least change called faster or slower (default 1%)\n"
    "      --until-decided     add pairs until the verdict is decided or the interval lies\n"
    "                          within the threshold (looks at N, 2N, 4N, ... pairs)\n"
    "      --max-pairs N       with --until-decided: stop at N pairs (default 200)\n"
    "      --max-time SECONDS  with --until-decided: stop after this long\n"
    "      --fail-if-slower    exit 3 when the verdict is slower (for CI)\n"
    "      --count             also count instructions, allocations, bytes and peak heap\n"
    "                          of each side (callgrind passes, as tare count does)\n"
    "      --count-runs N      with --count: passes of each side, side by side (default 2,\n"
    "                          at least 2); a count moves only past each side's own spread\n"
    "      --cache-sim         with --count: simulated L1 and LL cache misses, and estimated\n"
    "                          cycles, of each side, with a verdict on the misses\n"
    "      --engine ENGINE     with --count: callgrind (default) or cachegrind (faster)\n"
    "      --valgrind-arg ARG  with --count: pass this option to valgrind too (repeatable)\n"
    "      --counters          also count cycles, instructions, faults (see tare stat)\n"
    "                          in every measured run; medians beside the times\n"
    "      --base REV          A is REV built in a temporary git worktree, B the working\n"
    "                          tree; CMD comes after '--' (default REV: HEAD)\n"
    "      --build 'BUILD CMD' with --base: build each tree first (run with /bin/sh -c)\n"
    "  -n, --command-name NAME\n"
    "                          name A, then B (default: the command; --name is the same)\n"
    "  -S, --shell SHELL       run each command string with SHELL -c (sh, bash, 'bash --norc'\n"
    "                          or a path; default: none, the words run as they are)\n"
    "  -N                      no shell (the default: accepted for hyperfine's -N)\n"
    "  -t, --timeout SECONDS   kill a run (and its process group) after this long\n"
    "      --pin CPU           run the commands on this CPU only\n"
    "  -f, --format FORMAT     text (default) or json\n"
    "      --export-json FILE  also write A and B in hyperfine's JSON export schema\n"
    "      --export-csv FILE   also write A and B in hyperfine's CSV export columns\n"
    "      --export-markdown FILE\n"
    "                          also write A and B as hyperfine's markdown table\n"
    CLI_EXPORT_HELP
    "  -h, --help              show this help\n"
    "Around the timed runs (hooks are split into words like the commands, or run with\n"
    "--shell; --count's pass runs none of them):\n";

struct side {
    struct target *t;
    const char *label;      /* "A" or "B" */
    const char *cwd;        /* NULL: the current directory */
    struct session_series *x;   /* its series in the engine, with the failure record */
    double *times;          /* x's measured wall times */
    struct ctr_sample *ctr; /* with --counters: one per measured run */
    double warm_first;
};

struct ab {
    long pairs, warmup, max_pairs;
    double threshold, max_time, timeout;
    int pin;
    bool until, fail_if_slower, progress;
    struct side a, b;
    long n;                 /* pairs measured */
    int looks, planned_looks;
    const char *stopped;    /* why measuring stopped */
    double t_start;
    struct stats_ab res;
    struct gitwt *git;      /* git mode, else NULL */
    struct ctr_set *ctr;    /* --counters, or NULL */
    struct harness h;       /* hooks, stdin, stdout of the timed runs */
    struct session_series series[2];   /* A, B */
    struct session_plan plan;
    struct session_looks seq;
    struct session sess;
    bool count;             /* --count */
    bool counted;           /* the deterministic pass ran (it may have failed) */
    long count_runs;        /* --count-runs: callgrind passes of each side */
    /* The count pass's options from the command line: cache_sim, engine, vg_args
     * (--cache-sim, --engine, --valgrind-arg); count_both fills in the rest. */
    struct count_opts copt;
    char **vg_args;         /* copt.vg_args, owned */
    struct count_job *cjob; /* A's count_runs passes, then B's */
    char valgrind[4096], alloc_lib[4096];
    char alloc_why[1024];   /* why bytes and peak heap are NA, or "" */
};

static void progress(const struct ab *ab, const char *what)
{
    if (!ab->progress)
        return;
    fprintf(stderr, "\r\033[K%s  %.1f s", what, proc_now() - ab->t_start);
    fflush(stderr);
}

static void progress_done(const struct ab *ab)
{
    if (ab->progress)
        fputs("\r\033[K", stderr);
}

static void on_run_progress(void *ctx, const struct session *ss, const struct session_event *ev)
{
    struct ab *ab = ctx;
    char what[128];
    if (ev->pos != 0)
        return;
    ab->t_start = ev->warmup ? ss->t_start : ss->t_measure;
    snprintf(what, sizeof what, "%s %ld/%ld", ev->warmup ? "warm-up" : "pair", ev->run, ev->runs);
    progress(ab, what);
}

/* A look at the pairs so far: the interval at this look's alpha; 1 when it settles it. */
static int look(void *ctx, const struct session *ss, double alpha, struct err *e)
{
    struct ab *ab = ctx;
    if (stats_paired_ratio(ab->a.times, ab->b.times, ss->rounds, alpha, ab->threshold,
                           &ab->res) < 0 && ss->rounds > 0)
        return err_set(e, ERR_SYSTEM, "out of memory");
    return ab->res.settled;
}

/*
 * Warm-up runs of A then B, then pairs in alternating order (A B, B A, ...: whatever drifts,
 * or favours the second run, hits both alike), looked at after N pairs; with --until-decided
 * at N, 2N, 4N, ... up to --max-pairs, each look spending 0.05 / (number of looks). A failed
 * run stops the whole A/B, since a pair needs both.
 */
static int measure(struct ab *ab, struct err *e)
{
    struct side *sides[2] = {&ab->a, &ab->b};
    for (int i = 0; i < 2; i++)
        ab->series[i] = (struct session_series){
            .name = sides[i]->t->name, .label = sides[i]->label, .argv = sides[i]->t->argv,
            .env = sides[i]->t->env, .cwd = sides[i]->cwd,
        };
    for (int i = 0; i < 2; i++)
        harness_apply(&ab->h, &ab->series[i], 0);
    ab->seq = (struct session_looks){
        .first = ab->pairs, .max = ab->until ? ab->max_pairs : ab->pairs,
        .max_time_s = ab->until ? ab->max_time : 0, .alpha = AB_ALPHA, .look = look, .ctx = ab,
    };
    ab->plan = (struct session_plan){
        .series = ab->series, .nseries = 2, .warmup = ab->warmup, .order = SESSION_ALTERNATE,
        .timeout_s = ab->timeout, .pin_cpu = ab->pin, .stop_on_failure = true, .ctr = ab->ctr,
        .looks = &ab->seq, .progress = ab->progress ? on_run_progress : NULL, .progress_ctx = ab,
    };
    harness_plan(&ab->h, &ab->plan);
    if (session_init(&ab->sess, &ab->plan, e) < 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        sides[i]->x = &ab->series[i];
        sides[i]->times = ab->series[i].wall_s;
        sides[i]->ctr = ab->series[i].ctr;
    }
    int rc = session_run(&ab->sess, e);
    ab->t_start = ab->sess.t_measure;
    for (int i = 0; rc < 0 && e->kind == ERR_MEASURE && i < 2; i++) {
        const struct session_series *x = &ab->series[i];
        char why[512];
        if (x->state != SESSION_OK && x->fail.hook)
            err_set(e, ERR_MEASURE, "%s '%s': %s", x->label, x->name,
                    session_failure_why(&x->fail, why, sizeof why));
        else if (x->state != SESSION_OK)
            err_set(e, ERR_MEASURE, "%s '%s' failed: %s in %s", x->label, x->name, x->fail.what,
                    x->fail.warmup ? "the warm-up" : "a measured run");
    }
    if (rc < 0)
        return -1;
    ab->n = ab->sess.rounds;
    ab->looks = ab->sess.looks;
    ab->planned_looks = ab->sess.planned_looks;
    static const char *const stop_names[] = {
        [SESSION_STOP_RUNS] = "pairs", [SESSION_STOP_DECIDED] = "decided",
        [SESSION_STOP_MAX_TIME] = "max-time", [SESSION_STOP_MAX_RUNS] = "max-pairs",
    };
    ab->stopped = ab->until ? stop_names[ab->sess.stopped] : "pairs";
    ab->a.warm_first = ab->series[0].warm_first;
    ab->b.warm_first = ab->series[1].warm_first;
    progress_done(ab);
    return 0;
}

/* "+20.1%", "-3.0%": a ratio as a change. */
static const char *pct(char *buf, double ratio)
{
    if (isnan(ratio)) {
        snprintf(buf, FMT_BUF_MIN, "%s", "NA");
        return buf;
    }
    if (isinf(ratio)) {
        snprintf(buf, FMT_BUF_MIN, "%s", ratio > 0 ? "+inf%" : "-inf%");
        return buf;
    }
    double p = (ratio - 1) * 100;
    snprintf(buf, FMT_BUF_MIN, "%+.*f%%", fabs(p) < 10 ? 2 : 1, p);
    return buf;
}

static void on_count_progress(void *ctx, const struct count_job *job, bool finished, int done,
                              int total)
{
    (void)job;
    (void)finished;
    char what[128];
    snprintf(what, sizeof what, "counting under %s, %d/%d done",
             count_engine_name(((struct ab *)ctx)->copt.engine), done, total);
    progress(ctx, what);
}

/* The deterministic pass (tare count's): every run of both sides side by side, since counts
 * do not depend on load. Each side runs --count-runs times: a program that seeds itself from
 * the clock or an address (an interpreter's string hash) counts differently run to run, and
 * only that spread tells a change from noise. A side that fails is NA with its reason; -1
 * only when tare cannot go on. */
static int count_both(struct ab *ab, struct err *e)
{
    struct side *sides[2] = {&ab->a, &ab->b};
    long n = ab->count_runs;
    ab->cjob = calloc(2 * n, sizeof *ab->cjob);
    if (!ab->cjob)
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (long i = 0; i < 2 * n; i++) {
        const struct side *s = sides[i / n];
        ab->cjob[i] = (struct count_job){
            .name = s->label, .argv = s->t->argv, .env = s->t->env, .cwd = s->cwd,
        };
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct count_opts co = ab->copt;
    co.jobs = (int)(ncpu > 1 ? (ncpu < 2 * n ? ncpu : 2 * n) : 1);
    co.timeout_s = COUNT_TIMEOUT_S;
    co.valgrind = ab->valgrind;
    co.alloc_lib = ab->alloc_why[0] ? NULL : ab->alloc_lib;
    co.progress = on_count_progress;
    co.ctx = ab;
    progress(ab, co.engine == COUNT_CACHEGRIND ? "counting under cachegrind"
                                                : "counting under callgrind");
    int rc = count_run(ab->cjob, (int)(2 * n), &co, e);
    progress_done(ab);
    ab->counted = rc == 0;
    return rc;
}

static const char *count_status_name(enum count_status s)
{
    switch (s) {
    case COUNT_OK: return "ok";
    case COUNT_TIMEOUT: return "timeout";
    case COUNT_UNSTABLE: return "unstable";
    default: return "failed";
    }
}

/* The counts of the pass: tare count's four, then --cache-sim's simulated misses, their sum
 * (the cache verdict's figure) and the cycles model. */
enum {
    F_INSTR, F_ALLOC, F_BYTES, F_PEAK, F_L1I, F_L1D, F_LLI, F_LLD, F_MISSES, F_CYCLES, NFIELD
};
#define NPLAIN 4   /* the fields without --cache-sim */

/* One count of one run, NAN when it was not measured. */
static double job_value(const struct count_job *j, int field)
{
    if (j->status != COUNT_OK)
        return NAN;
    const uint64_t v[] = {j->instructions, j->allocations, j->bytes, j->peak_bytes,
                          j->l1i_misses, j->l1d_misses, j->lli_misses, j->lld_misses};
    if (field == F_CYCLES)
        return j->est_cycles == COUNT_NA ? NAN : (double)j->est_cycles;
    if (field != F_MISSES)
        return v[field] == COUNT_NA ? NAN : (double)v[field];
    double sum = 0;
    for (int f = F_L1I; f <= F_LLD; f++) {
        if (v[f] == COUNT_NA)
            return NAN;
        sum += (double)v[f];
    }
    return sum;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Side k's runs: the first that failed (or NULL), and each count's median (rounded to a whole
 * count) and spread, (max - min) / median; NAN when a run did not measure it. */
static void count_summary(const struct ab *ab, int k, const struct count_job **bad,
                          double med[NFIELD], double spread[NFIELD])
{
    long n = ab->count_runs;
    const struct count_job *runs = ab->cjob + k * n;
    *bad = NULL;
    for (long i = 0; i < n && !*bad; i++)
        if (runs[i].status != COUNT_OK)
            *bad = &runs[i];
    double v[256];
    for (int f = 0; f < NFIELD; f++) {
        med[f] = spread[f] = NAN;
        if (*bad)
            continue;
        bool all = true;
        for (long i = 0; i < n; i++)
            all &= !isnan(v[i] = job_value(&runs[i], f));
        if (!all)
            continue;
        qsort(v, n, sizeof *v, cmp_double);
        med[f] = round(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
        spread[f] = v[n - 1] == v[0] ? 0 : med[f] > 0 ? (v[n - 1] - v[0]) / med[f] : INFINITY;
    }
}

/* A count of side k (its median), NAN when it was not measured. */
static double count_value(const struct ab *ab, int k, int field)
{
    const struct count_job *bad;
    double med[NFIELD], spread[NFIELD];
    count_summary(ab, k, &bad, med, spread);
    return med[field];
}

static double count_spread(const struct ab *ab, int k, int field)
{
    const struct count_job *bad;
    double med[NFIELD], spread[NFIELD];
    count_summary(ab, k, &bad, med, spread);
    return spread[field];
}

/* B over A of a count: 1 for two equal counts (0 and 0 too), NAN when either is missing. */
static double count_ratio(const struct ab *ab, int field)
{
    double a = count_value(ab, 0, field), b = count_value(ab, 1, field);
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == b)
        return 1;
    return b / a;   /* inf when A is 0 */
}

static const char *const count_fields[NFIELD] = {
    "instructions", "allocations", "bytes", "peak_bytes", "l1i_misses", "l1d_misses",
    "lli_misses", "lld_misses", "misses", "est_cycles",
};

/* Counts of a program that does not vary that differ by more than this are a change in the
 * work done (the bound tare count --check-warm holds two passes of one command to). */
#define COUNT_SAME 0.0001

/* The least change of a count that is a change: more than either side's runs vary among
 * themselves, and more than COUNT_SAME. NAN when a side was not measured. */
static double count_limit(const struct ab *ab, int field)
{
    double sa = count_spread(ab, 0, field), sb = count_spread(ab, 1, field);
    if (isnan(sa) || isnan(sb))
        return NAN;
    double l = sa > sb ? sa : sb;
    return l > COUNT_SAME ? l : COUNT_SAME;
}

enum count_change { CHANGE_NA, CHANGE_NONE, CHANGE_MORE, CHANGE_LESS };

static enum count_change count_change(const struct ab *ab, int field)
{
    double r = count_ratio(ab, field), l = count_limit(ab, field);
    if (isnan(r) || isnan(l))
        return CHANGE_NA;
    if (!(fabs(r - 1) > l))
        return CHANGE_NONE;
    return r > 1 ? CHANGE_MORE : CHANGE_LESS;
}

/* A spread as a percentage: two decimals, or two figures under 0.01%. */
static const char *spread_str(char *buf, double s)
{
    if (isnan(s) || isinf(s))
        snprintf(buf, 32, "%s", isnan(s) ? "NA" : "inf%");
    else
        snprintf(buf, 32, s > 0 && s < 0.0001 ? "%.2g%%" : "%.2f%%", 100 * s);
    return buf;
}

/* The largest spread of the work counts (instructions, allocations) on either side. */
static double work_spread(const struct ab *ab)
{
    double m = 0;
    for (int k = 0; k < 2; k++)
        for (int f = 0; f < 2; f++) {
            double s = count_spread(ab, k, f);
            if (!isnan(s) && s > m)
                m = s;
        }
    return m;
}

/*
 * What the counts show: more work or less (instructions and allocations moved, each by more
 * than both sides' own spread), or no change they can show. NULL when a side has no counts;
 * *verdict is the JSON's word.
 */
static const char *count_verdict(const struct ab *ab, char *buf, size_t n, const char **verdict)
{
    enum count_change ci = count_change(ab, 0), ca = count_change(ab, 1);
    *verdict = NULL;
    if (ci == CHANGE_NA)
        return NULL;
    char p1[32], p2[32], s[32];
    spread_str(s, work_spread(ab));
    bool mi = ci == CHANGE_MORE || ci == CHANGE_LESS, ma = ca == CHANGE_MORE || ca == CHANGE_LESS;
    if (!mi && !ma) {
        *verdict = "same";
        if (work_spread(ab) > COUNT_SAME)
            snprintf(buf, n, "counts: no change the counts can show (this program's counts "
                     "vary by %s run to run)", s);
        else if (work_spread(ab) > 0)
            snprintf(buf, n, "counts: no change the counts can show (instructions and "
                     "allocations within %.2g%%; this program's counts vary by %s run to run)",
                     100 * COUNT_SAME, s);
        else
            snprintf(buf, n, "counts: no change (instructions %s, allocations %s; each side "
                     "counted the same in all %ld passes)", pct(p1, count_ratio(ab, 0)),
                     pct(p2, count_ratio(ab, 1)), ab->count_runs);
        return buf;
    }
    if (mi && ma && ci != ca) {
        *verdict = "different";
        snprintf(buf, n, "counts: B does different work: instructions %s, allocations %s "
                 "(each side's runs vary by %s at most)", pct(p1, count_ratio(ab, 0)),
                 pct(p2, count_ratio(ab, 1)), s);
        return buf;
    }
    bool more = (mi ? ci : ca) == CHANGE_MORE;
    *verdict = more ? "more" : "less";
    if (mi && ma)
        snprintf(buf, n, "counts: B does %s work: instructions %s, allocations %s (each side's "
                 "runs vary by %s at most)", more ? "more" : "less", pct(p1, count_ratio(ab, 0)),
                 pct(p2, count_ratio(ab, 1)), s);
    else
        snprintf(buf, n, "counts: B does %s work: %s %s (each side's runs vary by %s at most)",
                 more ? "more" : "less", mi ? "instructions" : "allocations",
                 pct(p1, count_ratio(ab, mi ? 0 : 1)), s);
    return buf;
}

/*
 * The seed's section 6: the deterministic counts are the evidence, the wall clock the
 * reading. Says so when they disagree: the clock still where the counts moved, or moved
 * where the counts did not, or the two in opposite directions. NULL when they agree. A
 * count moved only when count_change says so (past both sides' own spread).
 */
static const char *count_reading(const struct ab *ab, char *buf, size_t n)
{
    double ri = count_ratio(ab, 0), ra = count_ratio(ab, 1);
    if (isnan(ri) || isnan(ab->res.ci_low))
        return NULL;
    enum count_change ci = count_change(ab, 0), ca = count_change(ab, 1);
    bool moved_i = ci == CHANGE_MORE || ci == CHANGE_LESS;
    bool moved_a = ca == CHANGE_MORE || ca == CHANGE_LESS;
    char p1[32], p2[32];
    if (ab->res.verdict == STATS_SAME && (moved_i || moved_a)) {
        bool less = moved_i ? ri < 1 : ra < 1;
        snprintf(buf, n, "wall clock does not move while the counts do (instructions %s, "
                 "allocations %s): B does %s work, which this run's wall clock does not show",
                 pct(p1, ri), pct(p2, ra), less ? "less" : "more");
        return buf;
    }
    if (ab->res.verdict != STATS_SAME && !moved_i && !moved_a) {
        /* With --cache-sim, whether the simulated misses moved: a lead, not a cause. */
        enum count_change cm = ab->copt.cache_sim ? count_change(ab, F_MISSES) : CHANGE_NA;
        char sim[96] = "", p3[32];
        if (cm == CHANGE_MORE || cm == CHANGE_LESS)
            snprintf(sim, sizeof sim, "; the simulated misses did move (%s)",
                     pct(p3, count_ratio(ab, F_MISSES)));
        else if (cm == CHANGE_NONE)
            snprintf(sim, sizeof sim, "; nor did the simulated misses");
        snprintf(buf, n, "the wall clock moved but the counts did not (instructions %s, "
                 "allocations %s): the difference is not in the instructions run or the "
                 "allocations made (waiting, I/O, caches, code layout, or the machine)%s",
                 pct(p1, ri), pct(p2, ra), sim);
        return buf;
    }
    if (ab->res.verdict != STATS_SAME && moved_i &&
        (ri < 1) != (ab->res.verdict == STATS_FASTER)) {
        snprintf(buf, n, "the wall clock and the instructions disagree: B is %s but runs %s "
                 "instructions (%s)", stats_verdict_name(ab->res.verdict),
                 ri < 1 ? "fewer" : "more", pct(p1, ri));
        return buf;
    }
    return NULL;
}

/* "+12.3%" when the count moved (count_change), else "flat". */
static const char *moved_str(const struct ab *ab, char *buf, int field)
{
    enum count_change c = count_change(ab, field);
    if (c == CHANGE_MORE || c == CHANGE_LESS)
        return pct(buf, count_ratio(ab, field));
    snprintf(buf, FMT_BUF_MIN, "%s", "flat");
    return buf;
}

/*
 * --cache-sim: what the simulated caches show, by count_verdict's rule (a change only past
 * both sides' spread and COUNT_SAME) applied to all the misses together (L1 and LL,
 * instruction and data): "more", "less" or "same" into *word, with the misses that moved by
 * kind, the instructions beside them (a change in misses alone is the news), and the cycles
 * model. NULL without --cache-sim; *word NULL when a side's misses were not counted.
 */
static const char *cache_verdict(const struct ab *ab, char *buf, size_t n, const char **word)
{
    static const char *const kind[] = {"L1 instr", "L1 data", "LL instr", "LL data"};
    *word = NULL;
    if (!ab->copt.cache_sim)
        return NULL;
    enum count_change ci = count_change(ab, F_INSTR), cm = count_change(ab, F_MISSES);
    if (ci == CHANGE_NA || cm == CHANGE_NA) {
        snprintf(buf, n, "simulated caches: NA (a side's misses were not counted)");
        return buf;
    }
    *word = cm == CHANGE_MORE ? "more" : cm == CHANGE_LESS ? "less" : "same";
    char pi[32], pm[32], pc[32], kinds[256] = "";
    size_t len = 0;
    for (int f = F_L1I; f <= F_LLD; f++) {
        enum count_change c = count_change(ab, f);
        if (c != CHANGE_MORE && c != CHANGE_LESS)
            continue;
        char p[32];
        len += (size_t)snprintf(kinds + len, sizeof kinds - len, "%s%s %s", len ? ", " : " (",
                                kind[f - F_L1I], pct(p, count_ratio(ab, f)));
        if (len >= sizeof kinds)
            len = sizeof kinds - 1;
    }
    if (len)
        snprintf(kinds + len, sizeof kinds - len, ")");
    snprintf(buf, n, "simulated caches: instructions %s, simulated misses %s%s; est. cycles %s "
             "(a model, not a measurement)", moved_str(ab, pi, F_INSTR),
             moved_str(ab, pm, F_MISSES), kinds, moved_str(ab, pc, F_CYCLES));
    return buf;
}

static void print_counts_text(const struct ab *ab)
{
    static const char *const h[] = {"count", "A", "B", "B/A change", "A spread", "B spread"};
    static const char *const label[NFIELD] = {
        "instructions", "allocations", "bytes", "peak heap", "L1 instr misses", "L1 data misses",
        "LL instr misses", "LL data misses", "all misses", "est. cycles",
    };
    struct table t;
    table_init(&t, 6, h, 0x1);
    char b[64];
    for (int f = 0; f < (ab->copt.cache_sim ? NFIELD : NPLAIN); f++) {
        table_row(&t);
        table_set(&t, 0, "%s", label[f]);
        for (int k = 0; k < 2; k++) {
            double v = count_value(ab, k, f);
            table_set(&t, k + 1, "%s", isnan(v) ? "NA" : fmt_count(b, v));
            table_set(&t, k + 4, "%s", spread_str(b, count_spread(ab, k, f)));
        }
        table_set(&t, 3, "%s", pct(b, count_ratio(ab, f)));
    }
    printf("\ncounts (deterministic: the median of %ld %s passes of each, side by side, "
           "after a native warm-up; spread: (max - min) / median of a side's passes; bytes and "
           "peak heap from libtare-alloc):\n", ab->count_runs, count_engine_name(ab->copt.engine));
    struct count_view v = {.co = &ab->copt};   /* the valgrind options, the cycles model */
    count_extra_legend(stdout, &v);
    table_print(&t, stdout, FMT_TEXT);
    table_free(&t);
    char buf[512];
    const char *verdict;
    const char *r = count_verdict(ab, buf, sizeof buf, &verdict);
    if (r)
        printf("%s\n", r);
    r = cache_verdict(ab, buf, sizeof buf, &verdict);
    if (r)
        printf("%s\n", r);
    r = count_reading(ab, buf, sizeof buf);
    if (r)
        printf("%s\n", r);
}

/* A count in JSON: a whole number as one (never 1.6e+09), null when not measured. */
static void json_count(double v)
{
    if (isnan(v))
        fputs("null", stdout);
    else
        printf("%.0f", v);
}

static void print_counts_json(const struct ab *ab)
{
    int nf = ab->copt.cache_sim ? NFIELD : NPLAIN;
    printf(",\n \"count\": {\"runs\": %ld, \"engine\": \"%s\", \"cache_sim\": %s",
           ab->count_runs, count_engine_name(ab->copt.engine),
           ab->copt.cache_sim ? "true" : "false");
    count_vg_args_json(stdout, &ab->copt);
    fputs(", ", stdout);
    for (int k = 0; k < 2; k++) {
        const struct count_job *bad;
        double med[NFIELD], spread[NFIELD];
        count_summary(ab, k, &bad, med, spread);
        printf("\"%s\": {\"status\": \"%s\"", k ? "b" : "a",
               count_status_name(bad ? bad->status : COUNT_OK));
        for (int f = 0; f < 4; f++) {
            printf(", \"%s\": ", count_fields[f]);
            json_count(med[f]);
        }
        for (int f = 0; f < 4; f++) {
            printf(", \"%s_spread\": ", count_fields[f]);
            json_num(stdout, spread[f]);
        }
        for (int f = NPLAIN; f < nf; f++) {   /* --cache-sim's, after the four */
            printf(", \"%s\": ", count_fields[f]);
            json_count(med[f]);
            printf(", \"%s_spread\": ", count_fields[f]);
            json_num(stdout, spread[f]);
        }
        fputs(", \"error\": ", stdout);
        if (bad)
            json_str(stdout, bad->why);
        else
            fputs("null", stdout);
        fputs("}, ", stdout);
    }
    static const char *const change_name[] = {"null", "\"none\"", "\"more\"", "\"less\""};
    fputs("\"ratio\": {", stdout);
    for (int f = 0; f < nf; f++) {
        printf("%s\"%s\": ", f ? ", " : "", count_fields[f]);
        json_num(stdout, count_ratio(ab, f));
    }
    fputs("}, \"change\": {", stdout);
    for (int f = 0; f < nf; f++)
        printf("%s\"%s\": %s", f ? ", " : "", count_fields[f], change_name[count_change(ab, f)]);
    fputs("}, \"work\": ", stdout);
    char buf[512];
    const char *verdict;
    count_verdict(ab, buf, sizeof buf, &verdict);
    if (verdict)
        json_str(stdout, verdict);
    else
        fputs("null", stdout);
    fputs(", \"caches\": ", stdout);
    const char *line = cache_verdict(ab, buf, sizeof buf, &verdict);
    if (verdict)
        json_str(stdout, verdict);
    else
        fputs("null", stdout);
    fputs(", \"caches_line\": ", stdout);
    if (line)
        json_str(stdout, line);
    else
        fputs("null", stdout);
    fputs(", \"note\": ", stdout);
    const char *r = count_reading(ab, buf, sizeof buf);
    if (r)
        json_str(stdout, r);
    else
        fputs("null", stdout);
    fputs("}", stdout);
}

/* Says, once, why a count is NA; true when one side's counting failed. */
static bool report_counts(const struct ab *ab)
{
    if (ab->alloc_why[0])
        cli_error("ab", "note: bytes and peak heap are NA: %s", ab->alloc_why);
    bool failed = false;
    const struct side *sides[2] = {&ab->a, &ab->b};
    long n = ab->count_runs;
    for (int k = 0; k < 2; k++) {
        const struct count_job *runs = ab->cjob + k * n, *bad = NULL;
        for (long i = 0; i < n; i++)
            if (runs[i].note[0]) {
                cli_error("ab", "note: %s '%s': %s", sides[k]->label, sides[k]->t->name,
                          runs[i].note);
                break;
            }
        long i = 0;
        for (; i < n && !bad; i++)
            if (runs[i].status != COUNT_OK)
                bad = &runs[i];
        if (!bad)
            continue;
        failed = true;
        cli_error("ab", "counting %s '%s' failed (pass %ld of %ld): %s%s", sides[k]->label,
                  sides[k]->t->name, i, n, bad->why,
                  bad->tail[0] ? "; its stderr ended with:" : "");
        if (bad->tail[0])
            cli_print_stderr_tail(bad->tail);
    }
    return failed;
}

static void report_tail(const char *label, const char *name, const char *tail)
{
    if (!tail[0])
        return;
    fprintf(stderr, "tare ab: the stderr of %s '%s' ended with:\n", label, name);
    cli_print_stderr_tail(tail);
}

static void report_failure(const struct side *s)
{
    if (s->x && s->x->state != SESSION_OK)
        report_tail(s->label, s->t->name, s->x->fail.tail);
}

/* The CI formats (export_out.h): each side's median (median -/+ MAD, pairs as runs), B/A with
 * its interval (failing as a regression with --fail-if-slower when slower), and with --count
 * each side's first pass. failed: the A/B stopped on a failure (why); every value NA. */
static int export_ci(const struct ab *ab, const struct cli_export *x, const char *failed)
{
    struct export_set set;
    struct err e = {0};
    int rc = export_init(&set, "tare ab", &e);
    const struct side *sides[2] = {&ab->a, &ab->b};
    char why[512], ratio_name[1024], note[256];
    for (int k = 0; k < 2 && rc == 0; k++) {
        const struct side *s = sides[k];
        bool bad = s->x && s->x->state != SESSION_OK;
        double med = failed ? NAN : stats_median(s->times, ab->n);
        double mad = failed ? NAN : stats_mad(s->times, ab->n);
        struct export_rec r = {
            .bench = s->t->name, .measure = "median_s", .value = med, .lo = med - mad,
            .hi = med + mad, .range_what = "median - MAD .. median + MAD", .runs = ab->n,
            .state = !failed ? EXPORT_PASS : bad ? EXPORT_FAILED : EXPORT_SKIPPED,
            .note = !failed ? NULL : bad ? session_failure_why(&s->x->fail, why, sizeof why)
                                         : "not measured: the other side failed"};
        rc = export_add(&set, &r, &e);
        if (rc == 0 && !failed && ab->counted)
            rc = cli_export_add_counts(&set, s->t->name, &ab->cjob[k * ab->count_runs], false,
                                       &e);
    }
    snprintf(ratio_name, sizeof ratio_name, "%s / %s", ab->b.t->name, ab->a.t->name);
    const struct stats_ab *res = &ab->res;
    bool slower = !failed && res->verdict == STATS_SLOWER;
    snprintf(note, sizeof note, "%s", failed ? failed : stats_verdict_name(res->verdict));
    struct export_rec r = {
        .bench = ratio_name, .measure = "ratio", .value = failed ? NAN : res->ratio,
        .lo = failed ? NAN : res->ci_low, .hi = failed ? NAN : res->ci_high,
        .range_what = "the Hodges-Lehmann interval", .runs = ab->n,
        .state = failed ? EXPORT_FAILED
                 : slower && ab->fail_if_slower ? EXPORT_REGRESSED : EXPORT_PASS,
        .note = note};
    if (rc == 0)
        rc = export_add(&set, &r, &e);
    int status = rc < 0 ? cli_fail("ab", &e) : cli_export_write("ab", x, &set);
    export_free(&set);
    return status;
}

static const char *ratio_str(char *buf, double r)
{
    if (isnan(r)) {
        snprintf(buf, FMT_BUF_MIN, "%s", "NA");
        return buf;
    }
    if (isinf(r)) {
        snprintf(buf, FMT_BUF_MIN, "%s", "inf");
        return buf;
    }
    snprintf(buf, FMT_BUF_MIN, "%.4f", r);
    return buf;
}

static void print_verdict(const struct ab *ab);

static void print_text(const struct ab *ab)
{
    print_verdict(ab);
    if (ab->ctr) {
        const char *names[2] = {"A", "B"};
        struct ctr_sample *smp[2] = {ab->a.ctr, ab->b.ctr};
        int n[2] = {(int)ab->n, (int)ab->n};
        counters_print_medians(stdout, ab->ctr, 2, names, smp, n);
    }
    if (ab->counted)
        print_counts_text(ab);
}

static void print_verdict(const struct ab *ab)
{
    const struct stats_ab *r = &ab->res;
    char m[32], n[32], c1[32], c2[32], c3[32];
    int w = (int)strlen(ab->a.t->name);
    if ((int)strlen(ab->b.t->name) > w)
        w = (int)strlen(ab->b.t->name);
    const struct side *sides[2] = {&ab->a, &ab->b};
    for (int i = 0; i < 2; i++) {
        const struct side *s = sides[i];
        /* An A/A run is named A and B: no name column then. */
        bool unnamed = strcmp(ab->a.t->name, "A") == 0 && strcmp(ab->b.t->name, "B") == 0;
        printf("%s  %-*s%smedian %9s  min %9s", s->label, unnamed ? 0 : w,
               unnamed ? "" : s->t->name, unnamed ? "" : "  ",
               fmt_seconds(m, stats_median(s->times, ab->n)),
               fmt_seconds(n, stats_min(s->times, ab->n)));
        if (strcmp(s->t->name, s->t->command) != 0)
            printf("  (%s)", s->t->command);
        putchar('\n');
    }
    printf("%ld pair%s after %ld warm-up run%s of each, in alternating order (A B, B A, ...)",
           ab->n, ab->n == 1 ? "" : "s", ab->warmup, ab->warmup == 1 ? "" : "s");
    if (ab->until)
        printf("; stopped: %s after %d look%s", ab->stopped, ab->looks, ab->looks == 1 ? "" : "s");
    printf("\n");
    double conf = 1 - AB_ALPHA / ab->planned_looks;
    printf("B/A %s, %.3g%% interval %s .. %s (Hodges-Lehmann over the pairs' ratios; "
           "median pair ratio %s)\n", ratio_str(m, r->ratio), 100 * conf, ratio_str(c1, r->ci_low),
           ratio_str(c2, r->ci_high), ratio_str(c3, r->median_ratio));
    if (isnan(r->ci_low)) {
        printf("same: no detectable change: %ld pairs are too few for a %.0f%% interval "
               "(use more pairs)\n", ab->n, 100 * (1 - AB_ALPHA / ab->planned_looks));
        return;
    }
    switch (r->verdict) {
    case STATS_SLOWER:
        printf("slower: B takes %s longer than A (interval %s .. %s)\n", pct(m, r->ratio) + 1,
               pct(c1, r->ci_low), pct(c2, r->ci_high));
        break;
    case STATS_FASTER:
        printf("faster: B takes %s less time than A (interval %s .. %s)\n", pct(m, r->ratio) + 1,
               pct(c1, r->ci_low), pct(c2, r->ci_high));
        break;
    default:
        if (r->significant)
            printf("same: a change of %s (interval %s .. %s) is under the %.3g%% threshold\n",
                   pct(m, r->ratio), pct(c1, r->ci_low), pct(c2, r->ci_high), 100 * ab->threshold);
        else
            printf("same: no detectable change (interval %s .. %s); this run could have "
                   "detected a change of %.2g%% or more\n", pct(c1, r->ci_low), pct(c2, r->ci_high),
                   100 * r->detectable);
    }
}

static void json_side(const struct ab *ab, const struct side *s)
{
    fputs("{\"name\": ", stdout);
    json_str(stdout, s->t->name);
    fputs(", \"command\": ", stdout);
    json_str(stdout, s->t->command);
    fputs(", \"median_s\": ", stdout);
    json_num(stdout, stats_median(s->times, ab->n));
    fputs(", \"min_s\": ", stdout);
    json_num(stdout, stats_min(s->times, ab->n));
    fputs(", \"warmup_s\": ", stdout);
    json_num(stdout, s->warm_first);
    fputs(", \"times\": [", stdout);
    for (long i = 0; i < ab->n; i++) {
        if (i)
            fputs(", ", stdout);
        json_num(stdout, s->times[i]);
    }
    fputs("]", stdout);
    if (ab->ctr) {
        fputs(", \"counters\": {", stdout);
        for (int i = 0; i < ab->ctr->n; i++) {
            json_str(stdout, ab->ctr->c[i].label);
            fputs(": ", stdout);
            json_num(stdout, ctr_median(s->ctr, (int)ab->n, i));
            fputs(i + 1 < ab->ctr->n ? ", " : "", stdout);
        }
        fputs("}", stdout);
    }
    fputs("}", stdout);
}

static void print_json(const struct ab *ab)
{
    const struct stats_ab *r = &ab->res;
    fputs("{\"a\": ", stdout);
    json_side(ab, &ab->a);
    fputs(",\n \"b\": ", stdout);
    json_side(ab, &ab->b);
    printf(",\n \"pairs\": %ld, \"warmup\": %ld, \"ratio\": ", ab->n, ab->warmup);
    json_num(stdout, r->ratio);
    fputs(", \"ci_low\": ", stdout);
    json_num(stdout, r->ci_low);
    fputs(", \"ci_high\": ", stdout);
    json_num(stdout, r->ci_high);
    fputs(", \"confidence\": ", stdout);
    json_num(stdout, r->confidence);
    fputs(", \"median_pair_ratio\": ", stdout);
    json_num(stdout, r->median_ratio);
    fputs(",\n \"threshold\": ", stdout);
    json_num(stdout, ab->threshold);
    fputs(", \"resolution\": ", stdout);
    json_num(stdout, r->resolution);
    fputs(", \"detectable\": ", stdout);
    json_num(stdout, r->detectable);
    printf(", \"significant\": %s, \"verdict\": \"%s\",\n", r->significant ? "true" : "false",
           stats_verdict_name(r->verdict));
    printf(" \"until_decided\": %s, \"looks\": %d, \"planned_looks\": %d, \"stopped\": \"%s\", "
           "\"method\": \"hodges-lehmann\",\n", ab->until ? "true" : "false", ab->looks,
           ab->planned_looks, ab->stopped);
    fputs(" \"pair_ratios\": [", stdout);
    for (long i = 0; i < ab->n; i++) {
        if (i)
            fputs(", ", stdout);
        json_num(stdout, ab->b.times[i] / ab->a.times[i]);
    }
    fputs("],\n \"base\": ", stdout);
    if (ab->git) {
        fputs("{\"rev\": ", stdout);
        json_str(stdout, ab->git->rev);
        fputs(", \"commit\": ", stdout);
        json_str(stdout, ab->git->commit);
        fputs("}", stdout);
    } else {
        fputs("null", stdout);
    }
    if (ab->counted)
        print_counts_json(ab);
    fputs("}\n", stdout);
}

/*
 * Git mode: A runs in a worktree of the revision, where a file the user has but git does
 * not (an untracked script, a program built in the working tree) is missing, and the
 * command fails with "cannot open bench/fib.lua" and no word why. Names the first argument
 * that is a path in the working tree but not in the worktree, into hint (or leaves it "").
 * Called while the worktree still exists.
 */
static void missing_in_worktree(const struct ab *ab, char *hint, size_t n)
{
    hint[0] = '\0';
    for (char *const *w = ab->a.t->argv; *w; w++) {
        const char *path = *w;
        if (path[0] == '-' && strchr(path, '='))
            path = strchr(path, '=') + 1;   /* --file=bench/x.lua */
        if (!*path || path[0] == '/' || (w == ab->a.t->argv && !strchr(path, '/')))
            continue;   /* the same in both trees, or a program found on PATH */
        char there[8192];
        snprintf(there, sizeof there, "%s/%s", ab->git->cwd, path);
        struct stat st;
        if (stat(path, &st) == 0 && stat(there, &st) != 0) {
            snprintf(hint, n, "'%s' is in the working tree but not in '%s' (untracked, ignored "
                     "or not committed there), and A runs in a temporary worktree of '%s': "
                     "commit it, make it there with --build, or name it by its absolute path",
                     path, ab->git->rev, ab->git->rev);
            return;
        }
    }
}

/* Runs the build command with /bin/sh -c in one tree; its failure is reported as such. */
static int build_tree(struct ab *ab, const char *build, const char *cwd, const char *which,
                      struct err *e)
{
    char what[256];
    snprintf(what, sizeof what, "building %s", which);
    progress(ab, what);
    char *argv[] = {"/bin/sh", "-c", (char *)build, NULL};
    struct proc_opts o = {.argv = argv, .cwd = cwd, .pin_cpu = -1, .stdout_path = "/dev/null"};
    struct proc_result r;
    if (proc_run(&o, &r, e) < 0)
        return -1;
    progress_done(ab);
    if (r.status == PROC_INTERRUPTED || proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    if (r.status != PROC_OK) {
        char d[128];
        cli_error("ab", "build of %s failed: '%s' %s", which, build,
                  proc_describe(&r, 0, d, sizeof d));
        report_tail("build", which, r.stderr_tail);
        return err_set(e, ERR_MEASURE, "%s", "");
    }
    return 0;
}

/* ---- plan, measure, report ---- */

/* The two sides' targets, and the worktree of git mode. */
struct ab_sides {
    struct target *targets, *targets_b;
    int nt, nt_b;
    struct gitwt git;
};

/* What the options left for the plan. */
struct ab_args {
    struct target_spec *spec;
    char **names;               /* room for two --name values */
    const char *base, *build;
    bool max_pairs_set, count_runs_set;
    bool engine_set;            /* --engine given */
};

/* The options' combinations checked, then the two sides: command strings A and B, or one
 * command after "--" (B in the working tree, A in a worktree of --base). 0, or the exit status
 * after saying why. */
static int ab_plan(struct ab *ab, struct ab_sides *sd, const struct ab_args *a, int argc,
                   char **argv, int dd, struct err *e)
{
    struct target_spec *spec = a->spec;
    char **names = a->names;
    bool dashdash = dd < argc;
    if (dashdash && optind < dd)
        return cli_usage_error("ab", cmd_ab_usage, "give two command strings, or one command "
                               "after '--' with --base, not both ('%s' comes before '--')",
                               argv[optind]);
    if ((a->max_pairs_set || ab->max_time > 0) && !ab->until)
        return cli_usage_error("ab", cmd_ab_usage,
                               "--max-pairs and --max-time only apply with --until-decided");
    if (a->count_runs_set && !ab->count)
        return cli_usage_error("ab", cmd_ab_usage, "--count-runs only applies with --count");
    const char *count_only = ab->copt.cache_sim ? "--cache-sim" : a->engine_set ? "--engine"
                             : ab->copt.nvg_args ? "--valgrind-arg" : NULL;
    if (count_only && !ab->count)
        return cli_usage_error("ab", cmd_ab_usage, "%s only applies with --count", count_only);
    if (ab->until && ab->max_pairs < ab->pairs)
        return cli_usage_error("ab", cmd_ab_usage, "--max-pairs %ld is fewer than --pairs %ld",
                               ab->max_pairs, ab->pairs);
    if (!dashdash) {
        if (a->base || a->build)
            return cli_usage_error("ab", cmd_ab_usage, "%s takes the command after '--'",
                                   a->base ? "--base" : "--build");
        if (dd - optind != 2)
            return cli_usage_error("ab", cmd_ab_usage, "want two commands, A and B (got %d)",
                                   dd - optind);
        /* Unnamed, each side is called by its command: two runs of one program differ
         * only in their arguments. */
        for (int i = spec->nnames; i < 2; i++)
            names[i] = argv[optind + i];
        if (spec->nnames == 0 && strcmp(names[0], names[1]) == 0) {
            names[0] = "A";         /* the same command twice: an A/A run */
            names[1] = "B";
        }
        spec->nnames = 2;
        if (targets_build(spec, argv + optind, 2, false, &sd->targets, &sd->nt, e) < 0)
            return cli_fail("ab", e);
        ab->a.t = &sd->targets[0];
        ab->b.t = &sd->targets[1];
        return 0;
    }
    if (argc - dd - 1 <= 0)
        return cli_usage_error("ab", cmd_ab_usage, "no command after '--'");
    if (spec->shell)
        return cli_usage_error("ab", cmd_ab_usage,
                               "--shell takes command strings, not a command after '--'");
    /* The same command on both sides, in the two trees, named after them. */
    struct target_spec one = {0};
    char **cmdv = argv + dd + 1;
    int cmdc = argc - dd - 1;
    if (targets_build(&one, cmdv, cmdc, true, &sd->targets, &sd->nt, e) < 0 ||
        targets_build(&one, cmdv, cmdc, true, &sd->targets_b, &sd->nt_b, e) < 0)
        return cli_fail("ab", e);
    struct target *ta = &sd->targets[0], *tb = &sd->targets_b[0];
    free(ta->name);
    free(tb->name);
    ta->name = tb->name = NULL;
    ab->a.t = ta;
    ab->b.t = tb;
    if (gitwt_open(&sd->git, a->base ? a->base : "HEAD", e) < 0)
        return cli_fail("ab", e);
    if (spec->nnames > 0)
        ta->name = strdup(names[0]);
    else if (asprintf(&ta->name, "%s (%.10s)", sd->git.rev, sd->git.commit) < 0)
        ta->name = NULL;
    tb->name = strdup(spec->nnames > 1 ? names[1] : "working tree");
    if (!ta->name || !tb->name) {
        cli_error("ab", "out of memory");
        return EXIT_USAGE;
    }
    ab->git = &sd->git;
    return 0;
}

/* Valgrind (--count) and the counters (--counters), found before any run: 0, or the exit
 * status after saying why. */
static int ab_tools(struct ab *ab, bool counters, struct ctr_set *ctr, struct err *e)
{
    if (ab->count) {
        /* Before any run: without valgrind there is nothing to count with. */
        if (count_find_valgrind(ab->valgrind, sizeof ab->valgrind, e) < 0)
            return cli_fail("ab", e);
        struct err lib_err = {0};
        if (cli_find_alloc_lib(ab->alloc_lib, sizeof ab->alloc_lib, &lib_err) < 0)
            snprintf(ab->alloc_why, sizeof ab->alloc_why, "%s",
                     lib_err.msg[0] ? lib_err.msg : "?");
    }
    if (counters) {
        if (counters_open_beside("ab", ctr, ab->pin, e) < 0)
            return cli_fail("ab", e);
        ab->ctr = ctr;
    }
    return 0;
}

/* The worktree made and built (git mode), the pairs, the count pass, the worktree removed:
 * 0, or -1 with *status the exit status after saying what failed (and the CI files asked for
 * written with the failure). */
static int ab_run(struct ab *ab, struct gitwt *git, const char *build,
                  const struct cli_export *ci_export, int *status, struct err *e)
{
    ab->progress = isatty(STDERR_FILENO) && !ab->h.show_output;
    /* Before the worktree exists, so an interrupt from here on still reaches the cleanup. */
    cli_install_signal_handlers();
    int rc = 0;
    if (ab->git) {
        rc = gitwt_add(git, e);
        struct stat st;
        if (rc == 0 && (stat(git->cwd, &st) < 0 || !S_ISDIR(st.st_mode)))
            rc = err_set(e, ERR_INPUT, "the current directory '%s' does not exist in '%s'",
                         git->prefix, git->rev);
        if (rc == 0 && build) {
            char which[256];
            snprintf(which, sizeof which, "'%s' (%.12s) in its worktree", git->rev, git->commit);
            rc = build_tree(ab, build, git->cwd, which, e);
            if (rc == 0)
                rc = build_tree(ab, build, NULL, "the working tree", e);
        }
        ab->a.cwd = git->cwd;
    }
    if (rc == 0)
        rc = measure(ab, e);
    if (rc == 0 && ab->count)
        rc = count_both(ab, e);
    progress_done(ab);
    char hint[1024] = "";
    if (rc < 0 && ab->git)
        missing_in_worktree(ab, hint, sizeof hint);
    struct err rm_err = {0};
    if (ab->git && gitwt_remove(git, &rm_err) < 0)
        cli_error("ab", "%s", rm_err.msg);
    if (rc == 0)
        return 0;
    *status = e->msg[0] ? cli_fail("ab", e) : cli_exit_for(e);
    report_failure(&ab->a);
    report_failure(&ab->b);
    if (hint[0])
        cli_error("ab", "hint: %s", hint);
    if (cli_export_wanted(ci_export) && ab->a.t && ab->b.t)
        export_ci(ab, ci_export, e->msg[0] ? e->msg : "the measurement failed");
    return -1;
}

/* The verdict (and the counts) printed: the exit status (3 when --fail-if-slower and slower). */
static int ab_report(const struct ab *ab, enum out_format fmt)
{
    bool count_failed = ab->counted && report_counts(ab);
    if (fmt == FMT_JSON)
        print_json(ab);
    else
        print_text(ab);
    if (count_failed)
        return EXIT_FAIL;
    return ab->fail_if_slower && ab->res.verdict == STATS_SLOWER ? EXIT_REGRESSION : EXIT_OK;
}

int cmd_ab(int argc, char **argv)
{
    enum { OPT_COUNT = 0x180, OPT_COUNTERS, OPT_PIN, OPT_EXPORT_JSON, OPT_EXPORT_CSV,
           OPT_EXPORT_MD, OPT_CACHE_SIM, OPT_ENGINE, OPT_VGARG };
    static const struct option longopts[] = {
        {"pairs", required_argument, NULL, 'r'},
        {"runs", required_argument, NULL, 'r'},
        {"warmup", required_argument, NULL, 'w'},
        {"threshold", required_argument, NULL, 'T'},
        {"until-decided", no_argument, NULL, 'U'},
        {"max-pairs", required_argument, NULL, 'M'},
        {"max-time", required_argument, NULL, 'X'},
        {"fail-if-slower", no_argument, NULL, 'F'},
        {"count", no_argument, NULL, OPT_COUNT},
        {"count-runs", required_argument, NULL, 'R'},
        {"counters", no_argument, NULL, OPT_COUNTERS},
        {"cache-sim", no_argument, NULL, OPT_CACHE_SIM},
        {"engine", required_argument, NULL, OPT_ENGINE},
        {"valgrind-arg", required_argument, NULL, OPT_VGARG},
        {"base", required_argument, NULL, 'B'},
        {"build", required_argument, NULL, 'b'},
        {"command-name", required_argument, NULL, 'n'},
        {"name", required_argument, NULL, 'n'},
        {"shell", required_argument, NULL, 'S'},
        {"timeout", required_argument, NULL, 't'},
        {"pin", required_argument, NULL, OPT_PIN},
        {"format", required_argument, NULL, 'f'},
        {"export-json", required_argument, NULL, OPT_EXPORT_JSON},
        {"export-csv", required_argument, NULL, OPT_EXPORT_CSV},
        {"export-markdown", required_argument, NULL, OPT_EXPORT_MD},
        CLI_EXPORT_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        HARNESS_LONGOPTS,
        {0},
    };
    struct ab ab = {.pairs = 20, .warmup = 1, .max_pairs = 200, .threshold = 0.01, .pin = -1,
                    .count_runs = 2};
    struct target_spec spec = {0};
    enum out_format fmt = FMT_TEXT;
    const char *base = NULL, *build = NULL;
    struct hf_paths exports = {0};
    bool max_pairs_set = false, counters = false, count_runs_set = false, engine_set = false;
    struct cli_export ci_export = {0};
    struct ctr_set ctr;
    struct err e = {0};
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);
    long v;
    char *names[2];
    struct ab_sides sd = {0};

    spec.names = names;
    ab.copt.vg_args = ab.vg_args = calloc(argc + 1, sizeof *ab.vg_args);
    if (!ab.vg_args || !harness_init(&ab.h, "ab", cmd_ab_usage, argc))
        goto done;
    optind = 1;
    int c;
    while ((c = getopt_long(dd, argv, "r:w:n:S:Nt:f:h" HARNESS_SHORTOPTS, longopts,
                             NULL)) != -1) {
        switch (c) {
        case 'r':
            if (!cli_parse_count("ab", cmd_ab_usage, "--pairs", optarg, 1, 100000, &ab.pairs))
                goto done;
            break;
        case 'w':
            if (!cli_parse_count("ab", cmd_ab_usage, "--warmup", optarg, 0, 1000000, &ab.warmup))
                goto done;
            break;
        case 'T': {
            char *end;
            double p = strtod(optarg, &end);
            if (end != optarg && *end == '%')
                end++;
            if (end == optarg || *end || !(p >= 0 && p < 100)) {
                cli_usage_error("ab", cmd_ab_usage, "bad value '%s' for --threshold: want a "
                                "percentage from 0 to under 100, such as 1%% or 0.5", optarg);
                goto done;
            }
            ab.threshold = p / 100;
            break;
        }
        case 'U': ab.until = true; break;
        case 'M':
            if (!cli_parse_count("ab", cmd_ab_usage, "--max-pairs", optarg, 1, 100000,
                                 &ab.max_pairs))
                goto done;
            max_pairs_set = true;
            break;
        case 'X':
            if (!cli_parse_seconds("ab", cmd_ab_usage, "--max-time", optarg, &ab.max_time))
                goto done;
            break;
        case 'F': ab.fail_if_slower = true; break;
        case OPT_COUNT: ab.count = true; break;
        case CLI_OPT_EXPORT_BMF: case CLI_OPT_EXPORT_GAB: case CLI_OPT_EXPORT_JUNIT:
            cli_export_opt(&ci_export, c, optarg);
            break;
        case 'R':
            if (!cli_parse_count("ab", cmd_ab_usage, "--count-runs", optarg, 2, 100,
                                 &ab.count_runs))
                goto done;
            count_runs_set = true;
            break;
        case OPT_COUNTERS: counters = true; break;
        case OPT_CACHE_SIM: ab.copt.cache_sim = true; break;
        case OPT_ENGINE:
            if (!count_parse_engine("ab", cmd_ab_usage, optarg, &ab.copt.engine))
                goto done;
            engine_set = true;
            break;
        case OPT_VGARG:
            if (!count_vg_arg_ok("ab", cmd_ab_usage, optarg))
                goto done;
            ab.vg_args[ab.copt.nvg_args++] = optarg;
            break;
        case 'B': base = optarg; break;
        case OPT_EXPORT_JSON: exports.json = optarg; break;
        case OPT_EXPORT_CSV: exports.csv = optarg; break;
        case OPT_EXPORT_MD: exports.markdown = optarg; break;
        case 'b': build = optarg; break;
        case 'n':
            if (spec.nnames == 2) {
                cli_usage_error("ab", cmd_ab_usage, "--name given more than twice (A, then B)");
                goto done;
            }
            names[spec.nnames++] = optarg;
            break;
        case 'S':
            if (!target_spec_set_shell(&spec, "ab", cmd_ab_usage, optarg))
                goto done;
            break;
        case 'N': spec.shell = NULL; break;
        case 't':
            if (!cli_parse_seconds("ab", cmd_ab_usage, "--timeout", optarg, &ab.timeout))
                goto done;
            break;
        case OPT_PIN:
            if (!cli_parse_count("ab", cmd_ab_usage, "--pin", optarg, 0, CPU_SETSIZE - 1, &v))
                goto done;
            ab.pin = (int)v;
            break;
        case 'f':
            if (!cli_parse_format("ab", cmd_ab_usage, optarg, FMT_TEXT | FMT_JSON, &fmt))
                goto done;
            break;
        case 'h':
            cli_print_usage(stdout, cmd_ab_usage);
            printf("\nPaired, interleaved A/B of two commands, or of a git revision against the\n"
                   "working tree: the ratio B/A with a confidence interval, and a verdict of\n"
                   "faster, slower or same (no detectable change).\n\n%s%s", ab_options,
                   harness_options_help);
            status = EXIT_OK;
            goto done;
        default:
            if ((v = harness_option(&ab.h, c, dd, argv)) != 0) {
                if (v < 0)
                    goto done;
                break;
            }
            cli_print_usage(stderr, cmd_ab_usage);
            fprintf(stderr, "Try 'tare ab --help' for the options.\n");
            goto done;
        }
    }
    struct ab_args args = {.spec = &spec, .names = names, .base = base, .build = build,
                           .max_pairs_set = max_pairs_set, .count_runs_set = count_runs_set,
                           .engine_set = engine_set};
    if ((status = ab_plan(&ab, &sd, &args, argc, argv, dd, &e)) != 0)
        goto done;
    if ((status = harness_finish(&ab.h, spec.shell)) != 0)
        goto done;
    ab.a.label = "A";
    ab.b.label = "B";
    if ((status = ab_tools(&ab, counters, &ctr, &e)) != 0 ||
        ab_run(&ab, &sd.git, build, &ci_export, &status, &e) < 0)
        goto done;
    status = ab_report(&ab, fmt);
    if (cli_export_wanted(&ci_export)) {
        int st = export_ci(&ab, &ci_export, NULL);
        if (st != EXIT_OK)
            status = st;
    }
    /* hyperfine's exports of A and B, B's "Relative" against A */
    const enum hf_format hf_fmt[3] = {HF_JSON, HF_CSV, HF_MARKDOWN};
    const char *hf_path[3] = {exports.json, exports.csv, exports.markdown};
    struct hf_result hf[2] = {{.command = ab.a.t->command, .s = &ab.series[0]},
                              {.command = ab.b.t->command, .s = &ab.series[1]}};
    for (int i = 0; i < 3; i++)
        if (hf_path[i] && hf_export(hf_path[i], hf_fmt[i], hf, 2, 0, &e) < 0) {
            status = cli_fail("ab", &e);
            break;
        }
done:
    targets_free(sd.targets, sd.nt);
    free(sd.targets);
    targets_free(sd.targets_b, sd.nt_b);
    free(sd.targets_b);
    session_free(&ab.sess);
    free(ab.cjob);
    free(ab.vg_args);
    if (ab.ctr)
        ctr_set_free(ab.ctr);
    gitwt_free(&sd.git);
    harness_free(&ab.h);
    return status;
}
