/* test_proc.c: the process runner on fixture programs with known behaviour. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/proc.h"
#include "unit.h"

static const char *fixtures;

static char *fix(const char *name)
{
    static char path[8][4096];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 4096, "%s/%s", fixtures, name);
    return p;
}

static int run(char **argv, struct proc_opts *o, struct proc_result *r, struct err *e)
{
    o->argv = argv;
    return proc_run(o, r, e);
}

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    if (!f)
        return "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

int main(void)
{
    fixtures = getenv("FIXTURES");
    if (!fixtures) {
        printf("not ok - FIXTURES is not set\n");
        return 1;
    }
    char tmp[] = "/tmp/tare-test-proc-XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    struct proc_result r;
    struct err e = {0};

    /* A successful run: times and CPU use are there. */
    struct proc_opts o = {.pin_cpu = -1};
    CHECK_INT(run((char *[]){fix("busy"), "20", NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_OK);
    CHECK(r.wall_s > 0 && r.wall_s < 60);
    CHECK(r.user_s > 0);
    CHECK(r.max_rss_kb > 0);

    /* A non-zero exit keeps its code and its stderr. */
    o = (struct proc_opts){.pin_cpu = -1};
    CHECK_INT(run((char *[]){fix("exit3"), NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_EXITED);
    CHECK_INT(r.exit_code, 3);
    CHECK(strstr(r.stderr_tail, "something went wrong on purpose") != NULL);

    /* A crash is a signal, not an exit code. */
    o = (struct proc_opts){.pin_cpu = -1};
    CHECK_INT(run((char *[]){fix("crash"), NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_SIGNALED);
    CHECK_INT(r.signal, SIGSEGV);
    char d[128];
    CHECK(strstr(proc_describe(&r, 0, d, sizeof d), "signal 11") != NULL);

    /* The stderr tail keeps the end of a long message. */
    o = (struct proc_opts){.pin_cpu = -1};
    CHECK_INT(run((char *[]){fix("spew"), "100000", NULL}, &o, &r, &e), 0);
    size_t len = strlen(r.stderr_tail);
    CHECK_INT(len, PROC_STDERR_TAIL - 1);
    CHECK(len >= 4 && strcmp(r.stderr_tail + len - 4, "END\n") == 0);

    /* A timeout kills the whole process group: the forked child never creates its file. */
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/marker", tmp);
    o = (struct proc_opts){.pin_cpu = -1, .timeout_s = 0.3};
    double t0 = proc_now();
    CHECK_INT(run((char *[]){fix("sleeper"), "1.0", "fork", marker, NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_TIMEOUT);
    CHECK(r.wall_s >= 0.3 && r.wall_s < 5);
    CHECK(proc_now() - t0 < 5);
    usleep(1500 * 1000);
    struct stat st;
    CHECK(stat(marker, &st) != 0);
    /* ... while waiting for the group (wait_group), the same program's child finishes and
     * has created it by the time the run returns. */
    o = (struct proc_opts){.pin_cpu = -1, .wait_group = true};
    CHECK_INT(run((char *[]){fix("sleeper"), "0.1", "fork", marker, NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_OK);
    CHECK_INT(r.left_running, 0);
    CHECK(stat(marker, &st) == 0);
    unlink(marker);

    /* A process left in the group after a normal exit is ended, even one that ignores
     * SIGTERM, before the run returns: it is gone, not merely signalled. */
    char pids[4200];
    snprintf(pids, sizeof pids, "%s/pids", tmp);
    o = (struct proc_opts){.pin_cpu = -1};
    CHECK_INT(run((char *[]){fix("orphan"), "stubborn", pids, NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_OK);
    CHECK_INT(r.left_running, 1);
    long left = atol(slurp(pids));
    CHECK(left > 0 && kill((pid_t)left, 0) < 0 && errno == ESRCH);
    unlink(pids);
    /* ... and with wait_group, one that keeps working is waited for, not ended. */
    o = (struct proc_opts){.pin_cpu = -1, .wait_group = true};
    CHECK_INT(run((char *[]){fix("orphan"), "work", pids, "20", NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_OK);
    CHECK_INT(r.left_running, 0);
    left = atol(slurp(pids));
    CHECK(left > 0 && kill((pid_t)left, 0) < 0 && errno == ESRCH);
    unlink(pids);
    /* ... up to the timeout: then it is ended, and the run is a timeout that says why. */
    o = (struct proc_opts){.pin_cpu = -1, .wait_group = true, .timeout_s = 0.5};
    CHECK_INT(run((char *[]){fix("orphan"), "stubborn", pids, NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_TIMEOUT);
    CHECK_INT(r.left_running, 1);
    CHECK(strstr(proc_describe(&r, 0.5, d, sizeof d), "1 process it started was still running") !=
          NULL);
    left = atol(slurp(pids));
    CHECK(left > 0 && kill((pid_t)left, 0) < 0 && errno == ESRCH);
    unlink(pids);

    /* A command that does not exist cannot be started, and says so. */
    o = (struct proc_opts){.pin_cpu = -1};
    CHECK_INT(run((char *[]){"/nonexistent/tare-no-such-program", NULL}, &o, &r, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK(strstr(e.msg, "command not found") != NULL);

    /* Environment overrides reach the child. */
    o = (struct proc_opts){.pin_cpu = -1, .env_set = (char *[]){"TARE_TEST_EXIT=5", NULL}};
    CHECK_INT(run((char *[]){fix("printenv1"), NULL}, &o, &r, &e), 0);
    CHECK_INT(r.exit_code, 5);
    setenv("TARE_TEST_EXIT", "7", 1);
    o = (struct proc_opts){.pin_cpu = -1};
    CHECK_INT(run((char *[]){fix("printenv1"), NULL}, &o, &r, &e), 0);
    CHECK_INT(r.exit_code, 7);
    o = (struct proc_opts){.pin_cpu = -1, .env_set = (char *[]){"TARE_TEST_EXIT=9", NULL}};
    CHECK_INT(run((char *[]){fix("printenv1"), NULL}, &o, &r, &e), 0);
    CHECK_INT(r.exit_code, 9);   /* the override wins over the inherited value */
    unsetenv("TARE_TEST_EXIT");

    /* Working directory, stdout to a file, stdin from /dev/null. */
    char out[4200];
    snprintf(out, sizeof out, "%s/out", tmp);
    o = (struct proc_opts){.pin_cpu = -1, .cwd = "/", .stdout_path = out};
    CHECK_INT(run((char *[]){"pwd", NULL}, &o, &r, &e), 0);
    CHECK_STR(slurp(out), "/\n");
    o = (struct proc_opts){.pin_cpu = -1, .stdout_path = out, .timeout_s = 10};
    CHECK_INT(run((char *[]){"cat", NULL}, &o, &r, &e), 0);
    CHECK_INT(r.status, PROC_OK);
    CHECK_STR(slurp(out), "");

    /* Peak RSS is the child's own: touching 64 MiB shows at least that. */
    o = (struct proc_opts){.pin_cpu = -1};
    CHECK_INT(run((char *[]){fix("touchmem"), "64", NULL}, &o, &r, &e), 0);
    CHECK(r.max_rss_kb >= 64 * 1024 && r.max_rss_kb < 64 * 1024 + 32 * 1024);
    /* ... and a later small child is not charged the earlier one's peak (RUSAGE_CHILDREN would). */
    CHECK_INT(run((char *[]){fix("touchmem"), "1", NULL}, &o, &r, &e), 0);
    CHECK(r.max_rss_kb < 32 * 1024);

    /* Pinning works on CPU 0 and is refused for a CPU that does not exist. */
    CHECK_INT(
        proc_run(&(struct proc_opts){.argv = (char *[]){fix("busy"), "1", NULL}, .pin_cpu = 0}, &r,
                 &e),
        0);
    CHECK_INT(r.status, PROC_OK);
    CHECK_INT(
        proc_run(&(struct proc_opts){.argv = (char *[]){fix("busy"), "1", NULL}, .pin_cpu = 1000},
                 &r, &e),
        -1);
    CHECK(strstr(e.msg, "cannot pin to CPU 1000") != NULL);

    /* Without address-space randomisation two runs see the same addresses. */
    char a1[4096], a2[4096];
    o = (struct proc_opts){.pin_cpu = -1, .no_aslr = true, .stdout_path = out};
    CHECK_INT(run((char *[]){fix("aslr"), NULL}, &o, &r, &e), 0);
    snprintf(a1, sizeof a1, "%s", slurp(out));
    CHECK_INT(run((char *[]){fix("aslr"), NULL}, &o, &r, &e), 0);
    snprintf(a2, sizeof a2, "%s", slurp(out));
    CHECK(a1[0] != '\0');
    CHECK_STR(a2, a1);

    unlink(out);
    unlink(marker);
    rmdir(tmp);
    return unit_done("test_proc");
}
