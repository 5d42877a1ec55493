/* cmd_trend.c: `tare trend`, one self-contained HTML page of every series over the commits. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/history_in.h"
#include "core/history/trend_page.h"
#include "core/util/esc.h"
#include "core/util/export.h"
#include "core/history/history.h"
#include "core/util/json.h"
#include "core/util/xml.h"

const char cmd_trend_usage[] =
    "tare trend [--title TEXT] [--commit-url URL] [--repo DIR] FILE... -o OUT";

static const char trend_options[] =
    "Options:\n"
    "  -o, --output OUT        the HTML file to write\n"
    "      --title TEXT        the page's title (default: \"Benchmark trend\")\n"
    "      --commit-url URL    link commits to URL, {sha} replaced by the commit's hash\n"
    "                          (http:// or https:// only)\n"
    CLI_REPO_HELP
    "  -h, --help              show this help\n";

#define CMD "trend"

/* HTML text: XML's escapes, names by the one rule (core/util/xml.h). */
static void html_text(FILE *f, const char *s)
{
    xw_write_escaped(f, s);
}

/* A JSON string safe inside <script> ('<', '>', '&', U+2028/9 as \u escapes: no "</script>"
 * or "<!--"), by the one JSON writer's rule (core/util/json.h). */
static void js_str(FILE *f, const char *s)
{
    jw_write_string(f, s, true);
}

/* A figure by the one number rule (core/util/esc.h): a count whole, others to 9 digits. */
static void js_num(FILE *f, double v)
{
    char b[ESC_NUM_MAX];
    esc_number(b, v);
    fputs(strcmp(b, "NA") == 0 ? "null" : b, f);
}

static bool url_ok(const char *u)
{
    return strncmp(u, "https://", 8) == 0 || strncmp(u, "http://", 7) == 0;
}

static int write_data(FILE *f, const struct hist_db *db, const char *title, const char *url)
{
    struct hist_check_opts o = HIST_CHECK_DEFAULTS;
    fputs("{\"title\":", f);
    js_str(f, title);
    fputs(",\"commitUrl\":", f);
    js_str(f, url ? url : "");
    fputs(",\"metrics\":[", f);
    bool first = true;
    for (int m = 0; m < hist_db_nmetrics(db); m++)
        if (db->has[m] && m != HM_REF_MEDIAN_S) {
            fputs(first ? "" : ",", f);
            js_str(f, hist_db_metric_name(db, m));
            first = false;
        }
    fputs("],\"commits\":[", f);
    /* [hash, run date, commit date, subject]: the last two "" where unknown */
    for (size_t i = 0; i < db->ncommits; i++) {
        fputs(i ? ",[" : "[", f);
        js_str(f, db->commit[i]);
        fputc(',', f);
        js_str(f, db->date[i]);
        fputc(',', f);
        js_str(f, db->cdate[i]);
        fputc(',', f);
        js_str(f, db->subject[i]);
        fputc(']', f);
    }
    fputs("],\"series\":[", f);
    size_t maxn = 0;
    for (size_t s = 0; s < db->nseries; s++)
        if (db->series[s].n > maxn)
            maxn = db->series[s].n;
    struct hist_step *st = malloc((maxn + 1) * sizeof *st);
    if (!st)
        return -1;
    for (size_t si = 0; si < db->nseries; si++) {
        const struct hist_series *s = &db->series[si];
        fputs(si ? ",\n{\"name\":" : "\n{\"name\":", f);
        js_str(f, s->name);
        fputs(",\"c\":[", f);
        for (size_t i = 0; i < s->n; i++)
            fprintf(f, i ? ",%zu" : "%zu", s->commit[i]);
        fputs("],\"v\":{", f);
        first = true;
        for (int m = 0; m < hist_db_nmetrics(db); m++) {
            if (!db->has[m] || m == HM_REF_MEDIAN_S)
                continue;
            fputs(first ? "" : ",", f);
            js_str(f, hist_db_metric_name(db, m));
            fputs(":[", f);
            for (size_t i = 0; i < s->n; i++) {
                if (i)
                    fputc(',', f);
                js_num(f, s->v[m][i]);
            }
            fputc(']', f);
            first = false;
        }
        /* The steps `tare history check` reports, each where a check after its confirming
         * commit would have: [confirming point, step point, change]. */
        fputs("},\"steps\":{", f);
        first = true;
        for (int m = 0; m < hist_db_nmetrics(db); m++) {
            if (!db->has[m] || m == HM_REF_MEDIAN_S)
                continue;
            bool alarms = hist_alarms(s, m);
            if (alarms)
                hist_scan(s, m, &o, st);
            fputs(first ? "" : ",", f);
            js_str(f, hist_db_metric_name(db, m));
            fputs(":[", f);
            bool f2 = true;
            for (size_t i = 0; alarms && i < s->n; i++)
                if (st[i].found) {
                    fprintf(f, "%s[%zu,%zu,", f2 ? "" : ",", i, st[i].at);
                    js_num(f, st[i].change);
                    fputc(']', f);
                    f2 = false;
                }
            fputc(']', f);
            first = false;
        }
        /* history check's judgement at the series' newest point, for its chip and its y
         * range: [verdict, change, fence, points, needed, alarms]; verdict is "reg", "imp",
         * "pend", "same" (within the fence), "echo" (a step reported before) or "untested";
         * alarms is 0 where check does not alarm on the metric (seconds beside a ratio). */
        fputs("},\"judge\":{", f);
        first = true;
        for (int m = 0; m < hist_db_nmetrics(db); m++) {
            if (!db->has[m] || m == HM_REF_MEDIAN_S)
                continue;
            static const char *const verdict[] = {
                [HIST_SAME] = "same", [HIST_REGRESSION] = "reg", [HIST_IMPROVEMENT] = "imp",
                [HIST_PENDING] = "pend", [HIST_ECHO] = "echo", [HIST_NA] = "untested",
                [HIST_UNTESTED] = "untested"};
            struct hist_judgement jd;
            hist_judge(s, m, s->n ? s->n - 1 : 0, &o, &jd);
            const struct hist_step *j = &jd.st;
            fputs(first ? "" : ",", f);
            js_str(f, hist_db_metric_name(db, m));
            fprintf(f, ":[\"%s\",", verdict[jd.verdict]);
            js_num(f, j->change);
            fputc(',', f);
            js_num(f, j->fence);
            fprintf(f, ",%zu,%zu,%d]", j->points, j->needed, hist_alarms(s, m));
            first = false;
        }
        fputs("}}", f);
    }
    free(st);
    fputs("]}", f);
    return 0;
}

