/* stacks.c: libtare-alloc's stack recording (TARE_ALLOC_STACKS=auto|fp|dwarf).
 *
 * Each allocation's call stack is captured in the measured process and added, in the
 * process, to a table keyed by the stack: allocations, bytes, temporaries (blocks freed by
 * the very next event after their allocation: heaptrack's rule), bytes live at the peak and
 * bytes never freed. Nothing is written until the report at exit (or exec); tare names the
 * addresses afterwards from the maps the report carries.
 *
 * Capture. A frame-pointer walk where the code keeps frame pointers (ehframe.c reads that
 * from each object's .eh_frame, once), libunwind's unw_backtrace (dlopen'd, with its
 * per-thread cache) as soon as the walk meets a return address in code that does not, or
 * for every stack with TARE_ALLOC_STACKS=dwarf. Stacks end at main and at a thread's start
 * routine: __libc_start_main and pthread_create are interposed to start them from a
 * trampoline of this library, which the walk stops at. The scopes of <tare/scope.h> open on
 * the thread are frames too, placed by the stack address of their struct tare_scope.
 *
 * Tables. Stacks are interned in an open-addressing table (records never move); live
 * blocks in a pointer map (linear probing, backward-shift deletion) holding each block's
 * requested size and stack. While glibc says the process is single-threaded
 * (__libc_single_threaded) they are used without a lock; after that under one mutex, which
 * also makes the event order (temporaries, the peak's composition) the order of the locked
 * updates. The peak's composition is kept lazily: each stack saves its live bytes the first
 * time it changes after the peak moved (a version number), so no pass over all stacks runs
 * at a new peak.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<libunwind.h>)
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#define HAVE_LIBUNWIND 1
#endif
#endif

#include "preload/ehframe.h"
#include "preload/preload.h"

#define EXPORT __attribute__((visibility("default")))

enum { MODE_OFF, MODE_AUTO, MODE_FP, MODE_DWARF };
static int g_mode;

#define STK_MAX 128                         /* frames kept; deeper stacks are cut */
#define MARK_SCOPE 0xfffe000000000000ull    /* | site id: a scope frame (no user address) */
#define MARK_CUT 0xffff000000000001ull      /* the stack went on past STK_MAX */
#define MARK_MANY 0xffff000000000002ull     /* past the most distinct stacks kept */
#define MAX_RECS ((1u << 24) - 1)

/* ---- libunwind, loaded on demand ------------------------------------------------------ */

static int (*u_backtrace)(void **, int);
#ifdef HAVE_LIBUNWIND
static int (*u_getcontext)(unw_context_t *);
static int (*u_init_local)(unw_cursor_t *, unw_context_t *);
static int (*u_step)(unw_cursor_t *);
static int (*u_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
#endif

static void load_libunwind(void)
{
#ifdef HAVE_LIBUNWIND
    tls_internal++;
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h) {
        u_getcontext = (int (*)(unw_context_t *))dlsym(h, "_Ux86_64_getcontext");
        u_init_local = (int (*)(unw_cursor_t *, unw_context_t *))dlsym(h, "_ULx86_64_init_local");
        u_step = (int (*)(unw_cursor_t *))dlsym(h, "_ULx86_64_step");
        u_get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(
            h, "_ULx86_64_get_reg");
        int (*policy)(unw_addr_space_t, unw_caching_policy_t) =
            (int (*)(unw_addr_space_t, unw_caching_policy_t))dlsym(h,
                                                                  "_ULx86_64_set_caching_policy");
        unw_addr_space_t *as = (unw_addr_space_t *)dlsym(h, "_ULx86_64_local_addr_space");
        if (policy && as)
            policy(*as, UNW_CACHE_PER_THREAD);
        u_backtrace = (int (*)(void **, int))dlsym(h, "unw_backtrace");
        if (!u_getcontext || !u_init_local || !u_step || !u_get_reg)
            u_getcontext = NULL;
    }
    tls_internal--;
#endif
}

/* ---- the objects: which code keeps frame pointers ------------------------------------- */

enum { K_UNKNOWN, K_FP, K_NOFP, K_OWN, K_TRAMP };

struct obj {
    uintptr_t lo, hi;           /* an executable segment */
    int kind;                   /* K_FP, K_NOFP or K_OWN */
    const uint64_t *nofp;       /* K_FP: the [lo, hi) pairs of its functions without them */
    unsigned nnofp;
};

struct objtab {
    unsigned n;
    unsigned long long adds, subs;    /* dl_iterate_phdr's load and unload counts, at build */
    struct obj o[];
};

static struct objtab *_Atomic g_objs;
static atomic_flag g_objs_lock = ATOMIC_FLAG_INIT;
static uintptr_t g_own_base;
static uintptr_t g_own_lo, g_own_hi;     /* this library's code */

/* The trampolines' section: a return address there is the end of a stack. */
extern char __start_tare_tramp[] __attribute__((visibility("hidden")));
extern char __stop_tare_tramp[] __attribute__((visibility("hidden")));

struct build_ctx {
    struct objtab *old, *t;
    unsigned cap;
    unsigned long long adds, subs;
};

struct range_ctx {
    uint64_t *r;
    unsigned n, cap;
};

static void add_range(void *ctx, uint64_t lo, uint64_t hi)
{
    struct range_ctx *rc = ctx;
    if (rc->n < rc->cap) {
        rc->r[2 * rc->n] = lo;
        rc->r[2 * rc->n + 1] = hi;
        rc->n++;
    }
}

