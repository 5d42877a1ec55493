/* count.c: the deterministic pass: native warm-up, callgrind, the counting allocator, -j. */
#define _GNU_SOURCE
#include "core/engine/count.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/profile/allocreport.h"
#include "core/profile/allocstacks.h"
#include "core/history/history.h"
#include "core/profile/profile.h"

const char *count_engine_name(enum count_engine engine)
{
    return engine == COUNT_CACHEGRIND ? "cachegrind" : "callgrind";
}

int count_engine_parse(const char *name, enum count_engine *engine)
{
    if (strcmp(name, "callgrind") == 0)
        *engine = COUNT_CALLGRIND;
    else if (strcmp(name, "cachegrind") == 0)
        *engine = COUNT_CACHEGRIND;
    else
        return -1;
    return 0;
}

int count_vg_arg_check(const char *arg, struct err *e)
{
    static const char *const taken[] = {"--tool=", "--callgrind-out-file=",
                                        "--cachegrind-out-file=", "--log-file=", "--log-fd="};
    if (strncmp(arg, "--", 2) != 0 || !arg[2])
        return err_set(e, ERR_INPUT, "takes a valgrind option ('--NAME=VALUE'), not '%.200s'",
                       arg);
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
        if (strncmp(arg, taken[i], strlen(taken[i])) == 0)
            return err_set(e, ERR_INPUT, "'%.200s': tare sets %s... itself, and reads what it "
                           "gives", arg, taken[i]);
    return 0;
}

int count_find_valgrind(char *path, size_t size, struct err *e)
{
    const char *forced = getenv("TARE_VALGRIND");
    if (forced && *forced) {
        if (access(forced, X_OK) == 0) {
            snprintf(path, size, "%s", forced);
            return 0;
        }
        return err_set(e, ERR_UNSUPPORTED, "TARE_VALGRIND is '%s', which is not an executable",
                       forced);
    }
    const char *env = getenv("PATH");
    char *dirs = strdup(env && *env ? env : "/usr/bin:/bin");
    if (!dirs)
        return err_set(e, ERR_SYSTEM, "out of memory");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, size, "%s/valgrind", *d ? d : ".");
        if (access(path, X_OK) == 0) {
            free(dirs);
            return 0;
        }
    }
    free(dirs);
    return err_set(e, ERR_UNSUPPORTED,
                   "valgrind is not installed (Debian package 'valgrind'); it is what counts "
                   "instructions and allocations");
}

struct shared {
    struct count_job *jobs;
    int n, next, done;
    const struct count_opts *o;
    const char *tmpdir;
    pthread_mutex_t lock;
    pthread_mutex_t file_lock;   /* one native run at a time writes --metrics-from FILE */
    bool stop;
    struct err fatal;
    bool *owed;   /* jobs whose cleanup an interrupt put off (NULL: out of memory) */
};

/* A file-name-safe form of a series name. */
static void safe_name(char *out, size_t size, const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++)
        out[i] = isalnum((unsigned char)name[i]) || strchr("._+-", name[i]) ? name[i] : '_';
    out[i] = '\0';
}

static bool run_one(struct shared *sh, struct count_job *j, const struct proc_opts *po,
                    const char *what, struct err *fatal);

/* The job's hooks of one kind, natively (outside valgrind and the allocator); false (the job
 * marked, or fatal set) when one failed. `when`: "before the callgrind run". */
static bool hooks(struct shared *sh, struct count_job *j, const char *which,
                  const struct session_cmds *c, long iter, const char *when, struct err *fatal)
{
    struct session_hook_env h = {
        .env = j->env, .cwd = j->cwd, .series = j->name, .timeout_s = sh->o->timeout_s,
        .show_output = sh->o->show_output,
    };
    struct session_failure f;
    int rc = session_hooks_run(c, which, &h, iter, &f, fatal);
    if (rc == 0)
        return true;
    if (rc > 0 && j->status == COUNT_OK) {
        j->status = f.status == PROC_TIMEOUT ? COUNT_TIMEOUT : COUNT_FAILED;
        snprintf(j->why, sizeof j->why, "%s failed: '%.400s' %s%s%s", which, f.hook_cmd, f.what,
                 when ? " " : "", when ? when : "");
        memcpy(j->tail, f.tail, sizeof j->tail);
    }
    return false;
}

