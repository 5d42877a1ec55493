/* bench/cg_lex_speed.c: the callgrind reader's first pass (src/core/profile/cg_lex.c) alone, on one
 * profile, against the floor of any reader of lines: counting the newline bytes of the same
 * mapped bytes, sixteen at a time (what `wc -l` does, less its read()). The whole read (`tare cg
 * top`) is timed by bench_cg.sh; this times what most of its CPU goes to, with nothing else in the
 * way, so that a change to the lexer can be judged to a percent or two, which the whole read on a
 * shared machine cannot.
 *
 * The file's body is cut as the reader cuts it with more than three threads (ranges of 256
 * KiB, each after the first beginning at a 'fn=' line, lexed from what is known there:
 * nothing pending, no subposition; with fewer threads the reader's ranges are twice as long,
 * which the lexer alone does not notice) and lexed in passes: the first pass of the process
 * on its own (its caches, branch predictors and buffers are cold, as in every run of tare),
 * then the best of the others; and by several threads at once, each every n-th range.
 *
 * usage: cg_lex_speed PROFILE [PASSES]   (PASSES: 15 by default) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/profile/cg_lex.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define CHUNK (256u << 10)
#define MAX_THREADS 8

static double now_ms(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The newline bytes of [s, end). */
static unsigned long count_newlines(const char *s, const char *end)
{
    unsigned long n = 0;
#ifdef __SSE2__
    /* a byte counter per lane (a match is -1, subtracted), summed by psadbw every 255 blocks
     * before it can wrap: no popcount, which without -mpopcnt is a call into libgcc per block
     * (it made this floor 20% slower than it is) */
    const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    while (end - s >= 16) {
        __m128i acc = zero;
        for (int k = 0; k < 255 && end - s >= 16; k++, s += 16)
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)s), nl));
        __m128i sum = _mm_sad_epu8(acc, zero);
        n += (unsigned long)_mm_cvtsi128_si64(sum) +
             (unsigned long)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum));
    }
#endif
    for (; s < end; s++)
        n += *s == '\n';
    return n;
}

static const char **starts;     /* range k is [starts[k], starts[k + 1]) */
static size_t nranges;
static struct lex_state first_state, later_state;
static unsigned long left_over;     /* lines left to the second pass (last pass of one thread) */

/* The header's positions and events, and where the body begins (the first line after the
 * 'events:' line that is not "key: value"); NULL: not a profile this can read. */
static const char *read_header(const char *s, const char *end)
{
    struct lex_state st = {.npos = 1, .line_pos = 0, .have_events = false, .next = NEXT_SELF};
    while (s < end) {
        const char *nl = memchr(s, '\n', end - s);
        if (!nl)
            return NULL;
        const char *colon = memchr(s, ':', nl - s), *eq = memchr(s, '=', nl - s);
        bool header = colon && (!eq || colon < eq);
        if (!header && st.have_events && s < nl && *s != '#') {
            for (int i = 0; i < 3; i++)
                st.known[i] = true;
            first_state = later_state = st;
            memset(later_state.known, 0, sizeof later_state.known);
            return s;
        }
        if (header && (strncmp(s, "positions:", 10) == 0 || strncmp(s, "events:", 7) == 0)) {
            bool pos = *s == 'p';
            int n = 0, line_at = -1;
            for (const char *w = colon + 1; w < nl;) {
                while (w < nl && (*w == ' ' || *w == '\t'))
                    w++;
                const char *e = w;
                while (e < nl && *e != ' ' && *e != '\t' && *e != '\r')
                    e++;
                if (e > w) {
                    if (e - w == 4 && memcmp(w, "line", 4) == 0)
                        line_at = n;
                    n++;
                }
                w = e + (e < nl);
            }
            if (pos) {
                st.npos = n;
                st.line_pos = line_at;
            } else {
                st.ncol = n;
                st.have_events = n > 0;
            }
        }
        s = nl + 1;
    }
    return NULL;
}

static bool cut(const char *body, const char *end)
{
    size_t cap = (end - body) / CHUNK + 2;
    if (!(starts = malloc(cap * sizeof *starts)))
        return false;
    const char *p = body;
    while (p < end) {
        starts[nranges++] = p;
        if ((size_t)(end - p) < CHUNK + CHUNK / 2)
            break;
        const char *q = memmem(p + CHUNK - 1, end - (p + CHUNK - 1), "\nfn=", 4);
        if (!q)
            break;
        p = q + 1;
    }
    starts[nranges] = end;
    return true;
}

/* Lexes range k; false: the lexer found an error. A line left to the second pass (a header
 * line such as 'totals:') is skipped; a range whose lexer needed a subposition it could not
 * know is lexed again from the state this thread's range before left (the reader would take
 * the exact state; for timing, any known one does). */
static bool lex_one(size_t k, struct lex_result *res, struct lex_state *after, unsigned long *ops)
{
    const char *s = starts[k], *end = starts[k + 1];
    struct lex_state in = k == 0 ? first_state : later_state;
    for (;;) {
        lex_range(s, end, &in, res);
        if (res->unsure && k > 0 && !in.known[0]) {
            in = *after;
            continue;
        }
        if (res->failed || res->nomem || res->unsure) {
            fprintf(stderr, "cg_lex_speed: range %zu: %s\n", k,
                    res->nomem ? "out of memory" : res->unsure ? "subpositions unknown" : res->msg);
            return false;
        }
        *ops += res->nops;
        *after = res->state;
        if (!res->stop)
            return true;
        const char *nl = memchr(res->stop, '\n', end - res->stop);
        __atomic_add_fetch(&left_over, 1, __ATOMIC_RELAXED);
        s = nl + 1;
        in = res->state;
        if (s == end)
            return true;
    }
}

