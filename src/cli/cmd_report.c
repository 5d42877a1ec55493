/* cmd_report.c: `tare report`, one Markdown block for a pull request: what moved past its
 * threshold at a commit against its base, counts beside the wall clock, failures named. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/branch_out.h"
#include "cli/budget_out.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/out.h"
#include "core/history.h"

const char cmd_report_usage[] =
    "tare report [options] FILE...";

static const char report_options[] =
    "Options:\n"
    "      --commit SHA        report this commit instead of the newest\n"
    "      --det-threshold PCT alarm on deterministic counts past PCT percent (default 2)\n"
    "      --persist N         a wall-clock step must hold N commits (default 3)\n"
    "      --suite FILE        per-benchmark count thresholds from the suite's [bench NAME]\n"
    "      --summary FILE      also append the block to FILE (e.g. $GITHUB_STEP_SUMMARY)\n"
    "  -h, --help              show this help\n";

#define CMD "report"

enum { OPT_COMMIT = 0x100, OPT_DET, OPT_PERSIST, OPT_SUMMARY, OPT_SUITE };

/* One metric of one series at the commit reported. */
struct row {
    const struct hist_series *s;
    int m;
    size_t at;              /* its point at the commit */
    double base, now;       /* the series' previous value (NAN when none) and this one */
    struct hist_step st;
};

static const char *verdict(const struct row *r)
{
    if (r->st.untested != HIST_TESTED)
        return r->st.untested == HIST_NO_VALUE ? "**NA**" : "not checked";
    if (r->st.found)
        return r->st.change > 0 ? "**regression**" : "improvement";
    return r->st.pending ? "pending" : "within threshold";
}

static const char *value_str(char *buf, double v, int m)
{
    if (isnan(v))
        return "NA";
    if (hist_metric_deterministic(m) && v == floor(v) && fabs(v) < 9e15)
        return fmt_count(buf, v);
    if (m == HM_RATIO)
        snprintf(buf, FMT_BUF_MIN, "%.3g", v);
    else
        fmt_seconds(buf, v);
    return buf;
}

static const char *change_str(char *buf, double before, double after)
{
    if (isnan(before) || isnan(after) || (before == 0 && after != 0))
        return "NA";
    if (before == after) {
        snprintf(buf, FMT_BUF_MIN, "+0.0%%");
        return buf;
    }
    snprintf(buf, FMT_BUF_MIN, "%+.1f%%", 100 * (after / before - 1));
    return buf;
}

/* The change of another metric of the same series over the same span as a step (from the
 * point before the step to the commit reported): the counts beside the wall clock, the wall
 * clock beside the counts. */
static const char *beside(char *buf, const struct hist_series *s, int m, size_t step, size_t at)
{
    if (step == 0)
        return "NA";
    return change_str(buf, s->v[m][step - 1], s->v[m][at]);
}

/* Why a metric was not tested, for a person. */
static const char *why_str(char *buf, size_t n, const struct hist_step *st)
{
    switch (st->untested) {
    case HIST_NO_VALUE: return "no value at this commit (NA)";
    case HIST_NO_EARLIER: return "no earlier value";
    case HIST_EARLIER_ZERO: return "the earlier value is 0";
    case HIST_TOO_FEW:
        snprintf(buf, n, "too few points: %zu of %zu", st->points, st->needed);
        return buf;
    default: return "";
    }
}