/* Only what the program writes to $TARE_METRICS_OUT: no --metrics-from. */
static const struct metrics_spec no_metrics_from;

/* One run of the command itself, its counters read into mr (when not NULL: a native run). */
static bool run_read(struct shared *sh, struct count_job *j, struct proc_opts *po,
                     const char *what, struct metrics_run *mr, struct err *fatal)
{
    if (!mr)
        return run_one(sh, j, po, what, fatal);
    const struct metrics_spec *ms = j->metrics_from ? j->metrics_from
                                    : sh->o->metrics ? sh->o->metrics : &no_metrics_from;
    bool one_file = ms->from == METRICS_FROM_FILE;
    if (one_file)
        pthread_mutex_lock(&sh->file_lock);
    struct metrics_capture cap;
    bool ok = false;
    if (metrics_capture_begin(&cap, ms, sh->tmpdir, po->env_set, j->cwd, po, mr, fatal) == 0) {
        ok = run_one(sh, j, po, what, fatal);
        metrics_capture_end(&cap);
    } else {
        j->status = COUNT_FAILED;
    }
    if (one_file)
        pthread_mutex_unlock(&sh->file_lock);
    return ok;
}

/* Runs one command (run `iter` of the job, named `run` for its hooks' messages) between
 * its prepare and conclude hooks; false (with the job marked) when it did not exit 0. mr: a
 * native run whose counters are read (core/util/metrics.h), or NULL. */
static bool run_step(struct shared *sh, struct count_job *j, char *const *argv,
                     const char *what, char *const *env, long iter, const char *run,
                     struct metrics_run *mr, struct err *fatal)
{
    struct proc_opts po = {
        .argv = argv, .env_set = env, .cwd = j->cwd, .timeout_s = sh->o->timeout_s, .pin_cpu = -1,
        .no_aslr = true, .show_output = sh->o->show_output,
        .stdin_path = sh->o->stdin_path, .stdout_path = sh->o->stdout_path,
        .stdout_append = true, .stdout_pipe = sh->o->stdout_pipe,
        .wait_group = true,   /* every process it starts is counted: wait for each */
    };
    char when[96];
    snprintf(when, sizeof when, "before the %s", run);
    if (!hooks(sh, j, "prepare", &j->prepare, iter, when, fatal))
        return false;
    bool ok = run_read(sh, j, &po, what, mr, fatal);
    snprintf(when, sizeof when, "after the %s", run);
    /* The conclusion comes after every run that started; a failed run's record stays. */
    if (!(fatal->kind == ERR_INTERRUPTED) && !hooks(sh, j, "conclude", &j->conclude, iter, when,
                                                    fatal))
        return false;
    return ok;
}

/* One run of the command itself; false (with the job marked) when it did not exit 0. */
static bool run_one(struct shared *sh, struct count_job *j, const struct proc_opts *po,
                    const char *what, struct err *fatal)
{
    struct proc_result r;
    struct err e = {0};
    if (proc_run(po, &r, &e) < 0) {
        /* Not a measurement that failed: the command cannot run at all (bad input). */
        *fatal = e;
        err_prefix(fatal, "'%s'", j->name);
        j->status = COUNT_FAILED;
        return false;
    }
    if (r.status == PROC_INTERRUPTED || proc_interrupted()) {
        err_set(fatal, ERR_INTERRUPTED, "interrupted");
        return false;
    }
    if (r.status == PROC_OK)
        return true;
    char d[128];
    j->status = r.status == PROC_TIMEOUT ? COUNT_TIMEOUT : COUNT_FAILED;
    snprintf(j->why, sizeof j->why, "%s %s", what,
             proc_describe(&r, sh->o->timeout_s, d, sizeof d));
    memcpy(j->tail, r.stderr_tail, sizeof j->tail);
    return false;
}

/* What one callgrind pass gives: the misses are COUNT_NA without the cache simulation. */
struct pass_counts {
    uint64_t ir, allocs, l1i, l1d, lli, lld;
};

/* The sum of the named events, or COUNT_NA when the profile lacks any of them. */
static uint64_t event_sum(const struct cg_profile *p, const char *const *names)
{
    uint64_t sum = 0;
    for (; *names; names++) {
        int ev = cg_event_index(p, *names);
        if (ev < 0)
            return COUNT_NA;
        sum += cg_total(p, ev);
    }
    return sum;
}