static int cmp_range(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Classifies one object from its .eh_frame (through PT_GNU_EH_FRAME). */
static void classify(const struct dl_phdr_info *info, struct obj *o)
{
    o->kind = K_NOFP;
    o->nofp = NULL;
    o->nnofp = 0;
    const unsigned char *hdr = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
            hdr = (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!hdr || hdr[0] != 1 || hdr[1] != 0x1b)    /* version 1, pc-relative sdata4 */
        return;
    int32_t rel;
    memcpy(&rel, hdr + 4, 4);
    uintptr_t eh = (uintptr_t)(hdr + 4) + (intptr_t)rel;
    size_t len = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_filesz;
        if (ph->p_type == PT_LOAD && eh >= lo && eh < hi)
            len = hi - eh;
    }
    if (!len)
        return;
    struct ehf_counts c;
    ehf_scan((const unsigned char *)eh, len, eh, &c, NULL, NULL);
    if (!ehf_has_fp(&c))
        return;
    o->kind = K_FP;
    if (c.rsp == 0)
        return;
    struct range_ctx rc = {pl_raw_alloc(c.rsp * 2 * sizeof(uint64_t)), 0, c.rsp};
    if (!rc.r) {
        o->kind = K_NOFP;
        return;
    }
    ehf_scan((const unsigned char *)eh, len, eh, &c, add_range, &rc);
    qsort(rc.r, rc.n, 2 * sizeof(uint64_t), cmp_range);
    o->nofp = rc.r;
    o->nnofp = rc.n;
}

static int build_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct build_ctx *b = arg;
    b->adds = info->dlpi_adds;
    b->subs = info->dlpi_subs;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || b->t->n == b->cap)
            continue;
        struct obj *o = &b->t->o[b->t->n];
        o->lo = info->dlpi_addr + ph->p_vaddr;
        o->hi = o->lo + ph->p_memsz;
        bool known = false;
        for (unsigned k = 0; b->old && k < b->old->n; k++)
            if (b->old->o[k].lo == o->lo && b->old->o[k].hi == o->hi) {
                *o = b->old->o[k];
                known = true;
                break;
            }
        if (!known) {
            if (info->dlpi_addr == g_own_base) {
                o->kind = K_OWN;
                o->nofp = NULL;
                o->nnofp = 0;
            } else if (g_mode == MODE_AUTO) {
                classify(info, o);
            } else {
                o->kind = K_FP;       /* fp: walked regardless; dwarf: unused */
                o->nofp = NULL;
                o->nnofp = 0;
            }
        }
        b->t->n++;
    }
    return 0;
}

static int count_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    unsigned *n = arg;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD)
            (*n)++;
    return 0;
}

static int own_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (info->dlpi_addr != g_own_base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            g_own_lo = info->dlpi_addr + ph->p_vaddr;
            g_own_hi = g_own_lo + ph->p_memsz;
        }
    }
    return 1;
}

static int cmp_obj(const void *a, const void *b)
{
    const struct obj *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int gen_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    unsigned long long *g = arg;
    g[0] = info->dlpi_adds;
    g[1] = info->dlpi_subs;
    return 1;
}

/* Rebuilds the table when objects were loaded or unloaded since (or it was never built). */
static struct objtab *objs_refresh(void)
{
    struct objtab *old = atomic_load_explicit(&g_objs, memory_order_acquire);
    unsigned long long gen[2] = {0, 0};
    tls_internal++;
    dl_iterate_phdr(gen_cb, gen);
    tls_internal--;
    if (old && old->adds == gen[0] && old->subs == gen[1])
        return old;
    while (atomic_flag_test_and_set_explicit(&g_objs_lock, memory_order_acquire))
        ;
    old = atomic_load_explicit(&g_objs, memory_order_acquire);
    if (!old || old->adds != gen[0] || old->subs != gen[1]) {
        tls_internal++;
        unsigned cap = 0;
        dl_iterate_phdr(count_cb, &cap);
        size_t bytes = sizeof(struct objtab) + (cap + 1) * sizeof(struct obj);
        struct build_ctx b = {old, pl_raw_alloc(bytes), cap + 1, 0, 0};
        if (b.t) {
            b.t->n = 0;
            dl_iterate_phdr(build_cb, &b);
            b.t->adds = gen[0];
            b.t->subs = gen[1];
            qsort(b.t->o, b.t->n, sizeof b.t->o[0], cmp_obj);
            atomic_store_explicit(&g_objs, b.t, memory_order_release);
            old = b.t;      /* the previous table stays mapped: another thread may read it */
        }
        tls_internal--;
    }
    atomic_flag_clear_explicit(&g_objs_lock, memory_order_release);
    return old;
}

/* What kind of code the return address ra is in. */
static int kind_of(uintptr_t ra, const struct objtab **tp)
{
    if (ra >= (uintptr_t)__start_tare_tramp && ra < (uintptr_t)__stop_tare_tramp)
        return K_TRAMP;
    for (int pass = 0; pass < 2; pass++) {
        const struct objtab *t = *tp;
        if (t) {
            unsigned lo = 0, hi = t->n;
            while (lo < hi) {
                unsigned mid = (lo + hi) / 2;
                if (t->o[mid].hi <= ra)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < t->n && ra >= t->o[lo].lo) {
                const struct obj *o = &t->o[lo];
                if (o->kind == K_FP && o->nnofp) {
                    /* the last function range starting at or below ra - 1 */
                    uint64_t a = ra - 1;
                    unsigned l = 0, h = o->nnofp;
                    while (l < h) {
                        unsigned m = (l + h) / 2;
                        if (o->nofp[2 * m] <= a)
                            l = m + 1;
                        else
                            h = m;
                    }
                    if (l > 0 && a < o->nofp[2 * (l - 1) + 1])
                        return K_NOFP;
                }
                return o->kind;
            }
        }
        if (pass == 0)
            *tp = objs_refresh();
    }
    return K_UNKNOWN;
}

/* ---- capture ---------------------------------------------------------------------------- */

struct scope_ent {
    uintptr_t addr;
    unsigned id;
};

