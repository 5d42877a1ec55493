/* tare/scope.h: allocation scopes for libtare-alloc; nothing at all unless TARE_ALLOC_STATS;
 * and count marks for `tare count --region marks`; nothing at all unless TARE_COUNT_MARKS.
 *
 *     TARE_SCOPE("parse");                 counts until the end of the enclosing block
 *     TARE_SCOPE_BEGIN(phase, "resolve");  a named scope ...
 *     TARE_SCOPE_END(phase);               ... closed early, to split a function into phases
 *
 * Compile with -DTARE_ALLOC_STATS to turn the macros on; without it they expand to nothing
 * and the object code is the same as without them. When on, they call the scope runtime of
 * libtare-alloc.so through weak references: run the program under `tare alloc` (or with
 * LD_PRELOAD=libtare-alloc.so) to count, or as usual to run uncounted. Labels are string
 * literals. Scopes must nest within a thread (an early END closes the innermost open scope
 * of the ones still open); a scope left open by a return or a goto closes at the end of its
 * block. The weak references need a position-independent executable (the default on Debian
 * and most distributions) or the program linked with -ltare-alloc.
 *
 *     TARE_COUNT_START();   instructions and allocations from here ...
 *     TARE_COUNT_STOP();    ... to here are `tare count --region marks`'s region
 *
 * Compile with -DTARE_COUNT_MARKS to turn them on (they need Debian's valgrind headers,
 * <valgrind/callgrind.h>); without it they expand to nothing. When on, each is callgrind's
 * CALLGRIND_TOGGLE_COLLECT client request, made only when TARE_COUNT_REGION=marks is in the
 * environment (tare sets it in the region's pass, with --collect-atstart=no), so a plain run,
 * `tare count`'s whole-program pass and `tare cg` profiles are not cut by them. Natively a mark
 * costs a few instructions (the first one a getenv). START and STOP alternate, START first;
 * they are not nested, and one thread at a time is between them.
 *
 *     TARE_METRIC("locals_pulls", n);   the program's own counter, for tare to track
 *
 * Always on: appends the line "NAME VALUE" to the file $TARE_METRICS_OUT names, which tare
 * sets in the native runs it reads counters in (tare count's, wall's, ab's, run's), and does
 * nothing when it is not set. Call it once per counter at exit; a name reported twice (by
 * two processes, say) is summed. Names: letters, digits, _ . -, at most 64 bytes.
 */
#ifndef TARE_SCOPE_H
#define TARE_SCOPE_H

#include <stdio.h>
#include <stdlib.h>

/* TARE_METRIC's work: an open, a line, a close, only when tare asked for counters. */
static inline void tare_metric(const char *name, unsigned long long value)
{
    const char *path = getenv("TARE_METRICS_OUT");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%s %llu\n", name, value);
        fclose(f);
    }
}
#define TARE_METRIC(name, value) tare_metric((name), (unsigned long long)(value))

#ifdef TARE_COUNT_MARKS
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

/* Whether this run is tare's region pass: read once, at the first mark. */
static inline int tare__count_marks_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("TARE_COUNT_REGION");
        on = v && strcmp(v, "marks") == 0;
    }
    return on;
}

#define TARE_COUNT_START() \
    do { \
        if (tare__count_marks_on()) \
            CALLGRIND_TOGGLE_COLLECT; \
    } while (0)
#define TARE_COUNT_STOP() TARE_COUNT_START()

#else /* !TARE_COUNT_MARKS */

#define TARE_COUNT_START() ((void)0)
#define TARE_COUNT_STOP() ((void)0)

#endif

#ifdef TARE_ALLOC_STATS

#ifdef __cplusplus
extern "C" {
#endif

/* One per TARE_SCOPE site, static: the runtime numbers it on first use. */
struct tare_scope_site {
    const char *label;
    unsigned id;
};

/* One per open scope, on the stack: what the thread had counted at entry. */
struct tare_scope {
    struct tare_scope_site *site;
    unsigned long long allocs0, bytes0, child_allocs, child_bytes;
    int state;                 /* 0: not counted (no runtime), 1: open, 2: closed */
};

extern void tare_scope_enter(struct tare_scope *s, struct tare_scope_site *site)
    __attribute__((weak));
extern void tare_scope_exit(struct tare_scope *s) __attribute__((weak));

static inline void tare__scope_begin(struct tare_scope *s, struct tare_scope_site *site)
{
    s->state = 0;
    if (tare_scope_enter)
        tare_scope_enter(s, site);
}

static inline void tare__scope_close(struct tare_scope *s)
{
    if (s->state == 1 && tare_scope_exit)
        tare_scope_exit(s);
}

#ifdef __cplusplus
}
#endif

#define TARE__CAT2(a, b) a##b
#define TARE__CAT(a, b) TARE__CAT2(a, b)
#define TARE__SCOPE_AT(var, label) \
    static struct tare_scope_site TARE__CAT(var, _site) = {label, 0}; \
    struct tare_scope var __attribute__((cleanup(tare__scope_close))); \
    tare__scope_begin(&var, &TARE__CAT(var, _site))

#define TARE_SCOPE(label) TARE__SCOPE_AT(TARE__CAT(tare__scope_, __COUNTER__), label)
#define TARE_SCOPE_BEGIN(name, label) TARE__SCOPE_AT(tare__scope_##name, label)
#define TARE_SCOPE_END(name) tare__scope_close(&tare__scope_##name)

#else /* !TARE_ALLOC_STATS */

#define TARE_SCOPE(label)
#define TARE_SCOPE_BEGIN(name, label)
#define TARE_SCOPE_END(name)

#endif
#endif
