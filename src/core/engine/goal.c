/* goal.c: the required-multiple arithmetic of a goal (goal.h). */
#include "core/engine/goal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool goal_parse_slice(const char *s, double *mult)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v))
        return false;
    if ((strcmp(end, "x") == 0 || strcmp(end, "\xc3\x97") == 0) && v > 0) {
        *mult = v;
        return true;
    }
    if (*end == '%')
        end++;
    if (*end || !(v > -100))
        return false;
    *mult = 1 + v / 100;
    return true;
}

void goal_compute(double from, double to, double slice, const double *m, int n, struct goal *g)
{
    g->got = 1;
    for (int i = 0; i < n; i++)
        g->got *= m[i];
    /* Lower is better unless the goal is higher than the start (a throughput, say). */
    g->lower_better = to <= from;
    g->need = g->lower_better ? from / to : to / from;
    g->exact = log(g->need) / log(slice);
    g->slices = (long)ceil(g->exact - 1e-9);
    g->remaining = g->need / g->got;
    g->frac = g->need > 1 ? log(g->got) / log(g->need) : NAN;
    double rem_exact = g->remaining > 1 ? log(g->remaining) / log(slice) : 0;
    g->rem_slices = (long)ceil(rem_exact - 1e-9);
}