static __thread struct scope_ent *tls_sc __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_nsc __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_capsc __attribute__((tls_model("initial-exec")));
static __thread uintptr_t tls_stack_hi __attribute__((tls_model("initial-exec")));
extern void *__libc_stack_end;

struct cap {
    unsigned n;
    bool dwarf;                      /* libunwind made it */
    uint64_t f[STK_MAX + 1];
};

/* The top of the stack sp is on: the thread's TCB (glibc puts it above a thread's stack),
 * or the start of the initial stack; 0 when sp is on neither (a stack of the program's). */
static uintptr_t stack_top(uintptr_t sp)
{
    uintptr_t hi = tls_stack_hi;
    if (likely(hi > sp && hi - sp < ((uintptr_t)1 << 30)))
        return hi;
    uintptr_t tp;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    uintptr_t end = (uintptr_t)__libc_stack_end;
    if (tp > sp && tp - sp < ((uintptr_t)1 << 28))
        hi = tp;
    else if (end > sp && end - sp < ((uintptr_t)1 << 36))
        hi = end;
    else
        return 0;
    tls_stack_hi = hi;
    return hi;
}

static inline void put_frame(struct cap *c, uint64_t f)
{
    if (c->n < STK_MAX)
        c->f[c->n++] = f;
    else if (c->n == STK_MAX)
        c->f[c->n++] = MARK_CUT;
}

/* Scope frames of the scopes at addresses below limit that are not out yet, innermost
 * first; *k counts down the thread's open scopes. */
static inline void put_scopes(struct cap *c, unsigned *k, uintptr_t limit)
{
    while (*k > 0 && tls_sc[*k - 1].addr < limit) {
        put_frame(c, MARK_SCOPE | tls_sc[*k - 1].id);
        (*k)--;
    }
}

/* The frame-pointer walk from the frame fp of a stk_ entry point. Returns 0 when done, 1
 * when it met code without frame pointers in auto mode (libunwind must do it). */
static int walk_fp(struct cap *c, void **fp)
{
    uintptr_t sp = (uintptr_t)fp, hi = stack_top(sp);
    const struct objtab *t = atomic_load_explicit(&g_objs, memory_order_acquire);
    unsigned k = tls_nsc;
    c->n = 0;
    for (;;) {
        uintptr_t ra = (uintptr_t)fp[1], next = (uintptr_t)fp[0];
        int kind = kind_of(ra, &t);
        if (kind == K_TRAMP)
            break;
        bool valid = hi > 16 && next > (uintptr_t)fp && next <= hi - 16 && !(next & 7);
        if (kind == K_NOFP && g_mode == MODE_AUTO && u_backtrace)
            return 1;
        if (kind != K_OWN) {
            put_scopes(c, &k, valid ? next : UINTPTR_MAX);
            put_frame(c, ra);
            if (c->n > STK_MAX)
                return 0;
        }
        if (!valid)
            break;
        fp = (void **)next;
    }
    put_scopes(c, &k, UINTPTR_MAX);
    return 0;
}

/* libunwind's walk: unw_backtrace (its fast, cached path) with no scope open; with scopes,
 * the cursor, which gives each frame's stack pointer to place them by. */
/* K_TRAMP, K_OWN, or K_UNKNOWN for the program's code (libunwind's walk needs no more). */
static inline int own_kind(uintptr_t ra)
{
    if (ra >= (uintptr_t)__start_tare_tramp && ra < (uintptr_t)__stop_tare_tramp)
        return K_TRAMP;
    return ra >= g_own_lo && ra < g_own_hi ? K_OWN : K_UNKNOWN;
}

enum { MAXU = STK_MAX + 16 };

/* libunwind's cursor, with a scope open: it gives each frame's stack pointer, to place the
 * scopes by. */
static __attribute__((noinline)) void walk_dwarf_scoped(struct cap *c)
{
#ifdef HAVE_LIBUNWIND
    {
        unw_context_t uc;
        unw_cursor_t cur;
        uintptr_t ip[MAXU], sp[MAXU + 1];
        unsigned m = 0;
        if (u_getcontext(&uc) == 0 && u_init_local(&cur, &uc) == 0) {
            do {
                unw_word_t a = 0, s = 0;
                u_get_reg(&cur, UNW_REG_IP, &a);
                u_get_reg(&cur, UNW_REG_SP, &s);
                ip[m] = a;
                sp[m] = s;
                m++;
            } while (m < MAXU && u_step(&cur) > 0);
        }
        unsigned k = tls_nsc;
        for (unsigned i = 0; i < m; i++) {
            int kind = own_kind(ip[i]);
            if (kind == K_TRAMP)
                break;
            if (kind == K_OWN)
                continue;
            put_scopes(c, &k, i + 1 < m ? sp[i + 1] : UINTPTR_MAX);
            put_frame(c, ip[i]);
        }
        put_scopes(c, &k, UINTPTR_MAX);
    }
#endif
}

/* libunwind's unw_backtrace, its fast and cached walk. Inlined into every entry point (with
 * capture and record_alloc): each frame of the library's own is one more for libunwind to
 * walk, about a third of a malloc/free loop's stack. */
static inline __attribute__((always_inline)) void walk_dwarf(struct cap *c)
{
    c->n = 0;
    c->dwarf = true;
#ifdef HAVE_LIBUNWIND
    if (tls_nsc > 0 && u_getcontext) {
        walk_dwarf_scoped(c);
        return;
    }
#endif
    void *buf[MAXU];
    int m = u_backtrace ? u_backtrace(buf, MAXU) : 0;
    for (int i = 0; i < m; i++) {
        int kind = own_kind((uintptr_t)buf[i]);
        if (kind == K_TRAMP)
            break;
        if (kind != K_OWN)
            put_frame(c, (uintptr_t)buf[i]);
    }
    if (m == MAXU && c->n <= STK_MAX)
        put_frame(c, MARK_CUT);
}

