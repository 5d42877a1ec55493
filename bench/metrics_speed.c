/* bench/metrics_speed.c: the counter-line reader (src/core/util/metrics.c's metrics_feed, what
 * --metrics-from stderr runs on every chunk of the program's stderr while it runs) alone,
 * against the floor of any reader of lines: finding the same bytes' newlines with memchr. Fed
 * in the 4 KiB chunks proc's drain reads, in passes: the best of PASSES. Three streams of
 * 300,000 lines: chatter with no counter in it (a program's ordinary stderr: every line
 * looked at, none taken), counters of the default form (NAME: INTEGER, each taken and summed
 * under 16 names), and the chatter against a --metrics-pattern regex.
 *
 * usage: metrics_speed [PASSES]   (PASSES: 15 by default) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util/metrics.h"

#define LINES 300000
#define CHUNK 4096

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The floor: each chunk's newlines found, as a line reader must. */
static size_t newlines(const char *b, size_t n)
{
    size_t lines = 0;
    for (size_t off = 0; off < n; off += CHUNK) {
        size_t len = n - off < CHUNK ? n - off : CHUNK;
        const char *p = b + off, *end = p + len;
        while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            lines++;
            p++;
        }
    }
    return lines;
}

static int feed_all(const struct metrics_spec *s, const char *b, size_t n)
{
    struct metrics_run run = {0};
    struct metrics_feed f;
    metrics_feed_init(&f, s, false, &run);
    for (size_t off = 0; off < n; off += CHUNK)
        metrics_feed(&f, b + off, n - off < CHUNK ? n - off : CHUNK);
    metrics_feed_end(&f);
    int taken = run.n;
    metrics_run_free(&run);
    return taken;
}

static void one(const char *what, const struct metrics_spec *s, const char *b, size_t n,
                int passes)
{
    double best_feed = 1e9, best_nl = 1e9;
    int taken = 0;
    size_t lines = 0;
    for (int p = 0; p < passes; p++) {   /* alternated: drift hits both */
        double t0 = now();
        lines += newlines(b, n);
        double t1 = now();
        taken = feed_all(s, b, n);
        double t2 = now();
        if (t1 - t0 < best_nl)
            best_nl = t1 - t0;
        if (t2 - t1 < best_feed)
            best_feed = t2 - t1;
    }
    printf("  %-34s %6.1f MB  reader %7.1f MB/s (%5.1f ns a line), newlines %7.1f MB/s: "
           "%.1fx the floor; %d counters\n", what, n / 1e6, n / best_feed / 1e6,
           best_feed / LINES * 1e9, n / best_nl / 1e6, best_feed / best_nl, taken);
    if (lines != (size_t)passes * LINES)
        printf("  (line count off: %zu)\n", lines);
}

int main(int argc, char **argv)
{
    int passes = argc > 1 ? atoi(argv[1]) : 15;
    if (passes < 1)
        passes = 1;
    size_t cap = (size_t)LINES * 64;
    char *chat = malloc(cap), *ctrs = malloc(cap);
    if (!chat || !ctrs)
        return 1;
    size_t nc = 0, nk = 0;
    for (long i = 0; i < LINES; i++) {
        nc += (size_t)snprintf(chat + nc, cap - nc, "step %ld: frame %ld ok (%ld bytes)\n", i,
                               i % 97, i * 31 % 100000);
        nk += (size_t)snprintf(ctrs + nk, cap - nk, "counter_%02ld: %ld\n", i % 16, i);
    }
    struct metrics_spec re;
    struct err e = {0};
    if (metrics_spec_init(&re, "stderr", "^\\[vm\\] ([a-z_]+) -> ([0-9]+)$", &e) < 0) {
        fprintf(stderr, "metrics_speed: %s\n", e.msg);
        return 1;
    }
    printf("metrics_speed: %d lines, %d-byte chunks, best of %d passes\n", LINES, CHUNK,
           passes);
    one("chatter, no counter (default form)", NULL, chat, nc, passes);
    one("counters (default form)", NULL, ctrs, nk, passes);
    one("chatter, a --metrics-pattern regex", &re, chat, nc, passes);
    metrics_spec_free(&re);
    free(chat);
    free(ctrs);
    return 0;
}
