/* test_proc_gate.c: proc_run with a before_exec hook (fork + gate) keeps every behaviour. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/proc.h"
#include "unit.h"

struct seen {
    int calls;
    pid_t pid;
    pid_t pgid;
    char exe[512];     /* the child's /proc/PID/exe while the hook runs */
    int fail;          /* make the hook fail */
};

static int hook(void *arg, pid_t pid, struct err *e)
{
    struct seen *s = arg;
    s->calls++;
    s->pid = pid;
    /* The child sets its own group; the parent does too, so it is there already. */
    s->pgid = getpgid(pid);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    ssize_t n = readlink(path, s->exe, sizeof s->exe - 1);
    s->exe[n > 0 ? n : 0] = '\0';
    if (s->fail)
        return err_set(e, ERR_UNSUPPORTED, "hook refused");
    return 0;
}

static char self_exe[512];

int main(void)
{
    ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    self_exe[n > 0 ? n : 0] = '\0';
    struct err e = {0};
    struct proc_result r;

    /* Exit status, stderr tail, and the hook seeing the child before it execs. */
    {
        char *argv[] = {"sh", "-c", "echo oops >&2; exit 3", NULL};
        struct seen s = {0};
        struct proc_opts o = {
            .argv = argv, .pin_cpu = -1, .before_exec = hook, .before_exec_arg = &s};
        CHECK_INT(proc_run(&o, &r, &e), 0);
        CHECK_INT(s.calls, 1);
        CHECK(s.pid > 0);
        CHECK_INT(s.pgid, s.pid);
        CHECK(strcmp(s.exe, self_exe) == 0);          /* not yet sh: still a fork of this program */
        CHECK_INT(r.status, PROC_EXITED);
        CHECK_INT(r.exit_code, 3);
        CHECK(strcmp(r.stderr_tail, "oops\n") == 0);
        CHECK(r.wall_s > 0);
    }
    /* The environment overrides and the working directory reach the child. */
    {
        char *argv[] = {"sh", "-c", "test \"$TARE_GATE_X\" = yes && test \"$(pwd)\" = /", NULL};
        char *env[] = {"TARE_GATE_X=yes", NULL};
        struct seen s = {0};
        struct proc_opts o = {.argv = argv, .env_set = env, .cwd = "/", .pin_cpu = -1,
                              .before_exec = hook, .before_exec_arg = &s};
        CHECK_INT(proc_run(&o, &r, &e), 0);
        CHECK_INT(r.status, PROC_OK);
    }
    /* The timeout kills the whole group: a grandchild sleeping keeps nothing waiting. */
    {
        char *argv[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};
        struct seen s = {0};
        struct proc_opts o = {.argv = argv, .timeout_s = 0.3, .pin_cpu = -1,
                              .before_exec = hook, .before_exec_arg = &s};
        double t = proc_now();
        CHECK_INT(proc_run(&o, &r, &e), 0);
        CHECK_INT(r.status, PROC_TIMEOUT);
        CHECK(proc_now() - t < 20);    /* generous: far below the sleeps */
    }
    /* rusage: a child that burns CPU reports user time and an RSS. */
    {
        char *argv[] = {"sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL};
        struct seen s = {0};
        struct proc_opts o = {
            .argv = argv, .pin_cpu = -1, .before_exec = hook, .before_exec_arg = &s};
        CHECK_INT(proc_run(&o, &r, &e), 0);
        CHECK_INT(r.status, PROC_OK);
        CHECK(r.user_s + r.sys_s > 0);
        CHECK(r.max_rss_kb > 0);
    }
    /* Pinning: the child sees only that CPU. */
    {
        cpu_set_t mine;
        sched_getaffinity(0, sizeof mine, &mine);
        int cpu = -1;
        for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
            if (CPU_ISSET(i, &mine))
                cpu = i;
        char want[64];
        snprintf(want, sizeof want, "grep -q 'Cpus_allowed_list:[[:space:]]*%d$' /proc/self/status",
                 cpu);
        char *argv[] = {"sh", "-c", want, NULL};
        struct seen s = {0};
        struct proc_opts o = {
            .argv = argv, .pin_cpu = cpu, .before_exec = hook, .before_exec_arg = &s};
        CHECK_INT(proc_run(&o, &r, &e), 0);
        CHECK_INT(r.status, PROC_OK);
        /* And tare's own affinity is untouched. */
        cpu_set_t after;
        sched_getaffinity(0, sizeof after, &after);
        CHECK(CPU_EQUAL(&mine, &after));
    }
    /* A CPU that does not exist is an input error, as on the posix_spawn path. */
    {
        char *argv[] = {"true", NULL};
        struct seen s = {0};
        struct proc_opts o = {.argv = argv, .pin_cpu = CPU_SETSIZE - 1, .before_exec = hook,
                              .before_exec_arg = &s};
        CHECK_INT(proc_run(&o, &r, &e), -1);
        CHECK_INT(e.kind, ERR_INPUT);
        CHECK(strstr(e.msg, "cannot pin to CPU") != NULL);
    }
    /* A command that does not exist. */
    {
        char *argv[] = {"tare-no-such-command-here", NULL};
        struct seen s = {0};
        struct proc_opts o = {
            .argv = argv, .pin_cpu = -1, .before_exec = hook, .before_exec_arg = &s};
        CHECK_INT(proc_run(&o, &r, &e), -1);
        CHECK_INT(e.kind, ERR_INPUT);
        CHECK(strcmp(e.msg, "cannot run 'tare-no-such-command-here': command not found") == 0);
    }
    /* A hook that fails: the child never runs its command, and the error is the hook's. */
    {
        char marker[] = "/tmp/tare-gate-XXXXXX";
        int fd = mkstemp(marker);
        close(fd);
        unlink(marker);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "touch %s", marker);
        char *argv[] = {"sh", "-c", cmd, NULL};
        struct seen s = {.fail = 1};
        struct proc_opts o = {
            .argv = argv, .pin_cpu = -1, .before_exec = hook, .before_exec_arg = &s};
        CHECK_INT(proc_run(&o, &r, &e), -1);
        CHECK_INT(e.kind, ERR_UNSUPPORTED);
        CHECK(strcmp(e.msg, "hook refused") == 0);
        CHECK(access(marker, F_OK) != 0);
        unlink(marker);
    }
    /* stdout to a file. */
    {
        char path[] = "/tmp/tare-gate-out-XXXXXX";
        int fd = mkstemp(path);
        close(fd);
        char *argv[] = {"echo", "hello", NULL};
        struct seen s = {0};
        struct proc_opts o = {.argv = argv, .pin_cpu = -1, .stdout_path = path, .before_exec = hook,
                              .before_exec_arg = &s};
        CHECK_INT(proc_run(&o, &r, &e), 0);
        FILE *f = fopen(path, "r");
        char line[32] = "";
        if (f) {
            if (!fgets(line, sizeof line, f))
                line[0] = '\0';
            fclose(f);
        }
        CHECK_STR(line, "hello\n");
        unlink(path);
    }
    return unit_done("test_proc_gate");
}
