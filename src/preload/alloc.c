/* alloc.c: libtare-alloc.so, the LD_PRELOAD counting allocator and the scope runtime.
 *
 * Every allocator entry point is interposed and forwarded to the next definition in link
 * order (dlsym RTLD_NEXT), so pointers and size queries always reach the same allocator.
 * Counting is per thread, in plain stores to the thread's own slot: no lock and no shared
 * atomic on the hot path. Live bytes (usable sizes, as the allocator reports them) reach a
 * shared total in batches of at most peak_batch bytes per thread, which bounds the error
 * of the peak; a single-threaded process has an exact peak, and TARE_ALLOC_PEAK=exact makes
 * every call flush. The report format is documented in src/core/profile/allocreport.h.
 *
 * malloc and free have a fast path (g_path == PATH_FAST: resolved, glibc's chunk headers
 * read in place, no stack recording): one compare of the new live bytes against the slot's
 * bounds (its peak, the flush batch) decides whether anything but three counter updates is
 * needed. Everything else (start-up, other allocators, a new thread, a new peak, a flush,
 * stack recording in stacks.c) takes the slow paths.
 *
 * Built without sanitizers and with -fno-builtin (see the Makefile): the compiler must not
 * fold malloc+memset into calloc or drop a malloc/free pair inside the wrappers.
 */
#define _GNU_SOURCE
#define TARE_ALLOC_STATS 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <alloca.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/preload.h"
#include "tare/scope.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- the next allocator ------------------------------------------------------------ */

struct real R;
static _Atomic int init_state;   /* 0 not yet, 1 resolving (bootstrap allocator), 2 done */
__thread int tls_internal __attribute__((tls_model("initial-exec")));

/* Which path the wrappers take: set once, at the end of start-up. */
enum { PATH_FAST, PATH_SLOW, PATH_STACKS };
static int g_path = PATH_SLOW;

/* dlsym may allocate (a failed lookup records its error message): those calls, made
 * while resolving, are served from here and never counted or forwarded. */
static char boot_buf[1 << 16] __attribute__((aligned(64)));
static _Atomic size_t boot_used;

static bool is_boot(const void *p)
{
    return (const char *)p >= boot_buf && (const char *)p < boot_buf + sizeof boot_buf;
}

static void *boot_alloc(size_t n, size_t align)
{
    if (align < 16)
        align = 16;
    if (n > sizeof boot_buf)
        return NULL;
    size_t old = atomic_load(&boot_used), start, end;
    do {
        start = (old + 16 + align - 1) & ~(align - 1);
        end = start + n;
        if (end > sizeof boot_buf)
            return NULL;
    } while (!atomic_compare_exchange_weak(&boot_used, &old, end));
    ((size_t *)(boot_buf + start))[-1] = n;
    return boot_buf + start;
}

static size_t boot_size(const void *p)
{
    return ((const size_t *)p)[-1];
}

static void *sym(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static void resolve(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&init_state, &expect, 1))
        return;                       /* done, or resolving further up this very stack */
    struct real r;
    r.malloc = sym("malloc");
    r.calloc = sym("calloc");
    r.realloc = sym("realloc");
    r.free = sym("free");
    r.posix_memalign = sym("posix_memalign");
    r.aligned_alloc = sym("aligned_alloc");
    r.memalign = sym("memalign");
    r.valloc = sym("valloc");
    r.pvalloc = sym("pvalloc");
    r.usable = sym("malloc_usable_size");
    r.execve = sym("execve");
    r.execvpe = sym("execvpe");
    r.fexecve = sym("fexecve");
    r.exit_ = sym("_exit");
    r.Exit_ = sym("_Exit");
    /* Every entry point must reach the allocator malloc comes from: jemalloc has no
     * pvalloc, and glibc's would hand jemalloc's free a block it never made. An entry
     * point found in another object is left out and made from the others below. */
    Dl_info mi, fi;
    if (r.malloc && dladdr((void *)r.malloc, &mi)) {
#define SAME_OBJECT(f) \
        if (r.f && (!dladdr((void *)r.f, &fi) || fi.dli_fbase != mi.dli_fbase)) r.f = NULL
        SAME_OBJECT(calloc);
        SAME_OBJECT(posix_memalign);
        SAME_OBJECT(aligned_alloc);
        SAME_OBJECT(memalign);
        SAME_OBJECT(valloc);
        SAME_OBJECT(pvalloc);
        SAME_OBJECT(usable);
#undef SAME_OBJECT
    }
    R = r;
    atomic_store(&init_state, 2);
}

/* True when the wrappers may forward; false while resolving (use the bootstrap). */
static inline bool ready(void)
{
    if (likely(atomic_load_explicit(&init_state, memory_order_acquire) == 2))
        return true;
    resolve();
    return atomic_load(&init_state) == 2 && R.malloc && R.free;
}

