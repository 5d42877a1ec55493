/* cmd_run.c: `tare run`, a benchmark suite's wall-clock pass (serial) and deterministic pass
 * (parallel), printed as one table and optionally appended to history files. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/count_out.h"
#include "cli/budget_out.h"
#include "cli/export_out.h"
#include "cli/measure_opts.h"
#include "cli/metrics_out.h"
#include "cli/out.h"
#include "cli/run_revs.h"
#include "core/engine/count.h"
#include "core/history/gitbranch.h"
#include "core/git/gitwt.h"
#include "core/history/history.h"
#include "core/util/json.h"
#include "core/util/proc.h"
#include "core/engine/series.h"
#include "core/engine/session.h"
#include "core/util/stats.h"
#include "core/engine/suite.h"
#include "core/profile/toolchain.h"
#include "core/util/words.h"

const char cmd_run_usage[] =
    "tare run [options] SUITE";

#define CMD "run"

struct rseries {
    char *name;              /* bench or bench+lane */
    const char *lane;        /* or NULL */
    char **argv;
    char **env;
    /* The wall pass's results (its engine series' runs, its failure in this command's words). */
    double *times;
    int n;
    bool failed;
    char why[256];
    const char *tail;        /* the stderr tail of the failed run, or "" */
    char toolchain[64];      /* the measured program's compiler, or "" (NA) */
    char ***hooks[4];        /* the suite's setup, prepare, conclude, cleanup for it, or NULL */
    int nhooks[4];
    char *input;             /* its runs' stdin (the suite's input), or NULL */
    struct metrics_spec mspec;   /* where its program prints its counters (count pass) */
};

static void rseries_free(struct rseries *s)
{
    free(s->name);
    words_free(s->argv);
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < s->nhooks[k]; i++)
            words_free(s->hooks[k][i]);
        free(s->hooks[k]);
    }
    free(s->input);
    metrics_spec_free(&s->mspec);
}

/* The suite's hooks and input for benchmark b, filled in as its command is. */
static int plan_extras(const struct suite *su, const struct suite_bench *b, struct rseries *x,
                       struct err *e)
{
    static const char *const keys[4] = {"setup", "prepare", "conclude", "cleanup"};
    for (int k = 0; k < 4; k++) {
        int n = 0;
        while (su->hooks[k] && su->hooks[k][n])
            n++;
        if (n && !(x->hooks[k] = calloc(n, sizeof *x->hooks[k])))
            return err_set(e, ERR_SYSTEM, "out of memory");
        for (; x->nhooks[k] < n; x->nhooks[k]++)
            if (suite_argv(su->hooks[k][x->nhooks[k]], b, &x->hooks[k][x->nhooks[k]], e) < 0)
                return err_prefix(e, "%s", keys[k]);
    }
    if (su->input) {
        char **w = NULL;
        int n = 0;
        if (suite_argv(su->input, b, &w, e) < 0)
            return err_prefix(e, "input");
        for (char **p = w; *p; p++)
            n++;
        /* Relative to the suite's directory, where the commands run. */
        if (n != 1)
            err_set(e, ERR_INPUT, "input = '%s': want one file", su->input);
        else if (asprintf(&x->input, "%s%s%s", w[0][0] == '/' ? "" : su->dir,
                          w[0][0] == '/' ? "" : "/", w[0]) < 0)
            x->input = NULL, err_set(e, ERR_SYSTEM, "out of memory");
        words_free(w);
        if (!x->input)
            return -1;
        /* Here, once, rather than as a failed start of every run. */
        if (access(x->input, R_OK) < 0)
            return err_errno(e, ERR_INPUT, errno, "input = '%s': cannot read '%s'", su->input,
                             x->input);
    }
    return 0;
}

/*
 * The plan: every benchmark in every lane (or plain, without lanes), s[b * nl + l], and the
 * benchmark's reference in ref[b] when the suite has one. 0, or the exit status after
 * saying why.
 */
static int plan_series(const struct suite *su, int nl, struct rseries *s, struct rseries *ref,
                       struct err *e)
{
    for (int b = 0; b < su->nbench; b++) {
        for (int l = 0; l < nl; l++) {
            struct rseries *x = &s[b * nl + l];
            const struct suite_lane *lane = su->nlanes ? &su->lanes[l] : NULL;
            x->lane = lane && lane->name[0] ? lane->name : NULL;
            x->tail = "";
            x->name = series_name(su->bench[b].name, x->lane);
            x->env = lane ? lane->env : NULL;
            if (!x->name) {
                cli_error(CMD, "out of memory");
                return EXIT_USAGE;
            }
            if (suite_argv(su->command, &su->bench[b], &x->argv, e) < 0 ||
                plan_extras(su, &su->bench[b], x, e) < 0)
                return cli_fail(CMD, e);
        }
        if (su->reference) {
            struct rseries *r = &ref[b];
            r->tail = "";
            if (!(r->name = strdup(su->bench[b].name))) {
                cli_error(CMD, "out of memory");
                return EXIT_USAGE;
            }
            if (suite_argv(su->reference, &su->bench[b], &r->argv, e) < 0 ||
                plan_extras(su, &su->bench[b], r, e) < 0)
                return cli_fail(CMD, e);
        }
    }
    return 0;
}

struct wall_pass {
    const struct suite *su;
    struct session_series *x;   /* per benchmark: its lanes, then its reference */
    struct session_plan plan;
    struct session sess;
};

static void wall_progress(void *ctx, const struct session *ss, const struct session_event *ev)
{
    const struct wall_pass *w = ctx;
    if (ev->pos != 0)
        return;
    fprintf(stderr, "\r\033[K%s (%d/%d) %s %ld/%ld  %.1f s", w->su->bench[ev->group].name,
            ev->group + 1, ev->ngroups, ev->warmup ? "warm-up" : "run", ev->run, ev->runs,
            proc_now() - ss->t_start);
    fflush(stderr);
}

/*
 * The wall-clock pass: serial, benchmark by benchmark, warm-up rounds then rounds of every
 * lane and the reference, so drift hits them alike (as tare wall interleaves). The results
 * land in s and ref; -1 when tare cannot go on.
 */
