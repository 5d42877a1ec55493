/* unwind_speed.c: the cost of taking one call stack by each candidate of libtare-alloc's stack
 * recording, at two depths: a frame-pointer walk (this file's own, as stacks.c does it),
 * libunwind's unw_backtrace (dlopen'd, its per-thread cache on, as stacks.c loads it) and
 * glibc's backtrace. Built with frame pointers so that all three can walk it.
 * Usage: unwind_speed CALLS (prints one line per candidate and depth, the best of 5 rounds). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *buf[256];
static int (*u_backtrace)(void **, int);
static int mode;

static int fp_walk(void **out, int max)
{
    void **fp = __builtin_frame_address(0);
    int n = 0;
    while (fp && n < max) {
        out[n++] = fp[1];
        void **next = fp[0];
        if (next <= fp)
            break;
        fp = next;
    }
    return n;
}

__attribute__((noinline)) static int leaf(void)
{
    switch (mode) {
    case 0: return fp_walk(buf, 256);
    case 1: return u_backtrace(buf, 256);
    default: return backtrace(buf, 256);
    }
}

__attribute__((noinline)) static int rec(int d)
{
    if (d == 0)
        return leaf();
    int r = rec(d - 1);
    __asm__ volatile("" : "+r"(r));
    return r;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 200000;
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h) {
        u_backtrace = (int (*)(void **, int))dlsym(h, "unw_backtrace");
        int (*policy)(void *, int) = (int (*)(void *, int))dlsym(h, "_ULx86_64_set_caching_policy");
        void **as = dlsym(h, "_ULx86_64_local_addr_space");
        if (policy && as)
            policy(*as, 2);                        /* UNW_CACHE_PER_THREAD */
    }
    static const char *const names[] = {"frame pointers", "libunwind unw_backtrace",
                                        "glibc backtrace"};
    static const int depths[] = {5, 30};
    for (mode = 0; mode < 3; mode++) {
        if (mode == 1 && !u_backtrace) {
            printf("%-24s  not found (Debian's libunwind8)\n", names[mode]);
            continue;
        }
        for (int di = 0; di < 2; di++) {
            long n = mode == 2 ? calls / 20 : calls;     /* glibc's is 20x slower */
            int frames = rec(depths[di]);                /* warm: caches filled */
            double t = 1e9;
            for (int rep = 0; rep < 5; rep++) {          /* the best of 5: the least disturbed */
                double t0 = now();
                for (long i = 0; i < n; i++)
                    frames = rec(depths[di]);
                double d = now() - t0;
                if (d < t)
                    t = d;
            }
            printf("%-24s  %3d frames  %8.1f ns a stack  %6.2f ns a frame\n", names[mode],
                   frames, t / (double)n * 1e9, t / (double)n * 1e9 / frames);
        }
    }
    return 0;
}
