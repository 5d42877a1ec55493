/* cmd_bisect.c: `tare bisect`, the first commit that moved a deterministic count. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/ab_out.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/count_out.h"
#include "cli/history_in.h"
#include "cli/metrics_out.h"
#include "cli/out.h"
#include "cli/targets.h"
#include "core/engine/ab.h"
#include "core/history/bisect.h"
#include "core/engine/count.h"
#include "core/git/gitwt.h"
#include "core/history/history.h"
#include "core/util/json.h"
#include "core/util/proc.h"
#include "core/util/stats.h"
#include "core/util/words.h"

const char cmd_bisect_usage[] =
    "tare bisect [options] --good REV --bad REV --build CMD -- CMD [ARG...]";

static const char bisect_options[] =
    "Options:\n"
    "      --good REV          a revision before the change (its metric is the baseline)\n"
    "      --bad REV           a later revision, after the change\n"
    "      --build CMD         build each probed revision first (/bin/sh -c, in the worktree)\n"
    "      --metric METRIC     instructions (default), allocations, bytes, peak_bytes, a\n"
    "                          counter of the program's (NAME, metric.NAME), or wall:\n"
    "                          tare ab at each probe against the good side's build\n"
    "      --metrics-from WHERE\n"
    "                          where the program prints its counters: stderr, stdout or a\n"
    "                          FILE (default: only what it writes to TARE_METRICS_OUT)\n"
    "      --metrics-pattern REGEX\n"
    "                          their lines: an extended regex, (NAME) (VALUE) groups\n"
    "      --max-pairs N       with --metric wall: each probe's tare ab stops at N pairs\n"
    "                          (default 200); a probe ab cannot decide is skipped\n"
    "      --threshold X       a move is a change from good past X (a count, or N%% of\n"
    "                          good); default: half the whole change, at least 1%%\n"
    "      --all-steps         every step past the threshold (default there: 1%% of good)\n"
    "      --jobs N            build and count N probes at once, each in its own worktree\n"
    "                          (k-ary search; counts only, not with --all-steps)\n"
    "      --timeout SECONDS   kill a build or a run after this long (default 1800)\n"
    "      --from-history FILE take --good, --bad and --metric from the newest step of a\n"
    "                          count that 'tare history check' finds in FILE (past 2%%,\n"
    "                          or --threshold N%%)\n"
    "      --confirm           then time the culprit against its parent with tare ab\n"
    "                          (--until-decided --count), the parent in a second worktree\n"
    "  -f, --format FORMAT     text (default) or json\n"
    "  -h, --help              show this help\n";

/* One commit of the range, first-parent order from good to bad. */
struct commit {
    char *hash, *date, *subject;
    char *why;          /* why it was skipped, or NULL */
    int build;          /* the probe that measured it (1 = first), 0 when not probed */
    bool undecided;     /* --metric wall: tare ab could not decide */
    double ratio;       /* --metric wall: ab's ratio against good's build (good: 1) */
    long pairs;         /* --metric wall: ab's pairs */
    char verdict[16];   /* --metric wall: ab's verdict, "slower", "same" or "faster" */
};

struct bisect_cli {
    struct commit *c;
    int n;
    const char *metric, *build;
    char **argv;
    struct gitwt *w;
    struct gitwt *wg;   /* --metric wall: the good side's build, A of every ab */
    bool wall;
    bool quiet;         /* probes in threads: report_probe prints them after */
    int jobs;           /* --jobs */
    struct gitwt *wx;   /* --jobs: the worktrees beside w, jobs - 1 of them */
    long max_pairs;     /* --metric wall: ab's --max-pairs, 0 for its default */
    double ab_threshold;   /* --metric wall: ab's --threshold (a fraction), 0 for its 1% */
    struct count_opts co;
    double timeout_s;
    bool text;
    int builds;
    double good_value;
    bool threshold_given;
    char vg_path[4096];     /* valgrind, found for the counts (or for --confirm's) */
    char alloc_lib[4096];   /* co.alloc_lib when found */
    char alloc_why[1024];   /* why it was not, or "" */
    const char *metrics_from, *metrics_pattern;
    struct metrics_spec mspec;   /* co.metrics: where the program prints its counters */
    /* --from-history: the step the ends must reproduce, before the search goes on */
    struct {
        const char *path;       /* the history, or NULL (no check) */
        double before, after;   /* its values at good and at bad */
        double tol;             /* how far the measured change may be from its change */
        double v[2];            /* the ends as measured here */
        int got;                /* which: 1 good, 2 bad */
    } hist;
};

/* Splits `git log --format=%H%x1f%aI%x1f%s` output into commits, appended to b->c. */
static int add_commits(struct bisect_cli *b, char *out)
{
    for (char *line = out, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *f1 = strchr(line, '\x1f');
        char *f2 = f1 ? strchr(f1 + 1, '\x1f') : NULL;
        if (!f2)
            continue;
        *f1 = *f2 = '\0';
        struct commit *p = realloc(b->c, (size_t)(b->n + 1) * sizeof *p);
        if (!p)
            return -1;
        b->c = p;
        p[b->n] = (struct commit){.hash = strdup(line), .date = strdup(f1 + 1),
                                  .subject = strdup(f2 + 1)};
        if (!p[b->n].hash || !p[b->n].date || !p[b->n].subject)
            return -1;
        b->n++;
    }
    return 0;
}

/* The range: good, then every first-parent commit after it up to bad. */
static int list_range(struct bisect_cli *b, const char *good, const char *bad, struct err *e)
{
    char why[512], *out = NULL;
    char spec[256];
    snprintf(spec, sizeof spec, "%s^{commit}", bad);
    char *rev_argv[] = {"git", "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL};
    int rc = gitwt_git(b->w, rev_argv, &out, why, sizeof why, e);
    if (rc < 0)
        return -1;
    if (rc > 0 || bad[0] == '-') {
        free(out);
        return err_set(e, ERR_INPUT, "unknown revision '%s': it names no commit here", bad);
    }
    char bad_hash[64];
    snprintf(bad_hash, sizeof bad_hash, "%.*s", (int)strcspn(out, "\n"), out);
    free(out);
    char *anc_argv[] = {"git", "merge-base", "--is-ancestor", b->w->commit, bad_hash, NULL};
    rc = gitwt_git(b->w, anc_argv, NULL, why, sizeof why, e);
    if (rc < 0)
        return -1;
    if (rc > 0)
        return err_set(e, ERR_INPUT, "'%s' is not an ancestor of '%s': nothing to bisect",
                       good, bad);
    char fmt[] = "--format=%H%x1f%aI%x1f%s";
    char *one_argv[] = {"git", "log", "-1", fmt, b->w->commit, NULL};
    char not_good[64];
    snprintf(not_good, sizeof not_good, "^%s", b->w->commit);
    char *log_argv[] = {"git", "log", "--first-parent", "--reverse", fmt, bad_hash, not_good,
                        NULL};
    for (int k = 0; k < 2; k++) {
        rc = gitwt_git(b->w, k ? log_argv : one_argv, &out, why, sizeof why, e);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            free(out);
            return err_set(e, ERR_SYSTEM, "git log failed (git says: %s)", why);
        }
        rc = add_commits(b, out);
        free(out);
        if (rc < 0)
            return err_set(e, ERR_SYSTEM, "out of memory");
    }
    if (b->n < 2)
        return err_set(e, ERR_INPUT, "'%s' and '%s' are the same commit: nothing to bisect",
                       good, bad);
    return 0;
}