static int measure_wall(struct wall_pass *w, int nl, struct rseries *s, struct rseries *ref,
                        bool progress, struct err *e)
{
    const struct suite *su = w->su;
    int per = nl + (su->reference ? 1 : 0), nx = su->nbench * per;
    if (!(w->x = calloc(nx, sizeof *w->x)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int i = 0; i < nx; i++) {
        int b = i / per, l = i % per;
        struct rseries *r = l < nl ? &s[b * nl + l] : &ref[b];
        w->x[i] = (struct session_series){.name = r->name, .argv = r->argv, .env = r->env,
                                          .cwd = su->dir, .group = b, .user = r,
                                          .stdin_path = r->input};
        struct session_cmds *c[4] = {&w->x[i].setup, &w->x[i].prepare, &w->x[i].conclude,
                                     &w->x[i].cleanup};
        for (int k = 0; k < 4; k++)
            *c[k] = (struct session_cmds){(char *const *const *)r->hooks[k], r->nhooks[k]};
    }
    w->plan = (struct session_plan){
        .series = w->x, .nseries = nx, .warmup = su->warmup, .runs = su->runs,
        .order = SESSION_ROUNDS, .timeout_s = su->timeout, .pin_cpu = -1,
        .progress = progress ? wall_progress : NULL, .progress_ctx = w,
    };
    if (session_init(&w->sess, &w->plan, e) < 0 || session_run(&w->sess, e) < 0)
        return -1;
    for (int i = 0; i < nx; i++) {
        struct rseries *r = w->x[i].user;
        const struct session_failure *f = &w->x[i].fail;
        r->times = w->x[i].wall_s;
        r->n = w->x[i].n;
        r->failed = w->x[i].state != SESSION_OK;
        if (r->failed && f->hook) {
            session_failure_why(f, r->why, sizeof r->why);
            r->tail = f->tail;
        } else if (r->failed) {
            snprintf(r->why, sizeof r->why, "%s in %s run", f->what,
                     f->warmup ? "the warm-up" : "a measured");
            r->tail = f->tail;
        }
    }
    return 0;
}

/* "16c x86_64 AMD EPYC 7B13": core count, machine, CPU model; nothing about the host or user. */
static void runner_desc(char *out, size_t n)
{
    char model[128] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                const char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ' || *c == '\t')
                        c++;
                    snprintf(model, sizeof model, "%s", c);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        fclose(f);
    }
    struct utsname u;
    if (uname(&u) < 0)
        snprintf(u.machine, sizeof u.machine, "%s", "unknown");
    snprintf(out, n, "%ldc %s%s%s", sysconf(_SC_NPROCESSORS_ONLN), u.machine, model[0] ? " " : "",
             model);
    for (char *p = out; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
}

static void tsv_cell(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/* --history-branch BRANCH[:DIR]: both files' rows in one commit on the branch. */
static int run_to_branch(const char *spec, const char *wall, size_t wlen, const char *count,
                         size_t clen, const char *commit, struct err *e)
{
    char branch[1024], paths[2][1100], msg[256];
    const char *colon = strchr(spec, ':');
    snprintf(branch, sizeof branch, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec),
             spec);
    const char *dir = colon && colon[1] ? colon + 1 : NULL;
    struct gitbr_rows f[2];
    int n = 0;
    if (wall) {
        snprintf(paths[n], sizeof paths[n], "%s%swall.tsv", dir ? dir : "", dir ? "/" : "");
        f[n] = (struct gitbr_rows){paths[n], wall, wlen};
        n++;
    }
    if (count) {
        snprintf(paths[n], sizeof paths[n], "%s%scount.tsv", dir ? dir : "", dir ? "/" : "");
        f[n] = (struct gitbr_rows){paths[n], count, clen};
        n++;
    }
    snprintf(msg, sizeof msg, "tare run: rows of %.40s", commit ? commit : "NA");
    return n ? gitbr_append(branch, f, n, msg, NULL, e) : 0;
}

/* ---- plan, measure, report ---- */

/* What one tare run holds from its plan to its report. */
struct run {
    struct suite su;
    bool do_wall, do_count, progress;
    enum out_format fmt;
    const char *hist_dir;
    const char *hist_branch;    /* --history-branch BRANCH[:DIR], or NULL */
    const struct cli_export *ci_export;   /* the CI files asked for */
    char valgrind[4096], alloc_lib[4096];
    struct err lib_err;         /* why there is no counting allocator (bytes and peak NA) */
    struct count_opts co;
    char *commit, date[32], runner[256];
    char *cdate, *subject;      /* the commit's date and subject from git, or NULL */
    const char *fail_all;       /* every row's failure (a build that failed), or NULL */
    int nl, ns;                 /* lanes (1 without), series (benchmarks x lanes) */
    struct rseries *s, *ref;    /* s[b * nl + l]; ref[b] when the suite has a reference */
    struct count_job *cj;       /* the series' ns, then the baselines' nbase */
    const char *subtract;       /* --subtract or the suite's subtract =, or NULL */
    struct rseries *base;       /* the baselines: one a lane, or one a series (per_series) */
    int nbase;
    bool per_series;            /* the template has {bench} or {name} */
    bool quiet;                 /* --revisions: no notes, failures said in the rows */
    struct wall_pass wp;
    struct metrics_view mview;  /* the programs' own counters, from the count pass */
    char *rows, *crows;         /* the history rows of wall.tsv and count.tsv */
    size_t rlen, clen;
};

/* The options a run's plan needs (the rest are in struct run). */
struct run_args {
    long runs, jobs;
    int shard_k, shard_n;
    bool want_wall, want_count;
    const char *commit;
    /* The count pass's options given (they win over the suite's keys). */
    bool cache_sim, engine_given;
    enum count_engine engine;
    char **vg_args;           /* NULL-terminated */
    int nvg_args;
    const char *subtract;
    const char *metrics_from, *metrics_pattern;   /* win over the suite's metrics keys */
    bool quiet;               /* --revisions' commits: the notes said once, not per commit */
};

/* --subtract's baselines: one a lane (baseline[+LANE]), or one a series when the template
 * names the benchmark; 0, or the exit status after saying why. */
static int plan_baselines(struct run *r, struct err *e)
{
    const struct suite *su = &r->su;
    r->per_series = strstr(r->subtract, "{bench}") || strstr(r->subtract, "{name}");
    r->nbase = r->per_series ? r->ns : r->nl;
    if (!(r->base = calloc(r->nbase + 1, sizeof *r->base))) {
        cli_error(CMD, "out of memory");
        return EXIT_USAGE;
    }
    for (int k = 0; k < r->nbase; k++) {
        struct rseries *x = &r->base[k];
        const struct suite_lane *lane = su->nlanes ? &su->lanes[k % r->nl] : NULL;
        x->lane = lane && lane->name[0] ? lane->name : NULL;
        x->env = lane ? lane->env : NULL;
        x->tail = "";
        if (r->per_series) {
            if (asprintf(&x->name, "%s (baseline)", r->s[k].name) < 0)
                x->name = NULL;
        } else {
            x->name = series_name("baseline", x->lane);
        }
        if (!x->name) {
            cli_error(CMD, "out of memory");
            return EXIT_USAGE;
        }
        if (suite_argv(r->subtract, &su->bench[r->per_series ? k / r->nl : 0], &x->argv,
                       e) < 0) {
            err_prefix(e, "subtract");
            return cli_fail(CMD, e);
        }
    }
    return 0;
}

/* The commit's date and subject, when git in dir knows it (the rows' commit_date and
 * subject); nothing when it does not (a --commit name of the user's). */
static void run_commit_info(struct run *r, const char *dir)
{
    struct gitwt_log lg;
    struct err ge = {0};
    char *args[] = {"-1", "--end-of-options", r->commit, NULL};
    if (!r->commit || gitwt_log(dir, args, &lg, &ge) < 0)
        return;
    if (lg.n == 1 && (!(r->cdate = strdup(lg.date[0])) || !(r->subject = strdup(lg.subject[0])))) {
        free(r->cdate);
        r->cdate = NULL;
    }
    gitwt_log_free(&lg);
}

/* The passes, their tools, what the history rows need, and the series: 0, or the exit status
 * after saying why. r->su is loaded. */
/* Where each series' program prints its counters: --metrics-from, else the suite's keys
 * (suite_metrics). Read in the count pass only; 0, or the exit status after saying why. */
static int plan_metrics(struct run *r, const struct run_args *a, struct err *e)
{
    bool any = false;
    for (int i = 0; i < r->ns; i++) {
        const char *from = a->metrics_from, *pat = a->metrics_pattern;
        if (!from && !pat)
            suite_metrics(&r->su, i / r->nl, r->su.nlanes ? i % r->nl : -1, &from, &pat);
        if (!from && pat)
            return cli_usage_error(CMD, cmd_run_usage, "'%s': a metrics pattern '%s' without "
                                   "a source (--metrics-from, metrics =)", r->s[i].name, pat);
        if (from && metrics_spec_init(&r->s[i].mspec, from, pat, e) < 0)
            return cli_fail(CMD, e);
        any |= from != NULL;
    }
    if (any && !r->do_count)
        cli_error(CMD, "note: the programs' own counters are read in the count pass, which "
                  "does not run (add --count)");
    return 0;
}

static int run_plan(struct run *r, const struct run_args *a, struct err *e)
{
    struct suite *su = &r->su;
    if (a->runs)
        su->runs = a->runs;
    suite_shard(su, a->shard_k, a->shard_n);
    /* Neither flag: the wall pass, and the count pass too when the suite asks for it. */
    r->do_wall = a->want_wall || !a->want_count;
    r->do_count = a->want_count || (!a->want_wall && su->count);
    /* What was asked runs; what the suite asks for beside it is said to be skipped. */
    if (!a->quiet && !r->do_wall)
        cli_error(CMD, "note: --count alone: no wall-clock pass%s%s%s (add --wall for it)",
                  su->reference ? ", so no run of the suite's reference '" : "",
                  su->reference ? su->reference : "", su->reference ? "'" : "");
    else if (!a->quiet && !r->do_count && su->count)
        cli_error(CMD, "note: --wall alone: no count pass, though the suite says count = yes "
                  "(add --count for it)");

    if (!a->quiet && !r->do_count &&
        (a->cache_sim || a->engine_given || a->nvg_args || a->subtract))
        cli_error(CMD, "note: --cache-sim, --engine, --valgrind-arg and --subtract are the count "
                  "pass's: no count pass, so they do nothing (add --count)");

    /* The count pass's tools, found before any measuring. */
    r->co = (struct count_opts){.jobs = (int)a->jobs, .timeout_s = COUNT_TIMEOUT_S};
    if (su->timeout > COUNT_TIMEOUT_S)   /* a suite's longer timeout, never a shorter one */
        r->co.timeout_s = su->timeout;
    r->co.cache_sim = a->cache_sim || su->cache_sim;
    r->co.engine = a->engine_given ? a->engine : su->engine;
    r->co.vg_args = a->nvg_args || !su->vg_args ? a->vg_args : su->vg_args;
    r->co.stacks_dir = su->keep_stacks;
    while (r->co.vg_args[r->co.nvg_args])
        r->co.nvg_args++;
    if (r->do_count) {
        if (count_find_valgrind(r->valgrind, sizeof r->valgrind, e) < 0)
            return cli_fail(CMD, e);
        r->co.valgrind = r->valgrind;
        if (cli_find_alloc_lib(r->alloc_lib, sizeof r->alloc_lib, &r->lib_err) == 0)
            r->co.alloc_lib = r->alloc_lib;
        if (su->keep_stacks && mkdir(su->keep_stacks, 0777) < 0 && errno != EEXIST) {
            err_errno(e, ERR_INPUT, errno, "keep-stacks '%s'", su->keep_stacks);
            return cli_fail(CMD, e);
        }
    }

    /* Everything the history rows need, before any measuring. */
    if (r->hist_dir || r->hist_branch) {
        if (a->commit) {
            r->commit = strdup(a->commit);
        } else {
            struct err ge = {0};
            if (gitwt_head(su->dir, &r->commit, &ge) < 0) {
                cli_error(CMD, "no --commit, and 'git rev-parse HEAD' failed in '%s'", su->dir);
                return EXIT_USAGE;
            }
        }
        run_commit_info(r, su->dir);
        if (r->hist_dir && mkdir(r->hist_dir, 0777) < 0 && errno != EEXIST) {
            cli_error(CMD, "cannot create '%s': %s", r->hist_dir, strerror(errno));
            return EXIT_USAGE;
        }
    }
    time_t now = time(NULL);
    strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    runner_desc(r->runner, sizeof r->runner);

    /* The series: every benchmark in every lane (or plain, without lanes). */
    r->nl = su->nlanes ? su->nlanes : 1;
    r->ns = su->nbench * r->nl;
    r->s = calloc(r->ns + 1, sizeof *r->s);
    r->ref = calloc(su->nbench + 1, sizeof *r->ref);
    r->subtract = r->do_count ? a->subtract ? a->subtract : su->subtract : NULL;
    r->cj = calloc(2 * r->ns + 1, sizeof *r->cj);   /* room for a baseline a series */
    r->wp.su = su;
    if (!r->s || !r->ref || !r->cj) {
        cli_error(CMD, "out of memory");
        return EXIT_USAGE;
    }
    int rc = plan_series(su, r->nl, r->s, r->ref, e);
    if (rc == 0)
        rc = plan_metrics(r, a, e);
    return rc == 0 && r->subtract && su->nbench ? plan_baselines(r, e) : rc;
}

/* The wall pass: 0, or -1 with e set. */
static int run_measure_wall(struct run *r, struct err *e)
{
    int rc = r->do_wall ? measure_wall(&r->wp, r->nl, r->s, r->ref, r->progress, e) : 0;
    if (r->progress)
        fputs("\r\033[K", stderr);
    return rc;
}

/* The count pass, every series at once (counts do not depend on load): 0, or -1 with e. */
static int run_measure_count(struct run *r, struct err *e)
{
    const struct suite *su = &r->su;
    if (!r->do_count)
        return 0;
    struct rseries *s = r->s;
    for (int i = 0; i < r->ns; i++) {
        r->cj[i].name = s[i].name;
        r->cj[i].argv = s[i].argv;
        r->cj[i].env = s[i].env;
        r->cj[i].cwd = su->dir;
        r->cj[i].metrics_from = &s[i].mspec;
        struct err te = {0};
        if (toolchain_of_command(s[i].argv[0], su->dir, s[i].toolchain, sizeof s[i].toolchain,
                                 &te) < 0)
            s[i].toolchain[0] = '\0';
    }
    for (int k = 0; k < r->nbase; k++) {   /* the baselines, after the series */
        struct count_job *j = &r->cj[r->ns + k];
        j->name = r->base[k].name;
        j->argv = r->base[k].argv;
        j->env = r->base[k].env;
        j->cwd = su->dir;
    }
    struct count_progress cp = {.on = r->progress, .t0 = proc_now()};
    r->co.progress = count_progress_print;
    r->co.ctx = &cp;
    int crc = count_run(r->cj, r->ns + r->nbase, &r->co, e);
    r->co.ctx = NULL;
    if (r->progress)
        fputs("\r\033[K", stderr);
    if (crc < 0)
        return -1;
    for (int i = 0; r->nbase && i < r->ns; i++)
        count_subtract(&r->cj[i], &r->cj[r->ns + (r->per_series ? i : i % r->nl)]);
    return 0;
}

/* The wall pass, then the count pass: 0, or the exit status after saying why. */
static int run_measure(struct run *r, struct err *e)
{
    cli_install_signal_handlers();
    r->progress = cli_progress();
    if (run_measure_wall(r, e) < 0 || run_measure_count(r, e) < 0)
        return cli_fail(CMD, e);
    if (r->do_count && !r->co.alloc_lib)
        cli_error(CMD, "note: bytes and peak heap are NA: %s", r->lib_err.msg);
    return 0;
}

/* One series' figures, as the report prints them and the history rows hold them. */
struct run_row {
    const struct rseries *x;
    bool failed;
    double med, mn, refm, ratio;
    uint64_t cnt[4];             /* instructions, allocations, bytes, peak_bytes; COUNT_NA */
    const char *tc;              /* toolchain, or NULL */
    const char *wall_why, *count_why;   /* why the wall pass's or count's figures are NA */
    /* --cache-sim's misses and cycles, --subtract's net counts (COUNT_NA where not measured
     * or the count failed) and its baseline's (base_*, as taken) */
    struct count_job extra;
};

/* A series that failed, and the end of its stderr as tare count quotes it: the last lines,
 * and above them the ones that name a cause (valgrind's "unhandled instruction bytes" comes
 * some twenty lines before its stderr ends; its banner, first, says nothing). */
static void say_failed(const char *name, const char *what, const char *why, const char *tail)
{
    cli_error(CMD, "'%s' %s: %s%s", name, what, why, tail[0] ? "; its stderr ended with:" : "");
    if (tail[0])
        cli_print_stderr_tail(tail);
}

/* Series i's figures (and its failures said); refm: its reference's median (NAN: none). */
static void run_row_get(const struct run *r, int i, double refm, struct run_row *w)
{
    const struct rseries *x = &r->s[i];
    const struct count_job *j = &r->cj[i];
    *w = (struct run_row){.x = x, .med = NAN, .mn = NAN, .refm = refm,
                          .cnt = {COUNT_NA, COUNT_NA, COUNT_NA, COUNT_NA}};
    w->extra.l1i_misses = w->extra.l1d_misses = w->extra.lli_misses = COUNT_NA;
    w->extra.lld_misses = w->extra.est_cycles = COUNT_NA;
    w->extra.net_instructions = w->extra.net_allocations = w->extra.net_bytes = COUNT_NA;
    w->extra.base_instructions = j->base_instructions;
    w->extra.base_allocations = j->base_allocations;
    w->extra.base_bytes = j->base_bytes;
    if (r->do_wall) {
        if (!x->failed && x->n) {
            w->med = stats_median(x->times, x->n);
            w->mn = stats_min(x->times, x->n);
        } else {
            w->failed = true;
            w->wall_why = x->why[0] ? x->why : "no run measured";
            if (!r->quiet)
                say_failed(x->name, "failed", x->why, x->tail);
        }
    }
    /* A count that failed is NA in every column, never a partial or zero count. */
    if (r->do_count) {
        if (j->note[0])
            cli_error(CMD, "note: '%s': %s", x->name, j->note);
        if (j->status == COUNT_OK) {
            w->cnt[0] = j->instructions;
            w->cnt[1] = j->allocations;
            w->cnt[2] = j->bytes;
            w->cnt[3] = j->peak_bytes;
            w->extra.l1i_misses = j->l1i_misses;
            w->extra.l1d_misses = j->l1d_misses;
            w->extra.lli_misses = j->lli_misses;
            w->extra.lld_misses = j->lld_misses;
            w->extra.est_cycles = j->est_cycles;
            w->extra.net_instructions = j->net_instructions;
            w->extra.net_allocations = j->net_allocations;
            w->extra.net_bytes = j->net_bytes;
        } else {
            w->failed = true;
            w->count_why = j->why[0] ? j->why : "not counted";
            if (!r->quiet)
                say_failed(x->name, "count failed", j->why, j->tail);
        }
    }
    w->ratio = w->med / w->refm;
    w->tc = x->toolchain[0] ? x->toolchain : NULL;
}

static void run_row_json(struct jw *jw, const struct run *r, const struct run_row *w)
{
    const struct rseries *x = w->x;
    jw_object_begin(jw);
    jw_kstring(jw, "benchmark", x->name);
    jw_kstring(jw, "lane", x->lane);
    if (r->do_wall) {
        jw_ki64(jw, "runs", x->n);
        jw_kdouble(jw, "median_s", w->med);
        jw_kdouble(jw, "min_s", w->mn);
        jw_kdouble(jw, "ref_median_s", w->refm);
        jw_kdouble(jw, "ratio", w->ratio);
    }
    if (r->do_count) {
        static const char *const key[] = {"instructions", "allocations", "bytes", "peak_bytes"};
        for (int k = 0; k < 4; k++)
            count_jw(jw, key[k], w->cnt[k]);
        jw_kstring(jw, "toolchain", w->tc);
        jw_kstring(jw, "engine", count_engine_name(r->co.engine));
        count_vg_args_jw(jw, &r->co);
        if (r->subtract)
            count_net_jw(jw, &w->extra, r->subtract);
        if (r->co.cache_sim)
            count_cache_jw(jw, &w->extra);
        metrics_jw(&r->mview, (int)(w->x - r->s), jw);
    }
    jw_kstring(jw, "status", w->failed ? "failed" : "ok");
    jw_end(jw);
}

/* The table's columns: those of the passes that ran (the table keeps hdr: it lives here). */
struct run_cols { const char **hdr; int nc, c_wall, c_count, c_extra, c_metrics; };

static void run_table_init(const struct run *r, struct table *t, struct run_cols *c)
{
    /* 24 for tare's own, then the programs' counters */
    const char **hdr = c->hdr = calloc(24 + r->mview.nnames + 2, sizeof *c->hdr);
    int nc = 0;
    unsigned left = 1u | 2u;
    if (!hdr) {
        cli_error(CMD, "out of memory");
        exit(EXIT_USAGE); /* style: allow exit -- as a table's own out of memory (out.c) */
    }
    c->c_wall = c->c_count = c->c_extra = c->c_metrics = -1;
    hdr[nc++] = "benchmark";
    hdr[nc++] = "lane";
    if (r->do_wall) {
        c->c_wall = nc;
        static const char *const wh[] = {"runs", "median_s", "min_s", "ref_median_s", "ratio"};
        for (int i = 0; i < 5; i++)
            hdr[nc++] = wh[i];
    }
    if (r->do_count) {
        c->c_count = nc;
        static const char *const ch[] = {"instructions", "allocations", "bytes", "peak_bytes"};
        for (int i = 0; i < 4; i++)
            hdr[nc++] = ch[i];
        if (r->fmt != FMT_TEXT) {
            left |= 3u << nc;
            hdr[nc++] = "toolchain";
            hdr[nc++] = "engine";
        }
        /* --subtract's and --cache-sim's columns, named as tare count names them */
        struct count_view v = {.co = &r->co, .subtract = r->subtract};
        c->c_extra = nc;
        nc += count_extra_header(hdr + nc, r->fmt == FMT_TEXT, &v);
        c->c_metrics = nc;   /* the counters: a table of their own for people */
        if (r->fmt != FMT_TEXT)
            nc += metrics_tsv_header(&r->mview, hdr + nc);
    }
    hdr[nc++] = "status";
    c->nc = nc;
    table_init(t, nc, hdr, left);
}

static void run_row_table(const struct run *r, const struct run_row *w, struct table *t,
                          const struct run_cols *c)
{
    const struct rseries *x = w->x;
    char nb[4][32];
    table_row(t);
    table_set(t, 0, "%s", x->name);
    table_set(t, 1, "%s", x->lane ? x->lane : "-");
    if (r->do_wall) {
        int cw = c->c_wall;
        table_set(t, cw, "%d", x->n);
        if (r->fmt == FMT_TEXT) {
            table_set(t, cw + 1, "%s", fmt_seconds(nb[0], w->med));
            table_set(t, cw + 2, "%s", fmt_seconds(nb[1], w->mn));
            table_set(t, cw + 3, "%s", fmt_seconds(nb[2], w->refm));
            table_set(t, cw + 4, isnan(w->ratio) ? "NA" : "%.3f", w->ratio);
        } else {
            table_set(t, cw + 1, "%s", fmt_num(nb[0], w->med));
            table_set(t, cw + 2, "%s", fmt_num(nb[1], w->mn));
            table_set(t, cw + 3, "%s", fmt_num(nb[2], w->refm));
            table_set(t, cw + 4, "%s", fmt_num(nb[3], w->ratio));
        }
    }
    if (r->do_count) {
        for (int k = 0; k < 4; k++)
            table_set(t, c->c_count + k, "%s", count_cell(nb[0], w->cnt[k], r->fmt == FMT_TEXT));
        if (r->fmt != FMT_TEXT) {
            table_set(t, c->c_count + 4, "%s", w->tc ? w->tc : "NA");
            table_set(t, c->c_count + 5, "%s", count_engine_name(r->co.engine));
        }
        struct count_view v = {.co = &r->co, .subtract = r->subtract};
        int cc = c->c_extra;
        count_extra_cells(t, &cc, &w->extra, r->fmt == FMT_TEXT, &v);
        cc = c->c_metrics;
        if (r->fmt != FMT_TEXT)
            metrics_tsv_cells(&r->mview, (int)(x - r->s), t, &cc);
    }
    if (w->failed && r->fmt == FMT_TEXT && cli_use_color(stdout))
        table_set_red(t, c->nc - 1, "failed");
    else
        table_set(t, c->nc - 1, "%s", w->failed ? "failed" : "ok");
}

/* The rows' last columns: the commit's date and subject (HIST_GIT), why the row is NA
 * (HIST_FAILURE), series mi's own counters (count.tsv; -1: none); then the newline. */
static void row_end(FILE *f, const struct run *r, unsigned cols, const char *why, int mi)
{
    if (cols & HIST_GIT) {
        fprintf(f, "\t%s\t", r->cdate);
        tsv_cell(f, r->subject);
    }
    if (cols & HIST_FAILURE) {
        fputc('\t', f);
        tsv_cell(f, r->fail_all ? r->fail_all : why && *why ? why : "NA");
    }
    if (mi >= 0)   /* count.tsv: series mi's own counters */
        metrics_hist_cells(f, &r->mview, mi);
    fputc('\n', f);
}

/* The series' history rows: to h (wall.tsv) and ch (count.tsv), the passes that ran; cols
 * the trailing columns (row_end). */
static void run_row_history(const struct run *r, const struct run_row *w, FILE *h, FILE *ch,
                            unsigned cols)
{
    const struct rseries *x = w->x;
    const char *commit = r->commit;
    char nb[4][32];
    if (r->do_wall) {
        fprintf(h, "%s\t%s\t", r->date, commit ? commit : "NA");
        tsv_cell(h, x->name);
        fprintf(h, "\t%s", fmt_num(nb[0], w->med));
        fprintf(h, "\t%s", fmt_num(nb[1], w->mn));
        fprintf(h, "\t%s", fmt_num(nb[2], w->refm));
        fprintf(h, "\t%s\t%d\t", fmt_num(nb[3], w->ratio), x->n);
        tsv_cell(h, r->runner);
        fputc('\t', h);
        tsv_cell(h, r->su.reference ? r->su.reference : "NA");
        row_end(h, r, cols, w->wall_why, -1);
    }
    if (r->do_count) {
        fprintf(ch, "%s\t%s\t", r->date, commit ? commit : "NA");
        tsv_cell(ch, x->name);
        for (int k = 0; k < 4; k++)
            fprintf(ch, "\t%s", count_cell(nb[0], w->cnt[k], false));
        fputc('\t', ch);
        tsv_cell(ch, w->tc ? w->tc : "NA");
        fprintf(ch, "\t%s", count_engine_name(r->co.engine));
        for (int k = 0; k < r->co.nvg_args; k++) {   /* valgrind_args: the options, one cell */
            fputc(k ? ' ' : '\t', ch);
            tsv_cell(ch, r->co.vg_args[k]);
        }
        const uint64_t cache[5] = {w->extra.l1i_misses, w->extra.l1d_misses,
                                   w->extra.lli_misses, w->extra.lld_misses,
                                   w->extra.est_cycles};
        const uint64_t net[3] = {w->extra.net_instructions, w->extra.net_allocations,
                                 w->extra.net_bytes};
        for (int k = 0; r->subtract && k < 3; k++)
            fprintf(ch, "\t%s", count_cell(nb[0], net[k], false));
        for (int k = 0; r->co.cache_sim && k < 5; k++)
            fprintf(ch, "\t%s", count_cell(nb[0], cache[k], false));
        row_end(ch, r, cols, w->count_why, (int)(x - r->s));
    }
}

/* The series' records for the CI files (export_out.h): its wall clock and its counts. */
static int run_row_export(const struct run *r, const struct run_row *w, int i,
                          struct export_set *xset, struct err *e)
{
    const struct rseries *x = w->x;
    int xrc = 0;
    if (xset->suite && r->do_wall)
        xrc = cli_export_add_wall(xset, x->name, x->times, x->n,
                                  x->failed || !x->n ? x->why : NULL, w->ratio, e);
    if (xset->suite && xrc == 0 && r->do_count)
        xrc = cli_export_add_counts(xset, x->name, &r->cj[i], false, e);
    return xrc;
}

/* [bench NAME] budgets of benchmark b: exceeded is a regression (exit 3), said with the
 * figures, and the series' count records in the CI files marked so. True when exceeded. */
static bool run_row_budget(const struct run *r, const struct run_row *w, int b,
                           struct export_set *xset, int xrc)
{
    char bwhy[BUDGET_N][160];
    const struct suite *su = &r->su;
    if (!r->do_count || !cli_budget_check(CMD, w->x->name,
                                          budget_find(su->budgets, su->nbudgets,
                                                      su->bench[b].name),
                                          w->cnt, bwhy))
        return false;
    for (int m = 0; xset->suite && xrc == 0 && m < BUDGET_N; m++)
        if (bwhy[m][0] && xset->n >= BUDGET_N) {
            struct export_rec *xr = &xset->r[xset->n - BUDGET_N + m];
            xr->state = EXPORT_REGRESSED;
            free((char *)xr->note);
            xr->note = strdup(bwhy[m]);
        }
    return true;
}

/* The programs' own counters of the count pass, its notes said; -1 when out of memory. */
static int run_metrics_view(struct run *r)
{
    const char **names = calloc(r->ns + 1, sizeof *names);
    for (int i = 0; names && i < r->ns; i++)
        names[i] = r->s[i].name;
    int rc = names ? metrics_view_count(&r->mview, NULL, r->cj, names, r->ns) : -1;
    /* the view keeps the names' pointers, not the array */
    free(names);
    if (rc == 0)
        metrics_notes(CMD, &r->mview);
    return rc;
}

/* Whether a series' figures are NA (its rows then say why: the failure column). */
static bool run_any_failed(const struct run *r)
{
    if (r->fail_all)
        return true;
    for (int i = 0; i < r->ns; i++)
        if ((r->do_wall && (r->s[i].failed || !r->s[i].n)) ||
            (r->do_count && r->cj[i].status != COUNT_OK))
            return true;
    return false;
}

/* The table (or JSON) on stdout, the history rows written: the exit status. */
static int run_report(struct run *r, struct err *e)
{
    const struct suite *su = &r->su;
    if (r->do_count && run_metrics_view(r) < 0) {
        cli_error(CMD, "out of memory");
        return EXIT_USAGE;
    }
    struct table t;
    struct run_cols cols;
    run_table_init(r, &t, &cols);
    FILE *h = open_memstream(&r->rows, &r->rlen), *ch = open_memstream(&r->crows, &r->clen);
    if (!h || !ch) {
        if (h)
            fclose(h);
        if (ch)
            fclose(ch);
        table_free(&t);
        return EXIT_USAGE;
    }
    unsigned hcols = (r->cdate ? HIST_GIT : 0) | (run_any_failed(r) ? HIST_FAILURE : 0);
    hist_write_header(h, HIST_WALL, hcols);
    hist_write_header_cols(ch, HIST_COUNT, (r->co.cache_sim ? HIST_CACHE : 0) |
                                           (r->subtract ? HIST_NET : 0) |
                                           (r->co.nvg_args ? HIST_VGARGS : 0) | hcols);
    metrics_hist_header(ch, &r->mview);   /* the programs' counters, last */
    fputc('\n', ch);
    bool any_failed = false, over_budget = false;
    for (int k = 0; k < r->nbase; k++) {   /* a baseline that failed: its series' net NA */
        const struct count_job *j = &r->cj[r->ns + k];
        if (j->status == COUNT_OK)
            continue;
        any_failed = true;
        say_failed(r->base[k].name, "count failed", j->why, j->tail);
    }
    struct export_set xset = {0};
    int xrc = 0;
    if (cli_export_wanted(r->ci_export) && export_init(&xset, "tare run", e) < 0)
        xrc = -1;
    struct jw jw;
    jw_init(&jw, stdout);
    if (r->fmt == FMT_JSON) {
        jw_object_begin(&jw);
        jw_kstring(&jw, "date", r->date);
        jw_kstring(&jw, "commit", r->commit);
        jw_kstring(&jw, "runner", r->runner);
        jw_karray(&jw, "series");
    }
    for (int b = 0; b < su->nbench; b++) {
        const struct rseries *ref = &r->ref[b];
        double refm = NAN;
        if (r->do_wall && su->reference && !ref->failed && ref->n)
            refm = stats_median(ref->times, ref->n);
        if (r->do_wall && su->reference && ref->failed) {
            cli_error(CMD, "reference for '%s' failed: %s", su->bench[b].name, ref->why);
            any_failed = true;
        }
        for (int l = 0; l < r->nl; l++) {
            struct run_row w;
            run_row_get(r, b * r->nl + l, refm, &w);
            any_failed |= w.failed;
            if (xrc == 0)
                xrc = run_row_export(r, &w, b * r->nl + l, &xset, e);
            over_budget |= run_row_budget(r, &w, b, &xset, xrc);
            /* after the budget's marks, which look for the four counts last */
            if (xrc == 0 && xset.suite && r->do_count && r->co.cache_sim)
                xrc = cli_export_add_cache(&xset, w.x->name, &r->cj[b * r->nl + l], e);
            if (xrc == 0 && xset.suite && r->do_count && r->subtract)
                xrc = cli_export_add_net(&xset, w.x->name, &r->cj[b * r->nl + l], e);
            if (xrc == 0 && xset.suite && r->do_count)
                xrc = cli_export_add_metrics(&xset, w.x->name, r->mview.ms[b * r->nl + l],
                                             &w.x->mspec, e);
            if (r->fmt == FMT_JSON)
                run_row_json(&jw, r, &w);
            else
                run_row_table(r, &w, &t, &cols);
            run_row_history(r, &w, h, ch, hcols);
        }
    }
    fclose(h);
    fclose(ch);
    if (r->fmt == FMT_JSON) {
        jw_end(&jw);
        jw_end(&jw);
        out_json_end(&jw, CMD);
    } else {
        if (r->fmt == FMT_TEXT && r->do_count) {
            bool cg = r->co.engine == COUNT_CACHEGRIND;
            printf("counts: instructions%s from one %s run, %sbytes and peak heap\n"
                   "from the counting allocator; toolchain: %s\n", cg ? "" : " and allocations",
                   count_engine_name(r->co.engine), cg ? "allocations, " : "",
                   r->ns && r->s[0].toolchain[0] ? r->s[0].toolchain : "NA");
            struct count_view v = {.co = &r->co, .subtract = r->subtract};
            count_extra_legend(stdout, &v);
        }
        table_print(&t, stdout, r->fmt);
        if (r->fmt == FMT_TEXT)
            metrics_text(stdout, &r->mview, "the count pass's 2 native runs");
    }
    table_free(&t);
    free(cols.hdr);
    int rc = any_failed ? EXIT_FAIL : over_budget ? EXIT_REGRESSION : EXIT_OK;
    if (su->nbudgets && !r->do_count)
        cli_error(CMD, "note: the suite's budgets are not checked without the count pass "
                  "(--count)");
    /* Both files get their rows, or neither does. */
    if (r->hist_dir) {
        char *path[2] = {NULL, NULL};
        struct hist_rows f[2];
        int n = 0;
        if (r->do_wall && asprintf(&path[n], "%s/wall.tsv", r->hist_dir) >= 0)
            f[n] = (struct hist_rows){path[n], r->rows, r->rlen}, n++;
        if (r->do_count && asprintf(&path[n], "%s/count.tsv", r->hist_dir) >= 0)
            f[n] = (struct hist_rows){path[n], r->crows, r->clen}, n++;
        if (n != r->do_wall + r->do_count)
            err_set(e, ERR_SYSTEM, "out of memory");
        if (n != r->do_wall + r->do_count || hist_append_files(f, n, e) < 0)
            rc = cli_fail(CMD, e);
        free(path[0]);
        free(path[1]);
    }
    if (r->hist_branch &&
        run_to_branch(r->hist_branch, r->do_wall ? r->rows : NULL, r->rlen,
                      r->do_count ? r->crows : NULL, r->clen, r->commit, e) < 0)
        rc = cli_fail(CMD, e);
    if (xset.suite || xrc < 0) {
        int st = xrc < 0 ? cli_fail(CMD, e) : cli_export_write(CMD, r->ci_export, &xset);
        if (st != EXIT_OK)
            rc = st;
    }
    export_free(&xset);
    return rc;
}

static void run_free(struct run *r)
{
    metrics_view_free(&r->mview);
    free(r->rows);
    free(r->crows);
    for (int i = 0; r->s && i < r->ns; i++)
        rseries_free(&r->s[i]);
    for (int b = 0; r->ref && b < r->su.nbench; b++)
        rseries_free(&r->ref[b]);
    for (int k = 0; r->base && k < r->nbase; k++)
        rseries_free(&r->base[k]);
    free(r->base);
    session_free(&r->wp.sess);
    free(r->wp.x);
    free(r->s);
    free(r->ref);
    for (int i = 0; r->cj && i < r->ns + r->nbase; i++)
        count_job_free(&r->cj[i]);
    free(r->cj);
    free(r->commit);
    free(r->cdate);
    free(r->subject);
    suite_free(&r->su);
}

/* ---- --revisions: one commit measured for run_revs.c ---- */

/* Every series' (and reference's, and baseline's) figures NA with why: a build that failed. */
static void run_all_failed(struct run *r, const char *why)
{
    r->fail_all = why;
    for (int i = 0; i < r->ns; i++) {
        r->s[i].failed = true;
        r->s[i].n = 0;
        snprintf(r->s[i].why, sizeof r->s[i].why, "%s", why);
        r->cj[i].status = COUNT_FAILED;
        snprintf(r->cj[i].why, sizeof r->cj[i].why, "%s", why);
    }
    for (int b = 0; r->su.reference && b < r->su.nbench; b++) {
        r->ref[b].failed = true;
        r->ref[b].n = 0;
    }
    for (int k = 0; k < r->nbase; k++)
        r->cj[r->ns + k].status = COUNT_FAILED;
}

/* The history rows of a measured run, without the table: into out; its failed series. */
static int run_rows(struct run *r, struct revs_rows *out)
{
    const struct suite *su = &r->su;
    FILE *h = open_memstream(&out->text[0], &out->len[0]);
    FILE *ch = h ? open_memstream(&out->text[1], &out->len[1]) : NULL;
    if (!h || !ch) {
        if (h)
            fclose(h);
        return -1;
    }
    unsigned hcols = (r->cdate ? HIST_GIT : 0) | (run_any_failed(r) ? HIST_FAILURE : 0);
    hist_write_header(h, HIST_WALL, hcols);
    hist_write_header(ch, HIST_COUNT, (r->co.cache_sim ? HIST_CACHE : 0) |
                                      (r->subtract ? HIST_NET : 0) |
                                      (r->co.nvg_args ? HIST_VGARGS : 0) | hcols);
    for (int b = 0; b < su->nbench; b++) {
        const struct rseries *ref = &r->ref[b];
        double refm = r->do_wall && su->reference && !ref->failed && ref->n
                      ? stats_median(ref->times, ref->n) : NAN;
        for (int l = 0; l < r->nl; l++) {
            struct run_row w;
            run_row_get(r, b * r->nl + l, refm, &w);
            out->nfailed += w.failed;
            out->nseries++;
            run_row_history(r, &w, h, ch, hcols);
        }
    }
    bool bad = fclose(h) != 0;
    bad |= fclose(ch) != 0;
    if (!r->do_wall || !r->do_count) {   /* the one file of the one pass first */
        int k = r->do_wall ? 1 : 0;
        free(out->text[k]);
        out->text[k] = NULL;
        if (!r->do_wall) {
            out->text[0] = out->text[1], out->len[0] = out->len[1];
            out->text[1] = NULL;
        }
    }
    return bad ? -1 : 0;
}

/* What every commit's measure shares: the suite file, the options. */
struct revs_ctx {
    const char *suite_path;
    const struct run_args *a;
};

/* One commit of --revisions (a revs_measure_fn): the suite planned in dir, the count pass
 * beside other commits' builds, the wall pass alone, the rows. */
static int revs_measure(void *ctx, const char *dir, const struct revs_commit *c,
                        const char *fail, struct revs_sync *sync, struct revs_rows *rows,
                        struct err *e)
{
    const struct revs_ctx *x = ctx;
    struct run *r = calloc(1, sizeof *r);
    if (!r)
        return err_set(e, ERR_SYSTEM, "out of memory");
    r->quiet = true;
    int rc = suite_load(x->suite_path, &r->su, e);
    if (rc == 0) {
        free(r->su.dir);   /* the commands run in the commit's worktree */
        r->su.dir = strdup(dir);
        if (!r->su.dir || !(r->commit = strdup(c->hash)) || !(r->cdate = strdup(c->date)) ||
            !(r->subject = strdup(c->subject)))
            rc = err_set(e, ERR_SYSTEM, "out of memory");
    }
    if (rc == 0 && run_plan(r, x->a, e) != 0)
        rc = err_set(e, ERR_INPUT, "%.12s: the suite cannot be planned there", c->hash);
    if (rc == 0 && fail) {
        run_all_failed(r, fail);
    } else if (rc == 0) {
        revs_lock(sync, false);
        rc = run_measure_count(r, e);
        revs_unlock(sync);
        if (rc == 0) {
            revs_lock(sync, true);
            rc = run_measure_wall(r, e);
            revs_unlock(sync);
        }
    }
    if (rc == 0 && run_rows(r, rows) < 0)
        rc = err_set(e, ERR_SYSTEM, "out of memory");
    run_free(r);
    free(r);
    return rc;
}

/* The --revisions options. */
struct revs_args {
    const char *range, *build;
    long every;
    bool skip_existing, jobs_given;
};

/* tare run --revisions: checked, the suite planned once in the user's tree (its notes and
 * errors said once), then every commit; the exit status. */
static int run_revs_main(struct run *r, struct run_args *a, const struct revs_args *ra,
                         const char *suite_path)
{
    if (!r->hist_dir)
        return cli_usage_error(CMD, cmd_run_usage, "--revisions writes rows: give --history DIR");
    if (a->commit || r->hist_branch || cli_export_wanted(r->ci_export) || r->fmt != FMT_TEXT)
        return cli_usage_error(CMD, cmd_run_usage, "--revisions takes neither --commit, "
                               "--history-branch, --export-* nor --format: the rows go to "
                               "--history DIR");
    struct err e = {0};
    const char *hist = r->hist_dir;
    r->hist_dir = NULL;   /* the plan: no commit of its own */
    int st = run_plan(r, a, &e);
    if (st != 0)
        return st;
    if (mkdir(hist, 0777) < 0 && errno != EEXIST) {
        cli_error(CMD, "cannot create '%s': %s", hist, strerror(errno));
        return EXIT_USAGE;
    }
    char *files[2] = {NULL, NULL};
    int nf = 0;
    if (r->do_wall && asprintf(&files[nf], "%s/wall.tsv", hist) >= 0)
        nf++;
    if (r->do_count && asprintf(&files[nf], "%s/count.tsv", hist) >= 0)
        nf++;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = ra->jobs_given ? (int)a->jobs : 1;
    /* each commit's count pass takes its share of the CPUs */
    a->jobs = ncpu / jobs > 0 ? ncpu / jobs : 1;
    a->quiet = true;
    struct revs_ctx x = {suite_path, a};
    struct revs_opts o = {.range = ra->range, .every = (int)ra->every,
                          .build = ra->build ? ra->build : r->su.build,
                          .skip_existing = ra->skip_existing, .jobs = jobs,
                          .suite_dir = r->su.dir, .files = {files[0], files[1]}, .nfiles = nf,
                          .measure = revs_measure, .ctx = &x};
    cli_install_signal_handlers();
    if (nf == r->do_wall + r->do_count) {
        st = run_revisions(CMD, &o);
    } else {
        err_set(&e, ERR_SYSTEM, "out of memory");
        st = cli_fail(CMD, &e);
    }
    if (r->do_count && !r->co.alloc_lib)
        cli_error(CMD, "note: bytes and peak heap are NA: %s", r->lib_err.msg);
    free(files[0]);
    free(files[1]);
    return st;
}

/* --shard K/N into an int[2]. */
static int opt_shard(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    int *kn = o->value;
    char tail;
    if (sscanf(arg, "%d/%d%c", &kn[0], &kn[1], &tail) != 2 || kn[1] < 1 || kn[0] < 1 ||
        kn[0] > kn[1]) {
        cli_usage_error(p->cmd, p->usage, "bad value '%s' for --shard: want K/N with "
                        "1 <= K <= N", arg);
        return -1;
    }
    return 0;
}

/* tare run with its options read; vg_args: room for --valgrind-arg's (argc + 1). */
static int run_main(int argc, char **argv, char **vg_args)
{
    const char *hist_dir = NULL, *hist_branch = NULL;
    struct run_args a = {.vg_args = vg_args, .shard_k = 1, .shard_n = 1};
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int shard[2] = {1, 1};
    enum out_format fmt = FMT_TEXT;
    struct cli_export ci_export = {0};
    a.jobs = ncpu > 0 ? ncpu : 1;
    struct revs_args ra = {.every = 1};
    const struct opt opts[] = {
        OPT_GROUP("Options:"),
        OPT_BOOL(0, "wall", &a.want_wall, "the wall-clock pass (serial; the default)"),
        OPT_BOOL(0, "count", &a.want_count,
                 "the deterministic pass (instructions, allocations, bytes,\n"
                 "peak heap; parallel); the suite's count = yes turns it on too"),
        OPT_LONG('j', "jobs", &a.jobs, "N", 1, 1024,
                 "commands counted at once (default: the number of CPUs);\n"
                 "with --revisions, commits at once (default 1)", .given = &ra.jobs_given),
        OPT_STRING(0, "history", &hist_dir, "DIR",
                   "append the rows to DIR/wall.tsv and DIR/count.tsv"),
        OPT_STRING(0, "history-branch", &hist_branch, "BRANCH[:DIR]",
                   "also commit the rows to DIR/wall.tsv and DIR/count.tsv on\n"
                   "the git branch BRANCH (git plumbing: the working tree and\n"
                   "index are not touched; retried when another writer moved it)"),
        OPT_STRING(0, "commit", &a.commit, "SHA",
                   "the commit the rows belong to (default: git rev-parse HEAD\n"
                   "in the suite's directory)"),
        OPT_CALLBACK(0, "shard", shard, "K/N",
                     "run every N-th benchmark starting at the K-th (1 <= K <= N)", opt_shard),
        OPT_STRING(0, "revisions", &ra.range, "RANGE",
                   "measure each commit of RANGE (A..B or B as git means them,\n"
                   "first parent; or a file of revisions) in a worktree, built\n"
                   "first, into --history DIR"),
        OPT_LONG(0, "every", &ra.every, "N", 1, 1000000,
                 "with --revisions: every N-th commit, back from the newest"),
        OPT_STRING(0, "build", &ra.build, "CMD",
                   "with --revisions: build each commit with CMD (/bin/sh -c, in\n"
                   "the suite's directory of its worktree); wins over build ="),
        OPT_BOOL(0, "skip-existing", &ra.skip_existing,
                 "with --revisions: leave out commits the history has rows of"),
        MOPT_RUNS(&a.runs, NULL, " (default: the suite's, else 7)"),
        OPT_BOOL(0, "cache-sim", &a.cache_sim,
                 "the count pass simulates the caches: L1 and LL misses and\n"
                 "estimated cycles too (the suite's cache-sim = yes too)"),
        OPT_CALLBACK(0, "engine", &a.engine, "ENGINE",
                     "the count pass's engine: callgrind (default) or cachegrind\n"
                     "(faster: no call graph); wins over the suite's engine =",
                     count_opt_engine, .given = &a.engine_given),
        OPT_CALLBACK(0, "valgrind-arg", vg_args, "ARG",
                     "pass this option to valgrind in the count pass (repeatable;\n"
                     "replaces the suite's valgrind-arg = keys)", count_opt_vg_arg,
                     .count = &a.nvg_args),
        OPT_STRING(0, "subtract", &a.subtract, "CMD",
                   "count CMD too (a template like command) and show the counts\n"
                   "less its; wins over the suite's subtract ="),
        MOPT_METRICS(&a.metrics_from, &a.metrics_pattern),
        OPT_FORMAT(&fmt, FMT_TEXT | FMT_TSV | FMT_JSON),
        MOPT_CI_EXPORTS(&ci_export),
        OPT_HELP(),
        OPT_END(),
    };
    struct opt_parser op = {.cmd = CMD, .usage = cmd_run_usage, .argc = argc, .argv = argv};
    int prc = opt_parse(&op, opts);
    if (prc != 0)
        return opt_status(prc);
    a.shard_k = shard[0];
    a.shard_n = shard[1];
    if (optind != argc - 1)
        return cli_usage_error(CMD, cmd_run_usage,
                               optind >= argc ? "no SUITE file" : "one SUITE file only");
    struct run *r = calloc(1, sizeof *r);
    if (!r) {
        cli_error(CMD, "out of memory");
        return EXIT_USAGE;
    }
    r->fmt = fmt;
    r->hist_dir = hist_dir;
    r->hist_branch = hist_branch;
    r->ci_export = &ci_export;
    struct err e = {0};
    if (hist_branch) {   /* a name git would refuse: said now, not after the measuring */
        char branch[1024];
        const char *colon = strchr(hist_branch, ':');
        snprintf(branch, sizeof branch, "%.*s",
                 colon ? (int)(colon - hist_branch) : (int)strlen(hist_branch), hist_branch);
        if (gitbr_check_branch(branch, &e) < 0) {
            free(r);
            return cli_fail(CMD, &e);
        }
    }
    if (suite_load(argv[optind], &r->su, &e) < 0) {
        free(r);
        return cli_fail(CMD, &e);
    }
    int rc;
    if (ra.range) {
        rc = run_revs_main(r, &a, &ra, argv[optind]);
    } else if (ra.build || ra.skip_existing || ra.every != 1) {
        rc = cli_usage_error(CMD, cmd_run_usage, "--build, --every and --skip-existing go with "
                             "--revisions");
    } else {
        rc = run_plan(r, &a, &e);
        if (rc == 0)
            rc = run_measure(r, &e);
        if (rc == 0)
            rc = run_report(r, &e);
    }
    run_free(r);
    free(r);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    char **vg_args = calloc(argc + 1, sizeof *vg_args);
    if (!vg_args) {
        cli_error(CMD, "out of memory");
        return EXIT_USAGE;
    }
    int rc = run_main(argc, argv, vg_args);
    free(vg_args);
    return rc;
}
