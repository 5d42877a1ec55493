/* selftest.c: tare self-test's checks: the callgrind reader on profiles whose answers follow
 * from their text, and the counting pipeline on a program with a known allocation count. The
 * seed's warning: an extractor's failure mode is a silent undercount; this pins it. */
#define _GNU_SOURCE
#include "core/engine/selftest.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/engine/count.h"
#include "core/profile/profile.h"
#include "core/util/proc.h"

/* Its answers, from its own definition (see the comment at its top). */
enum { ALLOCMIX_ALLOCATIONS = 143, ALLOCMIX_BYTES = 51136 };

/* Name compression: ids defined on fn= and on cfn=/cfl= call lines, used bare later. */
static const char profile_names[] =
    "# callgrind format\n"
    "version: 1\n"
    "creator: tare self-test\n"
    "cmd: selftest names\n"
    "positions: line\n"
    "events: Ir\n"
    "fl=(1) main.c\n"
    "fn=(1) main\n"
    "1 100\n"
    "cfl=(2) work.c\n"
    "cfn=(2) work\n"
    "calls=3 10\n"
    "2 600\n"
    "fl=(2)\n"
    "fn=(2)\n"
    "10 600\n"
    "totals: 700\n";

/* Recursion: fib and fib'2 are one function, whose inclusive cost is not counted twice. */
static const char profile_recursion[] =
    "version: 1\n"
    "positions: line\n"
    "events: Ir\n"
    "fl=(1) fib.c\n"
    "fn=(1) main\n"
    "1 10\n"
    "cfn=(2) fib\n"
    "calls=1 5\n"
    "2 160\n"
    "fn=(2)\n"
    "5 40\n"
    "cfn=(3) fib'2\n"
    "calls=2 5\n"
    "6 120\n"
    "fn=(3)\n"
    "5 120\n"
    "totals: 170\n";

/* realloc(NULL, n) calls malloc inside glibc: 5 reallocs and 2 mallocs are 7 allocations,
 * not 12; a --separate-callers chain (malloc'realloc) is still malloc. */
static const char profile_realloc[] =
    "version: 1\n"
    "positions: line\n"
    "events: Ir\n"
    "ob=(1) /usr/lib/libc.so.6\n"
    "fl=(1) ???\n"
    "fn=(1) main\n"
    "3 5\n"
    "cfn=(2) realloc\n"
    "calls=5 0\n"
    "1 50\n"
    "cfn=(3) malloc\n"
    "calls=2 0\n"
    "2 20\n"
    "fn=(2)\n"
    "0 25\n"
    "cfn=(4) malloc'realloc\n"
    "calls=5 0\n"
    "0 25\n"
    "fn=(3)\n"
    "0 20\n"
    "fn=(4)\n"
    "0 25\n"
    "totals: 75\n";

/* Where each check's result goes. */
struct run {
    const struct selftest_opts *o;
};

static void report(const struct run *t, bool ok, const char *what, const char *detail)
{
    t->o->report(t->o->ctx, ok ? SELFTEST_OK : SELFTEST_FAIL, what, detail);
}

static void skip(const struct run *t, const char *what, const char *why)
{
    t->o->report(t->o->ctx, SELFTEST_SKIP, what, why);
}

static struct cg_profile *load(const char *name, const char *text, struct err *e)
{
    struct cg_profile *p = cg_profile_new();
    if (!p) {
        err_set(e, ERR_SYSTEM, "out of memory");
        return NULL;
    }
    if (cg_read_mem(p, name, text, strlen(text), NULL, e) < 0 || cg_profile_finish(p, e) < 0) {
        cg_profile_free(p);
        return NULL;
    }
    return p;
}

static long func_index(const struct cg_profile *p, const char *name)
{
    for (uint32_t i = 0; i < p->nfunc; i++)
        if (strcmp(cg_str(p, p->funcs[i].name), name) == 0)
            return i;
    return -1;
}

static int count_named(const struct cg_profile *p, const char *name)
{
    int n = 0;
    for (uint32_t i = 0; i < p->nfunc; i++)
        n += strcmp(cg_str(p, p->funcs[i].name), name) == 0;
    return n;
}

static uint64_t edge_calls(const struct cg_profile *p, long caller, long callee)
{
    for (uint32_t k = 0; k < p->nedge; k++)
        if (p->edges[k].caller == caller && p->edges[k].callee == callee)
            return p->edges[k].calls;
    return 0;
}

static void check_names(const struct run *t)
{
    struct err e = {0};
    char d[256];
    struct cg_profile *p = load("names", profile_names, &e);
    if (!p) {
        report(t, false, "reader: name compression", e.msg);
        return;
    }
    int ir = cg_event_index(p, "Ir");
    long m = func_index(p, "main"), w = func_index(p, "work");
    bool ok = ir >= 0 && m >= 0 && w >= 0 && cg_total(p, ir) == 700 &&
              cg_self(p, m)[ir] == 100 && cg_self(p, w)[ir] == 600 && cg_incl(p, m)[ir] == 700 &&
              edge_calls(p, m, w) == 3;
    snprintf(d, sizeof d, "total %llu (want 700), main self %llu (100) inclusive %llu (700), "
             "work self %llu (600), main->work calls %llu (3)",
             ir >= 0 ? (unsigned long long)cg_total(p, ir) : 0ULL,
             m >= 0 && ir >= 0 ? (unsigned long long)cg_self(p, m)[ir] : 0ULL,
             m >= 0 && ir >= 0 ? (unsigned long long)cg_incl(p, m)[ir] : 0ULL,
             w >= 0 && ir >= 0 ? (unsigned long long)cg_self(p, w)[ir] : 0ULL,
             m >= 0 && w >= 0 ? (unsigned long long)edge_calls(p, m, w) : 0ULL);
    report(t, ok, "reader: name compression from fn= and cfn=", d);
    cg_profile_free(p);
}

