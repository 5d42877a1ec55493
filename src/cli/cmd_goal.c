/* cmd_goal.c: `tare goal`, the required-multiple arithmetic: state the multiple before slicing. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/opt.h"
#include "cli/out.h"
#include "core/engine/goal.h"
#include "core/util/json.h"

const char cmd_goal_usage[] =
    "tare goal [options] --from X --to Y [SLICE...]";

/* A positive number, the whole string. */
static bool parse_positive(const char *arg, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v > 0) || isinf(v))
        return false;
    *out = v;
    return true;
}

static void print_json(double from, double to, double slice, const struct goal *g,
                       const double *measured, int nmeasured)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_kdouble(&w, "from", from);
    jw_kdouble(&w, "to", to);
    jw_kbool(&w, "lower_is_better", g->lower_better);
    jw_kdouble(&w, "multiple", g->need);
    jw_kdouble(&w, "slice", slice - 1);
    jw_kdouble(&w, "slices_exact", g->exact);
    jw_ki64(&w, "slices", g->slices);
    jw_break(&w, "\n ");
    jw_karray(&w, "measured");
    for (int i = 0; i < nmeasured; i++)
        jw_double(&w, measured[i]);
    jw_end(&w);
    jw_kdouble(&w, "measured_multiple", g->got);
    jw_kdouble(&w, "fraction_of_goal", g->frac);
    jw_kdouble(&w, "remaining_multiple", g->remaining);
    jw_ki64(&w, "remaining_slices", g->rem_slices);
    jw_end(&w);
    out_json_end(&w, "goal");
}

static void print_text(double from, double to, double slice, const struct goal *g,
                       int nmeasured)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%g", from);
    snprintf(b, sizeof b, "%g", to);
    if (!(g->need > 1)) {
        printf("from %s to %s: already there (a multiple of 1.00×); no slices needed\n", a, b);
        return;
    }
    printf("from %s to %s (%s is better): a %.3g× improvement is needed\n", a, b,
           g->lower_better ? "lower" : "higher", g->need);
    double pct = (slice - 1) * 100;
    printf("slices of %.3g%% compound to it in %ld (%.2f exactly; %.3g^%ld = %.3f×, "
           "%.3g^%ld = %.3f×)\n", pct, g->slices, g->exact, slice, g->slices - 1,
           pow(slice, g->slices - 1), slice, g->slices, pow(slice, g->slices));
    if (nmeasured > 0) {
        printf("%d measured slice%s compound to %.4g×: %.1f%% of the way (in log terms)",
               nmeasured, nmeasured == 1 ? "" : "s", g->got, 100 * g->frac);
        if (g->remaining > 1)
            printf("; %.3g× still needed, %ld more slices of %.3g%%\n", g->remaining,
                   g->rem_slices, pct);
        else
            printf("; the goal is reached\n");
    }
}

/* --from X, --to Y: a positive number. */
static int opt_positive(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    if (parse_positive(arg, o->value))
        return 0;
    cli_usage_error(p->cmd, p->usage, "bad value '%s' for --%s: want a positive number", arg,
                    o->long_name);
    return -1;
}

/* --slice PCT: a gain, as a multiple above 1. */
static int opt_slice(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    double *slice = o->value;
    if (goal_parse_slice(arg, slice) && *slice > 1)
        return 0;
    cli_usage_error(p->cmd, p->usage, "bad value '%s' for --slice: want a positive percentage "
                    "such as 3%% (or a multiple such as 1.03x)", arg);
    return -1;
}

int cmd_goal(int argc, char **argv)
{
    double from = NAN, to = NAN, slice = 1.03;
    enum out_format fmt = FMT_TEXT;
    const struct opt opts[] = {
        OPT_GROUP("Options:"),
        OPT_CALLBACK(0, "from", &from, "X",
                     "where the figure is now (a time, a ratio: lower is better unless\n"
                     "--to is higher, then higher is)", opt_positive),
        OPT_CALLBACK(0, "to", &to, "Y", "where it has to get", opt_positive),
        OPT_CALLBACK(0, "slice", &slice, "PCT", "the size of a typical slice (default 3%)",
                     opt_slice),
        OPT_FORMAT(&fmt, FMT_TEXT | FMT_JSON),
        OPT_HELP(),
        OPT_END(),
    };
    struct opt_parser op = {
        .cmd = "goal", .usage = cmd_goal_usage, .argc = argc, .argv = argv,
        .about = "The multiple a goal needs, how many compounding slices of a given size reach\n"
                 "it, and how much of it slices already measured reach.",
        .after = "SLICE: a measured slice, as a percentage (3%, 2.5, -1%) or a multiple (1.04x).",
    };
    int rc = opt_parse(&op, opts);
    if (rc != 0)
        return opt_status(rc);
    if (isnan(from) || isnan(to))
        return cli_usage_error("goal", cmd_goal_usage, "want both --from and --to");
    int nmeasured = argc - optind;
    double *measured = calloc(nmeasured + 1, sizeof *measured);
    if (!measured) {
        cli_error("goal", "out of memory");
        return EXIT_USAGE;
    }
    for (int i = 0; i < nmeasured; i++)
        if (!goal_parse_slice(argv[optind + i], &measured[i])) {
            free(measured);
            return cli_usage_error("goal", cmd_goal_usage, "bad slice '%s': want a percentage "
                                   "(3%%, -1.5) or a multiple (1.04x)", argv[optind + i]);
        }
    struct goal g;
    goal_compute(from, to, slice, measured, nmeasured, &g);
    if (fmt == FMT_JSON)
        print_json(from, to, slice, &g, measured, nmeasured);
    else
        print_text(from, to, slice, &g, nmeasured);
    free(measured);
    return EXIT_OK;
}
