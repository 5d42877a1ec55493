/* check_rates.c: how often `tare history check`'s wall-clock test rings on pure Gaussian noise
 * (2%, 5%, 10%: 100 series of 300 commits each, a check after every commit), and how often
 * it misses a 30% step in 5% noise (200 series, step at commit 200). Usage: check_rates
 * [NOISE_N [PERSIST]]. Deterministic (fixed seed). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/history/history.h"

static uint64_t rng = 88172645463325252ULL;
static double unif(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((rng >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void)
{
    return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

int main(int argc, char **argv)
{
    struct hist_check_opts o = {.det_threshold = 0.02, .persist = argc > 2 ? atoi(argv[2]) : 3,
                                .window = 10, .noise_n = argc > 1 ? atoi(argv[1]) : 60};
    enum { N = 300 };
    struct hist_series s = {.name = "synthetic", .n = N};
    for (int k = 0; k < HM_COUNT; k++) {
        s.v[k] = malloc(N * sizeof(double));
        for (int i = 0; i < N; i++)
            s.v[k][i] = NAN;
    }
    s.commit = malloc(N * sizeof *s.commit);
    for (int i = 0; i < N; i++)
        s.commit[i] = i;
    long rang = 0, checks = 0, missed = 0;
    struct hist_step st;
    const double sds[] = {0.02, 0.05, 0.10};
    for (int rep = 0; rep < 100; rep++)
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < N; i++)
                s.v[HM_RATIO][i] = 1 + sds[k] * normal();
            for (int i = 0; i < N; i++) {
                hist_check_point(&s, HM_RATIO, i, &o, &st);
                rang += st.found;
                checks++;
            }
        }
    for (int rep = 0; rep < 200; rep++) {
        for (int i = 0; i < N; i++)
            s.v[HM_RATIO][i] = (i >= 200 ? 1.3 : 1.0) * (1 + 0.05 * normal());
        int found = 0;
        for (int i = 195; i < 215; i++) {
            hist_check_point(&s, HM_RATIO, i, &o, &st);
            found |= st.found && st.at >= 199 && st.at <= 201;
        }
        missed += !found;
    }
    printf("noise_n %d, persist %d: rang %ld times in %ld checks of noise (1 in %.0f); "
           "missed %ld of 200 30%% steps in 5%% noise\n", o.noise_n, o.persist, rang, checks,
           rang ? (double)checks / rang : INFINITY, missed);
    return 0;
}
