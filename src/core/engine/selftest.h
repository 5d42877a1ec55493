/* selftest.h: tare self-test's known-answer checks of the callgrind reader and the counting
 * pipeline; each check's result goes to the caller's report function as it ends. */
#ifndef TARE_SELFTEST_H
#define TARE_SELFTEST_H

#include <stddef.h>

enum selftest_result { SELFTEST_OK, SELFTEST_FAIL, SELFTEST_SKIP };

struct selftest_opts {
    /* The known-answer program's C source (tests/fixtures/allocmix.c), built with $CC. */
    const char *program;
    size_t program_len;
    const char *alloc_lib;    /* libtare-alloc.so, or NULL: the bytes check is skipped */
    const char *no_alloc_lib; /* why it is NULL, for the skip */
    /* Called once per check: what was checked, and what was found (or why it was skipped). */
    void (*report)(void *ctx, enum selftest_result r, const char *what, const char *detail);
    void *ctx;
};

/* Runs every check (the counting one needs valgrind and a C compiler: else skipped). An
 * interrupt (proc_interrupted) ends the runs it starts; the checks clean up their files. */
void selftest_run(const struct selftest_opts *o);

#endif