/* "+5.00%" from good; "n/a" when good is 0 and this is not. */
static const char *change_str(char *buf, size_t n, double base, double v)
{
    if (base == 0)
        snprintf(buf, n, "%s", v == 0 ? "+0.00%" : "n/a");
    else
        snprintf(buf, n, "%+.2f%%", 100 * (v - base) / base);
    return buf;
}

static void print_probe(const struct bisect_cli *b, int i, double v, bool measured)
{
    if (!b->text)
        return;
    const struct commit *c = &b->c[i];
    char cell[64], ch[32];
    if (!measured)
        printf("%5d  %-12.12s  %15s  %8s  %s\n       %s: %s\n", c->build, c->hash,
               "-", "", out_vis(c->subject), c->undecided ? "undecided" : "skipped",
               out_vis(c->why));
    else if (b->wall && i == 0)
        printf("%5d  %-12.12s  %15s  %8s  %s\n", c->build, c->hash, "built", "good",
               out_vis(c->subject));
    else if (b->wall)
        printf("%5d  %-12.12s  %15s  %8s  %s\n", c->build, c->hash,
               (snprintf(cell, sizeof cell, "%.3fx %s", c->ratio, c->verdict), cell),
               change_str(ch, sizeof ch, 1, c->ratio), out_vis(c->subject));
    else if (i == 0)
        printf("%5d  %-12.12s  %15s  %8s  %s\n", c->build, c->hash,
               count_cell(cell, (uint64_t)v, true), "good", out_vis(c->subject));
    else
        printf("%5d  %-12.12s  %15s  %8s  %s\n", c->build, c->hash,
               count_cell(cell, (uint64_t)v, true), change_str(ch, sizeof ch, b->good_value, v),
               out_vis(c->subject));
    fflush(stdout);
}

/* Prints a probe's outcome (rc 0 measured, 1 skipped) as it comes in. */
static void report_probe(struct bisect_cli *b, int i, int rc, double v)
{
    const struct commit *c = &b->c[i];
    if (rc == 0 && i == 0)
        b->good_value = v;
    if (rc == 0)
        print_probe(b, i, v, true);
    else if (b->text)
        print_probe(b, i, 0, false);
    else   /* JSON comes at the end: say it now, where a person watching sees it */
        cli_error("bisect", "skipped %.12s (%s): %s", c->hash, out_vis(c->subject),
                  c->why ? c->why : "?");
}

static int skip(struct bisect_cli *b, int i, const char *fmt, const char *what, const char *tail)
{
    struct commit *c = &b->c[i];
    char *last = NULL;
    if (tail && *tail) {   /* the last line of its stderr says most */
        char *t = strdup(tail);
        if (t) {
            size_t k = strlen(t);
            while (k && (t[k - 1] == '\n' || t[k - 1] == ' '))
                t[--k] = '\0';
            char *nl = strrchr(t, '\n');
            last = strdup(nl ? nl + 1 : t);
            free(t);
        }
    }
    if (asprintf(&c->why, fmt, what) < 0)
        c->why = NULL;
    if (c->why && last && *last) {
        char *w2;
        if (asprintf(&w2, "%s (stderr: %s)", c->why, last) >= 0) {
            free(c->why);
            c->why = w2;
        }
    }
    free(last);
    if (!c->why)
        c->why = strdup("?");
    if (!b->quiet)
        report_probe(b, i, 1, 0);
    return 1;
}

/* Checks commit i out in worktree w, builds it, counts the command there; prints nothing
 * when b->quiet (threads). */
