/* session.h: the measuring engine: a plan of series, the run loop, failure records, progress. */
#ifndef TARE_SESSION_H
#define TARE_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "core/engine/counters.h"
#include "core/util/err.h"
#include "core/util/metrics.h"
#include "core/util/proc.h"

/*
 * Every command that measures wall clock (wall, stat, ab, run) describes what to run as a
 * plan and lets this loop run it:
 *
 *   struct session_series sr[2] = {{.name = "a", .argv = a}, {.name = "b", .argv = b}};
 *   struct session_plan p = {.series = sr, .nseries = 2, .warmup = 1, .runs = 7, .pin_cpu = -1};
 *   struct session s;
 *   if (session_init(&s, &p, &e) < 0 || session_run(&s, &e) < 0) ...
 *   ... sr[k].wall_s[0 .. sr[k].n), sr[k].state, sr[k].fail ...
 *   session_free(&s);
 *
 * The engine never prints: what a person sees of the progress, the failures and the results
 * is the command's business, through the progress callback and the series' records.
 */

enum session_order {
    SESSION_ROUNDS,      /* each round runs every series of a group once, in plan order */
    SESSION_ALTERNATE,   /* measured rounds alternate direction: A B, B A, A B, ... (paired) */
};

enum session_state { SESSION_OK, SESSION_FAILED, SESSION_TIMEOUT };

/* Why a series stopped being measured: the first run (or hook command) that failed. */
struct session_failure {
    enum proc_status status;     /* PROC_EXITED, PROC_SIGNALED or PROC_TIMEOUT */
    bool warmup;                 /* in a warm-up run, else in a measured one */
    long run;                    /* which run of that phase, from 1; 0 for setup and cleanup */
    char what[128];              /* proc_describe's words: "exited with status 3" */
    char tail[PROC_STDERR_TAIL]; /* the last bytes it wrote to stderr */
    const char *hook;            /* "setup", "prepare", "conclude", "cleanup", or NULL: the run */
    char hook_cmd[128];          /* that hook's command, as a person would type it */
};

/*
 * Commands run around a series and never timed (hyperfine's --setup, --prepare, --conclude,
 * --cleanup): n argvs, each NULL-terminated, run in order; {0}: none. Each gets the series'
 * environment and cwd plus TARE_SERIES (its name) and TARE_ITERATION (the run it surrounds:
 * 1, 2, ... for measured runs, -1, -2, ... for warm-ups, 0 for setup and cleanup). A hook that
 * fails (or cannot be started) makes its series failed, with fail.hook set; the others go on.
 */
struct session_cmds {
    char *const *const *argv;
    int n;
};

/* Where hook commands run and what they are told (see session_cmds). */
struct session_hook_env {
    char *const *env;            /* "VAR=VALUE" on top of the inherited environment, or NULL */
    const char *cwd;             /* or NULL */
    const char *series;          /* TARE_SERIES */
    double timeout_s;            /* 0: none */
    bool show_output;
};

/*
 * Runs the hook commands c in order (which: "setup", "prepare", ...; iteration: the
 * TARE_ITERATION they get), stopping at the first that fails. 0 when all succeeded; 1 when
 * one failed or could not start (*f then says which and how, with status, what, tail, hook
 * and hook_cmd set; warmup and run left 0); -1 with e set when interrupted or out of memory.
 * tare count runs its hooks through this too, outside the session's loop.
 */
int session_hooks_run(const struct session_cmds *c, const char *which,
                      const struct session_hook_env *h, long iteration,
                      struct session_failure *f, struct err *e);

/* One series: a command in one environment (a lane), and what its runs measured. */
struct session_series {
    /* Set by the caller. */
    const char *name;            /* in error messages: "'NAME': cannot run ..." */
    const char *label;           /* or NULL; set, messages say "LABEL 'NAME'" (ab's A and B) */
    char *const *argv;
    char *const *env;            /* "VAR=VALUE" on top of the inherited environment, or NULL */
    const char *cwd;             /* or NULL: the current directory */
    int group;                   /* see session_plan; series of one group are adjacent */
    void *user;                  /* the caller's own (its target), untouched */
    struct session_cmds setup;   /* once before the series' first run (its group's) */
    struct session_cmds prepare; /* before every run, warm-ups included */
    struct session_cmds conclude;/* after every run that started, whatever its status */
    struct session_cmds cleanup; /* once after its group's last run, even after a failure */
    const char *stdin_path;      /* this series' runs' stdin, or NULL: the plan's */
    /* Where this series' program prints its counters, or NULL: the plan's metrics (with
     * neither, they are not read). */
    const struct metrics_spec *metrics_from;

    /* Filled by session_init and session_run: measured runs 0 .. n-1 of a series still OK,
     * or of the runs before it failed. */
    enum session_state state;
    int n;
    double *wall_s, *user_s, *sys_s;
    long *max_rss_kb;
    int *exit_code;              /* the exit status (non-zero only with ignore_failure) */
    struct ctr_sample *ctr;      /* with plan.ctr: one per measured run, else NULL */
    double warm_first;           /* the first warm-up run's wall time; NAN without one */
    /* With plan.metrics: the program's own counters of its measured runs (finished: min,
     * max, median, varied); empty when it reported none. */
    struct metrics metrics;
    long cap;                    /* room for this many measured runs (grows with min_time_s) */
    struct session_failure fail; /* when state is not SESSION_OK */
};

/* One run, as the progress callback sees it. */
struct session_event {
    int index;                   /* the series' index in the plan */
    const struct session_series *series;
    int group, ngroups;          /* the series' group, from 0, of how many */
    int pos;                     /* its place in this round, from 0: 0 starts a round */
    bool warmup;
    long run;                    /* this run of its phase (warm-up or measured), from 1 */
    long runs;                   /* the phase's length: warm-up, runs, or the next look */
};