/* ---- per-thread counters ------------------------------------------------------------- */

/* Owner-written, read by the report: relaxed atomics compile to plain loads and stores. */
typedef _Atomic uint64_t cnt_t;
typedef _Atomic int64_t scnt_t;
#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)
#define ADD(x, d) ST(x, LD(x) + (d))

struct site_stats {
    cnt_t entries, allocs_incl, allocs_excl, bytes_incl, bytes_excl;
    uint64_t active;          /* open entries of this site on this thread (recursion) */
};

struct tstate {
    cnt_t allocs, frees, bytes;
    scnt_t live, peak;        /* this thread's net live bytes, and its own peak of that */
    scnt_t flushed;           /* live as last added to g_live: live - flushed is pending */
    scnt_t hi, lo;            /* live outside [lo, hi]: a new peak or a batch to flush */
    uint64_t child_allocs, child_bytes;   /* completed child scopes of the open scope */
    struct site_stats *_Atomic sites;
    _Atomic unsigned nsites;
    struct tstate *next;      /* every slot ever made; slots are never freed */
    _Atomic int alive;
};

/* A thread without a slot points at this one, whose bounds send every call to the slow
 * path (which makes the slot): the fast path needs no test for a missing slot. */
static struct tstate g_dummy = {.hi = INT64_MIN, .lo = INT64_MAX};
static __thread struct tstate *tls_ts __attribute__((tls_model("initial-exec"))) = &g_dummy;
static __thread int tls_busy __attribute__((tls_model("initial-exec")));

static struct tstate *_Atomic g_threads;      /* list of all slots */
static atomic_flag g_lock = ATOMIC_FLAG_INIT;  /* slot and site registration only */
static char *g_pool;
static size_t g_pool_left;
static _Atomic int64_t g_live, g_peak;
static _Atomic long g_nthreads_ever, g_nthreads_live, g_nthreads_max;
static int64_t g_peak_batch = 64 * 1024;
static struct tstate *g_solo;                 /* the slot, while there has been only one */
static pthread_key_t g_key;
static bool g_key_ok;
static pid_t g_pid;

static void lock(void)
{
    while (atomic_flag_test_and_set_explicit(&g_lock, memory_order_acquire))
        ;
}

static void unlock(void)
{
    atomic_flag_clear_explicit(&g_lock, memory_order_release);
}