static inline __attribute__((always_inline)) void capture(struct cap *c, void **fp)
{
    c->dwarf = false;
    if (g_mode == MODE_DWARF && u_backtrace) {
        walk_dwarf(c);
        return;
    }
    if (walk_fp(c, fp))
        walk_dwarf(c);
}

/* ---- the tables --------------------------------------------------------------------------- */

struct srec {
    uint64_t hash;
    uint64_t allocs, bytes, temps;
    int64_t live;        /* requested bytes of its blocks now live */
    int64_t inh;         /* of those, blocks a forked child inherited */
    int64_t snap;        /* live as the peak last moved (valid when snap_ver is the version) */
    uint64_t snap_ver;
    uint32_t n, id;
    uint64_t f[];
};

struct pent {
    uint64_t key;        /* the block's address | epoch << 56; 0: empty */
    uint64_t val;        /* requested size (40 bits) | stack id << 40 */
};

#define SIZE_BITS 40
#define SIZE_MASK ((1ull << SIZE_BITS) - 1)
#define PTR_MASK ((1ull << 56) - 1)

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static struct srec **g_recs;          /* by id; id 0 unused */
static uint32_t g_nrecs, g_recs_cap;  /* ids used (plus one), capacity */
static uint32_t *g_stab;              /* ids by hash; 0 empty */
static uint32_t g_stab_mask;
static char *g_arena;
static size_t g_arena_left;

static struct pent *g_pm;
static uint64_t g_pm_mask, g_pm_n;
static unsigned g_pm_shift;
static struct {
    uint64_t ptr, size;
} *g_big;                             /* blocks of 2^40 bytes or more: their sizes */
static size_t g_nbig, g_capbig;

static int64_t g_live, g_peak;        /* requested bytes: now, and the peak */
static uint64_t g_ver;                /* how many times the peak moved */
static uint64_t g_last;               /* the last block allocated, until the next event */
static uint64_t g_epoch;              /* forks since exec: a block's epoch older is inherited */
static uint64_t g_by_fp, g_by_dwarf;
static bool g_ok;                     /* the tables exist */

static inline void lock(void)
{
    if (!__libc_single_threaded)
        pthread_mutex_lock(&g_mu);
}

static inline void unlock(void)
{
    if (!__libc_single_threaded)
        pthread_mutex_unlock(&g_mu);
}

/* A block's home slot: its address / 16, the bits above the table's folded in. Blocks made
 * one after another are mostly next to each other, and so are their slots: a miss in the
 * table is then rare (a multiplicative hash scattered them, and missed the cache each time). */
static inline uint64_t pm_slot(uint64_t p, unsigned shift)
{
    uint64_t x = p >> 4;
    return (x ^ (x >> shift) ^ (x >> (2 * shift))) & ((1ull << shift) - 1);
}

static inline uint64_t pm_home(uint64_t p)
{
    return pm_slot(p, g_pm_shift);
}

/* A table of the pointer map: huge pages where the kernel gives them (fewer TLB misses). */
static struct pent *pm_alloc(uint64_t n)
{
    struct pent *t = pl_raw_alloc(n * sizeof *t);
    if (t && n * sizeof *t >= (2u << 20))
        madvise(t, n * sizeof *t, MADV_HUGEPAGE);
    return t;
}

static bool tables_init(void)
{
    g_recs_cap = 1024;
    g_recs = pl_raw_alloc(g_recs_cap * sizeof *g_recs);
    g_stab_mask = 4095;
    g_stab = pl_raw_alloc((g_stab_mask + 1) * sizeof *g_stab);
    g_pm_shift = 20;                 /* 16 MiB of address space, touched as it is used */
    g_pm_mask = (1ull << g_pm_shift) - 1;
    g_pm = pm_alloc(g_pm_mask + 1);
    g_nrecs = 1;
    return g_recs && g_stab && g_pm;
}

