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
#include "cli/history_in.h"
#include "cli/out.h"
#include "core/engine/ab.h"
#include "core/util/esc.h"
#include "core/util/export.h"
#include "core/history/history.h"

const char cmd_report_usage[] =
    "tare report [options] FILE...";

static const char report_options[] =
    "Options:\n"
    "      --commit SHA        report this commit instead of the newest\n"
    "      --det-threshold PCT alarm on deterministic counts past PCT percent (default 2)\n"
    "      --persist N         a wall-clock step must hold N commits (default 3)\n"
    "      --suite FILE        per-benchmark count thresholds from the suite's [bench NAME]\n"
    "      --summary FILE      also append the block to FILE (e.g. $GITHUB_STEP_SUMMARY)\n"
    CLI_REPO_HELP
    "  -h, --help              show this help\n";

#define CMD "report"

enum { OPT_COMMIT = 0x100, OPT_DET, OPT_PERSIST, OPT_SUMMARY, OPT_SUITE, OPT_REPO };

static const char *verdict(const struct hist_judgement *j)
{
    switch (j->verdict) {
    case HIST_NA: return "**NA**";
    case HIST_UNTESTED: return "not checked";
    case HIST_REGRESSION: return "**regression**";
    case HIST_IMPROVEMENT: return "improvement";
    case HIST_PENDING: return "pending";
    default: return "within threshold";
    }
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

/* A name (a benchmark's) as a Markdown code span that renders as written, whatever it holds:
 * no cell forged by a '|', no HTML from a '<' (esc.h); cell: inside a table row. */
static void md_name(FILE *f, const char *s, bool cell)
{
    esc_md_code(f, s, cell);
}

/* A commit's first 12 characters (whole UTF-8 sequences) as a code span. */
static void md_commit(FILE *f, const char *c, bool cell)
{
    char buf[64];
    size_t n = 0;
    for (int k = 0; k < 12 && c[n]; k++) {
        uint32_t cp;
        int l = esc_utf8(c + n, &cp);
        n += l ? (size_t)l : 1;
    }
    snprintf(buf, sizeof buf, "%.*s", (int)n, c);
    esc_md_code(f, buf, cell);
}

/* What the counts and the clock say together, once a series with a step at the commit
 * (ab_reading_at): "less work but slower" is the finding worth a line. */
static void write_readings(FILE *f, const struct hist_db *db, const struct hist_check *c)
{
    bool any = false;
    char line[768];
    for (size_t i = 0; i < c->n; i++) {
        const struct hist_judgement *j = &c->j[i];
        if (j->verdict != HIST_REGRESSION && j->verdict != HIST_IMPROVEMENT)
            continue;
        bool seen = false;   /* a series with two steps (counts and clock) reads once */
        for (size_t k = 0; k < i && !seen; k++)
            seen = c->j[k].series == j->series && (c->j[k].verdict == HIST_REGRESSION ||
                                                   c->j[k].verdict == HIST_IMPROVEMENT);
        if (seen || ab_reading_at(db, c, j->series, line, sizeof line) == AB_READING_NONE)
            continue;
        if (!any)
            fputs("The counts beside the wall clock (instructions against the series' own "
                  "noise):\n\n", f);
        any = true;
        fputs("- ", f);
        md_name(f, db->series[j->series].name, false);
        fprintf(f, ": %s\n", line);
    }
    if (any)
        fputc('\n', f);
}

/* The whole block, to f: the judgements of c, with the values compared. */
static void write_block(FILE *f, const struct hist_db *db, const struct hist_check *c,
                        const struct hist_check_opts *o, bool per_bench)
{
    size_t ci = c->commit;
    const char *base = ci > 0 ? db->commit[ci - 1] : NULL;
    const char *word = c->nreg ? "regression" : c->nna ? "measurement failed" : c->ntested == 0
                       ? "nothing checked" : c->nimp ? "improvement" : "no change past a threshold";
    fprintf(f, "### tare: %s at ", word);
    md_commit(f, db->commit[ci], false);
    fputs("\n\n", f);
    if (db->subject[ci][0]) {   /* what the commit is, where git said */
        md_commit(f, db->commit[ci], false);
        fputc(' ', f);
        esc_md_text(f, db->subject[ci]);
        if (db->cdate[ci][0]) {
            fputs(", committed ", f);
            esc_md_text(f, db->cdate[ci]);
        }
        fputs("\n\n", f);
    }
    fprintf(f, "**%zu regression%s**, %zu improvement%s, %zu pending, in %zu metric%s "
            "checked of %zu series at ", c->nreg, c->nreg == 1 ? "" : "s", c->nimp,
            c->nimp == 1 ? "" : "s", c->npend, c->ntested, c->ntested == 1 ? "" : "s",
            c->nseries);
    md_commit(f, db->commit[ci], false);
    if (base) {
        fputs(" against its base ", f);
        md_commit(f, base, false);
    }
    fprintf(f, " (counts: %.3g%% threshold%s; wall clock: each series' own fence, %d commits in "
            "a row).\n\n", 100 * o->det_threshold,
            per_bench ? " or the suite's per benchmark" : "", o->persist);
    char a[FMT_BUF_MIN], b[FMT_BUF_MIN], cb[FMT_BUF_MIN], d[FMT_BUF_MIN], w[FMT_BUF_MIN];
    if (c->nreg + c->nimp + c->npend) {
        fputs("| benchmark | metric | before | after | change | threshold | commit | "
              "instructions | wall clock |\n|---|---|--:|--:|--:|--:|---|--:|--:|\n", f);
        for (size_t i = 0; i < c->n; i++) {
            const struct hist_judgement *j = &c->j[i];
            const struct hist_series *s = &db->series[j->series];
            if (j->verdict != HIST_REGRESSION && j->verdict != HIST_IMPROVEMENT &&
                j->verdict != HIST_PENDING)
                continue;
            fprintf(f, "| %s ",
                    j->st.pending ? "pending:" : j->st.change > 0 ? "**slower**" : "faster");
            md_name(f, s->name, true);
            fprintf(f, " | %s | %s | %s | %+.1f%% | %.1f%% | ", hist_db_metric_name(db, j->metric),
                    value_str(a, j->st.before, j->metric), value_str(b, j->st.after, j->metric),
                    100 * j->st.change, 100 * j->st.fence);
            md_commit(f, db->commit[s->commit[j->step_point]], true);
            fprintf(f, " | %s | %s |\n", beside(cb, s, HM_INSTRUCTIONS, j->step_point, j->point),
                    beside(d, s, HM_MEDIAN_S, j->step_point, j->point));
        }
        /* the two tables' "before" differ for the wall clock: each says which it is */
        fprintf(f, "\n*before*, *after*: a count's value at the series' previous commit and at "
                "this one; a wall-clock metric's median of the %d commits before the step and "
                "of the %d from it on (pending: of those so far).\n\n", o->window, o->persist);
        write_readings(f, db, c);
    }
    if (c->nna) {
        fputs("**Failed** (NA at this commit):", f);
        for (size_t i = 0; i < c->n; i++)
            if (c->j[i].verdict == HIST_NA) {
                fputc(' ', f);
                md_name(f, db->series[c->j[i].series].name, false);
                fprintf(f, " %s", hist_db_metric_name(db, c->j[i].metric));
                if (c->j[i].failure) {   /* why, where the row says */
                    fputs(" (", f);
                    esc_md_text(f, c->j[i].failure);
                    fputc(')', f);
                }
                fputc(';', f);
            }
        fputs("\n\n", f);
    }
    if (c->nskip)
        fprintf(f, "Not checked: %zu metric%s (see the table below for why).\n\n", c->nskip,
                c->nskip == 1 ? "" : "s");
    fprintf(f, "<details><summary>All %zu metrics of %zu series</summary>\n\n", c->n,
            c->nseries);
    fputs("*previous*: the series' value at its previous commit in the history; *change*: "
          "from it to this commit's.\n\n"
          "| benchmark | metric | previous | this commit | change | verdict |\n"
          "|---|---|--:|--:|--:|---|\n", f);
    for (size_t i = 0; i < c->n; i++) {
        const struct hist_judgement *j = &c->j[i];
        const struct hist_series *s = &db->series[j->series];
        fputs("| ", f);
        md_name(f, s->name, true);
        fprintf(f, " | %s | %s | %s | %s | %s", hist_db_metric_name(db, j->metric),
                value_str(a, j->prev, j->metric), value_str(b, j->now, j->metric),
                change_str(cb, j->prev, j->now), verdict(j));
        if (j->verdict == HIST_UNTESTED) {
            fputs(": ", f);
            esc_md_text(f, hist_untested_why(&j->st, true, w, sizeof w));
        } else if ((j->st.found || j->st.pending) && j->step_point != j->point) {
            fputs(" (step at ", f);
            md_commit(f, db->commit[s->commit[j->step_point]], true);
            fputc(')', f);
        }
        fputs(" |\n", f);
    }
    /* a blank line after it ends the HTML block: a block appended next is Markdown again */
    fputs("\n</details>\n\n", f);
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"commit", required_argument, NULL, OPT_COMMIT},
        {"det-threshold", required_argument, NULL, OPT_DET},
        {"persist", required_argument, NULL, OPT_PERSIST},
        {"summary", required_argument, NULL, OPT_SUMMARY},
        {"suite", required_argument, NULL, OPT_SUITE},
        {"repo", required_argument, NULL, OPT_REPO},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    struct hist_check_opts o = HIST_CHECK_DEFAULTS;
    const char *commit = NULL, *summary = NULL, *suite_path = NULL, *repo = NULL;
    long persist = o.persist;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_COMMIT: commit = optarg; break;
        case OPT_SUMMARY: summary = optarg; break;
        case OPT_SUITE: suite_path = optarg; break;
        case OPT_REPO: repo = optarg; break;
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
    char gbuf[4096];
    st = cli_history_load(CMD, argv + optind, argc - optind, repo,
                          cli_history_guess(argv[optind], tmps, gbuf, sizeof gbuf), &db);
    if (st != EXIT_OK) {
        cli_branch_release(tmps);
        cli_budgets_free(bud, nbud);
        return st;
    }
    int status = EXIT_USAGE;
    struct hist_check chk = {0};
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
    struct cli_budget_set bset = {bud, nbud};   /* a [bench NAME] threshold of --suite */
    if (nbud) {
        o.threshold_of = cli_budget_threshold_of;
        o.threshold_ctx = &bset;
    }
    if (hist_check_commit(&db, (size_t)ci, &o, &chk, &e) < 0) {
        status = cli_fail(CMD, &e);
        goto done;
    }
    FILE *mem = open_memstream(&text, &tlen);
    if (!mem) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    write_block(mem, &db, &chk, &o, nbud > 0);
    if (fclose(mem) != 0) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    fwrite(text, 1, tlen, stdout);
    status = chk.nreg ? EXIT_REGRESSION : chk.ntested == 0 ? EXIT_USAGE : EXIT_OK;
    if (summary && export_append_whole(summary, text, tlen, &e) < 0) {
        /* all or nothing: a step summary may already hold other steps' blocks */
        cli_fail(CMD, &e);
        status = EXIT_USAGE;
    }
    if (chk.ntested == 0 && status != EXIT_REGRESSION)
        cli_error(CMD, "checked nothing at commit %.12s", db.commit[ci]);
done:
    free(text);
    hist_check_free(&chk);
    hist_db_free(&db);
    cli_branch_release(tmps);
    cli_budgets_free(bud, nbud);
    return status;
}