void *pl_raw_alloc(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void pl_raw_free(void *p, size_t n)
{
    if (p)
        munmap(p, n);
}

static void set_bounds(struct tstate *ts)
{
    int64_t f = LD(ts->flushed), pk = LD(ts->peak);
    ST(ts->hi, pk < f + g_peak_batch ? pk : f + g_peak_batch);
    ST(ts->lo, f - g_peak_batch);
}

static struct tstate *ts_new(void)
{
    if (tls_busy)
        return NULL;
    tls_busy = 1;
    const size_t slot = (sizeof(struct tstate) + 63) & ~(size_t)63;   /* a cache line apart */
    lock();
    if (g_pool_left < slot) {
        g_pool = pl_raw_alloc(1 << 16);
        g_pool_left = g_pool ? 1 << 16 : 0;
    }
    struct tstate *ts = NULL;
    if (g_pool_left >= slot) {
        ts = (struct tstate *)g_pool;
        g_pool += slot;
        g_pool_left -= slot;
        memset(ts, 0, sizeof *ts);
        set_bounds(ts);
        ts->alive = 1;
        ts->next = g_threads;
        g_threads = ts;
        long live = atomic_fetch_add(&g_nthreads_live, 1) + 1;
        if (live > g_nthreads_max)
            g_nthreads_max = live;
        if (++g_nthreads_ever == 1)
            g_solo = ts;
    }
    unlock();
    tls_ts = ts;
    /* The destructor flushes the thread's batch when it ends (keys below 32 never allocate). */
    if (ts && g_key_ok)
        pthread_setspecific(g_key, ts);
    tls_busy = 0;
    return ts;
}

static inline __attribute__((always_inline)) struct tstate *ts_get(void)
{
    struct tstate *ts = tls_ts;
    if (likely(ts != &g_dummy))
        return ts;
    return ts_new();
}

static void flush(struct tstate *ts)
{
    int64_t live = LD(ts->live), d = live - LD(ts->flushed);
    ST(ts->flushed, live);
    int64_t now = atomic_fetch_add_explicit(&g_live, d, memory_order_relaxed) + d;
    int64_t pk = atomic_load_explicit(&g_peak, memory_order_relaxed);
    while (now > pk && !atomic_compare_exchange_weak_explicit(&g_peak, &pk, now,
                                                              memory_order_relaxed,
                                                              memory_order_relaxed))
        ;
    set_bounds(ts);
}

/* live has left [lo, hi]: a new peak of the thread's own, or a batch to flush. */
static __attribute__((noinline)) void live_out(struct tstate *ts, int64_t live)
{
    if (live > LD(ts->peak))
        ST(ts->peak, live);
    int64_t u = live - LD(ts->flushed);
    if (u > g_peak_batch || u < -g_peak_batch)
        flush(ts);
    else
        set_bounds(ts);
}

static inline __attribute__((always_inline)) void live_add(struct tstate *ts, int64_t d)
{
    int64_t live = LD(ts->live) + d;
    ST(ts->live, live);
    if (unlikely(live > LD(ts->hi) || live < LD(ts->lo)))
        live_out(ts, live);
}

/* glibc's chunk header, read in place instead of calling malloc_usable_size (a third of
 * the wrapper's cost on a malloc/free loop): the size field before the block, less the
 * header (16 bytes for an mmapped chunk, 8 otherwise). Used only when the next allocator
 * is glibc's and the start-up check below agrees with malloc_usable_size. */
static bool g_glibc_header;

static inline size_t glibc_usable(const void *p)
{
    size_t sz = ((const size_t *)p)[-1];
    return (sz & ~(size_t)7) - 8 - ((sz & 2) << 2);     /* mmapped (bit 2): 16 */
}

static inline __attribute__((always_inline)) size_t usable(void *p)
{
    if (likely(g_glibc_header))
        return glibc_usable(p);
    return R.usable ? R.usable(p) : 0;
}

static void check_glibc_header(void)
{
    Dl_info info;
    if (!R.usable || !dladdr((void *)R.malloc, &info) || !info.dli_fname ||
        !strstr(info.dli_fname, "libc.so"))
        return;
    /* Small sizes only: freeing an mmapped block would raise glibc's dynamic mmap
     * threshold and change how the program's own blocks are placed. The mmapped case
     * (bit 2) is checked by the tests against the program's malloc_usable_size. */
    static const size_t sizes[] = {0, 1, 24, 25, 100, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        void *p = R.malloc(sizes[i]);
        bool same = p && glibc_usable(p) == R.usable(p);
        R.free(p);
        if (!same)
            return;
    }
    g_glibc_header = true;
}

size_t pl_usable(void *p)
{
    return usable(p);
}

void pl_count_alloc(void *p, size_t n)
{
    struct tstate *ts = tls_internal ? NULL : ts_get();
    if (unlikely(!ts))
        return;
    ADD(ts->allocs, 1);
    ADD(ts->bytes, n);
    live_add(ts, (int64_t)usable(p));
}

/* u: the block's usable size, taken before it was released. */
void pl_count_free(size_t u)
{
    struct tstate *ts = tls_internal ? NULL : ts_get();
    if (unlikely(!ts))
        return;
    ADD(ts->frees, 1);
    live_add(ts, -(int64_t)u);
}

/* A block of old_usable bytes resized or moved to q, n bytes asked for. */
void pl_count_realloc(size_t n, size_t old_usable, void *q)
{
    struct tstate *ts = tls_internal ? NULL : ts_get();
    if (unlikely(!ts))
        return;
    ADD(ts->allocs, 1);
    ADD(ts->frees, 1);
    ADD(ts->bytes, n);
    live_add(ts, (int64_t)usable(q) - (int64_t)old_usable);
}

static void thread_end(void *arg)
{
    struct tstate *ts = arg;
    if (!ts)
        return;
    flush(ts);
    ST(ts->alive, 0);
    atomic_fetch_sub(&g_nthreads_live, 1);
    if (tls_ts == ts)
        tls_ts = &g_dummy;
}

/* ---- the interposed entry points ---------------------------------------------------- */

static __attribute__((noinline)) void *malloc_slow(size_t n)
{
    if (unlikely(!ready()))
        return boot_alloc(n, 16);
    void *p = R.malloc(n);
    if (likely(p != NULL))
        pl_count_alloc(p, n);
    return p;
}

/* The fast path's p, counted the long way (a new slot, a new peak, a flush). */
static __attribute__((noinline)) void *malloc_out(void *p, size_t n)
{
    pl_count_alloc(p, n);
    return p;
}

EXPORT void *malloc(size_t n)
{
    if (unlikely(g_path != PATH_FAST)) {
        if (g_path == PATH_STACKS)
            return stk_malloc(n);     /* a tail call: its return address is the caller's */
        return malloc_slow(n);
    }
    void *p = R.malloc(n);
    if (unlikely(p == NULL))
        return p;
    struct tstate *ts = tls_ts;
    int64_t live = LD(ts->live) + (int64_t)glibc_usable(p);
    if (unlikely(live > LD(ts->hi)))
        return malloc_out(p, n);
    ST(ts->live, live);
    ADD(ts->allocs, 1);
    ADD(ts->bytes, n);
    return p;
}

static __attribute__((noinline)) void free_slow(void *p)
{
    if (p == NULL || is_boot(p))
        return;
    void (*next_free)(void *) = R.free;
    if (unlikely(next_free == NULL))
        return;               /* cannot happen: p came from the next allocator */
    if (g_path == PATH_STACKS) {
        stk_free(p);
        return;
    }
    pl_count_free(usable(p)); /* first, so that the call below is a tail call */
    next_free(p);
}

static __attribute__((noinline)) void free_out(void *p, size_t u)
{
    pl_count_free(u);
    R.free(p);
}

EXPORT void free(void *p)
{
    if (unlikely(g_path != PATH_FAST))
        return free_slow(p);
    if (unlikely(p == NULL || is_boot(p)))
        return;
    struct tstate *ts = tls_ts;
    size_t u = glibc_usable(p);
    int64_t live = LD(ts->live) - (int64_t)u;
    if (unlikely(live < LD(ts->lo)))
        return free_out(p, u);
    ST(ts->live, live);
    ADD(ts->frees, 1);
    R.free(p);
}

EXPORT void *calloc(size_t n, size_t m)
{
    if (unlikely(g_path == PATH_STACKS))
        return stk_calloc(n, m);
    if (unlikely(!ready())) {
        size_t t;
        if (__builtin_mul_overflow(n, m, &t))
            return NULL;
        return boot_alloc(t, 16);   /* static memory: zero until handed out once */
    }
    void *p;
    if (likely(R.calloc != NULL)) {
        p = R.calloc(n, m);
    } else {
        size_t t;
        if (__builtin_mul_overflow(n, m, &t)) {
            errno = ENOMEM;
            return NULL;
        }
        p = R.malloc(t);
        if (p)
            memset(p, 0, t);
    }
    if (likely(p != NULL))
        pl_count_alloc(p, n * m);
    return p;
}

/* glibc's realloc(NULL, n) and realloc(p, 0) call its malloc and free internally, not
 * through the PLT: the wrapper counts those cases itself. A moved or resized block counts
 * as one allocation of n bytes and one free of the old block, as memcheck counts it. */
static void *realloc_counted(void *p, size_t n)
{
    if (p == NULL)
        return malloc(n);
    if (is_boot(p)) {
        void *q = malloc(n);
        if (q)
            memcpy(q, p, boot_size(p) < n ? boot_size(p) : n);
        return q;
    }
    size_t old = usable(p);
    void *q = R.realloc(p, n);
    if (n == 0 && q == NULL) {          /* glibc freed it */
        pl_count_free(old);
        return NULL;
    }
    if (q == NULL)
        return NULL;                     /* failed: p is untouched */
    pl_count_realloc(n, old, q);
    return q;
}

EXPORT void *realloc(void *p, size_t n)
{
    if (unlikely(g_path == PATH_STACKS)) {
        if (p == NULL || !is_boot(p))
            return stk_realloc(p, n);
        void *q = stk_malloc(n);
        if (q)
            memcpy(q, p, boot_size(p) < n ? boot_size(p) : n);
        return q;
    }
    if (unlikely(!ready())) {
        void *q = boot_alloc(n, 16);
        if (q && p)
            memcpy(q, p, boot_size(p) < n ? boot_size(p) : n);
        return q;
    }
    return realloc_counted(p, n);
}

/* glibc's reallocarray calls realloc through the PLT, which would count twice: do the
 * overflow check here and count one realloc. */
EXPORT void *reallocarray(void *p, size_t n, size_t m)
{
    size_t t;
    if (__builtin_mul_overflow(n, m, &t)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, t);
}

void *pl_next_memalign(size_t align, size_t n)
{
    if (R.memalign)
        return R.memalign(align, n);
    if (R.aligned_alloc)
        return R.aligned_alloc(align, n);
    void *p;
    if (R.posix_memalign &&
        R.posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n) == 0)
        return p;
    errno = ENOMEM;
    return NULL;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (unlikely(g_path == PATH_STACKS))
        return stk_posix_memalign(out, align, n);
    if (unlikely(!ready())) {
        void *p = boot_alloc(n, align);
        if (!p)
            return ENOMEM;
        *out = p;
        return 0;
    }
    int rc;
    if (R.posix_memalign) {
        rc = R.posix_memalign(out, align, n);
    } else if (align < sizeof(void *) || (align & (align - 1)) != 0) {
        rc = EINVAL;
    } else {
        void *p = pl_next_memalign(align, n);
        rc = p ? 0 : ENOMEM;
        if (p)
            *out = p;
    }
    if (rc == 0)
        pl_count_alloc(*out, n);
    return rc;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (unlikely(g_path == PATH_STACKS))
        return stk_aligned_alloc(align, n);
    if (unlikely(!ready()))
        return boot_alloc(n, align);
    void *p = R.aligned_alloc ? R.aligned_alloc(align, n) : pl_next_memalign(align, n);
    if (p)
        pl_count_alloc(p, n);
    return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
    if (unlikely(g_path == PATH_STACKS))
        return stk_memalign(align, n);
    if (unlikely(!ready()))
        return boot_alloc(n, align);
    void *p = pl_next_memalign(align, n);
    if (p)
        pl_count_alloc(p, n);
    return p;
}