static uint64_t hash_frames(const uint64_t *f, unsigned n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (unsigned i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

static bool stab_grow(void)
{
    uint32_t mask = g_stab_mask * 2 + 1;
    uint32_t *s = pl_raw_alloc(((size_t)mask + 1) * sizeof *s);
    if (!s)
        return false;
    for (uint32_t id = 1; id < g_nrecs; id++) {
        uint32_t i = (uint32_t)g_recs[id]->hash & mask;
        while (s[i])
            i = (i + 1) & mask;
        s[i] = id;
    }
    pl_raw_free(g_stab, ((size_t)g_stab_mask + 1) * sizeof *g_stab);
    g_stab = s;
    g_stab_mask = mask;
    return true;
}

static struct srec *rec_new(const uint64_t *f, unsigned n, uint64_t h)
{
    size_t need = (sizeof(struct srec) + n * sizeof(uint64_t) + 15) & ~(size_t)15;
    if (g_nrecs >= MAX_RECS)
        return NULL;
    if (g_nrecs == g_recs_cap) {
        struct srec **r = pl_raw_alloc(2 * (size_t)g_recs_cap * sizeof *r);
        if (!r)
            return NULL;
        memcpy(r, g_recs, g_recs_cap * sizeof *r);
        pl_raw_free(g_recs, g_recs_cap * sizeof *r);
        g_recs = r;
        g_recs_cap *= 2;
    }
    if ((g_nrecs + 1) * 2 > g_stab_mask + 1 && !stab_grow())
        return NULL;
    if (g_arena_left < need) {
        size_t chunk = need > (1u << 22) ? need : (1u << 22);
        g_arena = pl_raw_alloc(chunk);
        if (!g_arena) {
            g_arena_left = 0;
            return NULL;
        }
        g_arena_left = chunk;
    }
    struct srec *r = (struct srec *)g_arena;
    g_arena += need;
    g_arena_left -= need;
    memset(r, 0, sizeof *r);
    r->hash = h;
    r->n = n;
    r->id = g_nrecs;
    r->snap_ver = g_ver;
    memcpy(r->f, f, n * sizeof *f);
    g_recs[g_nrecs++] = r;
    uint32_t i = (uint32_t)h & g_stab_mask;
    while (g_stab[i])
        i = (i + 1) & g_stab_mask;
    g_stab[i] = r->id;
    return r;
}

/* The record of the stack f[0..n), made on first sight; past the limits, the record of
 * the one-frame stack MARK_MANY. */
static struct srec *rec_get(const uint64_t *f, unsigned n)
{
    uint64_t h = hash_frames(f, n);
    for (uint32_t i = (uint32_t)h & g_stab_mask;; i = (i + 1) & g_stab_mask) {
        uint32_t id = g_stab[i];
        if (!id)
            break;
        struct srec *r = g_recs[id];
        if (r->hash == h && r->n == n) {
            unsigned k = 0;          /* a loop: most stacks are short, memcmp's call is not */
            while (k < n && r->f[k] == f[k])
                k++;
            if (k == n)
                return r;
        }
    }
    struct srec *r = rec_new(f, n, h);
    if (r || (n == 1 && f[0] == MARK_MANY))
        return r;
    static const uint64_t many = MARK_MANY;
    return rec_get(&many, 1);
}

static bool pm_grow(void)
{
    unsigned shift = g_pm_shift + 1;
    uint64_t mask = (1ull << shift) - 1;
    struct pent *t = pm_alloc(mask + 1);
    if (!t)
        return false;
    for (uint64_t i = 0; i <= g_pm_mask; i++) {
        if (!g_pm[i].key)
            continue;
        uint64_t j = pm_slot(g_pm[i].key & PTR_MASK, shift);
        while (t[j].key)
            j = (j + 1) & mask;
        t[j] = g_pm[i];
    }
    pl_raw_free(g_pm, (g_pm_mask + 1) * sizeof *g_pm);
    g_pm = t;
    g_pm_mask = mask;
    g_pm_shift = shift;
    return true;
}

/* Removes the entry at slot i, shifting the entries after it back (no tombstones). */
static void pm_delete_at(uint64_t i)
{
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & g_pm_mask;
        if (!g_pm[j].key)
            break;
        uint64_t k = pm_home(g_pm[j].key & PTR_MASK);
        /* j's entry may move to i when its home is not in (i, j] (cyclically) */
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            g_pm[i] = g_pm[j];
            i = j;
        }
    }
    g_pm[i].key = 0;
}

static uint64_t big_take(uint64_t p)
{
    for (size_t i = 0; i < g_nbig; i++)
        if (g_big[i].ptr == p) {
            uint64_t s = g_big[i].size;
            g_big[i] = g_big[--g_nbig];
            return s;
        }
    return SIZE_MASK;
}

/* Takes the block p out of the map: its size and record, or false when it is not there. */
static bool pm_take(uint64_t p, uint64_t *size, struct srec **r, bool *inherited)
{
    for (uint64_t i = pm_home(p);; i = (i + 1) & g_pm_mask) {
        uint64_t key = g_pm[i].key;
        if (!key)
            return false;
        if ((key & PTR_MASK) != p)
            continue;
        uint64_t v = g_pm[i].val;
        *size = v & SIZE_MASK;
        *r = g_recs[v >> SIZE_BITS];
        *inherited = (key >> 56) != (g_epoch & 0xff);
        pm_delete_at(i);
        g_pm_n--;
        if (*size == SIZE_MASK)
            *size = big_take(p);
        return true;
    }
}

static inline void snap(struct srec *r)
{
    if (r->snap_ver != g_ver) {
        r->snap = r->live;
        r->snap_ver = g_ver;
    }
}

/* The accounting of a block that is no longer live (freed, or moved by realloc). */
static void gone(uint64_t p, uint64_t size, struct srec *r, bool inherited)
{
    snap(r);
    r->live -= (int64_t)size;
    if (inherited)
        r->inh -= (int64_t)size;
    g_live -= (int64_t)size;
    if (p == g_last)
        r->temps++;
    g_last = 0;
}

static void ev_free(uint64_t p)
{
    uint64_t size;
    struct srec *r;
    bool inh;
    if (pm_take(p, &size, &r, &inh))
        gone(p, size, r, inh);
}

static void ev_alloc(const struct cap *c, uint64_t p, uint64_t n)
{
    struct srec *r = rec_get(c->f, c->n);
    if (!r)
        return;
    if (c->dwarf)
        g_by_dwarf++;
    else
        g_by_fp++;
    snap(r);
    r->allocs++;
    r->bytes += n;
    r->live += (int64_t)n;
    g_live += (int64_t)n;
    if (g_live > g_peak) {
        g_peak = g_live;
        g_ver++;
    }
    g_last = p;
    if ((g_pm_n + 1) * 2 > g_pm_mask + 1 && !pm_grow())
        return;
    uint64_t i = pm_home(p);
    for (;; i = (i + 1) & g_pm_mask) {
        uint64_t key = g_pm[i].key;
        if (!key)
            break;
        if ((key & PTR_MASK) == p) {        /* a block whose release was never seen */
            uint64_t v = g_pm[i].val, size = v & SIZE_MASK;
            struct srec *o = g_recs[v >> SIZE_BITS];
            if (size == SIZE_MASK)
                size = big_take(p);
            snap(o);
            o->live -= (int64_t)size;
            if ((key >> 56) != (g_epoch & 0xff))
                o->inh -= (int64_t)size;
            g_live -= (int64_t)size;
            g_pm_n--;
            break;
        }
    }
    uint64_t sz = n;
    if (n >= SIZE_MASK) {
        if (g_nbig == g_capbig) {
            size_t cap = g_capbig ? g_capbig * 2 : 64;
            void *nb = pl_raw_alloc(cap * sizeof *g_big);
            if (nb && g_big)
                memcpy(nb, g_big, g_nbig * sizeof *g_big);
            if (nb) {
                if (g_big)
                    pl_raw_free(g_big, g_capbig * sizeof *g_big);
                g_big = nb;
                g_capbig = cap;
            }
        }
        if (g_nbig < g_capbig) {
            g_big[g_nbig].ptr = p;
            g_big[g_nbig].size = n;
            g_nbig++;
        }
        sz = SIZE_MASK;
    }
    g_pm[i].key = p | (g_epoch & 0xff) << 56;
    g_pm[i].val = sz | (uint64_t)r->id << SIZE_BITS;
    g_pm_n++;
}