int cmd_trend(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"title", required_argument, NULL, 't'},
        {"commit-url", required_argument, NULL, 'u'},
        {"repo", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *outp = NULL, *title = "Benchmark trend", *url = NULL, *repo = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            outp = optarg;
            break;
        case 't':
            title = optarg;
            break;
        case 'u':
            url = optarg;
            if (!url_ok(url))
                return cli_usage_error(CMD, cmd_trend_usage, "--commit-url '%s': want an "
                                       "http:// or https:// address", url);
            break;
        case 'R':
            repo = optarg;
            break;
        case 'h':
            cli_print_usage(stdout, cmd_trend_usage);
            fputs(trend_options, stdout);
            return EXIT_OK;
        default:
            cli_print_usage(stderr, cmd_trend_usage);
            fprintf(stderr, "Try 'tare trend --help' for the options.\n");
            return EXIT_USAGE;
        }
    }
    if (!outp)
        return cli_usage_error(CMD, cmd_trend_usage, "no -o OUT");
    if (optind >= argc)
        return cli_usage_error(CMD, cmd_trend_usage, "no history FILE");
    struct hist_db db;
    char gbuf[4096];
    int st = cli_history_load(CMD, argv + optind, argc - optind, repo,
                              cli_history_guess(argv[optind], NULL, gbuf, sizeof gbuf), &db);
    if (st != EXIT_OK)
        return st;
    bool any = false;
    for (int m = 0; m < hist_db_nmetrics(&db); m++)
        any |= db.has[m];
    if (!any && db.nseries)
        cli_error(CMD, "note: the history has rows but no metric tare reads, so the page has "
                  "no values ('tare history check' names the columns it does not read)");
    /* a temporary renamed into place (or a pipe, /dev/stdout, written directly) */
    char tmp[EXPORT_TMP_MAX];
    struct err e = {0};
    cli_install_exit_on_signal();   /* Ctrl-C or SIGTERM: the page half written is removed */
    FILE *f = export_file_open(outp, tmp, &e);
    if (!f) {
        hist_db_free(&db);
        return cli_fail(CMD, &e);
    }
    if (tmp[0])
        cli_tmp_add(tmp);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n<title>", f);
    html_text(f, title);
    fputs("</title>\n<style>\n", f);
    fputs(trend_page_css, f);
    fputs("</style>\n</head>\n<body>\n", f);
    fputs(trend_page_body, f);
    fputs("<script type=\"application/json\" id=\"trend-data\">", f);
    int rc = write_data(f, &db, title, url);
    fputs("</script>\n<script>\n", f);
    fputs(trend_page_js, f);
    fputs("</script>\n</body>\n</html>\n", f);
    if (rc < 0) {
        fclose(f);
        if (tmp[0])
            unlink(tmp);
        cli_tmp_forget(tmp);
        hist_db_free(&db);
        cli_error(CMD, "cannot write '%s': out of memory", outp);
        return EXIT_USAGE;
    }
    int cst = export_file_commit(f, tmp, outp, &e);
    cli_tmp_forget(tmp);
    hist_db_free(&db);
    return cst < 0 ? cli_fail(CMD, &e) : EXIT_OK;
}