EXPORT void *valloc(size_t n)
{
    if (unlikely(g_path == PATH_STACKS))
        return stk_valloc(n);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (unlikely(!ready()))
        return boot_alloc(n, page);
    void *p = R.valloc ? R.valloc(n) : pl_next_memalign(page, n);
    if (p)
        pl_count_alloc(p, n);
    return p;
}

EXPORT void *pvalloc(size_t n)
{
    if (unlikely(g_path == PATH_STACKS))
        return stk_pvalloc(n);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (unlikely(!ready()))
        return boot_alloc(n, page);
    void *p =
        R.pvalloc ? R.pvalloc(n) : pl_next_memalign(page, n ? (n + page - 1) & ~(page - 1) : page);
    if (p)
        pl_count_alloc(p, n);
    return p;
}

EXPORT size_t malloc_usable_size(void *p)
{
    if (p == NULL)
        return 0;
    if (is_boot(p))
        return boot_size(p);
    if (unlikely(!ready()))
        return 0;
    return usable(p);
}

/* ---- scopes ------------------------------------------------------------------------- */

static struct tare_scope_site **g_sites;      /* by id - 1 */
static _Atomic unsigned g_nsites;
static unsigned g_sites_cap;

static unsigned site_id(struct tare_scope_site *site)
{
    unsigned id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
    if (likely(id))
        return id;
    lock();
    id = site->id;
    if (!id) {
        unsigned n = g_nsites;
        if (n == g_sites_cap) {
            unsigned cap = g_sites_cap ? g_sites_cap * 2 : 256;
            struct tare_scope_site **s = pl_raw_alloc(cap * sizeof *s);
            if (!s) {
                unlock();
                return 0;
            }
            if (g_sites)
                memcpy(s, g_sites, n * sizeof *s);   /* the old array is kept: readers */
            g_sites = s;
            g_sites_cap = cap;
        }
        g_sites[n] = site;
        atomic_store(&g_nsites, n + 1);
        id = n + 1;
        __atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
    }
    unlock();
    return id;
}

