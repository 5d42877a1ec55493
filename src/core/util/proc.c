/* proc.c: the process runner every measuring command uses: posix_spawn, wait4, timeouts. */
#define _GNU_SOURCE
#include "core/util/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Process groups of running children, so an interrupt can kill them (several with -j). */
#define MAX_ACTIVE 256
static volatile sig_atomic_t active_pgid[MAX_ACTIVE];
static volatile sig_atomic_t interrupted;   /* the signal that interrupted tare, or 0 */
static volatile sig_atomic_t interrupts;    /* how many came */
static volatile sig_atomic_t grace_at = -1; /* children run while interrupts == grace_at */
static double grace_until;                  /* when the grace ends (proc_now) */

static long stop_ms;   /* the monotonic clock at the first interrupt, in milliseconds */

void proc_interrupt(int sig)
{
    /* Atomics (lock-free, so async-signal-safe): other threads (count --jobs, bisect --jobs)
     * read these while the handler writes them. The first interrupt asks the running groups
     * to stop (SIGTERM: a compiler removes its temporaries), proc_run kills them
     * PROC_STOP_GRACE_S later; a second kills them at once. */
    __atomic_store_n((int *)&interrupted, sig > 0 ? sig : SIGINT, __ATOMIC_SEQ_CST);
    int n = __atomic_add_fetch((int *)&interrupts, 1, __ATOMIC_SEQ_CST);
    if (n == 1) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);   /* async-signal-safe */
        __atomic_store_n(&stop_ms, (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
                         __ATOMIC_SEQ_CST);
    }
    for (int i = 0; i < MAX_ACTIVE; i++) {
        pid_t p = __atomic_load_n((int *)&active_pgid[i], __ATOMIC_SEQ_CST);
        if (p > 0)
            kill(-p, n == 1 ? SIGTERM : SIGKILL);
    }
}

/* When a group asked to stop by the first interrupt is killed (proc_now's clock). */
static double stop_deadline(void)
{
    return (double)__atomic_load_n(&stop_ms, __ATOMIC_SEQ_CST) / 1000 + PROC_STOP_GRACE_S;
}

bool proc_interrupted(void)
{
    return __atomic_load_n((int *)&interrupted, __ATOMIC_SEQ_CST) != 0;
}

int proc_interrupt_signal(void)
{
    return __atomic_load_n((int *)&interrupted, __ATOMIC_SEQ_CST);
}

/* The flags as one atomic read or write each: the worker threads of count --jobs read them
 * while the handler (or the main thread) writes them. */
static int flag_get(volatile sig_atomic_t *f)
{
    return __atomic_load_n((int *)f, __ATOMIC_SEQ_CST);
}

static void flag_set(volatile sig_atomic_t *f, int v)
{
    __atomic_store_n((int *)f, v, __ATOMIC_SEQ_CST);
}

bool proc_stopping(void)
{
    return flag_get(&interrupted) && flag_get(&interrupts) != flag_get(&grace_at);
}

bool proc_grace(double grace_s)
{
    if (grace_s <= 0 || !flag_get(&interrupted)) {
        flag_set(&grace_at, -1);
        return false;
    }
    double until = proc_now() + grace_s;
    __atomic_store(&grace_until, &until, __ATOMIC_SEQ_CST);
    int at = flag_get(&interrupts);
    flag_set(&grace_at, at);
    return at == flag_get(&interrupts);   /* false when another came meanwhile */
}