struct worker {
    pthread_t th;
    int w, n;
    double cpu_ms;
    unsigned long ops;
    bool ok;
};

static void *lex_every_nth(void *arg)
{
    struct worker *wk = arg;
    struct lex_result res = {0};
    struct lex_state after = first_state;
    double c0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
    wk->ok = true;
    wk->ops = 0;
    for (size_t k = wk->w; k < nranges && wk->ok; k += wk->n)
        wk->ok = lex_one(k, &res, &after, &wk->ops);
    wk->cpu_ms = now_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
    lex_result_free(&res);
    return NULL;
}

/* One pass with n threads: its wall time; *cpu: the threads' CPU time. */
static double pass(int n, double *cpu, unsigned long *ops)
{
    struct worker wk[MAX_THREADS];
    double t0 = now_ms(CLOCK_MONOTONIC);
    for (int i = 0; i < n; i++) {
        wk[i] = (struct worker){.w = i, .n = n};
        if (n == 1)
            lex_every_nth(&wk[i]);
        else if (pthread_create(&wk[i].th, NULL, lex_every_nth, &wk[i]) != 0) {
            fprintf(stderr, "cg_lex_speed: cannot start a thread\n");
            exit(1);
        }
    }
    for (int i = 0; i < n && n > 1; i++)
        pthread_join(wk[i].th, NULL);
    double wall = now_ms(CLOCK_MONOTONIC) - t0;
    *cpu = 0;
    *ops = 0;
    for (int i = 0; i < n; i++) {
        if (!wk[i].ok)
            exit(1);
        *cpu += wk[i].cpu_ms;
        *ops += wk[i].ops;
    }
    return wall;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: cg_lex_speed PROFILE [PASSES]\n");
        return 2;
    }
    int passes = argc == 3 ? atoi(argv[2]) : 15;
    if (passes < 2) {
        fprintf(stderr, "cg_lex_speed: PASSES must be 2 or more\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0 || sb.st_size == 0) {
        fprintf(stderr, "cg_lex_speed: cannot read '%s'\n", argv[1]);
        return 2;
    }
    /* mapped at once (MAP_POPULATE): page faults are the kernel's, not the lexer's */
    const char *map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
        fprintf(stderr, "cg_lex_speed: cannot map '%s'\n", argv[1]);
        return 2;
    }
    const char *end = map + sb.st_size;
    while (end > map && end[-1] != '\n')
        end--;
    const char *body = read_header(map, end);
    if (!body || !cut(body, end)) {
        fprintf(stderr, "cg_lex_speed: '%s': no 'events:' line and body after it\n", argv[1]);
        return 2;
    }

    /* the anchor: newlines counted, best of the passes */
    double best_nl = 1e30;
    unsigned long lines = 0;
    for (int i = 0; i < passes; i++) {
        double t0 = now_ms(CLOCK_MONOTONIC);
        unsigned long n = count_newlines(body, end);
        double t = now_ms(CLOCK_MONOTONIC) - t0;
        best_nl = t < best_nl ? t : best_nl;
        lines = n;
    }

    double cpu;
    unsigned long ops;
    double first = pass(1, &cpu, &ops), best1 = 1e30;
    unsigned long left = 0;
    for (int i = 1; i < passes; i++) {
        left_over = 0;
        double t = pass(1, &cpu, &ops);
        left = left_over;
        best1 = t < best1 ? t : best1;
    }
    double mb = (end - body) / 1e6;
    printf("profile: %s (%.1f MB of body, %lu lines, %zu ranges of about 256 KiB)\n", argv[1], mb,
           lines, nranges);
    printf("%-34s %9s %10s %10s\n", "", "ms", "GB/s", "ratio");
    printf("%-34s %9.2f %10.2f %10s\n", "newlines counted, best", best_nl, mb / best_nl, "1");
    printf("%-34s %9.2f %10.2f %9.1fx\n", "lexer, 1 thread, first pass", first, mb / first,
           first / best_nl);
    printf("%-34s %9.2f %10.2f %9.1fx\n", "lexer, 1 thread, best", best1, mb / best1,
           best1 / best_nl);
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    for (int n = 2; n <= cpus && n <= MAX_THREADS; n *= 2) {
        double best = 1e30, best_cpu = 0;
        for (int i = 0; i < passes; i++) {
            double t = pass(n, &cpu, &ops);
            if (t < best)
                best = t, best_cpu = cpu;
        }
        char label[64];
        snprintf(label, sizeof label, "lexer, %d threads, best", n);
        printf("%-34s %9.2f %10.2f %9.1fx   (CPU %.2f ms: %.2fx one thread's)\n", label, best,
               mb / best, best / best_nl, best_cpu, best_cpu / best1);
    }
    printf("operations made: %lu; lines left to the reader's second pass (headers, 'totals:', "
           "or lines it would refuse), skipped here: %lu; passes: %d (the first of one thread "
           "on its own)\n", ops, left, passes);
    return 0;
}