static struct site_stats *site_stats(struct tstate *ts, unsigned id)
{
    unsigned n = atomic_load_explicit(&ts->nsites, memory_order_relaxed);
    if (likely(id <= n))
        return &ts->sites[id - 1];
    unsigned cap = n ? n : 64;
    while (cap < id)
        cap *= 2;
    struct site_stats *s = pl_raw_alloc(cap * sizeof *s);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, ts->sites, n * sizeof *s);        /* the old array stays mapped: readers */
    ts->sites = s;
    atomic_store(&ts->nsites, cap);
    return &s[id - 1];
}

EXPORT void tare_scope_enter(struct tare_scope *s, struct tare_scope_site *site)
{
    s->state = 0;
    if (!ready())
        return;
    struct tstate *ts = ts_get();
    unsigned id = ts ? site_id(site) : 0;
    struct site_stats *st = id ? site_stats(ts, id) : NULL;
    if (!st)
        return;
    s->site = site;
    s->allocs0 = LD(ts->allocs);
    s->bytes0 = LD(ts->bytes);
    s->child_allocs = ts->child_allocs;
    s->child_bytes = ts->child_bytes;
    ts->child_allocs = ts->child_bytes = 0;
    st->active++;
    s->state = 1;
    stk_scope_push(s, id);
}

EXPORT void tare_scope_exit(struct tare_scope *s)
{
    if (s->state != 1)
        return;
    s->state = 2;
    stk_scope_pop(s);
    struct tstate *ts = ts_get();
    struct site_stats *st = ts ? site_stats(ts, s->site->id) : NULL;
    if (!st)
        return;
    uint64_t ia = LD(ts->allocs) - s->allocs0, ib = LD(ts->bytes) - s->bytes0;
    ADD(st->entries, 1);
    ADD(st->allocs_excl, ia - ts->child_allocs);
    ADD(st->bytes_excl, ib - ts->child_bytes);
    /* A label's inclusive total counts its outermost entry only, so recursion adds once. */
    if (--st->active == 0) {
        ADD(st->allocs_incl, ia);
        ADD(st->bytes_incl, ib);
    }
    ts->child_allocs = s->child_allocs + ia;
    ts->child_bytes = s->child_bytes + ib;
}

unsigned pl_nsites(void)
{
    return atomic_load(&g_nsites);
}

const char *pl_site_label(unsigned id)
{
    const char *l = id >= 1 && id <= pl_nsites() ? g_sites[id - 1]->label : NULL;
    return l ? l : "";
}