/* The whole block, to f. Returns the number of regressions; *ntested the metrics tested. */
static size_t write_block(FILE *f, const struct hist_db *db, size_t ci, const struct row *rows,
                          size_t nrows, size_t nseries, size_t *ntested,
                          const struct hist_check_opts *o, bool per_bench)
{
    size_t nreg = 0, nimp = 0, npend = 0, nna = 0, nskip = 0;
    for (size_t i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        if (r->st.untested == HIST_NO_VALUE)
            nna++;
        else if (r->st.untested != HIST_TESTED)
            nskip++;
        else if (r->st.found && r->st.change > 0)
            nreg++;
        else if (r->st.found)
            nimp++;
        else if (r->st.pending)
            npend++;
    }
    *ntested = nrows - nna - nskip;
    const char *base = ci > 0 ? db->commit[ci - 1] : NULL;
    const char *word = nreg ? "regression" : nna ? "measurement failed" : *ntested == 0
                       ? "nothing checked" : nimp ? "improvement" : "no change past a threshold";
    fprintf(f, "### tare: %s at `%.12s`\n\n", word, db->commit[ci]);
    fprintf(f, "**%zu regression%s**, %zu improvement%s, %zu pending, in %zu metric%s checked "
            "of %zu series at `%.12s`", nreg, nreg == 1 ? "" : "s", nimp, nimp == 1 ? "" : "s",
            npend, *ntested, *ntested == 1 ? "" : "s", nseries, db->commit[ci]);
    if (base)
        fprintf(f, " against its base `%.12s`", base);
    fprintf(f, " (counts: %.3g%% threshold%s; wall clock: each series' own fence, %d commits in "
            "a row).\n\n", 100 * o->det_threshold,
            per_bench ? " or the suite's per benchmark" : "", o->persist);
    char a[FMT_BUF_MIN], b[FMT_BUF_MIN], c[FMT_BUF_MIN], d[FMT_BUF_MIN], w[FMT_BUF_MIN];
    if (nreg + nimp + npend) {
        fputs("| benchmark | metric | before | after | change | threshold | commit | "
              "instructions | wall clock |\n|---|---|--:|--:|--:|--:|---|--:|--:|\n", f);
        for (size_t i = 0; i < nrows; i++) {
            const struct row *r = &rows[i];
            if (r->st.untested != HIST_TESTED || !(r->st.found || r->st.pending))
                continue;
            fprintf(f, "| %s `%s` | %s | %s | %s | %+.1f%% | %.1f%% | `%.12s` | %s | %s |\n",
                    r->st.pending ? "pending:" : r->st.change > 0 ? "**slower**" : "faster",
                    r->s->name, hist_metric_names[r->m], value_str(a, r->st.before, r->m),
                    value_str(b, r->st.after, r->m), 100 * r->st.change, 100 * r->st.fence,
                    db->commit[r->s->commit[r->st.at]],
                    beside(c, r->s, HM_INSTRUCTIONS, r->st.at, r->at),
                    beside(d, r->s, HM_MEDIAN_S, r->st.at, r->at));
        }
        fputc('\n', f);
    }
    if (nna) {
        fputs("**Failed** (NA at this commit):", f);
        for (size_t i = 0; i < nrows; i++)
            if (rows[i].st.untested == HIST_NO_VALUE)
                fprintf(f, " `%s` %s;", rows[i].s->name, hist_metric_names[rows[i].m]);
        fputs("\n\n", f);
    }
    if (nskip)
        fprintf(f, "Not checked: %zu metric%s (see the table below for why).\n\n", nskip,
                nskip == 1 ? "" : "s");
    fprintf(f, "<details><summary>All %zu metrics of %zu series</summary>\n\n", nrows, nseries);
    fputs("| benchmark | metric | base | this commit | change | verdict |\n"
          "|---|---|--:|--:|--:|---|\n", f);
    for (size_t i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        fprintf(f, "| `%s` | %s | %s | %s | %s | %s", r->s->name, hist_metric_names[r->m],
                value_str(a, r->base, r->m), value_str(b, r->now, r->m),
                change_str(c, r->base, r->now), verdict(r));
        if (r->st.untested != HIST_TESTED && r->st.untested != HIST_NO_VALUE)
            fprintf(f, ": %s", why_str(w, sizeof w, &r->st));
        else if ((r->st.found || r->st.pending) && r->st.at != r->at)
            fprintf(f, " (step at `%.12s`)", db->commit[r->s->commit[r->st.at]]);
        fputs(" |\n", f);
    }
    /* a blank line after it ends the HTML block: a block appended next is Markdown again */
    fputs("\n</details>\n\n", f);
    return nreg;
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"commit", required_argument, NULL, OPT_COMMIT},
        {"det-threshold", required_argument, NULL, OPT_DET},
        {"persist", required_argument, NULL, OPT_PERSIST},
        {"summary", required_argument, NULL, OPT_SUMMARY},
        {"suite", required_argument, NULL, OPT_SUITE},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    struct hist_check_opts o = {.det_threshold = 0.02, .persist = 3, .window = 10, .noise_n = 60};
    const char *commit = NULL, *summary = NULL, *suite_path = NULL;
    long persist = 3;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_COMMIT: commit = optarg; break;
        case OPT_SUMMARY: summary = optarg; break;
        case OPT_SUITE: suite_path = optarg; break;
        case OPT_DET:
            if (!cli_parse_percent(CMD, cmd_report_usage, "--det-threshold", optarg,
                                   &o.det_threshold))
                return EXIT_USAGE;
            break;
        case OPT_PERSIST:
            if (!cli_parse_count(CMD, cmd_report_usage, "--persist", optarg, 1, 100, &persist))
                return EXIT_USAGE;
            o.persist = (int)persist;
            break;
        case 'h':
            cli_print_usage(stdout, cmd_report_usage);
            printf("\nOne Markdown block for a pull request: the series that moved past their "
                   "threshold\nat a commit (the newest) against its base, the verdict, the "
                   "counts beside the\nwall clock, failures named, then every series in a "
                   "collapsed table.\n\n%s", report_options);
            return EXIT_OK;
        default:
            cli_print_usage(stderr, cmd_report_usage);
            fprintf(stderr, "Try 'tare report --help' for the options.\n");
            return EXIT_USAGE;
        }
    }
    if (optind >= argc)
        return cli_usage_error(CMD, cmd_report_usage, "no history FILE");
    struct budget *bud = NULL;
    int nbud = 0;
    if (suite_path) {
        int st = cli_budgets_load(CMD, suite_path, &bud, &nbud);
        if (st != EXIT_OK)
            return st;
    }
    char **tmps;
    int st = cli_branch_resolve(CMD, argv + optind, argc - optind, &tmps);
    if (st != EXIT_OK) {
        cli_budgets_free(bud, nbud);
        return st;
    }
    struct hist_db db;
    struct err e = {0};
    if (hist_db_load(&db, argv + optind, argc - optind, &e) < 0) {
        cli_branch_release(tmps);
        cli_budgets_free(bud, nbud);
        return cli_fail(CMD, &e);
    }
    for (size_t i = 0; i < db.nwarn; i++)
        cli_error(CMD, "warning: %s", db.warn[i]);
    int status = EXIT_USAGE;
    struct row *rows = NULL;
    char *text = NULL;
    size_t tlen = 0;
    if (db.ncommits == 0) {
        cli_error(CMD, "no rows in the history: nothing to report");
        goto done;
    }
    long ci = (long)db.ncommits - 1;
    if (commit && (ci = hist_db_find_commit(&db, commit, &e)) < 0) {
        status = cli_fail(CMD, &e);
        goto done;
    }
    rows = calloc(db.nseries * HM_COUNT + 1, sizeof *rows);
    if (!rows) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    size_t nrows = 0, nseries = 0;
    for (size_t si = 0; si < db.nseries; si++) {
        const struct hist_series *s = &db.series[si];
        size_t at = 0;
        while (at < s->n && s->commit[at] < (size_t)ci)
            at++;
        if (at >= s->n || s->commit[at] != (size_t)ci)
            continue;   /* not run at this commit */
        nseries++;
        for (int m = 0; m < HM_COUNT; m++) {
            bool has = false;
            for (size_t k = 0; k < s->n && !has; k++)
                has = !isnan(s->v[m][k]);
            if (!has || !hist_alarms(s, m))
                continue;
            struct row *r = &rows[nrows++];
            *r = (struct row){.s = s, .m = m, .at = at, .now = s->v[m][at],
                              .base = at ? s->v[m][at - 1] : NAN};
            struct hist_check_opts so = o;   /* a [bench NAME] threshold of --suite */
            const struct budget *bg = cli_budget_of_series(bud, nbud, s->name);
            if (bg && bg->threshold > 0)
                so.det_threshold = bg->threshold;
            hist_check_point(s, m, at, &so, &r->st);
        }
    }
    FILE *mem = open_memstream(&text, &tlen);
    if (!mem) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    size_t ntested;
    size_t nreg = write_block(mem, &db, (size_t)ci, rows, nrows, nseries, &ntested, &o,
                              nbud > 0);
    if (fclose(mem) != 0) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    fwrite(text, 1, tlen, stdout);
    status = nreg ? EXIT_REGRESSION : ntested == 0 ? EXIT_USAGE : EXIT_OK;
    if (summary) {
        /* appended as one write: a step summary may already hold other steps' blocks */
        FILE *f = fopen(summary, "a");
        bool bad = !f || fwrite(text, 1, tlen, f) != tlen;
        if (f && fclose(f) != 0)
            bad = true;
        if (bad) {
            cli_error(CMD, "cannot append to '%s': %s", summary, strerror(errno));
            status = EXIT_USAGE;
        }
    }
    if (ntested == 0 && status != EXIT_REGRESSION)
        cli_error(CMD, "checked nothing at commit %.12s", db.commit[ci]);
done:
    free(text);
    free(rows);
    hist_db_free(&db);
    cli_branch_release(tmps);
    cli_budgets_free(bud, nbud);
    return status;
}