/* Reads every file callgrind wrote for one run (dumps add .1, .2 ...) into one profile. */
static int read_profiles(const char *prefix, bool call_graph, struct pass_counts *pc,
                         struct err *e)
{
    char pattern[4200];
    snprintf(pattern, sizeof pattern, "%s*", prefix);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
        return err_set(e, ERR_MEASURE, "valgrind wrote no profile '%s'", prefix);
    struct cg_profile *p = cg_profile_new();
    if (!p) {
        globfree(&g);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    int rc = 0;
    for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
        rc = cg_read_file(p, g.gl_pathv[i], NULL, e);
    if (rc == 0)
        rc = cg_profile_finish(p, e);
    if (rc == 0) {
        int ev = cg_event_index(p, "Ir");
        if (ev < 0)
            rc = err_set(e, ERR_MEASURE, "profile '%s' has no Ir event", prefix);
        else {
            static const char *const i1[] = {"I1mr", NULL}, *const d1[] = {"D1mr", "D1mw", NULL};
            static const char *const il[] = {"ILmr", NULL}, *const dl[] = {"DLmr", "DLmw", NULL};
            pc->ir = cg_total(p, ev);
            /* A cachegrind profile has no calls: its allocations come from elsewhere. */
            pc->allocs = call_graph ? cg_allocations(p) : COUNT_NA;
            pc->l1i = event_sum(p, i1);
            pc->l1d = event_sum(p, d1);
            pc->lli = event_sum(p, il);
            pc->lld = event_sum(p, dl);
        }
    }
    cg_profile_free(p);
    globfree(&g);
    return rc;
}

static void remove_profiles(const char *prefix)
{
    char pattern[4200];
    snprintf(pattern, sizeof pattern, "%s*", prefix);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            unlink(g.gl_pathv[i]);
        globfree(&g);
    }
}

/* Moves the profiles of one run into dir as NAME.callgrind.out (the first process's) and
 * NAME.callgrind.out.2, .3 ... for the processes it started, which `tare cg` reads together. */
static int keep_profiles(const char *prefix, const char *dir, const char *job_name)
{
    char pattern[4200], name[200], dest[4400];
    snprintf(pattern, sizeof pattern, "%s*", prefix);
    safe_name(name, sizeof name, job_name);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0;
    int rc = 0;
    for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
        if (i == 0)
            snprintf(dest, sizeof dest, "%s/%s.callgrind.out", dir, name);
        else
            snprintf(dest, sizeof dest, "%s/%s.callgrind.out.%zu", dir, name, i + 1);
        rc = rename(g.gl_pathv[i], dest);
    }
    globfree(&g);
    return rc;
}