/* ---- the report --------------------------------------------------------------------- */

static int g_err_fd = -1;            /* a private copy of stderr, taken at start-up */
static dev_t g_err_dev;
static ino_t g_err_ino;              /* what it was, in case the program reuses the number */
static char g_out_path[PATH_MAX];    /* TARE_ALLOC_OUT, made absolute at start-up */
static bool g_stats_stderr;
static bool g_own_malloc, g_exact_peak, g_reported;
static uint64_t g_base_allocs, g_base_frees, g_base_bytes;   /* reported before a failed exec */

void buf_put(struct buf *b, const char *s, size_t n)
{
    if (b->len + n <= b->cap)
        memcpy(b->p + b->len, s, n);
    b->len += n;
}

void buf_puts(struct buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

void buf_putu(struct buf *b, uint64_t v)
{
    char d[24];
    int i = sizeof d;
    do
        d[--i] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    buf_put(b, d + i, sizeof d - i);
}

void buf_putx(struct buf *b, uint64_t v)
{
    char d[24];
    int i = sizeof d;
    do
        d[--i] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    buf_put(b, d + i, sizeof d - i);
}

void buf_kv(struct buf *b, const char *key, uint64_t v)
{
    buf_put(b, " ", 1);
    buf_puts(b, key);
    buf_put(b, "=", 1);
    buf_putu(b, v);
}

/* Bytes outside '!'..'~', and '%', as %XX: a value never holds a space or a newline. */
void buf_enc(struct buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c <= ' ' || *c > '~' || *c == '%') {
            char e[3] = {'%', hex[*c >> 4], hex[*c & 15]};
            buf_put(b, e, 3);
        } else {
            buf_put(b, (const char *)c, 1);
        }
    }
}