/* ---- the entry points ------------------------------------------------------------------- */

static inline __attribute__((always_inline)) void record_alloc(void **fp, void *p, size_t n)
{
    struct cap c;
    tls_internal++;
    capture(&c, fp);
    tls_internal--;
    lock();
    ev_alloc(&c, (uint64_t)p, n);
    unlock();
}

static void record_free(void *p)
{
    lock();
    ev_free((uint64_t)p);
    unlock();
}

void *stk_malloc(size_t n)
{
    void **fp = __builtin_frame_address(0);
    void *p = R.malloc(n);
    if (likely(p != NULL) && !tls_internal) {
        pl_count_alloc(p, n);
        record_alloc(fp, p, n);
    }
    return p;
}

void *stk_calloc(size_t n, size_t m)
{
    void **fp = __builtin_frame_address(0);
    size_t t;
    if (__builtin_mul_overflow(n, m, &t)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p;
    if (R.calloc) {
        p = R.calloc(n, m);
    } else {
        p = R.malloc(t);
        if (p)
            memset(p, 0, t);
    }
    if (likely(p != NULL) && !tls_internal) {
        pl_count_alloc(p, t);
        record_alloc(fp, p, t);
    }
    return p;
}

void stk_free(void *p)
{
    if (!tls_internal) {
        size_t u = pl_usable(p);
        record_free(p);      /* before the block can be handed out again */
        pl_count_free(u);
    }
    R.free(p);
}

void *stk_realloc(void *p, size_t n)
{
    void **fp = __builtin_frame_address(0);
    if (tls_internal)
        return R.realloc(p, n);
    if (p == NULL) {
        void *q = R.malloc(n);
        if (q) {
            pl_count_alloc(q, n);
            record_alloc(fp, q, n);
        }
        return q;
    }
    size_t old = pl_usable(p);
    uint64_t size = 0;
    struct srec *r = NULL;
    bool inh = false, had;
    lock();                  /* out of the map before realloc can hand p to another thread */
    had = pm_take((uint64_t)p, &size, &r, &inh);
    unlock();
    void *q = R.realloc(p, n);
    if (q == NULL && n != 0) {               /* failed: p is untouched, put it back */
        if (had) {
            lock();
            uint64_t i = pm_home((uint64_t)p);
            while (g_pm[i].key)
                i = (i + 1) & g_pm_mask;
            g_pm[i].key = (uint64_t)p | (inh ? (g_epoch - 1) & 0xff : g_epoch & 0xff) << 56;
            g_pm[i].val = (size >= SIZE_MASK ? SIZE_MASK : size) | (uint64_t)r->id << SIZE_BITS;
            g_pm_n++;
            unlock();
        }
        return NULL;
    }
    if (had) {
        lock();
        gone((uint64_t)p, size, r, inh);
        unlock();
    }
    if (q == NULL) {                         /* realloc(p, 0) freed it */
        pl_count_free(old);
        return NULL;
    }
    pl_count_realloc(n, old, q);
    record_alloc(fp, q, n);
    return q;
}

static void *aligned_common(void **fp, void *p, size_t n)
{
    if (p && !tls_internal) {
        pl_count_alloc(p, n);
        record_alloc(fp, p, n);
    }
    return p;
}

int stk_posix_memalign(void **out, size_t align, size_t n)
{
    void **fp = __builtin_frame_address(0);
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
        aligned_common(fp, *out, n);
    return rc;
}

void *stk_aligned_alloc(size_t align, size_t n)
{
    void **fp = __builtin_frame_address(0);
    void *p = R.aligned_alloc ? R.aligned_alloc(align, n) : pl_next_memalign(align, n);
    return aligned_common(fp, p, n);
}

void *stk_memalign(size_t align, size_t n)
{
    void **fp = __builtin_frame_address(0);
    return aligned_common(fp, pl_next_memalign(align, n), n);
}

void *stk_valloc(size_t n)
{
    void **fp = __builtin_frame_address(0);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = R.valloc ? R.valloc(n) : pl_next_memalign(page, n);
    return aligned_common(fp, p, n);
}

void *stk_pvalloc(size_t n)
{
    void **fp = __builtin_frame_address(0);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p =
        R.pvalloc ? R.pvalloc(n) : pl_next_memalign(page, n ? (n + page - 1) & ~(page - 1) : page);
    return aligned_common(fp, p, n);
}

/* ---- scopes ---------------------------------------------------------------------------- */

void stk_scope_push(const void *addr, unsigned site_id)
{
    if (g_mode == MODE_OFF)
        return;
    if (tls_nsc == tls_capsc) {
        unsigned cap = tls_capsc ? tls_capsc * 2 : 256;
        struct scope_ent *s = pl_raw_alloc(cap * sizeof *s);
        if (!s)
            return;
        if (tls_sc) {
            memcpy(s, tls_sc, tls_nsc * sizeof *s);
            pl_raw_free(tls_sc, tls_capsc * sizeof *s);
        }
        tls_sc = s;
        tls_capsc = cap;
    }
    tls_sc[tls_nsc].addr = (uintptr_t)addr;
    tls_sc[tls_nsc].id = site_id;
    tls_nsc++;
}

void stk_scope_pop(const void *addr)
{
    for (unsigned k = tls_nsc; k > 0; k--)
        if (tls_sc[k - 1].addr == (uintptr_t)addr) {
            tls_nsc = k - 1;
            return;
        }
}

/* ---- main and threads start from a trampoline ------------------------------------------ */

typedef int (*main_fn)(int, char **, char **);
static main_fn g_main;

static __attribute__((section("tare_tramp"), noinline, used)) int main_tramp(int argc, char **argv,
                                                                         char **envp)
{
    int r = g_main(argc, argv, envp);
    __asm__ volatile("" : "+r"(r));       /* not a tail call: this frame ends every stack */
    return r;
}

struct tcell {
    void *(*fn)(void *);
    void *arg;
    struct tcell *next;
};

static struct tcell *g_cells;
static atomic_flag g_cells_lock = ATOMIC_FLAG_INIT;

static __attribute__((section("tare_tramp"), noinline, used)) void *thread_tramp(void *x)
{
    struct tcell *c = x;
    void *(*fn)(void *) = c->fn;
    void *arg = c->arg;
    while (atomic_flag_test_and_set_explicit(&g_cells_lock, memory_order_acquire))
        ;
    c->next = g_cells;
    g_cells = c;
    atomic_flag_clear_explicit(&g_cells_lock, memory_order_release);
    void *r = fn(arg);
    __asm__ volatile("" : "+r"(r));
    return r;
}

/* glibc's start of a program (no header declares it): _start calls it with main. */
EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                             void (*fini)(void), void (*rtld_fini)(void), void *stack_end);

EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                             void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    int (*real)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *) =
        (int (*)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
                 void *))dlsym(RTLD_NEXT, "__libc_start_main");
    if (g_mode != MODE_OFF) {
        g_main = main;
        main = main_tramp;
    }
    return real(main, argc, argv, init, fini, rtld_fini, stack_end);
}

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real)
        real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(
            RTLD_NEXT, "pthread_create");
    if (g_mode == MODE_OFF)
        return real(t, attr, fn, arg);
    while (atomic_flag_test_and_set_explicit(&g_cells_lock, memory_order_acquire))
        ;
    struct tcell *c = g_cells;
    if (!c) {
        enum { N = 4096 / sizeof(struct tcell) };
        struct tcell *block = pl_raw_alloc(N * sizeof *block);
        for (unsigned i = 0; block && i < N; i++) {
            block[i].next = g_cells;
            g_cells = &block[i];
        }
        c = g_cells;
    }
    if (c)
        g_cells = c->next;
    atomic_flag_clear_explicit(&g_cells_lock, memory_order_release);
    if (!c)
        return real(t, attr, fn, arg);
    c->fn = fn;
    c->arg = arg;
    int rc = real(t, attr, thread_tramp, c);
    if (rc != 0) {
        while (atomic_flag_test_and_set_explicit(&g_cells_lock, memory_order_acquire))
            ;
        c->next = g_cells;
        g_cells = c;
        atomic_flag_clear_explicit(&g_cells_lock, memory_order_release);
    }
    return rc;
}

/* ---- start-up, fork, the report ---------------------------------------------------------- */

bool stk_init(void)
{
    const char *s = getenv("TARE_ALLOC_STACKS");
    if (!s || !s[0] || strcmp(s, "0") == 0)
        return false;
    g_mode = strcmp(s, "fp") == 0 ? MODE_FP : strcmp(s, "dwarf") == 0 ? MODE_DWARF : MODE_AUTO;
    Dl_info self;
    if (dladdr((void *)stk_init, &self))
        g_own_base = (uintptr_t)self.dli_fbase;
    dl_iterate_phdr(own_cb, NULL);
    if (g_mode != MODE_FP)
        load_libunwind();
    if (!tables_init()) {
        g_mode = MODE_OFF;
        return false;
    }
    g_ok = true;
    return true;
}

/* After fork, in the child (and after a failed exec): what follows is counted afresh; the
 * blocks live now are the earlier image's (inherited: not this process's leaks). */
static void restart_counts(void)
{
    for (uint32_t id = 1; id < g_nrecs; id++) {
        struct srec *r = g_recs[id];
        r->allocs = r->bytes = r->temps = 0;
        r->inh = r->live;
    }
    g_epoch++;
    g_peak = g_live;
    g_ver++;
    g_last = 0;
    g_by_fp = g_by_dwarf = 0;
}

void stk_fork_prepare(void)
{
    if (g_ok)
        pthread_mutex_lock(&g_mu);
}

void stk_fork_parent(void)
{
    if (g_ok)
        pthread_mutex_unlock(&g_mu);
}

void stk_fork_child(void)
{
    if (!g_ok)
        return;
    /* Threads of the parent that held a lock do not exist here. */
    pthread_mutex_init(&g_mu, NULL);
    atomic_flag_clear(&g_objs_lock);
    atomic_flag_clear(&g_cells_lock);
    restart_counts();
}

void stk_exec_failed(void)
{
    if (!g_ok)
        return;
    lock();
    restart_counts();
    unlock();
}

static bool g_report_locked;

/* The tables held still while the report reads them. Not forever: exit from a signal handler
 * that interrupted this very thread inside the tables would wait for itself; after a while
 * the report reads them as they are. */
void stk_report_lock(void)
{
    g_report_locked = false;
    if (!g_ok || __libc_single_threaded)
        return;
    for (int i = 0; i < 100000; i++) {
        if (pthread_mutex_trylock(&g_mu) == 0) {
            g_report_locked = true;
            return;
        }
        sched_yield();
    }
}

void stk_report_unlock(void)
{
    if (g_report_locked)
        pthread_mutex_unlock(&g_mu);
    g_report_locked = false;
}