static void check_recursion(const struct run *t)
{
    struct err e = {0};
    char d[256];
    struct cg_profile *p = load("recursion", profile_recursion, &e);
    if (!p) {
        report(t, false, "reader: recursion suffixes", e.msg);
        return;
    }
    int ir = cg_event_index(p, "Ir");
    long f = func_index(p, "fib");
    bool ok = ir >= 0 && f >= 0 && count_named(p, "fib") == 1 && func_index(p, "fib'2") < 0 &&
              cg_self(p, f)[ir] == 160 && cg_incl(p, f)[ir] == 160 && cg_total(p, ir) == 170;
    snprintf(d, sizeof d,
             "fib'2 merged into fib (%d function%s named fib), fib self %llu (want 160), "
             "inclusive %llu (160, not 280)",
             count_named(p, "fib"), count_named(p, "fib") == 1 ? "" : "s",
             f >= 0 && ir >= 0 ? (unsigned long long)cg_self(p, f)[ir] : 0ULL,
             f >= 0 && ir >= 0 ? (unsigned long long)cg_incl(p, f)[ir] : 0ULL);
    report(t, ok, "reader: recursion suffixes", d);
    cg_profile_free(p);
}

static void check_realloc(const struct run *t)
{
    struct err e = {0};
    char d[256];
    struct cg_profile *p = load("realloc", profile_realloc, &e);
    if (!p) {
        report(t, false, "reader: realloc(NULL) counted once", e.msg);
        return;
    }
    uint64_t a = cg_allocations(p);
    snprintf(d, sizeof d, "%llu allocations (want 7: 5 realloc + 2 malloc; 12 would bill realloc's "
             "inner malloc again), malloc'realloc merged: %s", (unsigned long long)a,
             count_named(p, "malloc") == 1 ? "yes" : "no");
    report(t, a == 7 && count_named(p, "malloc") == 1, "reader: realloc(NULL) counted once", d);
    cg_profile_free(p);
}

/* Builds the known-answer program with the C compiler and runs the counting pipeline on it. */
static void check_count(const struct run *t)
{
    const char *what = "tare count on a known program";
    char valgrind[4096];
    struct err e = {0};
    if (count_find_valgrind(valgrind, sizeof valgrind, &e) < 0) {
        skip(t, what, e.msg);
        return;
    }
    char dir[] = "/tmp/tare-self-test-XXXXXX";
    if (!mkdtemp(dir)) {
        report(t, false, what, "cannot make a temporary directory");
        return;
    }
    char src[4096], bin[4096];
    snprintf(src, sizeof src, "%s/allocmix.c", dir);
    snprintf(bin, sizeof bin, "%s/allocmix", dir);
    FILE *f = fopen(src, "w");
    if (!f || fwrite(t->o->program, 1, t->o->program_len, f) != t->o->program_len) {
        if (f)
            fclose(f);
        report(t, false, what, "cannot write its source");
        goto out;
    }
    fclose(f);
    const char *cc = getenv("CC");
    char *build[] = {(char *)(cc && *cc ? cc : "cc"), "-O1", "-o", bin, src, NULL};
    struct proc_opts po = {.argv = build, .pin_cpu = -1, .timeout_s = 120};
    struct proc_result r;
    if (proc_run(&po, &r, &e) < 0 || r.status != PROC_OK) {
        skip(t, what, "no C compiler to build it with (set CC)");
        goto out;
    }
    bool have_lib = t->o->alloc_lib != NULL;
    char *argv[] = {bin, NULL};
    struct count_job job = {.name = "allocmix", .argv = argv};
    struct count_opts co = {.jobs = 1, .timeout_s = 600, .valgrind = valgrind,
                            .alloc_lib = t->o->alloc_lib};
    if (count_run(&job, 1, &co, &e) < 0 || job.status != COUNT_OK) {
        report(t, false, what, job.why[0] ? job.why : e.msg);
        goto out;
    }
    char d[512];
    snprintf(d, sizeof d, "%llu allocations (want %d)", (unsigned long long)job.allocations,
             ALLOCMIX_ALLOCATIONS);
    report(t, job.allocations == ALLOCMIX_ALLOCATIONS, "tare count: allocations of a known program",
           d);
    if (!have_lib) {
        skip(t, "tare count: bytes of a known program", t->o->no_alloc_lib);
    } else {
        snprintf(d, sizeof d, "%llu bytes (want %d)", (unsigned long long)job.bytes,
                 ALLOCMIX_BYTES);
        report(t, job.bytes == ALLOCMIX_BYTES, "tare count: bytes of a known program", d);
    }
out:
    unlink(bin);
    unlink(src);
    rmdir(dir);
}

void selftest_run(const struct selftest_opts *o)
{
    struct run t = {o};
    check_names(&t);
    check_recursion(&t);
    check_realloc(&t);
    check_count(&t);
}