struct label_total {
    const char *label;
    uint64_t entries, allocs_incl, allocs_excl, bytes_incl, bytes_excl;
};

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void report(const char *end)
{
    if (g_reported || (!g_stats_stderr && !g_out_path[0]))
        return;
    if (syscall(SYS_getpid) != g_pid)
        return;               /* a vfork child shares our memory: the counts are the parent's */
    g_reported = true;
    int saved_errno = errno;

    uint64_t allocs = 0, frees = 0, bytes = 0;
    int64_t unflushed = 0;
    long nthreads = 0;
    for (struct tstate *t = g_threads; t; t = t->next) {
        allocs += LD(t->allocs);
        frees += LD(t->frees);
        bytes += LD(t->bytes);
        unflushed += LD(t->live) - LD(t->flushed);
        nthreads++;
    }
    allocs -= g_base_allocs;
    frees -= g_base_frees;
    bytes -= g_base_bytes;
    int64_t peak, slack = 0;
    if (g_nthreads_ever <= 1 && g_solo) {
        peak = LD(g_solo->peak);                 /* one thread: its own running peak is exact */
    } else {
        int64_t now = atomic_load(&g_live) + unflushed;
        peak = atomic_load(&g_peak);
        if (now > peak)
            peak = now;
        slack = g_exact_peak ? 0 : g_peak_batch * g_nthreads_max;
    }
    if (peak < 0)
        peak = 0;

    /* Per label over all threads and sites, sorted by exclusive allocations. */
    unsigned nsites = atomic_load(&g_nsites);
    struct label_total *lt = NULL;
    size_t nlt = 0, lt_bytes = (nsites ? nsites : 1) * sizeof *lt;
    if (nsites)
        lt = pl_raw_alloc(lt_bytes);
    for (unsigned i = 0; lt && i < nsites; i++) {
        struct label_total sum = {g_sites[i]->label ? g_sites[i]->label : "", 0, 0, 0, 0, 0};
        for (struct tstate *t = g_threads; t; t = t->next) {
            if (i + 1 > atomic_load(&t->nsites))
                continue;
            struct site_stats *st = &t->sites[i];
            sum.entries += LD(st->entries);
            sum.allocs_incl += LD(st->allocs_incl);
            sum.allocs_excl += LD(st->allocs_excl);
            sum.bytes_incl += LD(st->bytes_incl);
            sum.bytes_excl += LD(st->bytes_excl);
        }
        size_t k = 0;
        while (k < nlt && strcmp(lt[k].label, sum.label) != 0)
            k++;
        if (k == nlt) {
            lt[nlt++] = sum;
        } else {
            lt[k].entries += sum.entries;
            lt[k].allocs_incl += sum.allocs_incl;
            lt[k].allocs_excl += sum.allocs_excl;
            lt[k].bytes_incl += sum.bytes_incl;
            lt[k].bytes_excl += sum.bytes_excl;
        }
    }
    for (size_t i = 1; i < nlt; i++) {
        struct label_total x = lt[i];
        size_t j = i;
        while (j > 0 && lt[j - 1].allocs_excl < x.allocs_excl) {
            lt[j] = lt[j - 1];
            j--;
        }
        lt[j] = x;
    }

    static char exe[PATH_MAX];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = '\0';

    struct buf b = {NULL, 0, 0};
    stk_report_lock();
    for (int pass = 0; pass < 2; pass++) {     /* the first pass measures */
        b.len = 0;
        buf_puts(&b, "tare-alloc 1");
        buf_kv(&b, "pid", (uint64_t)g_pid);
        buf_kv(&b, "ppid", (uint64_t)getppid());
        buf_puts(&b, " end=");
        buf_puts(&b, end);
        buf_puts(&b, g_own_malloc ? " status=own-malloc" : " status=ok");
        buf_kv(&b, "allocations", allocs);
        buf_kv(&b, "frees", frees);
        buf_kv(&b, "bytes", bytes);
        buf_kv(&b, "peak_bytes", (uint64_t)peak);
        buf_kv(&b, "peak_slack", (uint64_t)slack);
        buf_kv(&b, "threads", (uint64_t)nthreads);
        buf_kv(&b, "scopes", nlt);
        stk_report_fields(&b);
        buf_puts(&b, " exe=");
        buf_enc(&b, exe);
        buf_put(&b, "\n", 1);
        for (size_t i = 0; i < nlt; i++) {
            buf_puts(&b, "tare-alloc-scope 1");
            buf_kv(&b, "pid", (uint64_t)g_pid);
            buf_puts(&b, " label=");
            buf_enc(&b, lt[i].label);
            buf_kv(&b, "entries", lt[i].entries);
            buf_kv(&b, "allocs_incl", lt[i].allocs_incl);
            buf_kv(&b, "allocs_excl", lt[i].allocs_excl);
            buf_kv(&b, "bytes_incl", lt[i].bytes_incl);
            buf_kv(&b, "bytes_excl", lt[i].bytes_excl);
            buf_put(&b, "\n", 1);
        }
        stk_report_lines(&b, (long)g_pid);
        if (pass == 0) {
            b.cap = b.len;
            b.p = pl_raw_alloc(b.cap);
            if (!b.p)
                break;
        }
    }
    if (b.p) {
        if (g_stats_stderr) {
            struct stat st;
            bool ours = g_err_fd >= 0 && fstat(g_err_fd, &st) == 0 && st.st_dev == g_err_dev &&
                        st.st_ino == g_err_ino;
            write_all(ours ? g_err_fd : STDERR_FILENO, b.p, b.len);
        }
        if (g_out_path[0]) {
            int fd = open(g_out_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
            if (fd >= 0) {
                write_all(fd, b.p, b.len);
                close(fd);
            }
        }
        munmap(b.p, b.cap);
    }
    stk_report_unlock();
    stk_report_done();
    if (lt)
        munmap(lt, lt_bytes);
    errno = saved_errno;
}

/* A failed exec returns to the program: the next report counts only what follows. */
static void exec_failed(void)
{
    if (syscall(SYS_getpid) != g_pid)
        return;               /* a vfork child: these are the parent's counters */
    uint64_t a = 0, f = 0, by = 0;
    for (struct tstate *t = g_threads; t; t = t->next) {
        a += LD(t->allocs);
        f += LD(t->frees);
        by += LD(t->bytes);
    }
    g_base_allocs = a;
    g_base_frees = f;
    g_base_bytes = by;
    g_reported = false;
}

/* A failed exec: the stacks start again too. */
static void exec_failed_all(void)
{
    if (syscall(SYS_getpid) != g_pid)
        return;
    exec_failed();
    stk_exec_failed();
}

/* In a forked child only the forking thread lives on; it inherits the parent's heap.
 * The counters keep running (open scopes hold snapshots of them): the child's report
 * counts from a base taken here. */
static void at_fork_child(void)
{
    /* A thread of the parent may have held the registration lock: it does not exist here.
     * (Not taken across fork instead: another fork handler may allocate meanwhile.) */
    unlock();
    g_pid = (pid_t)syscall(SYS_getpid);
    int64_t live = atomic_load(&g_live);
    for (struct tstate *t = g_threads; t; t = t->next) {
        live += LD(t->live) - LD(t->flushed);
        ST(t->flushed, LD(t->live));
        ST(t->alive, 0);
        unsigned n = atomic_load(&t->nsites);
        for (unsigned i = 0; i < n; i++) {
            struct site_stats *st = &t->sites[i];
            ST(st->entries, 0);
            ST(st->allocs_incl, 0);
            ST(st->allocs_excl, 0);
            ST(st->bytes_incl, 0);
            ST(st->bytes_excl, 0);
        }
    }
    exec_failed();
    stk_fork_child();
    struct tstate *me = tls_ts != &g_dummy ? tls_ts : NULL;
    if (me) {
        ST(me->alive, 1);
        ST(me->live, live);
        ST(me->flushed, live);
        ST(me->peak, live);
        set_bounds(me);
    }
    g_solo = me;
    atomic_store(&g_live, live);
    atomic_store(&g_peak, live);
    atomic_store(&g_nthreads_live, me ? 1 : 0);
    atomic_store(&g_nthreads_max, me ? 1 : 0);
    atomic_store(&g_nthreads_ever, me ? 1 : 0);
}

__attribute__((constructor)) static void tare_alloc_init(void)
{
    if (ready())
        check_glibc_header();
    g_pid = (pid_t)syscall(SYS_getpid);
    const char *s = getenv("TARE_ALLOC_STATS");
    g_stats_stderr = s && strcmp(s, "1") == 0;
    const char *out = getenv("TARE_ALLOC_OUT");
    if (out && out[0]) {
        size_t n = strlen(out);
        if (out[0] == '/' || !getcwd(g_out_path, sizeof g_out_path - n - 2)) {
            if (n < sizeof g_out_path)
                memcpy(g_out_path, out, n + 1);
        } else {
            size_t c = strlen(g_out_path);
            g_out_path[c] = '/';
            memcpy(g_out_path + c + 1, out, n + 1);
        }
    }
    if (g_stats_stderr) {   /* survives the program closing its stderr (sort does) */
        struct stat st;
        g_err_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 100);
        if (g_err_fd >= 0 && fstat(g_err_fd, &st) == 0) {
            g_err_dev = st.st_dev;
            g_err_ino = st.st_ino;
        }
    }
    const char *pk = getenv("TARE_ALLOC_PEAK");
    if (pk && strcmp(pk, "exact") == 0) {
        g_exact_peak = true;
        g_peak_batch = 0;
        for (struct tstate *t = g_threads; t; t = t->next)
            set_bounds(t);
    }
    /* An executable (or a library preloaded before this one) that defines malloc is found
     * first: its allocations never reach these wrappers. A non-PIE executable that takes
     * malloc's address (python3 does) is found first too, but at a PLT stub that jumps
     * here: only a defined symbol starting exactly there is a malloc of its own. */
    void *first = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info found, self;
    const ElfW(Sym) *sym = NULL;
    g_own_malloc = first && dladdr1(first, &found, (void **)&sym, RTLD_DL_SYMENT) &&
                   dladdr((void *)tare_alloc_init, &self) && found.dli_fbase != self.dli_fbase &&
                   found.dli_saddr == first && sym && sym->st_shndx != SHN_UNDEF;
    g_key_ok = pthread_key_create(&g_key, thread_end) == 0;
    pthread_atfork(stk_fork_prepare, stk_fork_parent, at_fork_child);
    if (stk_init())
        g_path = PATH_STACKS;
    else if (g_glibc_header && atomic_load(&init_state) == 2)
        g_path = PATH_FAST;
}