/* The lane's variables plus one more (NAME=VALUE), or NULL when out of memory. */
static char **env_plus(char *const *lane, const char *extra)
{
    size_t n = 0;
    while (lane && lane[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++)
        env[i] = lane[i];
    env[n] = (char *)extra;
    return env;
}

/* TARE_ITERATION of a counted run, numbered in the order they run: the callgrind pass 1,
 * --check-warm's second 2, the region's pass (3) next, the allocator's run (0) last. */
static long pass_iteration(const struct count_opts *o, int pass)
{
    long n = 1 + (o->check_warm ? 1 : 0);
    if (pass == 1 || pass == 2)
        return pass;
    if (pass == 3)
        return n + 1;
    return n + (o->ntoggle > 0 || o->marks ? 1 : 0) + 1;
}

/* One callgrind pass of job k; pass 2 is --check-warm's second, pass 3 the region's (only
 * the region's cost is collected: --toggle-collect, or the marks with --collect-atstart=no). */
static bool callgrind_pass(struct shared *sh, int k, int pass, struct pass_counts *pc,
                           struct err *fatal)
{
    struct count_job *j = &sh->jobs[k];
    const struct count_opts *o = sh->o;
    bool region = pass == 3, cachegrind = o->engine == COUNT_CACHEGRIND;
    char prefix[4096], outopt[4200];
    snprintf(prefix, sizeof prefix, "%s/job%d.pass%d.out", sh->tmpdir, k, pass);
    /* %p: every process the command starts writes its own profile, all of them summed. */
    snprintf(outopt, sizeof outopt, "--%s-out-file=%s.%%p", count_engine_name(o->engine), prefix);
    int argc = 0;
    while (j->argv[argc])
        argc++;
    char **argv = calloc(argc + 9 + o->ntoggle + o->nvg_args, sizeof *argv);
    char **toggles = calloc(o->ntoggle + 1, sizeof *toggles);
    char **env = region && o->marks ? env_plus(j->env, "TARE_COUNT_REGION=marks") : NULL;
    bool ok = argv && toggles && (env || !(region && o->marks));
    int a = 0, nt = 0;
    if (ok) {
        argv[a++] = (char *)o->valgrind;
        argv[a++] = cachegrind ? "--tool=cachegrind" : "--tool=callgrind";
        argv[a++] = o->cache_sim ? "--cache-sim=yes" : "--cache-sim=no";
        argv[a++] = "--branch-sim=no";
        argv[a++] = "--trace-children=yes";
        argv[a++] = "--vgdb=no";   /* no FIFOs in $TMPDIR, which an interrupt would leave */
        argv[a++] = outopt;
        if (region && o->marks)
            argv[a++] = "--collect-atstart=no";
        for (int i = 0; region && i < o->ntoggle && ok; i++) {
            ok = asprintf(&toggles[nt], "--toggle-collect=%s", o->toggle[i]) >= 0;
            if (ok)
                argv[a++] = toggles[nt++];
        }
        for (int i = 0; i < o->nvg_args; i++)
            argv[a++] = o->vg_args[i];
    }
    if (!ok) {
        err_set(fatal, ERR_SYSTEM, "out of memory");
    } else {
        for (int i = 0; i < argc; i++)
            argv[a++] = j->argv[i];
        argv[a] = NULL;
        ok = run_step(sh, j, argv, region ? "under callgrind (the region's pass):"
                      : cachegrind ? "under cachegrind:" : "under callgrind:",
                      env ? env : j->env, pass_iteration(o, pass),
                      region ? "region's callgrind run"
                      : pass == 1 ? "callgrind run" : "second callgrind run", NULL, fatal);
    }
    for (int i = 0; i < nt; i++)
        free(toggles[i]);
    free(toggles);
    free(env);
    free(argv);
    if (ok) {
        struct err e = {0};
        if (read_profiles(prefix, !cachegrind, pc, &e) < 0) {
            j->status = COUNT_FAILED;
            snprintf(j->why, sizeof j->why, "reading its profile: %.900s", e.msg);
            ok = false;
        }
    }
    if (ok && pass == 1 && o->keep_dir && keep_profiles(prefix, o->keep_dir, j->name) < 0) {
        j->status = COUNT_FAILED;
        snprintf(j->why, sizeof j->why, "cannot keep its profile in '%.800s': %s", o->keep_dir,
                 strerror(errno));
        ok = false;
    }
    remove_profiles(prefix);
    return ok;
}

/* The lane's variables plus LD_PRELOAD (ahead of any the user set), TARE_ALLOC_OUT and, with
 * stacks kept, TARE_ALLOC_STACKS. */
static char **alloc_env(char *const *lane, const char *lib, const char *out, bool stacks)
{
    size_t n = 0;
    while (lane && lane[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    if (!env)
        return NULL;
    const char *old = getenv("LD_PRELOAD");
    for (size_t i = 0; i < n; i++)
        if (strncmp(lane[i], "LD_PRELOAD=", 11) == 0)
            old = lane[i] + 11;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(lane[i], "LD_PRELOAD=", 11) != 0)
            env[m++] = strdup(lane[i]);
    if (asprintf(&env[m++], "LD_PRELOAD=%s%s%s", lib, old && *old ? ":" : "", old ? old : "") < 0)
        env[m - 1] = NULL;
    if (asprintf(&env[m++], "TARE_ALLOC_OUT=%s", out) < 0)
        env[m - 1] = NULL;
    if (stacks && !(env[m++] = strdup("TARE_ALLOC_STACKS=auto")))
        env[m - 1] = NULL;
    for (size_t i = 0; i < m; i++)
        if (!env[i]) {
            for (size_t k = 0; k < m; k++)
                free(env[k]);
            free(env);
            return NULL;
        }
    return env;
}

/* The stacks of every process of the report as DIR/NAME.stacks.tsv (written whole). */
static int keep_stacks(const struct alloc_report *rep, const char *dir, const char *job_name,
                       struct err *e)
{
    char name[200], path[4400], tmp[4420];
    safe_name(name, sizeof name, job_name);
    snprintf(path, sizeof path, "%s/%s.stacks.tsv", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    struct astk_opts o = {-1, NULL, NULL};
    struct astk_table t;
    if (astk_from_report(rep, &o, &t, e) < 0)
        return -1;
    astk_sort(&t, ASTK_ALLOCS);
    FILE *f = fopen(tmp, "w");
    int rc = 0;
    if (!f) {
        rc = err_errno(e, ERR_SYSTEM, errno, "cannot write '%s'", tmp);
    } else {
        astk_write_tsv(&t, f, 0);
        bool bad = ferror(f) != 0;
        if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
            rc = err_errno(e, ERR_SYSTEM, errno, "cannot write '%s'", path);
            unlink(tmp);
        }
    }
    astk_free(&t);
    return rc;
}

/* One more native run under libtare-alloc.so, recording stacks, kept as NAME.stacks.tsv. */
static void stacks_pass(struct shared *sh, int k, struct err *fatal)
{
    struct count_job *j = &sh->jobs[k];
    char out[4096];
    snprintf(out, sizeof out, "%s/job%d.stacks", sh->tmpdir, k);
    char **env = alloc_env(j->env, sh->o->alloc_lib, out, true);
    if (!env) {
        err_set(fatal, ERR_SYSTEM, "out of memory");
        return;
    }
    bool ok = run_step(sh, j, j->argv, "native run recording stacks", env,
                       pass_iteration(sh->o, 0), "run recording stacks", NULL, fatal);
    for (char **v = env; *v; v++)
        free(*v);
    free(env);
    struct alloc_report rep = {0};
    struct err e = {0};
    if (ok && (allocreport_read_file(out, &rep, &e) < 0 ||
               keep_stacks(&rep, sh->o->stacks_dir, j->name, &e) < 0))
        snprintf(j->note, sizeof j->note, "its stacks were not kept: %.400s", e.msg);
    allocreport_free(&rep);
    unlink(out);
}

/* One native run under libtare-alloc.so: bytes requested and peak live bytes; the program's
 * counters into mr. */
static void alloc_pass(struct shared *sh, int k, struct metrics_run *mr, struct err *fatal)
{
    struct count_job *j = &sh->jobs[k];
    char out[4096];
    snprintf(out, sizeof out, "%s/job%d.alloc", sh->tmpdir, k);
    char **env = alloc_env(j->env, sh->o->alloc_lib, out, false);
    if (!env) {
        err_set(fatal, ERR_SYSTEM, "out of memory");
        return;
    }
    bool ok = run_step(sh, j, j->argv, "native run under libtare-alloc.so", env,
                       pass_iteration(sh->o, 0), "run under the counting allocator", mr, fatal);
    for (char **v = env; *v; v++)
        free(*v);
    free(env);
    if (!ok) {
        unlink(out);
        return;
    }
    struct alloc_report rep = {0};
    struct alloc_totals t = {0};
    struct err e = {0};
    const char *what = sh->o->engine == COUNT_CACHEGRIND ? "allocations, bytes and peak heap"
                       : "bytes and peak heap";
    if (access(out, F_OK) != 0) {
        snprintf(j->note, sizeof j->note,
                 "%s are NA: it wrote no allocation report "
                 "(statically linked, or it clears LD_PRELOAD)", what);
    } else if (allocreport_read_file(out, &rep, &e) < 0 ||
               allocreport_sum(&rep, -1, &t, &e) < 0) {
        snprintf(j->note, sizeof j->note, "%s are NA: %.400s", what, e.msg);
    } else if (t.nprocs == 0) {
        snprintf(j->note, sizeof j->note,
                 "%s are NA: it wrote no allocation report "
                 "of its own (it replaced LD_PRELOAD?)", what);
    } else if (t.own_malloc) {
        snprintf(j->note, sizeof j->note, "%s are NA: it defines its own malloc, "
                 "which the counting allocator cannot see into", what);
    } else {
        j->bytes = t.bytes;
        j->peak_bytes = t.peak_bytes;
        if (sh->o->engine == COUNT_CACHEGRIND)
            j->allocations = t.allocations;
    }
    allocreport_totals_free(&t);
    allocreport_free(&rep);
    unlink(out);
}

/* The simulated misses and the cycles model (a model, not a measurement: iai-callgrind's
 * weights); NA if the profile lacks an event or the sum passes 2^64. */
static void set_cache(struct count_job *j, const struct pass_counts *pc)
{
    j->l1i_misses = pc->l1i;
    j->l1d_misses = pc->l1d;
    j->lli_misses = pc->lli;
    j->lld_misses = pc->lld;
    if (pc->l1i == COUNT_NA || pc->l1d == COUNT_NA || pc->lli == COUNT_NA || pc->lld == COUNT_NA)
        return;
    long double c = (long double)pc->ir + 10.0L * ((long double)pc->l1i + pc->l1d) +
                    100.0L * ((long double)pc->lli + pc->lld);
    if (c < 1.8e19L)
        j->est_cycles = pc->ir + 10 * (pc->l1i + pc->l1d) + 100 * (pc->lli + pc->lld);
}

/* The two native runs' counters into the job's (none when neither run reported any). */
static void take_metrics(struct count_job *j, struct metrics_run *mr, int nruns,
                         struct err *fatal)
{
    bool any = false;
    for (int i = 0; i < nruns; i++)
        any = any || mr[i].n > 0 || mr[i].bad[0];
    for (int i = 0; any && i < nruns && !fatal->kind; i++)
        metrics_add_run(&j->metrics, &mr[i], fatal);
    metrics_finish(&j->metrics);
}

static void run_job(struct shared *sh, int k, struct err *fatal)
{
    struct count_job *j = &sh->jobs[k];
    struct metrics_run mr[2] = {{0}};   /* the warm-up's counters, the measured native run's */
    metrics_free(&j->metrics);
    j->status = COUNT_OK;
    j->instructions = j->allocations = j->bytes = j->peak_bytes = COUNT_NA;
    j->instructions2 = j->allocations2 = COUNT_NA;
    j->region_instructions = j->region_allocations = COUNT_NA;
    j->region_why[0] = '\0';
    j->l1i_misses = j->l1d_misses = j->lli_misses = j->lld_misses = j->est_cycles = COUNT_NA;
    j->net_instructions = j->net_allocations = j->net_bytes = COUNT_NA;
    j->base_instructions = j->base_allocations = j->base_bytes = COUNT_NA;
    j->note[0] = '\0';
    double t0 = proc_now();
    if (!hooks(sh, j, "setup", &j->setup, 0, NULL, fatal))
        goto out;
    /* 1. A native warm-up, never measured: caches, page cache, precompiled modules. */
    if (!run_step(sh, j, j->argv, "native warm-up run", j->env, -1, "native warm-up run", &mr[0],
                  fatal))
        goto out;
    /* 2. Instructions and allocations from callgrind. */
    struct pass_counts pc;
    if (!callgrind_pass(sh, k, 1, &pc, fatal))
        goto out;
    uint64_t ir = pc.ir, al = pc.allocs;
    if (sh->o->check_warm) {
        struct pass_counts pc2;
        if (!callgrind_pass(sh, k, 2, &pc2, fatal))
            goto out;
        uint64_t ir2 = pc2.ir, al2 = pc2.allocs;
        j->instructions2 = ir2;
        j->allocations2 = al2;
        double di = ir ? (double)(ir > ir2 ? ir - ir2 : ir2 - ir) / ir : 0;
        double da = al == COUNT_NA || al2 == COUNT_NA ? 0
                    : al ? (double)(al > al2 ? al - al2 : al2 - al) / al : (al2 ? 1 : 0);
        if (di > 1e-4 || da > 1e-4) {
            j->status = COUNT_UNSTABLE;
            snprintf(j->why, sizeof j->why,
                     "not warm-stable: two %s passes gave %llu and %llu instructions",
                     count_engine_name(sh->o->engine), (unsigned long long)ir,
                     (unsigned long long)ir2);
            if (al != COUNT_NA && al2 != COUNT_NA) {
                size_t len = strlen(j->why);
                snprintf(j->why + len, sizeof j->why - len, ", %llu and %llu allocations",
                         (unsigned long long)al, (unsigned long long)al2);
            }
        }
    }
    /* 2b. The region: a pass of its own, since what callgrind leaves out it does not count.
     * Entering it costs at least one instruction, so a total of 0 means never entered. */
    if (sh->o->ntoggle > 0 || sh->o->marks) {
        struct pass_counts rc;
        if (!callgrind_pass(sh, k, 3, &rc, fatal))
            goto out;
        if (rc.ir == 0) {
            snprintf(j->region_why, sizeof j->region_why, "the region was never entered");
        } else {
            j->region_instructions = rc.ir;
            j->region_allocations = rc.allocs;
        }
    }
    j->instructions = ir;
    j->allocations = al;
    if (sh->o->cache_sim)
        set_cache(j, &pc);
    /* 3. Bytes and peak heap need the counting allocator (a native run, LD_PRELOAD); the
     * program's counters are read there too, or, without it, in a plain native run. */
    if (sh->o->alloc_lib)
        alloc_pass(sh, k, &mr[1], fatal);
    else if (mr[0].n > 0 && !run_step(sh, j, j->argv, "native run", j->env,
                                      pass_iteration(sh->o, 0), "native run", &mr[1], fatal))
        goto out;
    if (j->status == COUNT_OK || j->status == COUNT_UNSTABLE)
        take_metrics(j, mr, 2, fatal);
    /* 4. The stacks, kept: a run of their own, so that the counts above stay what they are
     * without (libunwind's thread-local storage and the variable change a few bytes). */
    if (sh->o->alloc_lib && sh->o->stacks_dir && j->status == COUNT_OK && !fatal->kind)
        stacks_pass(sh, k, fatal);
out:
    metrics_run_free(&mr[0]);
    metrics_run_free(&mr[1]);
    /* Cleanup after a failure too; a failure's record stays. After an interrupt it waits
     * for every worker to stop, then runs within a grace (count_run). */
    if (fatal->kind != ERR_INTERRUPTED) {
        struct err scratch = {0};
        hooks(sh, j, "cleanup", &j->cleanup, 0, NULL, fatal->kind ? &scratch : fatal);
    } else if (sh->owed) {
        sh->owed[k] = true;
    }
    j->seconds = proc_now() - t0;
}

static void *worker(void *arg)
{
    struct shared *sh = arg;
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        int k = sh->stop || sh->next >= sh->n ? -1 : sh->next++;
        if (k >= 0 && sh->o->progress)
            sh->o->progress(sh->o->ctx, &sh->jobs[k], false, sh->done, sh->n);
        pthread_mutex_unlock(&sh->lock);
        if (k < 0)
            return NULL;
        struct err fatal = {0};
        run_job(sh, k, &fatal);
        pthread_mutex_lock(&sh->lock);
        sh->done++;
        if (fatal.kind != ERR_NONE && !sh->stop) {
            sh->stop = true;
            sh->fatal = fatal;
        }
        if (sh->o->progress)
            sh->o->progress(sh->o->ctx, &sh->jobs[k], true, sh->done, sh->n);
        pthread_mutex_unlock(&sh->lock);
    }
}

/* Empties and removes the temporary directory: whatever a run left there (a profile of a
 * process that was ended, a report cut short) goes with it. */
static void remove_tmpdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                unlinkat(dirfd(d), de->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

int count_run(struct count_job *jobs, int n, const struct count_opts *o, struct err *e)
{
    char tmpl[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/tare-count-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl))
        return err_errno(e, ERR_SYSTEM, errno, "cannot make a temporary directory '%s'", tmpl);
    /* Absolute, since a job may run in another directory (its cwd) and write there. */
    char abs_tmpl[PATH_MAX];
    if (tmpl[0] != '/' && realpath(tmpl, abs_tmpl))
        snprintf(tmpl, sizeof tmpl, "%s", abs_tmpl);
    struct shared sh = {.jobs = jobs, .n = n, .o = o, .tmpdir = tmpl,
                        .owed = calloc(n > 0 ? n : 1, sizeof(bool))};
    pthread_mutex_init(&sh.lock, NULL);
    pthread_mutex_init(&sh.file_lock, NULL);
    int nthreads = o->jobs < 1 ? 1 : o->jobs > n ? n : o->jobs;
    pthread_t *th = calloc(nthreads, sizeof *th);
    int started = 0;
    if (th)
        for (; started < nthreads; started++)
            if (pthread_create(&th[started], NULL, worker, &sh) != 0)
                break;
    if (started == 0)
        worker(&sh);   /* no threads to be had: do it all here */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    /* The cleanups an interrupt put off, now that nothing runs, within a grace: a second
     * interrupt ends them at once. */
    bool grace = proc_grace(SESSION_CLEANUP_GRACE_S);
    for (int k = 0; grace && sh.owed && k < n && !proc_stopping(); k++) {
        struct err scratch = {0};
        if (sh.owed[k])
            hooks(&sh, &jobs[k], "cleanup", &jobs[k].cleanup, 0, NULL, &scratch);
    }
    if (grace)
        proc_grace(0);
    free(sh.owed);
    pthread_mutex_destroy(&sh.lock);
    pthread_mutex_destroy(&sh.file_lock);
    remove_tmpdir(tmpl);
    if (sh.stop) {
        *e = sh.fatal;
        return -1;
    }
    return 0;
}

void count_job_free(struct count_job *j)
{
    metrics_free(&j->metrics);
}

/* One of tare's own four counts. */
static bool own_metric(const char *name)
{
    return strcmp(name, "instructions") == 0 || strcmp(name, "allocations") == 0 ||
           strcmp(name, "bytes") == 0 || strcmp(name, "peak_bytes") == 0;
}

const char *count_counter_name(const char *metric)
{
    if (own_metric(metric))
        return NULL;
    if (strncmp(metric, METRICS_PREFIX, sizeof METRICS_PREFIX - 1) == 0)
        metric += sizeof METRICS_PREFIX - 1;
    /* A name of tare's own metrics (wall, median_s, ...) alone is tare's: a counter so named
     * is metric.NAME. */
    else if (strcmp(metric, "wall") == 0 || hist_metric_by_name(metric) >= 0)
        return NULL;
    return metrics_name_valid(metric, strlen(metric)) ? metric : NULL;
}

bool count_metric_valid(const char *name)
{
    return own_metric(name) || count_counter_name(name);
}

uint64_t count_job_metric(const struct count_job *job, const char *name)
{
    if (strcmp(name, "instructions") == 0)
        return job->instructions;
    if (strcmp(name, "allocations") == 0)
        return job->allocations;
    if (strcmp(name, "bytes") == 0)
        return job->bytes;
    if (strcmp(name, "peak_bytes") == 0)
        return job->peak_bytes;
    const char *counter = count_counter_name(name);
    const struct metric *m = counter ? metrics_find(&job->metrics, counter) : NULL;
    return m && !m->varied ? m->max : COUNT_NA;
}

const char *count_counter_why(const struct count_job *job, const char *name, char *buf,
                              size_t n)
{
    const char *counter = count_counter_name(name);
    const struct metric *m = counter ? metrics_find(&job->metrics, counter) : NULL;
    if (!counter)
        return "";
    if (!m)
        snprintf(buf, n, "the program reported no counter '%s'", counter);
    else if (m->varied)
        snprintf(buf, n, "its counter '%s' varied between runs (%llu .. %llu): not "
                 "deterministic, so one count is no verdict", counter,
                 (unsigned long long)m->min, (unsigned long long)m->max);
    else
        return "";
    return buf;
}

uint64_t count_net(uint64_t raw, uint64_t base)
{
    if (raw == COUNT_NA || base == COUNT_NA || base > raw)
        return COUNT_NA;
    return raw - base;
}

void count_subtract(struct count_job *j, const struct count_job *base)
{
    bool ok = j->status == COUNT_OK && base->status == COUNT_OK;
    j->base_instructions = base->status == COUNT_OK ? base->instructions : COUNT_NA;
    j->base_allocations = base->status == COUNT_OK ? base->allocations : COUNT_NA;
    j->base_bytes = base->status == COUNT_OK ? base->bytes : COUNT_NA;
    j->net_instructions = ok ? count_net(j->instructions, base->instructions) : COUNT_NA;
    j->net_allocations = ok ? count_net(j->allocations, base->allocations) : COUNT_NA;
    j->net_bytes = ok ? count_net(j->bytes, base->bytes) : COUNT_NA;
}
