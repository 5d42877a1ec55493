/* tare/scope.h: allocation scopes for libtare-alloc; nothing at all unless TARE_ALLOC_STATS.
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
 */
#ifndef TARE_SCOPE_H
#define TARE_SCOPE_H

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
