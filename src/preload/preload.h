/* preload.h: what the counting allocator (alloc.c) and its stack recording (stacks.c) share
 * inside libtare-alloc.so. Everything here has hidden visibility (-fvisibility=hidden). */
#ifndef TARE_PRELOAD_H
#define TARE_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The next allocator's entry points (dlsym RTLD_NEXT), resolved at the first call. */
struct real {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    size_t (*usable)(void *);
    int (*execve)(const char *, char *const[], char *const[]);
    int (*execvpe)(const char *, char *const[], char *const[]);
    int (*fexecve)(int, char *const[], char *const[]);
    void (*exit_)(int) __attribute__((noreturn));
    void (*Exit_)(int) __attribute__((noreturn));
};
extern struct real R;

/* Set while the library makes calls of its own that may allocate (dlopen, the unwinder):
 * the wrappers then forward without counting. */
extern __thread int tls_internal __attribute__((tls_model("initial-exec")));

/* Memory for the library's own bookkeeping: straight from mmap, never counted. */
void *pl_raw_alloc(size_t n);
void pl_raw_free(void *p, size_t n);

/* The plain counters of one allocation of n bytes at p, and of one release of a block of
 * usable size u; the next allocator's usable size of p. */
void pl_count_alloc(void *p, size_t n);
void pl_count_free(size_t u);
void pl_count_realloc(size_t n, size_t old_usable, void *q);
size_t pl_usable(void *p);
/* An aligned block from whichever aligned entry point the next allocator has. */
void *pl_next_memalign(size_t align, size_t n);
/* The scope sites numbered so far (ids 1..pl_nsites()), and one's label. */
unsigned pl_nsites(void);
const char *pl_site_label(unsigned id);

/* A report under construction: measured in a first pass (p NULL), written in a second. */
struct buf {
    char *p;
    size_t len, cap;
};
void buf_put(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putu(struct buf *b, uint64_t v);
void buf_putx(struct buf *b, uint64_t v);
void buf_kv(struct buf *b, const char *key, uint64_t v);
void buf_enc(struct buf *b, const char *s);

/* ---- stack recording (stacks.c): on only when TARE_ALLOC_STACKS names a mode ---------- */

/* Reads TARE_ALLOC_STACKS at start-up: true when stacks are recorded from now on. */
bool stk_init(void);
/* The entry points in stack mode; the wrappers tail-call them, so that their return address
 * is the program's call site. */
void *stk_malloc(size_t n);
void *stk_calloc(size_t n, size_t m);
void *stk_realloc(void *p, size_t n);
void stk_free(void *p);
int stk_posix_memalign(void **out, size_t align, size_t n);
void *stk_aligned_alloc(size_t align, size_t n);
void *stk_memalign(size_t align, size_t n);
void *stk_valloc(size_t n);
void *stk_pvalloc(size_t n);
/* The report: the tables held still (lock), its extra fields (on its first line) and lines
 * (after the scope lines), written twice (measured, then filled), then done. */
void stk_report_lock(void);
void stk_report_fields(struct buf *b);
void stk_report_lines(struct buf *b, long pid);
void stk_report_unlock(void);
void stk_report_done(void);
/* A forked child, or a failed exec: counts start again, the blocks live then are marked as
 * the earlier image's. */
void stk_fork_prepare(void);
void stk_fork_parent(void);
void stk_fork_child(void);
void stk_exec_failed(void);
/* A scope opened or closed on this thread (the scope runtime in alloc.c calls these). */
void stk_scope_push(const void *addr, unsigned site_id);
void stk_scope_pop(const void *addr);

#endif