static int register_active(pid_t pgid)
{
    for (int i = 0; i < MAX_ACTIVE; i++) {
        int zero = 0;
        if (__atomic_compare_exchange_n((int *)&active_pgid[i], &zero, (int)pgid, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return i;
    }
    return -1;
}

static void unregister_active(int slot)
{
    if (slot >= 0)
        __atomic_store_n((int *)&active_pgid[slot], 0, __ATOMIC_SEQ_CST);
}

double proc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The inherited environment with the overrides applied; the strings are borrowed. */
static char **build_env(char *const *set)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    while (set && set[k])
        k++;
    char **env = malloc((n + k + 1) * sizeof *env);
    if (!env)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        bool overridden = false;
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        for (size_t j = 0; j < k && !overridden; j++)
            overridden = strncmp(set[j], environ[i], len) == 0 && set[j][len] == '=';
        if (!overridden)
            env[m++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        env[m++] = set[j];
    env[m] = NULL;
    return env;
}

/* Keeps the last PROC_STDERR_TAIL - 1 bytes read from fd. */
struct tail {
    char buf[PROC_STDERR_TAIL];
    size_t len;
    const struct proc_opts *o;   /* its stderr_sink, and show_output: pass it through (NULL:
                                  * neither) */
};

static void tail_add(struct tail *t, const char *s, size_t n)
{
    size_t cap = sizeof t->buf - 1;
    if (n >= cap) {
        memcpy(t->buf, s + n - cap, cap);
        t->len = cap;
        return;
    }
    if (t->len + n > cap) {
        size_t drop = t->len + n - cap;
        memmove(t->buf, t->buf + drop, t->len - drop);
        t->len -= drop;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

/* Writes a chunk of the child's stderr to tare's own (show_output with a sink: piped). */
static void pass_through(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(2, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

/* Reads what is there; returns false at end of file or error. */
static bool drain(int fd, struct tail *t)
{
    char chunk[4096];
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got > 0) {
            tail_add(t, chunk, (size_t)got);
            if (t->o && t->o->stderr_sink)
                t->o->stderr_sink(t->o->stderr_sink_arg, chunk, (size_t)got);
            if (t->o && t->o->show_output)
                pass_through(chunk, (size_t)got);
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        return got < 0 && errno == EAGAIN;
    }
}

static void fill_result(struct proc_result *r, int status, const struct rusage *ru, double wall)
{
    r->wall_s = wall;
    r->user_s = ru->ru_utime.tv_sec + ru->ru_utime.tv_usec * 1e-6;
    r->sys_s = ru->ru_stime.tv_sec + ru->ru_stime.tv_usec * 1e-6;
    r->max_rss_kb = ru->ru_maxrss;
    if (WIFEXITED(status)) {
        r->exit_code = WEXITSTATUS(status);
        r->status = r->exit_code == 0 ? PROC_OK : PROC_EXITED;
    } else if (WIFSIGNALED(status)) {
        r->signal = WTERMSIG(status);
        r->status = PROC_SIGNALED;
    }
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* Reaps the group's members that became ours (tare is their subreaper); true once the group
 * has no process left, zombies included. */
static bool group_gone(pid_t pgid)
{
    int st;
    while (waitpid(-pgid, &st, WNOHANG) > 0)
        ;
    return kill(-pgid, 0) < 0 && errno == ESRCH;
}

/* Waits until the group is gone or the monotonic clock passes until (never, if until < 0);
 * an interrupt ends a wait that may be long (stop_on_interrupt). */
static bool group_wait(pid_t pgid, double until, bool stop_on_interrupt)
{
    useconds_t us = 100;
    while (!group_gone(pgid)) {
        if ((stop_on_interrupt && proc_stopping()) || (until >= 0 && proc_now() >= until))
            return false;
        usleep(us);
        if (us < 20000)
            us *= 2;
    }
    return true;
}

/* How many processes are in the group (from /proc), for the report; -1 if unknown. */
static int group_count(pid_t pgid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char path[300], buf[512];
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t got = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (got <= 0)
            continue;
        buf[got] = '\0';
        /* pid (comm) state ppid pgrp ...: comm may hold anything, so parse after its last ')'. */
        const char *p = strrchr(buf, ')');
        long ppid, pgrp;
        char state;
        if (p && sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 && pgrp == pgid)
            n++;
    }
    closedir(d);
    return n;
}

/*
 * After the command's first process has been reaped: waits for the rest of its group when
 * asked (up to the deadline), then ends whatever is still there, SIGTERM and, after a
 * grace, SIGKILL. Returns how many processes it had to end; sets *late when the deadline
 * passed while waiting.
 */
static int group_finish(pid_t pgid, bool wait, double deadline, bool *late)
{
    *late = false;
    if (group_gone(pgid))
        return 0;
    if (wait && !proc_stopping()) {
        if (group_wait(pgid, deadline > 0 ? deadline : -1, true))
            return 0;
        *late = !proc_stopping();
    }
    int n = group_count(pgid);
    kill(-pgid, SIGTERM);
    if (!group_wait(pgid, proc_now() + PROC_GRACE_S, false)) {
        kill(-pgid, SIGKILL);
        /* SIGKILL cannot be refused; the bound is for a process stuck in the kernel. */
        group_wait(pgid, proc_now() + 5, false);
    }
    return n > 0 ? n : 1;
}

/* What the forked child reports when it cannot get as far as exec. */
enum gate_stage { GATE_PIN = 1, GATE_SETUP, GATE_EXEC };

/* In the forked child: only async-signal-safe calls until exec. Never returns. */
static void gated_child(const struct proc_opts *o, char **env, int errfd, int outfd, int gate_r,
                        int status_w)
{
    int report[2] = {GATE_SETUP, 0};
    setpgid(0, 0);
    static const int defaults[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        signal(defaults[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    int fd = open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY);
    if (fd < 0 || dup2(fd, 0) < 0)
        goto fail;
    if (fd != 0)
        close(fd);
    if (outfd >= 0) {
        if (dup2(outfd, 1) < 0)
            goto fail;
    } else if (o->stdout_path || !o->show_output) {
        fd = o->stdout_path ? open(o->stdout_path, O_WRONLY | O_CREAT |
                                   (o->stdout_append ? O_APPEND : O_TRUNC), 0644)
                            : open("/dev/null", O_WRONLY);
        if (fd < 0 || dup2(fd, 1) < 0)
            goto fail;
        if (fd != 1)
            close(fd);
    }
    if (errfd >= 0 && dup2(errfd, 2) < 0)
        goto fail;
    if (o->cwd && chdir(o->cwd) < 0)
        goto fail;
    if (o->pin_cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(o->pin_cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) < 0) {
            report[0] = GATE_PIN;
            goto fail;
        }
    }
    if (o->no_aslr) {
        int persona = personality(0xffffffff);
        if (persona != -1)
            personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
    }
    /* The gate: the parent closes its end once its hook is done (or kills us). */
    char c;
    while (read(gate_r, &c, 1) < 0 && errno == EINTR)
        ;
    sigprocmask(SIG_SETMASK, &none, NULL);
    report[0] = GATE_EXEC;
    execvpe(o->argv[0], o->argv, env);
fail:
    report[1] = errno;
    ssize_t w = write(status_w, report, sizeof report);
    (void)w;
    _exit(127);   /* style: allow core-prints -- the forked child, whose exec failed */
}

/*
 * fork, let the hook see the pid, then release the child to exec. On success the child
 * is registered (slot) and *t0 is the time it was released.
 */
static int spawn_gated(const struct proc_opts *o, char **env, int errfd, int outfd, pid_t *pid_out,
                       int *slot_out, double *t0, struct err *e)
{
    int gate[2], st[2];
    if (pipe2(gate, O_CLOEXEC) < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot make a pipe");
    if (pipe2(st, O_CLOEXEC) < 0) {
        err_errno(e, ERR_SYSTEM, errno, "cannot make a pipe");
        close(gate[0]);
        close(gate[1]);
        return -1;
    }
    /* No signal handler may run in the child before it resets them. */
    sigset_t all, saved;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &saved);
    pid_t pid = fork();
    if (pid == 0) {
        close(gate[1]);
        close(st[0]);
        gated_child(o, env, errfd, outfd, gate[0], st[1]);
    }
    int fork_errno = errno;
    sigprocmask(SIG_SETMASK, &saved, NULL);
    close(gate[0]);
    close(st[1]);
    if (pid < 0) {
        close(gate[1]);
        close(st[0]);
        return err_errno(e, ERR_SYSTEM, fork_errno, "cannot fork");
    }
    setpgid(pid, pid);   /* also here, so the group exists whichever side runs first */
    int slot = register_active(pid);
    int ret = 0;
    if (proc_stopping())
        kill(-pid, SIGKILL);
    if (o->before_exec(o->before_exec_arg, pid, e) < 0) {
        kill(-pid, SIGKILL);
        ret = -1;
    }
    *t0 = proc_now();
    close(gate[1]);      /* releases the child: its read sees end of file */
    int report[2];
    ssize_t got;
    while ((got = read(st[0], report, sizeof report)) < 0 && errno == EINTR)
        ;
    close(st[0]);
    if (ret == 0 && got == (ssize_t)sizeof report) {
        if (report[0] == GATE_PIN)
            err_errno(e, ERR_INPUT, report[1], "cannot pin to CPU %d", o->pin_cpu);
        else if (report[1] == ENOENT && report[0] == GATE_EXEC)
            err_set(e, ERR_INPUT, "cannot run '%s': command not found", o->argv[0]);
        else
            err_errno(e, ERR_INPUT, report[1], "cannot run '%s'", o->argv[0]);
        ret = -1;
    }
    if (ret < 0) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        unregister_active(slot);
        return -1;
    }
    *pid_out = pid;
    *slot_out = slot;
    return 0;
}

/* tare cannot watch the child any more: kill its group and reap it, so nothing is left. */
static void abandon(pid_t pid, int slot)
{
    int st;
    bool late;
    kill(-pid, SIGKILL);
    waitpid(pid, &st, 0);
    group_finish(pid, false, 0, &late);
    unregister_active(slot);
}

/* The spawn's file actions (stdin, stdout (into outfd, --output=pipe's, when not -1), stderr
 * into errfd, the directory) and attributes:
 * its own process group, so a timeout or Ctrl-C kills everything it started, and the signals
 * tare handles back at their defaults. */
static void spawn_prepare(const struct proc_opts *o, int errfd, int outfd,
                          posix_spawn_file_actions_t *fa, posix_spawnattr_t *attr)
{
    posix_spawn_file_actions_init(fa);
    posix_spawnattr_init(attr);
    posix_spawn_file_actions_addopen(fa, 0, o->stdin_path ? o->stdin_path : "/dev/null",
                                     O_RDONLY, 0);
    if (outfd >= 0)
        posix_spawn_file_actions_adddup2(fa, outfd, 1);
    else if (o->stdout_path)
        posix_spawn_file_actions_addopen(fa, 1, o->stdout_path, O_WRONLY | O_CREAT |
                                         (o->stdout_append ? O_APPEND : O_TRUNC), 0644);
    else if (!o->show_output)
        posix_spawn_file_actions_addopen(fa, 1, "/dev/null", O_WRONLY, 0);
    if (errfd >= 0)
        posix_spawn_file_actions_adddup2(fa, errfd, 2);
    if (o->cwd)
        posix_spawn_file_actions_addchdir_np(fa, o->cwd);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGHUP);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGQUIT);
    posix_spawnattr_setpgroup(attr, 0);
    posix_spawnattr_setsigmask(attr, &none);
    posix_spawnattr_setsigdefault(attr, &defaults);
    posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                       POSIX_SPAWN_SETSIGDEF);
}

/* posix_spawnp with the CPU pinning and the address-space layout asked for: affinity and
 * personality are inherited through exec, so they are set on this thread around the spawn and
 * put back, since posix_spawn offers no hook in the child. 0 (*pid, *slot registered, *t0 the
 * start), or -1 with e set. */
static int spawn_direct(const struct proc_opts *o, char **env, posix_spawn_file_actions_t *fa,
                        posix_spawnattr_t *attr, pid_t *pid, int *slot, double *t0,
                        struct err *e)
{
    cpu_set_t saved_cpus;
    bool pinned = false;
    if (o->pin_cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(o->pin_cpu, &one);
        if (sched_getaffinity(0, sizeof saved_cpus, &saved_cpus) < 0 ||
            sched_setaffinity(0, sizeof one, &one) < 0)
            return err_errno(e, ERR_INPUT, errno, "cannot pin to CPU %d", o->pin_cpu);
        pinned = true;
    }
    int saved_persona = -1;
    if (o->no_aslr) {
        saved_persona = personality(0xffffffff);
        if (saved_persona != -1)
            personality((unsigned long)saved_persona | ADDR_NO_RANDOMIZE);
    }
    *t0 = proc_now();
    int rc = posix_spawnp(pid, o->argv[0], fa, attr, o->argv, env);
    if (saved_persona != -1)
        personality((unsigned long)saved_persona);
    if (pinned)
        sched_setaffinity(0, sizeof saved_cpus, &saved_cpus);
    if (rc != 0) {
        if (rc == ENOENT)
            return err_set(e, ERR_INPUT, "cannot run '%s': command not found", o->argv[0]);
        return err_errno(e, ERR_INPUT, rc, "cannot run '%s'", o->argv[0]);
    }
    *slot = register_active(pid[0]);
    return 0;
}

/* What watching a child found. */
struct watch {
    int status;
    struct rusage ru;
    struct tail tail;
    bool timed_out;
    bool use_pidfd;       /* watch the child through a pidfd (else every 10 ms) */
    double deadline;      /* 0 once passed (the group killed), or when there was none */
    double t1;            /* when it was seen to end */
    int outfd;            /* --output=pipe's read end, drained and thrown away, or -1 */
};

/* Waits for the child pid, reading its stderr from errfd (-1: none) into the tail and killing
 * its group at the deadline. 0, or -1 with e set (the child abandoned: killed and reaped). */
static int watch_child(pid_t pid, int slot, int errfd, struct watch *w, struct err *e)
{
    int pidfd = w->use_pidfd ? open_pidfd(pid) : -1;
    bool pipe_open = errfd >= 0, out_open = w->outfd >= 0, stop_killed = false;
    /* stdout_pipe's chunks go to stdout_sink, if any, and nowhere else (never shown) */
    struct proc_opts out_o = {
        .stderr_sink = w->tail.o ? w->tail.o->stdout_sink : NULL,
        .stderr_sink_arg = w->tail.o ? w->tail.o->stdout_sink_arg : NULL,
    };
    struct tail sink = {.len = 0, .o = &out_o};
    for (;;) {
        /* An interrupt sent the group SIGTERM; past the grace, SIGKILL. */
        double stop_at = 0;
        if (proc_stopping() && !stop_killed) {
            stop_at = stop_deadline();
            if (proc_now() >= stop_at) {
                kill(-pid, SIGKILL);
                stop_killed = true;
                stop_at = 0;
            }
        }
        if (pidfd < 0 && !pipe_open && !out_open && !w->deadline && !stop_at) {
            /* Nothing to watch but the child: block in wait4. */
            pid_t got = wait4(pid, &w->status, 0, &w->ru);
            if (got == pid)
                break;
            if (got < 0 && errno != EINTR) {
                err_errno(e, ERR_SYSTEM, errno, "wait4 failed");
                abandon(pid, slot);
                return -1;
            }
            continue;
        }
        int wait_ms = -1;
        if (w->deadline) {
            double left = w->deadline - proc_now();
            if (left <= 0) {
                kill(-pid, SIGKILL);
                w->timed_out = true;
                w->deadline = 0;
                if (pidfd >= 0) { close(pidfd); pidfd = -1; }
                pipe_open = out_open = false;
                continue;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        if (stop_at) {
            int left_ms = (int)((stop_at - proc_now()) * 1000) + 1;
            if (wait_ms < 0 || wait_ms > left_ms)
                wait_ms = left_ms;
        }
        if (pidfd < 0 && (wait_ms < 0 || wait_ms > 10))
            wait_ms = 10;   /* no pidfd: look at the child every 10 ms */
        if (wait_ms < 0 || wait_ms > 100)
            wait_ms = 100;   /* an interrupt taken by another thread is seen within 0.1 s */
        struct pollfd fds[3];
        int nfds = 0;
        if (pidfd >= 0)
            fds[nfds++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        if (pipe_open)
            fds[nfds++] = (struct pollfd){.fd = errfd, .events = POLLIN};
        if (out_open)
            fds[nfds++] = (struct pollfd){.fd = w->outfd, .events = POLLIN};
        int n = poll(fds, nfds, wait_ms);
        if (n < 0 && errno != EINTR) {
            err_errno(e, ERR_SYSTEM, errno, "poll failed");
            if (pidfd >= 0)
                close(pidfd);
            abandon(pid, slot);
            return -1;
        }
        if (pipe_open && !drain(errfd, &w->tail))
            pipe_open = false;
        if (out_open && !drain(w->outfd, &sink))
            out_open = false;
        pid_t got = wait4(pid, &w->status, WNOHANG, &w->ru);
        if (got == pid)
            break;
    }
    w->t1 = proc_now();
    if (pidfd >= 0)
        close(pidfd);
    return 0;
}

int proc_run(const struct proc_opts *o, struct proc_result *r, struct err *e)
{
    memset(r, 0, sizeof *r);
    /* Processes of the group orphaned by their parent come to tare, not to init, so it can
     * reap them and know when the group is gone (not inherited by the children). */
    static int subreaper;
    if (!__atomic_exchange_n(&subreaper, 1, __ATOMIC_SEQ_CST))
        prctl(PR_SET_CHILD_SUBREAPER, 1);
    int errpipe[2] = {-1, -1}, outpipe[2] = {-1, -1};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int ret = -1;

    if ((!o->show_output || o->stderr_sink) && pipe2(errpipe, O_CLOEXEC) < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot make a pipe");
    char **env = NULL;
    if (o->stdout_pipe && pipe2(outpipe, O_CLOEXEC) < 0) {
        err_errno(e, ERR_SYSTEM, errno, "cannot make a pipe");
        goto out_pipe;
    }
    env = build_env(o->env_set);
    if (!env) {
        err_set(e, ERR_SYSTEM, "out of memory");
        goto out_pipe;
    }
    spawn_prepare(o, errpipe[1], outpipe[1], &fa, &attr);
    pid_t pid;
    double t0 = 0;
    int slot = -1;
    if (o->pin_cpu >= CPU_SETSIZE) {
        err_set(e, ERR_INPUT, "cannot pin to CPU %d: beyond the %d CPUs this build knows",
                o->pin_cpu, CPU_SETSIZE);
        goto out_spawn;
    }
    /* With before_exec, affinity and personality are set in the forked child itself. */
    if ((o->before_exec ? spawn_gated(o, env, errpipe[1], outpipe[1], &pid, &slot, &t0, e)
                        : spawn_direct(o, env, &fa, &attr, &pid, &slot, &t0, e)) < 0)
        goto out_spawn;
    if (proc_stopping())
        kill(-pid, SIGKILL);
    if (errpipe[1] >= 0) {
        close(errpipe[1]);
        errpipe[1] = -1;
        fcntl(errpipe[0], F_SETFL, O_NONBLOCK);
    }
    if (outpipe[1] >= 0) {
        close(outpipe[1]);
        outpipe[1] = -1;
        fcntl(outpipe[0], F_SETFL, O_NONBLOCK);
    }
    struct watch w = {.tail.o = o, .deadline = o->timeout_s > 0 ? t0 + o->timeout_s : 0,
                      .use_pidfd = o->timeout_s > 0 || errpipe[0] >= 0 || outpipe[0] >= 0,
                      .outfd = outpipe[0]};
    double until;
    __atomic_load(&grace_until, &until, __ATOMIC_SEQ_CST);
    if (flag_get(&grace_at) >= 0 && (!w.deadline || w.deadline > until))
        w.deadline = until;   /* a cleanup after an interrupt: only until the grace ends */
    if (watch_child(pid, slot, errpipe[0], &w, e) < 0)
        goto out_spawn;
    /* The rest of its group: waited for as work it started, or ended now (still registered,
     * so an interrupt kills it too). */
    bool late;
    r->left_running = group_finish(pid, o->wait_group, w.deadline, &late);
    unregister_active(slot);
    if (errpipe[0] >= 0)
        drain(errpipe[0], &w.tail);  /* what is left; a process outside the group may hold it */

    fill_result(r, w.status, &w.ru, w.t1 - t0);
    if (w.timed_out || late)
        r->status = PROC_TIMEOUT;
    else if (proc_stopping() && (r->status == PROC_SIGNALED || r->status == PROC_EXITED))
        r->status = PROC_INTERRUPTED;   /* stopped by tare's SIGTERM or SIGKILL */
    memcpy(r->stderr_tail, w.tail.buf, w.tail.len);
    r->stderr_tail[w.tail.len] = '\0';
    ret = 0;

out_spawn:
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    free(env);
out_pipe:
    if (errpipe[0] >= 0)
        close(errpipe[0]);
    if (errpipe[1] >= 0)
        close(errpipe[1]);
    for (int i = 0; i < 2; i++)
        if (outpipe[i] >= 0)
            close(outpipe[i]);
    return ret;
}

const char *proc_describe(const struct proc_result *r, double timeout_s, char *buf, size_t n)
{
    switch (r->status) {
    case PROC_OK:
        snprintf(buf, n, "exited with status 0");
        break;
    case PROC_EXITED:
        snprintf(buf, n, "exited with status %d", r->exit_code);
        break;
    case PROC_SIGNALED:
        snprintf(buf, n, "killed by signal %d (%s)", r->signal, strsignal(r->signal));
        break;
    case PROC_TIMEOUT:
        if (r->signal == 0 && r->left_running > 0)   /* it exited; what it started did not */
            snprintf(buf, n, "timed out after %g s: it exited, but %d process%s it started %s "
                     "still running and %s ended", timeout_s, r->left_running,
                     r->left_running == 1 ? "" : "es", r->left_running == 1 ? "was" : "were",
                     r->left_running == 1 ? "was" : "were");
        else
            snprintf(buf, n, "timed out after %g s", timeout_s);
        break;
    case PROC_INTERRUPTED:
        snprintf(buf, n, "interrupted");
        break;
    }
    return buf;
}
