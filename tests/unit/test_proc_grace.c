/* test_proc_grace.c: after an interrupt no child runs, except within a grace (the cleanup
 * hooks): there children run again until the grace ends or a second interrupt comes. A
 * binary of its own, since an interrupt cannot be taken back. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/util/proc.h"
#include "unit.h"

static const char *fixtures;

static char *fix(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", fixtures, name);
    return buf[k];
}

/* Runs argv with the options o; the result into *r. */
static int run(char *const *argv, struct proc_result *r)
{
    struct err e = {0};
    struct proc_opts o = {.argv = argv, .pin_cpu = -1};
    return proc_run(&o, r, &e);
}

int main(void)
{
    fixtures = getenv("FIXTURES");
    if (!fixtures) {
        printf("not ok - FIXTURES is not set\n");
        return 1;
    }
    struct proc_result r;
    char *quick[] = {fix("sleeper"), "0.05", NULL};
    char *slow[] = {fix("sleeper"), "30", NULL};

    /* No interrupt: no grace to begin, children run. */
    CHECK(!proc_grace(5));
    CHECK(!proc_stopping());
    CHECK_INT(run(quick, &r), 0);
    CHECK_INT(r.status, PROC_OK);

    /* An interrupt: a child is killed as it starts. */
    proc_interrupt(SIGINT);
    CHECK(proc_interrupted());
    CHECK(proc_stopping());
    CHECK_INT(run(quick, &r), 0);
    CHECK_INT(r.status, PROC_INTERRUPTED);

    /* In a grace, children run again; the interrupt stays noted. */
    CHECK(proc_grace(20));
    CHECK(!proc_stopping());
    CHECK(proc_interrupted());
    CHECK_INT(proc_interrupt_signal(), SIGINT);
    CHECK_INT(run(quick, &r), 0);
    CHECK_INT(r.status, PROC_OK);
    proc_grace(0);
    CHECK(proc_stopping());

    /* A child still running when the grace ends is ended then: a timeout. */
    CHECK(proc_grace(0.3));
    CHECK_INT(run(slow, &r), 0);
    CHECK_INT(r.status, PROC_TIMEOUT);
    proc_grace(0);

    /* A second interrupt ends the grace: a child is killed as it starts. */
    CHECK(proc_grace(20));
    proc_interrupt(SIGTERM);
    CHECK(proc_stopping());
    CHECK_INT(proc_interrupt_signal(), SIGTERM);
    CHECK_INT(run(quick, &r), 0);
    CHECK_INT(r.status, PROC_INTERRUPTED);
    proc_grace(0);
    return unit_done("test_proc_grace");
}