static int probe_in(struct bisect_cli *b, struct gitwt *w, int i, double *value, struct err *e)
{
    if (proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    struct commit *c = &b->c[i];
    char why[600];
    int built = gitwt_build(w, c->hash, b->build, b->timeout_s, why, sizeof why, e);
    if (built < 0)
        return -1;
    if (built > 0)
        return skip(b, i, "%s", why, NULL);
    struct count_job job = {.name = "probe", .argv = b->argv, .cwd = w->cwd};
    if (count_run(&job, 1, &b->co, e) < 0)
        return -1;
    if (job.status != COUNT_OK)
        return skip(b, i, "the command failed: %s", job.why, job.tail);
    uint64_t v = count_job_metric(&job, b->metric);
    char cwhy[300];
    const char *counter_why = count_counter_why(&job, b->metric, cwhy, sizeof cwhy);
    count_job_free(&job);
    if (v == COUNT_NA)
        return skip(b, i, "no %s count", b->metric, counter_why[0] ? counter_why : job.note);
    *value = (double)v;
    if (!b->quiet)
        report_probe(b, i, 0, *value);
    return 0;
}

/* --from-history: an end measured; once both are, whether they reproduce the history's
 * step (its direction, and its size within the series' noise): -1 with e set (ERR_INPUT,
 * both figures) when they do not, so a command that measures something else bisects
 * nothing. */
static int check_end(struct bisect_cli *b, int i, double v, struct err *e)
{
    if (!b->hist.path || (i != 0 && i != b->n - 1))
        return 0;
    b->hist.v[i == 0 ? 0 : 1] = v;
    b->hist.got |= i == 0 ? 1 : 2;
    if (b->hist.got != 3)
        return 0;
    double want = b->hist.after / b->hist.before - 1;
    double got = b->hist.v[0] > 0 ? b->hist.v[1] / b->hist.v[0] - 1
                                  : b->hist.v[1] > 0 ? INFINITY : 0;
    if (got * want > 0 && fabs(got - want) <= b->hist.tol)
        return 0;
    char g0[32], g1[32], h0[32], h1[32];
    return err_set(e, ERR_INPUT, "the command does not reproduce the step it bisects: %s "
                   "%s -> %s (%+.2f%%) here, %s -> %s (%+.2f%%) in '%s', whose noise allows "
                   "%.2f%% either way: another command, input or build than the history's?",
                   b->metric, fmt_count(g0, b->hist.v[0]), fmt_count(g1, b->hist.v[1]),
                   100 * got, fmt_count(h0, b->hist.before), fmt_count(h1, b->hist.after),
                   100 * want, b->hist.path, 100 * b->hist.tol);
}

/* The probe: commit i in the search's worktree. */
static int probe(void *ctx, int i, double *value, struct err *e)
{
    struct bisect_cli *b = ctx;
    b->c[i].build = ++b->builds;
    int rc = probe_in(b, b->w, i, value, e);
    return rc == 0 && check_end(b, i, *value, e) < 0 ? -1 : rc;
}

struct probe_thread {
    struct bisect_cli *b;
    struct gitwt *w;
    int i, rc;
    double v;
    struct err e;
};

static void *probe_thread_run(void *arg)
{
    struct probe_thread *t = arg;
    t->rc = probe_in(t->b, t->w, t->i, &t->v, &t->e);
    return NULL;
}

/* --jobs: the k commits at once, commit idx[j] in worktree j (made on first use), a thread
 * each; printed after, in the order given. */
static int probe_many(void *ctx, const int *idx, int k, double *values, int *rcs,
                      struct err *e)
{
    struct bisect_cli *b = ctx;
    struct probe_thread t[BISECT_JOBS_MAX];
    pthread_t th[BISECT_JOBS_MAX];
    bool started[BISECT_JOBS_MAX];
    for (int j = 0; j < k; j++) {
        struct gitwt *w = j == 0 ? b->w : &b->wx[j - 1];
        if (j > 0 && !w->tmp &&
            (gitwt_open(w, b->c[0].hash, e) < 0 || gitwt_add(w, e) < 0))
            return -1;
        t[j] = (struct probe_thread){.b = b, .w = w, .i = idx[j]};
        b->c[idx[j]].build = ++b->builds;
    }
    b->quiet = true;
    for (int j = 0; j < k; j++) {
        started[j] = pthread_create(&th[j], NULL, probe_thread_run, &t[j]) == 0;
        if (!started[j])
            probe_thread_run(&t[j]);
    }
    for (int j = 0; j < k; j++)
        if (started[j])
            pthread_join(th[j], NULL);
    b->quiet = false;
    int failed = -1;
    for (int j = 0; j < k; j++) {
        rcs[j] = t[j].rc;
        values[j] = t[j].v;
        if (t[j].rc >= 0)
            report_probe(b, idx[j], t[j].rc, t[j].v);
        else if (failed < 0 || t[j].e.kind == ERR_INTERRUPTED)
            failed = j;
        if (t[j].rc == 0 && failed < 0 && check_end(b, idx[j], t[j].v, &t[j].e) < 0)
            failed = j;
    }
    if (failed >= 0) {
        *e = t[failed].e;
        return -1;
    }
    return 0;
}

/* "a count" or "N%" of good (negative: a percentage, as -N). */
static bool parse_threshold(const char *arg, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    bool pct = *end == '%';
    if (pct)
        end++;
    if (end == arg || *end || errno || !(v > 0) || !isfinite(v)) {
        cli_usage_error("bisect", cmd_bisect_usage,
                        "--threshold wants a positive count or percentage, not '%s'", arg);
        return false;
    }
    *out = pct ? -v : v;
    return true;
}

/* "3.012x slower in 24 pairs": a wall probe's tare ab against good's build. */
static const char *wall_cell(char *buf, size_t n, const struct commit *c)
{
    if (c->pairs == 0)
        snprintf(buf, n, "the good side's build");
    else
        snprintf(buf, n, "%.3fx %s in %ld pairs", c->ratio, c->verdict, c->pairs);
    return buf;
}

static void print_step_text(const struct bisect_cli *b, const struct bisect_result *r,
                            const struct bisect_step *s, const char *label)
{
    const struct commit *c = &b->c[s->first];
    char cb[64], ca[64], ch[32];
    if (b->wall) {
        wall_cell(cb, sizeof cb, &b->c[s->before]);
        wall_cell(ca, sizeof ca, c);
        if (s->exact) {
            printf("%s: %s %s\n  author date  %s\n", label, c->hash, out_vis(c->subject), c->date);
        } else {
            printf("%s: one of these commits (the ones between could not be built, run or "
                   "decided):\n", label);
            for (int k = s->before + 1; k <= s->first; k++)
                printf("  %.12s %s%s\n", b->c[k].hash, out_vis(b->c[k].subject),
                       r->state[k] != BISECT_SKIPPED ? ""
                       : b->c[k].undecided ? " (undecided)" : " (skipped)");
        }
        printf("  wall against good: %s at %.12s, %s at %.12s\n", cb, b->c[s->before].hash,
               ca, c->hash);
        return;
    }
    count_cell(cb, (uint64_t)s->before_value, true);
    count_cell(ca, (uint64_t)s->after_value, true);
    change_str(ch, sizeof ch, s->before_value, s->after_value);
    if (s->exact) {
        printf("%s: %s %s\n", label, c->hash, out_vis(c->subject));
        printf("  author date  %s\n", c->date);
        printf("  %s %s -> %s (%s) from its parent %.12s\n", b->metric, cb, ca, ch,
               b->c[s->before].hash);
        return;
    }
    printf("%s: one of these commits (the ones between could not be measured):\n", label);
    for (int k = s->before + 1; k <= s->first; k++)
        printf("  %.12s %s%s\n", b->c[k].hash, out_vis(b->c[k].subject),
               r->state[k] == BISECT_SKIPPED ? " (skipped)" : "");
    printf("  %s %s at %.12s -> %s (%s) at %.12s\n", b->metric, cb, b->c[s->before].hash, ca,
           ch, c->hash);
}

static void print_text(const struct bisect_cli *b, const struct bisect_result *r, bool all)
{
    char t[64], gv[64], bv[64], ch[32];
    count_cell(gv, (uint64_t)r->value[0], true);
    count_cell(bv, (uint64_t)r->value[b->n - 1], true);
    fmt_count(t, r->threshold);
    if (b->wall)
        printf("\neach probe: tare ab --until-decided against the good side's build; after "
               "the bad end's, --threshold %.2f%%%s\n", 100 * b->ab_threshold,
               b->threshold_given ? "" : " (the middle of its step)");
    if (b->wall && r->nsteps == 0)
        printf("no step: tare ab finds the bad end %s\n",
               wall_cell(bv, sizeof bv, &b->c[b->n - 1]));
    else if (!b->wall)
    printf("\nthreshold: %s %s from good%s\n", t, b->metric,
           b->threshold_given ? ""
           : all ? " (1% of good)" : " (half the whole change, at least 1% of good)");
    if (r->nsteps == 0 && !b->wall)
        printf("no step: no commit moved %s by more than that (good %s, bad %s, %s)\n",
               b->metric, gv, bv, change_str(ch, sizeof ch, r->value[0], r->value[b->n - 1]));
    for (int k = 0; k < r->nsteps; k++) {
        char label[32];
        if (all)
            snprintf(label, sizeof label, "step %d", k + 1);
        else
            snprintf(label, sizeof label, "culprit");
        print_step_text(b, r, &r->steps[k], label);
    }
    if (r->skipped) {
        printf("skipped:");
        for (int i = 0; i < b->n; i++)
            if (r->state[i] == BISECT_SKIPPED)
                printf(" %.12s (%s%s)", b->c[i].hash, out_vis(b->c[i].subject),
                       b->c[i].undecided ? "; undecided" : "");
        printf("\n");
    }
    printf("%d builds, %d skipped, for %d commits after good\n", r->probes, r->skipped,
           b->n - 1);
}

static void json_step(struct jw *w, const struct bisect_cli *b, const struct bisect_step *s)
{
    const struct commit *c = &b->c[s->first];
    jw_object_begin(w);
    jw_kstring(w, "commit", c->hash);
    jw_kstring(w, "subject", c->subject);
    jw_kstring(w, "author_date", c->date);
    jw_kstring(w, "before_commit", b->c[s->before].hash);
    if (b->wall) {   /* ab's ratios against good's build */
        jw_kdouble(w, "before", b->c[s->before].ratio);
        jw_kdouble(w, "after", c->ratio);
        jw_kstring(w, "verdict", c->verdict);
    } else {
        jw_kdouble(w, "before", s->before_value);
        jw_kdouble(w, "after", s->after_value);
        jw_kdouble(w, "change_pct", s->before_value != 0
                   ? 100 * (s->after_value - s->before_value) / s->before_value : NAN);
    }
    jw_kbool(w, "exact", s->exact);
    jw_karray(w, "candidates");
    for (int k = s->before + 1; k <= s->first; k++)
        jw_string(w, b->c[k].hash);
    jw_end(w);
    jw_end(w);
}

/* One probe (build p, commit i) of the JSON's "probes". */
static void json_probe(struct jw *w, const struct bisect_cli *b, const struct bisect_result *r,
                       int p, int i)
{
    jw_object_begin(w);
    jw_ki64(w, "build", p);
    jw_kstring(w, "commit", b->c[i].hash);
    jw_kstring(w, "subject", b->c[i].subject);
    bool ok = r->state[i] == BISECT_MEASURED;
    jw_kstring(w, "status", ok ? "ok" : b->c[i].undecided ? "undecided" : "skipped");
    jw_key(w, "value");
    if (b->wall && ok) {   /* ab's ratio against good's build, and its verdict */
        jw_double(w, b->c[i].ratio);
        jw_kstring(w, "verdict", b->c[i].verdict);
        jw_ki64(w, "pairs", b->c[i].pairs);
    } else {
        jw_double(w, ok ? r->value[i] : NAN);
    }
    jw_kdouble(w, "change_pct", b->wall ? (ok ? 100 * (b->c[i].ratio - 1) : NAN)
               : ok && r->value[0] != 0 ? 100 * (r->value[i] - r->value[0]) / r->value[0]
                                        : NAN);
    if (!ok)
        jw_kstring(w, "error", b->c[i].why ? b->c[i].why : "");
    jw_end(w);
}

static void print_json(const struct bisect_cli *b, const struct bisect_result *r, bool all,
                       const struct ab_result *confirm)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_kstring(&w, "metric", b->metric);
    jw_kstring(&w, "good", b->c[0].hash);
    jw_kstring(&w, "bad", b->c[b->n - 1].hash);
    jw_ki64(&w, "commits", b->n - 1);
    jw_kdouble(&w, "threshold", b->wall ? NAN : r->threshold);
    if (b->wall)   /* each probe's tare ab --threshold, a fraction */
        jw_kdouble(&w, "ab_threshold", b->ab_threshold > 0 ? b->ab_threshold : 0.01);
    jw_ki64(&w, "builds", r->probes);
    jw_ki64(&w, "skipped", r->skipped);
    jw_break(&w, "\n ");
    jw_key(&w, "probes");
    jw_array_begin_lines(&w, "\n  ", NULL);
    /* In the order they were probed. */
    for (int p = 1; p <= r->probes; p++)
        for (int i = 0; i < b->n; i++)
            if (b->c[i].build == p)
                json_probe(&w, b, r, p, i);
    jw_end(&w);
    jw_break(&w, "\n ");
    jw_key(&w, "steps");
    jw_array_begin_lines(&w, "\n  ", NULL);
    for (int k = 0; k < r->nsteps; k++)
        json_step(&w, b, &r->steps[k]);
    jw_end(&w);
    if (!all) {
        jw_break(&w, "\n ");
        jw_key(&w, "culprit");
        if (r->nsteps && r->steps[0].exact)
            json_step(&w, b, &r->steps[0]);
        else
            jw_null(&w);
    }
    if (confirm) {   /* tare ab's JSON, as it prints it */
        jw_break(&w, "\n ");
        jw_key(&w, "confirm");
        ab_print_json(&w, confirm);
    }
    jw_end(&w);
    out_json_end(&w, "bisect");
}