__attribute__((destructor)) static void tare_alloc_fini(void)
{
    report("exit");
}

EXPORT void _exit(int status)
{
    report("_exit");
    if (!R.exit_)
        resolve();
    if (R.exit_)
        R.exit_(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

EXPORT void _Exit(int status)
{
    report("_exit");
    if (!R.Exit_)
        resolve();
    if (R.Exit_)
        R.Exit_(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

/* The exec family: report before the image is replaced. glibc's execl*, execv and execvp
 * call its internal execve, so each one is wrapped here. */
EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    ready();
    report("exec");
    int rc = R.execve(path, argv, envp);
    exec_failed_all();
    return rc;
}

extern char **environ;

EXPORT int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    ready();
    report("exec");
    int rc = R.execvpe(file, argv, envp);
    exec_failed_all();
    return rc;
}

EXPORT int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    ready();
    report("exec");
    int rc = R.fexecve(fd, argv, envp);
    exec_failed_all();
    return rc;
}

/* execl, execlp, execle: collect the arguments on the stack, then as above. */
#define COLLECT_ARGS(arg0, ap, argv, extra)                                   \
    size_t argc_ = 1;                                                         \
    va_start(ap, arg0);                                                       \
    while (va_arg(ap, const char *))                                          \
        argc_++;                                                              \
    va_end(ap);                                                               \
    const char **argv = alloca((argc_ + 1) * sizeof *argv);                   \
    argv[0] = arg0;                                                           \
    va_start(ap, arg0);                                                       \
    for (size_t i_ = 1; i_ <= argc_; i_++)                                    \
        argv[i_] = va_arg(ap, const char *);                                  \
    extra;                                                                    \
    va_end(ap)

EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv, (void)0);
    return execve(path, (char *const *)argv, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv, (void)0);
    return execvpe(file, (char *const *)argv, environ);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    char *const *envp;
    COLLECT_ARGS(arg, ap, argv, envp = va_arg(ap, char *const *));
    return execve(path, (char *const *)argv, envp);
}
