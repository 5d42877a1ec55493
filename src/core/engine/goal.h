/* goal.h: the required-multiple arithmetic of a performance goal (the seed's 5a): the multiple
 * from where a figure is to where it must get, how many compounding slices of a size reach
 * it, and how much of it slices already measured reach. Pure functions of numbers. */
#ifndef TARE_GOAL_H
#define TARE_GOAL_H

#include <stdbool.h>

/* A slice as given: "3%", "3", "-1.5%" (a percentage, above -100) or "1.04x", "1.04×" (a
 * multiple above 0), into the multiple it stands for (1.03, 1.04); false when s is neither. */
bool goal_parse_slice(const char *s, double *mult);

struct goal {
    bool lower_better;   /* the goal is below the start (a time); else above (a throughput) */
    double need;         /* the improvement needed, as a multiple (2 for 100 -> 50) */
    double exact;        /* slices of the given size that compound to it, exactly */
    long slices;         /* ... rounded up */
    double got;          /* the measured slices compounded (1 with none) */
    double frac;         /* their share of the goal in log terms; NAN when need <= 1 */
    double remaining;    /* the multiple still needed (<= 1: reached) */
    long rem_slices;     /* slices of the size for that, rounded up (0 when reached) */
};

/* The goal from `from` to `to` (both above 0) in slices of `slice` (a multiple above 1), with
 * the measured slices m[0..n) (multiples). */
void goal_compute(double from, double to, double slice, const double *m, int n, struct goal *g);

#endif