/* Builds the tree at cwd; 0, or -1 with e set (a failed build is ERR_MEASURE). */
static int build_in(const struct bisect_cli *b, const char *cwd, struct err *e)
{
    if (!b->build)
        return 0;
    char *argv[] = {"/bin/sh", "-c", (char *)b->build, NULL};
    struct proc_opts o = {.argv = argv, .cwd = cwd, .pin_cpu = -1, .stdout_path = "/dev/null",
                          .timeout_s = b->timeout_s};
    struct proc_result r;
    if (proc_run(&o, &r, e) < 0)
        return -1;
    if (r.status == PROC_INTERRUPTED || proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    char d[128];
    if (r.status != PROC_OK)
        return err_set(e, ERR_MEASURE, "the build in '%s' %s", cwd,
                       proc_describe(&r, b->timeout_s, d, sizeof d));
    return 0;
}

/* One tare ab of the command in two trees (ab_run, in this process). */
struct bisect_ab {
    struct ab_opts o;
    struct ab_result r;
    char name[2][64];
    char *command;      /* the command's words, as a person would type them */
    bool ran;           /* r holds ab_run's result (to free) */
};

/*
 * tare ab's paired wall-clock runs until decided (with the counts when count is set) of the
 * command run directly (no shell) with dir[0] (A) and dir[1] (B) its working directory, as
 * the search's probes run it, so that both count alike. 0 with x->r filled; -1 with e set
 * (ERR_MEASURE: a run failed, as ab_run says).
 */
static int run_ab(struct bisect_cli *b, const char *const dir[2], const char *const name[2],
                  bool count, struct bisect_ab *x, struct err *e)
{
    ab_opts_init(&x->o);
    x->o.until = true;
    if (count) {
        x->o.count = true;
        if (!b->vg_path[0] && count_find_valgrind(b->vg_path, sizeof b->vg_path, e) < 0)
            return -1;
        x->o.copt.valgrind = b->vg_path;
        x->o.copt.alloc_lib = b->co.alloc_lib;
    }
    if (b->max_pairs > 0 && !count)
        x->o.max_pairs = b->max_pairs;
    if (b->ab_threshold > 0 && !count)
        x->o.threshold = b->ab_threshold;
    if (!x->command && !(x->command = words_join(b->argv)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int k = 0; k < 2; k++) {
        snprintf(x->name[k], sizeof x->name[k], "%s", name[k]);
        x->o.side[k] = (struct ab_side){.name = x->name[k], .command = x->command,
                                        .argv = b->argv, .cwd = dir[k]};
    }
    if (isatty(STDERR_FILENO))
        x->o.progress = ab_progress_print;
    fflush(stdout);
    x->ran = true;
    return ab_run(&x->o, &x->r, e);
}

static void bisect_ab_free(struct bisect_ab *x)
{
    if (x->ran)
        ab_result_free(&x->r);
    free(x->command);
    x->command = NULL;
    x->ran = false;
}

/* The culprit built in the search's worktree (w), its parent in a second one (wp, reused
 * when --metric wall made it). 0, or -1 with e set. */
static int confirm_trees(struct bisect_cli *b, const struct bisect_step *s, struct gitwt *wp,
                         struct err *e)
{
    const char *culprit = b->c[s->first].hash, *parent = b->c[s->before].hash;
    if (gitwt_checkout(b->w, culprit, e) < 0 || build_in(b, b->w->cwd, e) < 0)
        return -1;
    if (wp->tmp) {
        if (gitwt_checkout(wp, parent, e) < 0)
            return -1;
    } else if (gitwt_open(wp, parent, e) < 0 || gitwt_add(wp, e) < 0) {
        return -1;
    }
    return build_in(b, wp->cwd, e);
}

/*
 * --confirm: tare ab --until-decided --count of the culprit (B) against its parent (A),
 * printed as tare ab prints it (text), or kept in x for the JSON. Returns ab's exit status
 * (1 when a measurement or a count failed, 130 when interrupted, ...), or -1 with e set when
 * the trees could not be made.
 */
static int confirm(struct bisect_cli *b, const struct bisect_step *s, struct gitwt *wp,
                   struct bisect_ab *x, struct err *e)
{
    if (confirm_trees(b, s, wp, e) < 0)
        return -1;
    char name_a[64], name_b[64];
    snprintf(name_a, sizeof name_a, "parent %.12s", b->c[s->before].hash);
    snprintf(name_b, sizeof name_b, "culprit %.12s", b->c[s->first].hash);
    const char *dir[2] = {wp->cwd, b->w->cwd}, *name[2] = {name_a, name_b};
    struct err ae = {0};
    if (run_ab(b, dir, name, true, x, &ae) < 0) {
        int st = cli_fail("ab", &ae);
        if (x->ran)
            ab_report_failure(&x->r);
        bisect_ab_free(x);
        return st;
    }
    bool failed = ab_report_counts(&x->r, b->alloc_why);
    if (b->text)
        ab_print_text(&x->r);
    fflush(stdout);
    return failed ? EXIT_FAIL : EXIT_OK;
}

/*
 * --metric wall's probe: commit i built in the worktree, then tare ab --until-decided of it (B)
 * against the good side's build (A). 1 when ab says slower, 0 when it decides it is not; a
 * probe ab cannot decide is skipped as undecided and the search narrows around it.
 */
static int probe_wall(void *ctx, int i, double *value, struct err *e)
{
    struct bisect_cli *b = ctx;
    if (proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    struct commit *c = &b->c[i];
    c->build = ++b->builds;
    struct gitwt *w = i == 0 ? b->wg : b->w;
    if (i > 0 && gitwt_checkout(w, c->hash, e) < 0)
        return -1;
    struct err be = {0};
    if (build_in(b, w->cwd, &be) < 0) {
        if (be.kind != ERR_MEASURE) {
            *e = be;
            return -1;
        }
        const char *why = strstr(be.msg, "' ");   /* "the build in 'DIR' exited ..." */
        return skip(b, i, "the build%s", why ? why + 1 : "failed", NULL);
    }
    if (i == 0) {
        c->ratio = 1;
        snprintf(c->verdict, sizeof c->verdict, "good");
        *value = 0;
        print_probe(b, i, *value, true);
        return 0;
    }
    char name_a[64], name_b[64];
    snprintf(name_a, sizeof name_a, "good %.12s", b->c[0].hash);
    snprintf(name_b, sizeof name_b, "probe %.12s", c->hash);
    const char *dir[2] = {b->wg->cwd, w->cwd}, *name[2] = {name_a, name_b};
    struct bisect_ab x = {0};
    struct err ae = {0};
    int rc = run_ab(b, dir, name, false, &x, &ae);
    if (rc < 0 && (ae.kind == ERR_INTERRUPTED || proc_interrupted())) {
        bisect_ab_free(&x);
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    }
    if (rc < 0) {   /* as tare ab would say it, and skipped */
        int st = cli_fail("ab", &ae);
        if (x.ran)
            ab_report_failure(&x.r);
        bisect_ab_free(&x);
        char what[32];
        snprintf(what, sizeof what, "%d", st);
        return skip(b, i, "tare ab failed (exit status %s)", what, NULL);
    }
    c->ratio = x.r.wall.ratio;
    c->pairs = x.r.n;
    snprintf(c->verdict, sizeof c->verdict, "%s", stats_verdict_name(x.r.wall.verdict));
    bool decided = x.r.stopped == SESSION_STOP_DECIDED;
    bisect_ab_free(&x);
    if (strcmp(c->verdict, "slower") != 0 && !decided) {
        char why[128];
        snprintf(why, sizeof why, "%ld pairs, %.3fx %s", c->pairs, c->ratio, c->verdict);
        c->undecided = true;
        return skip(b, i, "tare ab could not decide (%s)", why, NULL);
    }
    *value = strcmp(c->verdict, "slower") == 0 ? 1 : 0;
    if (i == b->n - 1 && *value > 0 && !b->threshold_given)
        /* Slower or not is then a question of which end a probe is nearer, as --threshold's
         * default for the counts: past the middle of the step, in ab's logs its geometric
         * middle, so that a probe like either end is decided in few pairs. */
        b->ab_threshold = fmin(0.99, fmax(0.01, sqrt(c->ratio) - 1));
    print_probe(b, i, *value, true);
    return 0;
}

/* The noise the ends' change may differ by: the 90th percentile of the series' |change|
 * between consecutive values of metric m, the step's own (at point at) left out, and at
 * least a quarter of the step (a build here is not the CI's) and 0.5%. */
static double step_tolerance(const struct hist_series *se, int m, size_t at, double change)
{
    double tol = hist_change_quantile(se, m, se->n, at, 0.9);
    return fmax(isnan(tol) ? 0 : tol, fmax(0.25 * fabs(change), 0.005));
}

/* The newest step of the db's counts, as from_history looks for it. */
struct hist_pick {
    long commit, prev;     /* the step's commit and the one measured before it */
    double change, before, after, tol;
    int m;
    const char *series;
};

/* One series' steps of metric m (hist_scan) against the newest so far, in p. */
static int pick_steps(const struct hist_series *se, int m, const struct hist_check_opts *o,
                      struct hist_pick *p)
{
    struct hist_step *out = calloc(se->n ? se->n : 1, sizeof *out);
    if (!out)
        return -1;
    hist_scan(se, m, o, out);
    for (size_t i = 0; i < se->n; i++) {
        if (!out[i].found)
            continue;
        size_t at = out[i].at;
        long prev = -1, pj = -1;
        for (size_t j = at; j-- > 0 && prev < 0;)
            if (!isnan(se->v[m][j]))
                prev = (long)se->commit[j], pj = (long)j;
        long cm = (long)se->commit[at];
        if (prev < 0 || cm < p->commit ||
            (cm == p->commit && fabs(out[i].change) <= fabs(p->change)))
            continue;
        *p = (struct hist_pick){cm, prev, out[i].change, se->v[m][pj], se->v[m][at],
                                step_tolerance(se, m, at, out[i].change), m, se->name};
    }
    free(out);
    return 0;
}

/*
 * --from-history: the newest confirmed step of a deterministic metric in the file, as
 * `tare history check` finds steps (a change of more than det_threshold, relative, from the
 * previous value: 2% there, or --threshold's percentage), the commits in the repository's
 * order (tare-history(1), COMMIT ORDER); the largest change where several series step at
 * the same commit. metric, when not NULL, limits it to that one. good and bad are the two
 * commits' hashes (the caller frees them); b->hist what the ends must reproduce. EXIT_OK, or
 * the exit status after saying why.
 */
static int from_history(struct bisect_cli *b, const char *path, double det_threshold,
                        const char **metric, char **good, char **bad)
{
    struct hist_db db;
    char *paths[] = {(char *)path, NULL};
    int st = cli_history_load("bisect", paths, 1, NULL, ".", &db);
    if (st != EXIT_OK)
        return st;
    struct hist_check_opts o = HIST_CHECK_DEFAULTS;
    o.det_threshold = det_threshold;
    struct hist_pick p = {.commit = -1, .prev = -1};
    for (size_t k = 0; k < db.nseries; k++)
        for (int m = 0; m < hist_db_nmetrics(&db); m++) {
            if (!hist_deterministic(&db.series[k], m) || !db.has[m] ||
                (*metric && hist_db_metric_index(&db, *metric) != m))
                continue;
            if (pick_steps(&db.series[k], m, &o, &p) < 0) {
                hist_db_free(&db);
                cli_error("bisect", "out of memory");
                return EXIT_USAGE;
            }
        }
    st = EXIT_OK;
    if (p.commit < 0) {
        cli_error("bisect", "'%s': history check finds no step of %s to bisect", path,
                  *metric ? *metric : "a count");
        st = EXIT_USAGE;
    } else if (!(*good = strdup(db.commit[p.prev])) || !(*bad = strdup(db.commit[p.commit]))) {
        cli_error("bisect", "out of memory");
        st = EXIT_USAGE;
    } else {
        /* A counter's name lives in the db: kept here, for the rest of the command. */
        static char name[sizeof METRICS_PREFIX + METRICS_NAME_MAX + 1];
        snprintf(name, sizeof name, "%s", hist_db_metric_name(&db, p.m));
        *metric = name;
        b->hist.path = path;
        b->hist.before = p.before;
        b->hist.after = p.after;
        b->hist.tol = p.tol;
        cli_error("bisect", "from '%s': series '%s', %s %+.2f%% at %.12s (after %.12s)",
                  path, p.series, *metric, 100 * p.change, *bad, *good);
    }
    hist_db_free(&db);
    return st;
}

/* What the command line asked for beyond the search's own state. */
struct bisect_args {
    const char *good, *bad, *history;
    char *hist_good, *hist_bad;     /* --from-history's range, owned */
    bool metric_given, all, do_confirm;
    double threshold;               /* a count, or -N for N% of good; 0: the default */
    enum out_format fmt;
};

static const struct option bisect_longopts[] = {
    {"good", required_argument, NULL, 0x100},
    {"bad", required_argument, NULL, 0x101},
    {"build", required_argument, NULL, 0x102},
    {"metric", required_argument, NULL, 0x103},
    {"threshold", required_argument, NULL, 0x104},
    {"all-steps", no_argument, NULL, 0x105},
    {"timeout", required_argument, NULL, 0x106},
    {"confirm", no_argument, NULL, 0x107},
    {"from-history", required_argument, NULL, 0x108},
    {"metrics-from", required_argument, NULL, 0x109},
    {"metrics-pattern", required_argument, NULL, 0x10a},
    {"max-pairs", required_argument, NULL, 0x180},
    {"jobs", required_argument, NULL, 0x181},
    {"format", required_argument, NULL, 'f'},
    {"help", no_argument, NULL, 'h'},
    {0},
};

/* One option: 0 taken, 1 --help printed, -1 bad (said). */
static int bisect_option(struct bisect_cli *b, struct bisect_args *a, int c, const char *arg)
{
    long v;
    switch (c) {
    case 0x100: a->good = arg; return 0;
    case 0x101: a->bad = arg; return 0;
    case 0x102: b->build = arg; return 0;
    case 0x103:
        if (!count_metric_valid(arg) && strcmp(arg, "wall") != 0) {
            cli_usage_error("bisect", cmd_bisect_usage, "--metric wants instructions, "
                            "allocations, bytes, peak_bytes, wall or a counter of the "
                            "program's (NAME, metric.NAME), not '%s'", arg);
            return -1;
        }
        b->metric = arg;
        a->metric_given = true;
        return 0;
    case 0x104:
        b->threshold_given = true;
        return parse_threshold(arg, &a->threshold) ? 0 : -1;
    case 0x105: a->all = true; return 0;
    case 0x107: a->do_confirm = true; return 0;
    case 0x108: a->history = arg; return 0;
    case 0x109: b->metrics_from = arg; return 0;
    case 0x10a: b->metrics_pattern = arg; return 0;
    case 0x181:
        if (!cli_parse_count("bisect", cmd_bisect_usage, "--jobs", arg, 1, BISECT_JOBS_MAX, &v))
            return -1;
        b->jobs = (int)v;
        return 0;
    case 0x180:   /* tare ab's first look is at 20 pairs */
        return cli_parse_count("bisect", cmd_bisect_usage, "--max-pairs", arg, 20, 100000,
                               &b->max_pairs) ? 0 : -1;
    case 0x106:
        return cli_parse_seconds("bisect", cmd_bisect_usage, "--timeout", arg, &b->timeout_s)
               ? 0 : -1;
    case 'f':
        return cli_parse_format("bisect", cmd_bisect_usage, arg, FMT_TEXT | FMT_JSON, &a->fmt)
               ? 0 : -1;
    case 'h':
        cli_print_usage(stdout, cmd_bisect_usage);
        printf("\nThe first commit between --good and --bad at which a deterministic count\n"
               "moved, built and counted in one temporary git worktree. A commit that does\n"
               "not build or whose command fails is skipped and named.\n\n%s", bisect_options);
        return 1;
    default:
        cli_print_usage(stderr, cmd_bisect_usage);
        fprintf(stderr, "Try 'tare bisect --help' for the options.\n");
        return -1;
    }
}

/* The options' combinations: 0, or EXIT_USAGE after saying why. */
static int bisect_check(struct bisect_cli *b, struct bisect_args *a, int argc, char **argv,
                        int dd)
{
    if (optind < dd)
        return cli_usage_error("bisect", cmd_bisect_usage, "the command goes after '--', not "
                               "'%s'", argv[optind]);
    if (dd >= argc - 1)
        return cli_usage_error("bisect", cmd_bisect_usage, "no command to measure (after "
                               "'--')");
    if (a->history && (a->good || a->bad))
        return cli_usage_error("bisect", cmd_bisect_usage, "--from-history takes the range "
                               "from the file: not with %s", a->good ? "--good" : "--bad");
    if (!a->history && (!a->good || !a->bad))
        return cli_usage_error("bisect", cmd_bisect_usage, "%s is required",
                               a->good ? "--bad" : "--good");
    b->wall = strcmp(b->metric, "wall") == 0;
    if (b->wall && (a->all || a->history))
        return cli_usage_error("bisect", cmd_bisect_usage, "--metric wall takes no %s",
                               a->all ? "--all-steps" : "--from-history");
    if (b->wall && b->threshold_given && !(a->threshold < 0 && a->threshold > -100))
        return cli_usage_error("bisect", cmd_bisect_usage, "with --metric wall, --threshold "
                               "is tare ab's: a percentage under 100%%, such as 5%%");
    if (b->wall && b->threshold_given)
        b->ab_threshold = -a->threshold / 100;
    if (b->jobs > 1 && (b->wall || a->all))
        return cli_usage_error("bisect", cmd_bisect_usage, "--jobs applies to the single "
                               "search on a count, not with %s",
                               b->wall ? "--metric wall" : "--all-steps");
    if (b->max_pairs && !b->wall)
        return cli_usage_error("bisect", cmd_bisect_usage,
                               "--max-pairs only applies with --metric wall");
    return 0;
}

/* --from-history's range, valgrind and the counting allocator: 0, or the exit status after
 * saying why. */
static int bisect_tools(struct bisect_cli *b, struct bisect_args *a, struct err *e)
{
    if (a->history) {
        const char *m = a->metric_given ? b->metric : NULL;
        double det = a->threshold < 0 ? -a->threshold / 100 : 0.02;
        int st = from_history(b, a->history, det, &m, &a->hist_good, &a->hist_bad);
        if (st != EXIT_OK)
            return st;
        b->metric = m;
        a->good = a->hist_good;
        a->bad = a->hist_bad;
    }
    if (!b->wall && count_find_valgrind(b->vg_path, sizeof b->vg_path, e) < 0)
        return cli_fail("bisect", e);
    int ms = cli_metrics_spec("bisect", cmd_bisect_usage, b->metrics_from, b->metrics_pattern,
                              &b->mspec);
    if (ms != EXIT_OK)
        return ms;
    b->co = (struct count_opts){.jobs = 1, .timeout_s = b->timeout_s, .valgrind = b->vg_path,
                                .metrics = &b->mspec};
    struct err lib_err = {0};
    if (cli_find_alloc_lib(b->alloc_lib, sizeof b->alloc_lib, &lib_err) == 0)
        b->co.alloc_lib = b->alloc_lib;
    else if (strcmp(b->metric, "bytes") == 0 || strcmp(b->metric, "peak_bytes") == 0)
        return cli_fail("bisect", &lib_err);
    else
        snprintf(b->alloc_why, sizeof b->alloc_why, "%s", lib_err.msg[0] ? lib_err.msg : "?");
    return 0;
}

/* The worktrees made (the good side's build's too with --metric wall) and the search run,
 * its probes printed as they come. 0, or -1 with e set. */
static int bisect_search(struct bisect_cli *b, const struct bisect_args *a, struct gitwt *wp,
                         struct bisect_result *r, struct err *e)
{
    int rc = gitwt_add(b->w, e);
    if (rc == 0 && b->wall) {   /* the good side's build, A of every probe's tare ab */
        rc = gitwt_open(wp, b->c[0].hash, e);
        if (rc == 0)
            rc = gitwt_add(wp, e);
        b->wg = wp;
    }
    struct stat st;
    if (rc == 0 && (stat(b->w->cwd, &st) < 0 || !S_ISDIR(st.st_mode)))
        rc = err_set(e, ERR_INPUT, "the current directory '%s' does not exist in '%s'",
                     b->w->prefix, a->good);
    if (rc < 0)
        return -1;
    if (b->text) {
        printf("bisecting %d commits after %.12s (good) up to %.12s (bad) on %s", b->n - 1,
               b->c[0].hash, b->c[b->n - 1].hash, b->metric);
        if (b->jobs > 1)
            printf(", %d at a time", b->jobs);
        printf("\n");
        printf("%5s  %-12s  %15s  %8s  %s\n", "build", "commit", b->metric, "change", "subject");
        fflush(stdout);
    }
    struct bisect_opts bo = {.all_steps = a->all, .probe = b->wall ? probe_wall : probe,
                             .probe_many = probe_many, .jobs = b->jobs, .ctx = b};
    if (b->wall)
        bo.threshold = 0.5;   /* the values are 0 (not slower) and 1 (slower) */
    else if (a->threshold < 0)
        bo.threshold_rel = -a->threshold / 100;
    else
        bo.threshold = a->threshold;
    return bisect_run(b->n, &bo, r, e);
}

/* The result printed, with --confirm's tare ab of the culprit. 0 with *confirm_status ab's
 * exit status (0 without --confirm), or -1 with e set. */
static int bisect_print(struct bisect_cli *b, const struct bisect_args *a, struct gitwt *wp,
                        const struct bisect_result *r, int *confirm_status, struct err *e)
{
    const struct bisect_step *to_confirm =
        a->do_confirm && r->nsteps > 0 && r->steps[0].exact ? &r->steps[0] : NULL;
    struct bisect_ab x = {0};
    int rc = 0;
    *confirm_status = 0;
    if (a->fmt == FMT_JSON) {
        if (to_confirm && (*confirm_status = confirm(b, to_confirm, wp, &x, e)) < 0)
            rc = -1;
        if (rc == 0)
            print_json(b, r, a->all, x.ran ? &x.r : NULL);
    } else {
        print_text(b, r, a->all);
        if (a->do_confirm && !to_confirm)
            printf("\nconfirm: nothing to confirm (no single culprit)\n");
        if (to_confirm) {
            printf("\nconfirm: tare ab --until-decided --count, the culprit (B) against its "
                   "parent (A)\n");
            if ((*confirm_status = confirm(b, to_confirm, wp, &x, e)) < 0)
                rc = -1;
        }
    }
    bisect_ab_free(&x);
    return rc;
}

int cmd_bisect(int argc, char **argv)
{
    struct bisect_cli b = {.metric = "instructions", .timeout_s = COUNT_TIMEOUT_S, .jobs = 1};
    struct bisect_args a = {.fmt = FMT_TEXT};
    struct gitwt wx[BISECT_JOBS_MAX - 1] = {0};
    struct gitwt w = {0}, wp = {0};
    int confirm_status = 0;
    struct bisect_result r = {0};
    struct err e = {0};
    int status = EXIT_USAGE;
    int dd = find_dashdash(argc, argv);
    optind = 1;
    int c;
    while ((c = getopt_long(dd, argv, "f:h", bisect_longopts, NULL)) != -1)
        if ((status = bisect_option(&b, &a, c, optarg)) != 0) {
            status = status > 0 ? EXIT_OK : EXIT_USAGE;
            goto done;
        }
    b.wx = wx;
    if ((status = bisect_check(&b, &a, argc, argv, dd)) != 0 ||
        (status = bisect_tools(&b, &a, &e)) != 0)
        goto done;
    b.argv = argv + dd + 1;
    b.text = a.fmt == FMT_TEXT;
    b.w = &w;
    if (gitwt_open(&w, a.good, &e) < 0 || list_range(&b, a.good, a.bad, &e) < 0) {
        status = cli_fail("bisect", &e);
        goto done;
    }
    /* Before the worktree exists, so an interrupt from here on still reaches the cleanup. */
    cli_install_signal_handlers();
    int rc = bisect_search(&b, &a, &wp, &r, &e);
    if (rc == 0)
        rc = bisect_print(&b, &a, &wp, &r, &confirm_status, &e);
    struct err rm_err = {0};
    if (gitwt_remove(&w, &rm_err) < 0)
        cli_error("bisect", "%s", rm_err.msg);
    if (gitwt_remove(&wp, &rm_err) < 0)
        cli_error("bisect", "%s", rm_err.msg);
    for (int j = 0; j < BISECT_JOBS_MAX - 1; j++)
        if (gitwt_remove(&wx[j], &rm_err) < 0)
            cli_error("bisect", "%s", rm_err.msg);
    if (rc < 0) {
        status = cli_fail("bisect", &e);
        goto done;
    }
    status = EXIT_OK;
    for (int k = 0; k < r.nsteps; k++)
        if (!r.steps[k].exact)
            status = EXIT_FAIL;   /* skipped commits hide which one it is */
    if (confirm_status > 0)
        status = confirm_status;   /* ab's own: 1 when its measurement failed, 130, ... */
done:
    bisect_result_free(&r);
    for (int i = 0; i < b.n; i++) {
        free(b.c[i].hash);
        free(b.c[i].date);
        free(b.c[i].subject);
        free(b.c[i].why);
    }
    free(b.c);
    free(a.hist_good);
    free(a.hist_bad);
    gitwt_free(&w);
    gitwt_free(&wp);
    for (int j = 0; j < BISECT_JOBS_MAX - 1; j++)
        gitwt_free(&wx[j]);
    metrics_spec_free(&b.mspec);
    return status;
}
