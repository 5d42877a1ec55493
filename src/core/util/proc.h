/* proc.h: run one measured command: argv, environment, timeout, process group, rusage. */
#ifndef TARE_PROC_H
#define TARE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/util/err.h"

struct proc_opts {
    char *const *argv;        /* argv[0] is looked up in PATH; never run through a shell here */
    char *const *env_set; /* "VAR=VALUE" overrides on top of the inherited environment, or NULL */
    const char *cwd;          /* working directory, or NULL */
    double timeout_s;         /* kill the whole process group after this long; 0: never */
    int pin_cpu;              /* run the child on this CPU only; -1: no pinning */
    bool show_output;         /* pass stdout and stderr through instead of discarding them */
    bool no_aslr;             /* personality(ADDR_NO_RANDOMIZE), so counts reproduce */
    const char *stdout_path;  /* write stdout to this file instead (NULL: see show_output) */
    bool stdout_append;       /* append to stdout_path rather than emptying it first */
    bool stdout_pipe;         /* stdout into a pipe tare reads and throws away (hyperfine's
                               * --output=pipe: a program that tests for /dev/null sees a pipe) */
    /* After the command exits, wait (up to timeout_s) for the rest of its process group, as
     * work it started; false: end what is left at once. Either way nothing is left behind. */
    bool wait_group;
    const char *stdin_path;   /* read stdin from this file (NULL: /dev/null) */
    /* Optional: called in the parent with the child's pid once the child is set up (own
     * process group, stdio, CPU, personality) and before it is released to exec, e.g. to
     * attach counters with enable_on_exec. Returning -1 (with e set) kills the child and
     * fails the run. NULL keeps the posix_spawn path; set, the child is forked and waits on
     * a pipe. The wall time starts when the child is released. */
    int (*before_exec)(void *arg, pid_t pid, struct err *e);
    void *before_exec_arg;
    /* Optional: every chunk the command writes to stderr, as it comes (its counters, read by
     * core/util/metrics.c); with show_output the chunks are still passed through. */
    void (*stderr_sink)(void *arg, const char *buf, size_t n);
    void *stderr_sink_arg;
    /* The same for stdout read through stdout_pipe's pipe (instead of thrown away). */
    void (*stdout_sink)(void *arg, const char *buf, size_t n);
    void *stdout_sink_arg;
};

enum proc_status {
    PROC_OK,           /* exited with status 0 */
    PROC_EXITED,       /* exited with a non-zero status */
    PROC_SIGNALED,     /* killed by a signal */
    PROC_TIMEOUT,      /* ran past timeout_s and was killed */
    PROC_INTERRUPTED,  /* tare was interrupted (Ctrl-C) and killed it */
};

#define PROC_STDERR_TAIL 2048

struct proc_result {
    enum proc_status status;
    int exit_code;     /* for PROC_OK / PROC_EXITED */
    int signal;        /* for PROC_SIGNALED */
    double wall_s;     /* monotonic clock, spawn to reaped */
    double user_s, sys_s;
    long max_rss_kb;   /* this child's (and its waited-for descendants') peak RSS, from wait4 */
    char stderr_tail[PROC_STDERR_TAIL];   /* the last bytes the child wrote to stderr */
    /* Processes of its group still running when tare stopped waiting (at once, or at the
     * timeout with wait_group), which tare then ended: SIGTERM, SIGKILL after a grace. */
    int left_running;
};

/* How long the processes left in a group get between SIGTERM and SIGKILL. */
#define PROC_GRACE_S 0.2
/* After the first interrupt the running groups get SIGTERM, then SIGKILL this much later
 * (a compiler's driver removes its temporaries on SIGTERM; SIGKILL would leave them). */
#define PROC_STOP_GRACE_S 1.0

/*
 * Runs the command to completion in a process group of its own, then ends whatever is left
 * in that group (or first waits for it: wait_group), so no run is measured beside the last
 * one's leftovers. Returns 0 when it ran, whatever its status (see result->status), or -1
 * when it could not be started at all (not found, not executable, fork failed), with e set.
 */
int proc_run(const struct proc_opts *o, struct proc_result *r, struct err *e);

/* "exited with status 3", "killed by signal 11 (Segmentation fault)", "timed out after 2 s". */
const char *proc_describe(const struct proc_result *r, double timeout_s, char *buf, size_t n);

/* Async-signal-safe: note the interrupt and kill every running child's process group. */
void proc_interrupt(int sig);
bool proc_interrupted(void);
/* The signal proc_interrupt() was given (SIGINT, SIGTERM, ...), or 0. */
int proc_interrupt_signal(void);
/* Whether children are being stopped: an interrupt came and no grace lets them run. */
bool proc_stopping(void);
/*
 * After an interrupt, lets cleanup hooks run: until another interrupt comes, proc_run starts
 * children again, each ended when grace_s seconds from now have passed (a timeout).
 * proc_interrupted() stays true. grace_s 0 ends the grace. Returns whether one began (false
 * when there was no interrupt).
 */
bool proc_grace(double grace_s);

/* The monotonic clock in seconds. */
double proc_now(void);

#endif