static const char *mode_name(void)
{
    return g_mode == MODE_FP ? "fp" : g_mode == MODE_DWARF ? "dwarf" : "auto";
}

/* /proc/self/maps, read whole into raw memory (*cap bytes mapped); NULL on failure. */
static char *read_maps(size_t *len, size_t *cap)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t c = 1 << 16, n = 0;
    char *b = pl_raw_alloc(c);
    while (b) {
        ssize_t r = read(fd, b + n, c - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n == c) {
            char *nb = pl_raw_alloc(2 * c);
            if (nb)
                memcpy(nb, b, n);
            pl_raw_free(b, c);
            b = nb;
            c *= 2;
        }
    }
    close(fd);
    *len = n;
    *cap = c;
    return b;
}

static uint64_t parse_hex(const char **s, const char *end)
{
    uint64_t v = 0;
    for (; *s < end; (*s)++) {
        char ch = **s;
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (d < 0)
            break;
        v = v * 16 + (uint64_t)d;
    }
    return v;
}

/* The executable mappings of /proc/self/maps as map lines (or only counted: out NULL). */
static unsigned put_maps(struct buf *b, long pid, const char *m, size_t len)
{
    unsigned count = 0;
    for (const char *p = m, *end = m + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *s = p;
        p = nl ? nl + 1 : end;
        uint64_t lo = parse_hex(&s, le);
        if (s >= le || *s++ != '-')
            continue;
        uint64_t hi = parse_hex(&s, le);
        if (le - s < 6 || s[0] != ' ' || s[3] != 'x')     /* " r-xp " */
            continue;
        s += 6;
        uint64_t off = parse_hex(&s, le);
        while (s < le && *s == ' ')
            s++;
        while (s < le && *s != ' ')                 /* dev */
            s++;
        while (s < le && *s == ' ')
            s++;
        uint64_t inode = 0;
        for (; s < le && *s >= '0' && *s <= '9'; s++)
            inode = inode * 10 + (uint64_t)(*s - '0');
        while (s < le && *s == ' ')
            s++;
        char path[4096];
        size_t pl = (size_t)(le - s) < sizeof path - 1 ? (size_t)(le - s) : sizeof path - 1;
        memcpy(path, s, pl);
        path[pl] = '\0';
        count++;
        if (!b)
            continue;
        buf_puts(b, "tare-alloc-map 1");
        buf_kv(b, "pid", (uint64_t)pid);
        buf_puts(b, " start=");
        buf_putx(b, lo);
        buf_puts(b, " end=");
        buf_putx(b, hi);
        buf_puts(b, " offset=");
        buf_putx(b, off);
        buf_kv(b, "inode", inode);
        buf_puts(b, " path=");
        buf_enc(b, path);
        buf_put(b, "\n", 1);
    }
    return count;
}

static char *g_maps;
static size_t g_maps_len, g_maps_cap;

static bool rec_reported(const struct srec *r)
{
    return r->allocs || r->live || (r->snap_ver == g_ver && r->snap);
}

void stk_report_fields(struct buf *b)
{
    if (!g_ok)
        return;
    if (!g_maps)
        g_maps = read_maps(&g_maps_len, &g_maps_cap);
    unsigned nstk = 0;
    for (uint32_t id = 1; id < g_nrecs; id++)
        nstk += rec_reported(g_recs[id]);
    buf_kv(b, "stacks", nstk);
    buf_kv(b, "maps", g_maps ? put_maps(NULL, 0, g_maps, g_maps_len) : 0);
    buf_kv(b, "sites", pl_nsites());
    buf_puts(b, " unwind=");
    buf_puts(b, mode_name());
    buf_puts(b, u_backtrace ? " unwinder=libunwind" : " unwinder=none");
    buf_kv(b, "by_fp", g_by_fp);
    buf_kv(b, "by_dwarf", g_by_dwarf);
    buf_kv(b, "peak_requested", (uint64_t)(g_peak > 0 ? g_peak : 0));
}

void stk_report_lines(struct buf *b, long pid)
{
    if (!g_ok)
        return;
    if (g_maps)
        put_maps(b, pid, g_maps, g_maps_len);
    for (unsigned i = 1; i <= pl_nsites(); i++) {
        buf_puts(b, "tare-alloc-site 1");
        buf_kv(b, "pid", (uint64_t)pid);
        buf_kv(b, "id", i);
        buf_puts(b, " label=");
        buf_enc(b, pl_site_label(i));
        buf_put(b, "\n", 1);
    }
    for (uint32_t id = 1; id < g_nrecs; id++) {
        const struct srec *r = g_recs[id];
        if (!rec_reported(r))
            continue;
        buf_puts(b, "tare-alloc-stack 1");
        buf_kv(b, "pid", (uint64_t)pid);
        buf_kv(b, "allocations", r->allocs);
        buf_kv(b, "bytes", r->bytes);
        buf_kv(b, "temporaries", r->temps);
        buf_kv(b, "peak_bytes", (uint64_t)(r->snap_ver == g_ver ? r->snap : r->live));
        buf_kv(b, "leaked_bytes", (uint64_t)(r->live - r->inh));
        buf_puts(b, " frames=");
        for (unsigned k = 0; k < r->n; k++) {
            if (k)
                buf_put(b, ",", 1);
            uint64_t f = r->f[k];
            if ((f & 0xffff000000000000ull) == MARK_SCOPE) {
                buf_put(b, "s", 1);
                buf_putu(b, f & 0xffffffffull);
            } else if (f == MARK_CUT) {
                buf_put(b, "cut", 3);
            } else if (f == MARK_MANY) {
                buf_put(b, "many", 4);
            } else {
                buf_putx(b, f);
            }
        }
        buf_put(b, "\n", 1);
    }
}

void stk_report_done(void)
{
    if (g_maps) {
        pl_raw_free(g_maps, g_maps_cap);
        g_maps = NULL;
    }
}