struct session;

typedef void (*session_progress_fn)(void *ctx, const struct session *s,
                                    const struct session_event *ev);

/*
 * Sequential looks (tare ab --until-decided): after `first` measured rounds, then 2x, 4x ...
 * up to `max`, the caller's test decides whether to stop. Each look spends an equal share of
 * alpha (alpha / planned looks), so the family of looks keeps the error rate alpha.
 */
struct session_looks {
    long first, max;             /* 1 <= first <= max */
    double max_time_s;           /* also look, and stop, once measuring took this long; 0: never */
    double alpha;                /* the family-wise error rate, e.g. 0.05 */
    /* 1: settled, stop; 0: measure on; -1: tare cannot go on (e set). alpha is this look's. */
    int (*look)(void *ctx, const struct session *s, double alpha, struct err *e);
    void *ctx;
};

enum session_stop {
    SESSION_STOP_RUNS,           /* every planned run was made */
    SESSION_STOP_DECIDED,        /* a look settled it */
    SESSION_STOP_MAX_TIME,       /* looks: measuring ran out of time */
    SESSION_STOP_MAX_RUNS,       /* looks: the last look came without a decision; or
                                  * min_time_s: max_runs made before the time was reached */
    SESSION_STOP_MIN_TIME,       /* min_time_s: runs made and the time reached */
};

struct session_plan {
    struct session_series *series;
    int nseries;
    /*
     * Groups run one after another, each its warm-up rounds then its measured rounds
     * (tare run: one group per benchmark, its lanes and reference inside). Within a group
     * a round runs each series once, so drift hits them all alike.
     */
    long warmup, runs;           /* rounds per group; with looks, runs is ignored */
    /*
     * A time budget (hyperfine's --min-runs/--max-runs with a time): with min_time_s > 0 a
     * group's measured rounds go on past `runs` until they have taken min_time_s (hooks
     * included), and stop at max_runs rounds (0: 1000000) even if the time is not reached.
     */
    double min_time_s;
    long max_runs;
    enum session_order order;
    double timeout_s;            /* kill a run (and its process group) after this long; 0: never */
    int pin_cpu;                 /* -1: no pinning */
    bool show_output;            /* pass the commands' stdout and stderr through */
    const char *stdin_path;      /* every measured run's stdin; NULL: /dev/null */
    const char *stdout_path;     /* every run's stdout, appended to; NULL: see show_output */
    bool stdout_pipe;            /* every measured run's stdout read through a pipe, thrown away */
    bool ignore_failure;         /* a non-zero exit is measured, not a failure */
    bool stop_on_failure;        /* a failed run ends the session (ERR_MEASURE), for pairs */
    struct ctr_set *ctr;         /* count these in every run, or NULL */
    /* Read the program's own counters (core/util/metrics.h) in every run, and keep the measured
     * runs' (series.metrics): $TARE_METRICS_OUT set in each, and --metrics-from's source;
     * NULL: neither. The reading is outside the time measured, but for a stderr source, whose
     * lines tare parses as they come, and a stdout one, written to a file, not /dev/null. */
    const struct metrics_spec *metrics;
    const struct session_looks *looks;   /* or NULL: `runs` rounds */
    /* Called before every run of the plan, also the turn of a failed series (which is then
     * skipped), so a round's first turn (pos 0) always comes; or NULL. */
    session_progress_fn progress;
    void *progress_ctx;
};

struct session {
    const struct session_plan *plan;
    long rounds;                 /* measured rounds made in the current (last) group */
    double t_start;              /* proc_now() when session_run began */
    double t_measure;            /* ... and when the current group's measured rounds began */
    int looks, planned_looks;    /* with plan.looks */
    enum session_stop stopped;   /* why the current (last) group's measured rounds ended */
};

/*
 * Checks the plan and makes room in each series for its measured runs (plan.runs, or
 * looks->max); series start OK with no runs. A plan of no series is one that runs nothing.
 * -1 with e set when out of memory or the plan is not one (groups not adjacent, looks with
 * more than one group).
 */
int session_init(struct session *s, const struct session_plan *plan, struct err *e);

/*
 * Runs the plan. A run that fails marks its series failed (with the record in series.fail)
 * and the series is not run again; the others go on. Returns 0 when the plan ran through,
 * or -1 with e set when tare cannot go on: a command could not be started, tare was
 * interrupted (ERR_INTERRUPTED), counters could not be read, a hook or a look failed, or
 * with stop_on_failure a run failed (ERR_MEASURE). After an interrupt the cleanup hooks of
 * the series that began still run, within SESSION_CLEANUP_GRACE_S in all (proc_grace); a
 * second interrupt ends them at once.
 */
int session_run(struct session *s, struct err *e);

#define SESSION_CLEANUP_GRACE_S 5.0   /* seconds the cleanup hooks get after an interrupt */

/* "runs", "decided", "max-time", "max-runs", "min-time": why measuring stopped. */
const char *session_stop_name(enum session_stop st);

/* Frees what session_init allocated in each series. */
void session_free(struct session *s);

/* "ok", "failed", "timeout". */
const char *session_state_name(enum session_state st);

/* "exited with status 3 in measured run 2", "timed out after 1 s in warm-up run 1",
 * "prepare failed: 'false' exited with status 1 before measured run 2". */
const char *session_failure_why(const struct session_failure *f, char *buf, size_t n);

/* How many looks a sequential plan makes: at first, 2 first, 4 first, ... and at max. */
int session_looks_planned(long first, long max);

#endif
