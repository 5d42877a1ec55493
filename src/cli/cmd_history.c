/* cmd_history.c: `tare history`, per-commit history files: append, check, noise, merge. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/branch_out.h"
#include "cli/budget_out.h"
#include "cli/commands.h"
#include "cli/export_out.h"
#include "cli/history_in.h"
#include "cli/out.h"
#include "core/history/gitbranch.h"
#include "core/history/history.h"
#include "core/util/input.h"
#include "core/util/json.h"
#include "core/util/stats.h"

/* Each subcommand's usage line, once: the subcommand table and the usage are made of them. */
#define HISTORY_USAGE_APPEND "tare history append FILE < ROWS"
#define HISTORY_USAGE_CHECK "tare history check [options] FILE..."
#define HISTORY_USAGE_NOISE "tare history noise [--format FORMAT] [--repo DIR] FILE..."
#define HISTORY_USAGE_MERGE "tare history merge FILE... -o OUT"

const char cmd_history_usage[] =
    HISTORY_USAGE_APPEND "\n"
    HISTORY_USAGE_CHECK "\n"
    HISTORY_USAGE_NOISE "\n"
    HISTORY_USAGE_MERGE;

/* After the subcommands' list (from history_subs). */
static const char history_options[] =
    "Options of check:\n"
    "      --commit SHA        check this commit instead of the newest\n"
    "      --det-threshold PCT alarm on deterministic counts past PCT percent (default 2)\n"
    "      --persist N         a wall-clock step must hold N commits (default 3)\n"
    "  -f, --format FORMAT     text (default) or json\n"
    CLI_EXPORT_HELP
    "      --suite FILE        per-benchmark count thresholds from the suite's [bench NAME]\n"
    CLI_REPO_HELP
    "Options of noise:\n"
    "  -f, --format FORMAT     text (default), tsv, json, csv or markdown\n"
    "      --repo DIR          as check's\n"
    "Options of merge:\n"
    "  -o, --output OUT        the merged file to write (required)\n"
    "  -h, --help              show this help\n";

#define CMD "history"

static int do_append(int argc, char **argv);
static int do_check(int argc, char **argv);
static int do_noise(int argc, char **argv);
static int do_merge(int argc, char **argv);

/* The subcommands: adding one is a function, a usage line above (and in cmd_history_usage), a
 * line here (its entry in --help's list), and its part of doc/tare-history.1. */
static const struct history_sub {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
    const char *help;     /* --help's lines for it, the first naming its arguments */
} history_subs[] = {
    {"append", do_append, HISTORY_USAGE_APPEND,
     "  append FILE             append the rows on stdin (a header line, then rows) to FILE,\n"
     "                          locked, as one write, synced\n"},
    {"check", do_check, HISTORY_USAGE_CHECK,
     "  check FILE...           regressions and improvements at the newest commit\n"},
    {"noise", do_noise, HISTORY_USAGE_NOISE,
     "  noise FILE...           per series and metric: median and p90 of |relative change|\n"
     "                          between consecutive commits\n"},
    {"merge", do_merge, HISTORY_USAGE_MERGE,
     "  merge FILE... -o OUT    the rows of every file (shards) in one, in commit order\n"},
};

static int help(void)
{
    cli_print_usage(stdout, cmd_history_usage);
    fputs("Subcommands:\n", stdout);
    for (size_t i = 0; i < sizeof history_subs / sizeof history_subs[0]; i++)
        fputs(history_subs[i].help, stdout);
    fputs(history_options, stdout);
    return EXIT_OK;
}

static int bad_option(void)
{
    cli_print_usage(stderr, cmd_history_usage);
    fprintf(stderr, "Try 'tare history --help' for the options.\n");
    return EXIT_USAGE;
}

/* ---- signals: append and merge exit 128 + the signal (130 for SIGINT, 143 for SIGTERM),
 * leaving no temporary file; the kernel releases their locks ---- */

static char sig_tmp[4096];   /* merge's temporary file while it may exist, else "" */

static void on_signal(int sig)
{
    /* Async-signal-safe: unlink and _exit only. */
    if (sig_tmp[0])
        unlink(sig_tmp);
    _exit(128 + sig);
}

static void signals_held(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* Names (or with NULL forgets) the file the handler removes, with signals held so that it
 * never sees half a name. */
static void set_sig_tmp(const char *path)
{
    sigset_t hold, old;
    signals_held(&hold);
    sigprocmask(SIG_BLOCK, &hold, &old);
    if (path)
        snprintf(sig_tmp, sizeof sig_tmp, "%s", path);
    else
        sig_tmp[0] = '\0';
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    signals_held(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* The copies of BRANCH:PATH arguments (cli_branch_resolve), for cli_history_guess. */
static char **branch_tmps;

/* Loads the history files argv[0..argc) in git's order (history_in.h). */
static int load(char **argv, int argc, const char *repo, struct hist_db *db)
{
    char buf[4096];
    return cli_history_load(CMD, argv, argc, repo,
                            cli_history_guess(argv[0], branch_tmps, buf, sizeof buf), db);
}

/* ---- append ---- */

static int do_append(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
        return help();
    if (argc >= 2 && argv[1][0] == '-' && argv[1][1])
        return cli_usage_error(CMD, cmd_history_usage, "unknown option '%s'", argv[1]);
    if (argc != 2)
        return cli_usage_error(CMD, cmd_history_usage,
                               "append takes one FILE (rows come on stdin)");
    catch_signals();
    char *buf = NULL;
    size_t n = 0;
    struct err e = {0};
    /* bounded: /dev/zero on stdin is a NUL at line 1, an endless input stops at the limit */
    if (in_read_all(0, "<stdin>", IN_MAX_FILE, IN_MAX_LINE, &buf, &n, &e) < 0)
        return cli_fail(CMD, &e);
    long rows = gitbr_is_spec(argv[1]) ? gitbr_append_spec(argv[1], buf ? buf : "", n, &e)
                                       : hist_append(argv[1], buf ? buf : "", n, &e);
    free(buf);
    if (rows < 0)
        return cli_fail(CMD, &e);
    return EXIT_OK;
}

/* ---- check ---- */

/* A value as a person reads it: a count (instructions, bytes) whole with separators, never
 * 1.11427e+09; seconds and ratios to 6 figures. */
static const char *value_str(char *buf, double v, int m)
{
    if (hist_metric_deterministic(m) && v == floor(v) && fabs(v) < 9e15)
        return fmt_count(buf, v);
    snprintf(buf, 32, "%.6g", v);
    return buf;
}

/* A history file opened again for its header: a regular file only (a FIFO was read once, a
 * second open would wait for another writer). */
static FILE *regular_or_null(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "r") : NULL;
}

/* The columns of the files' headers that tare does not read (another tool's `mean`, say):
 * nothing checks them, and a report must say so. One string, "mean, stddev ('h.tsv')", or
 * NULL when every column is known; *n counts them. */
static char *unknown_columns(char **paths, int np, size_t *n)
{
    char *out = NULL, *line = NULL;
    size_t len = 0, cap = 0;
    FILE *m = open_memstream(&out, &len);
    *n = 0;
    if (!m)
        return NULL;
    for (int i = 0; i < np; i++) {
        FILE *f = regular_or_null(paths[i]);
        if (!f)
            continue;
        ssize_t l = getline(&line, &cap, f);
        fclose(f);
        if (l <= 0)
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        size_t before = *n;
        char *save = NULL;
        for (char *c = strtok_r(line, "\t", &save); c; c = strtok_r(NULL, "\t", &save)) {
            if (!hist_column_known(c))
                fprintf(m, "%s%s", (*n)++ ? (*n - 1 == before ? "; " : ", ") : "", c);
        }
        if (*n > before)
            fprintf(m, " ('%s')", paths[i]);
    }
    free(line);
    fclose(m);
    if (*n == 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* The names in a list like unknown_columns' as a JSON array. */
static void json_columns(struct jw *w, char **paths, int np)
{
    char *line = NULL;
    size_t cap = 0;
    jw_array_begin(w);
    for (int i = 0; i < np; i++) {
        FILE *in = regular_or_null(paths[i]);
        if (!in)
            continue;
        ssize_t l = getline(&line, &cap, in);
        fclose(in);
        if (l <= 0)
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *save = NULL;
        for (char *c = strtok_r(line, "\t", &save); c; c = strtok_r(NULL, "\t", &save)) {
            if (!hist_column_known(c))
                jw_string(w, c);
        }
    }
    free(line);
    jw_end(w);
}

/* Which judgements a list of check's output holds. */
enum check_list { LIST_REG, LIST_IMP, LIST_PEND, LIST_FAILED, LIST_SKIP };

static bool in_list(const struct hist_judgement *j, enum check_list l)
{
    switch (l) {
    case LIST_REG: return j->verdict == HIST_REGRESSION;
    case LIST_IMP: return j->verdict == HIST_IMPROVEMENT;
    /* pending among too few points too: not tested, yet past the fence */
    case LIST_PEND: return j->st.pending;
    case LIST_FAILED: return j->verdict == HIST_NA;
    default: return j->verdict == HIST_UNTESTED;
    }
}

/* The commit a finding names: where its step began. */
static const char *step_commit(const struct hist_db *db, const struct hist_judgement *j)
{
    return db->commit[db->series[j->series].commit[j->step_point]];
}

static void json_findings(struct jw *w, const struct hist_db *db, const struct hist_check *c,
                          enum check_list l)
{
    jw_array_begin(w);
    for (size_t i = 0; i < c->n; i++) {
        const struct hist_judgement *j = &c->j[i];
        if (!in_list(j, l))
            continue;
        jw_object_begin(w);
        jw_kstring(w, "benchmark", db->series[j->series].name);
        jw_kstring(w, "metric", hist_db_metric_name(db, j->metric));
        jw_kdouble(w, "before", j->st.before);   /* a count whole: 1114270000, not 1.11e+09 */
        jw_kdouble(w, "after", j->st.after);
        jw_kdouble(w, "change", j->st.change);
        jw_kstring(w, "commit", step_commit(db, j));
        jw_end(w);
    }
    jw_end(w);
}

static void text_findings(const char *title, const struct hist_db *db, const struct hist_check *c,
                          enum check_list l)
{
    static const char *const hdr[] = {"benchmark", "metric", "before", "after", "change",
                                      "threshold", "commit", "subject"};
    bool subjects = false;   /* a column of the steps' subjects where git gave them */
    for (size_t i = 0; i < c->n; i++)
        if (in_list(&c->j[i], l))
            subjects |= *db->subject[db->series[c->j[i].series].commit[c->j[i].step_point]];
    struct table t;
    table_init(&t, subjects ? 8 : 7, hdr, 1u | 2u | 64u | 128u);
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct hist_judgement *j = &c->j[i];
        if (!in_list(j, l))
            continue;
        const struct hist_step *s = &j->st;
        n++;
        table_row(&t);
        table_set(&t, 0, "%s", db->series[j->series].name);
        table_set(&t, 1, "%s", hist_db_metric_name(db, j->metric));
        char b[64];
        table_set(&t, 2, "%s", value_str(b, s->before, j->metric));
        table_set(&t, 3, "%s", value_str(b, s->after, j->metric));
        table_set(&t, 4, "%+.1f%%", 100 * s->change);
        table_set(&t, 5, "%.1f%%", 100 * s->fence);
        table_set(&t, 6, "%.12s", step_commit(db, j));
        if (subjects)
            table_set(&t, 7, "%.60s", db->subject[db->series[j->series].commit[j->step_point]]);
    }
    if (n) {
        printf("%s:\n", title);
        table_print(&t, stdout, FMT_TEXT);
    }
    table_free(&t);
}

/* The series and metrics of one list, each with why: [{"benchmark", "metric", "why"}]. */
static void json_why(struct jw *w, const struct hist_db *db, const struct hist_check *c,
                     enum check_list l)
{
    char why[128];
    jw_array_begin(w);
    for (size_t i = 0; i < c->n; i++) {
        const struct hist_judgement *j = &c->j[i];
        if (!in_list(j, l))
            continue;
        jw_object_begin(w);
        jw_kstring(w, "benchmark", db->series[j->series].name);
        jw_kstring(w, "metric", hist_db_metric_name(db, j->metric));
        jw_kstring(w, "why",
                   j->failure ? j->failure : hist_untested_why(&j->st, false, why, sizeof why));
        jw_end(w);
    }
    jw_end(w);
}

/* check's result as JSON. */
static void check_json(const struct hist_db *db, const struct hist_check *c, char **paths,
                       int np)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_key(&w, "regressions");
    json_findings(&w, db, c, LIST_REG);
    jw_key(&w, "improvements");
    json_findings(&w, db, c, LIST_IMP);
    jw_key(&w, "failed");
    json_why(&w, db, c, LIST_FAILED);
    jw_ku64(&w, "checked", c->ntested);
    jw_key(&w, "not_checked");
    json_why(&w, db, c, LIST_SKIP);
    jw_key(&w, "unknown_columns");
    json_columns(&w, paths, np);
    jw_end(&w);
    out_json_end(&w, CMD);
}

/* check's result for a person. */
static void check_text(const struct hist_db *db, const struct hist_check *c, const char *unknown,
                       size_t nunknown)
{
    size_t ci = c->commit;
    char why[128];
    /* the commit's own date and subject where git gave them, else the run's date */
    const char *when = db->cdate[ci][0] ? db->cdate[ci] : db->date[ci];
    printf("checked %zu metric%s of %zu series at commit %.12s (%s)%s%s\n", c->ntested,
           c->ntested == 1 ? "" : "s", c->nseries, out_vis(db->commit[ci]),
           when[0] ? out_vis(when) : "no date", db->subject[ci][0] ? ": " : "",
           out_vis(db->subject[ci]));
    text_findings("regressions", db, c, LIST_REG);
    text_findings("improvements", db, c, LIST_IMP);
    text_findings("pending (past the fence, not yet persistent)", db, c, LIST_PEND);
    for (int l = LIST_FAILED; l <= LIST_SKIP; l++) {
        if (!(l == LIST_FAILED ? c->nna : c->nskip))
            continue;
        static const char *const hdr[] = {"benchmark", "metric", "why"};
        struct table t;
        table_init(&t, 3, hdr, 7u);
        for (size_t i = 0; i < c->n; i++) {
            const struct hist_judgement *j = &c->j[i];
            if (!in_list(j, (enum check_list)l))
                continue;
            table_row(&t);
            table_set(&t, 0, "%s", db->series[j->series].name);
            table_set(&t, 1, "%s", hist_db_metric_name(db, j->metric));
            table_set(&t, 2, "%s", j->failure ? j->failure
                                               : hist_untested_why(&j->st, false, why, sizeof why));
        }
        printf("%s:\n", l == LIST_FAILED ? "measurement failed" : "not checked");
        table_print(&t, stdout, FMT_TEXT);
        table_free(&t);
    }
    if (unknown)
        printf("not checked: column%s tare does not read: %s\n", nunknown == 1 ? "" : "s",
               out_vis(unknown));
    if (c->nabsent)
        printf("not checked: %zu series with no row at this commit\n", c->nabsent);
    if (!c->nreg && !c->nimp && c->ntested)
        printf("no regressions, no improvements%s\n",
               c->nna ? " in the metrics measured" : "");
}

/* check's records for the CI files: one a judgement. */
static int check_export(struct export_set *xset, const struct hist_db *db,
                        const struct hist_check *c, struct err *e)
{
    for (size_t i = 0; i < c->n; i++)
        if (cli_export_add_check(xset, db, &c->j[i], e) < 0)
            return -1;
    return 0;
}

static int do_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"commit", required_argument, NULL, 'c'},
        {"det-threshold", required_argument, NULL, 'd'},
        {"persist", required_argument, NULL, 'p'},
        {"format", required_argument, NULL, 'f'},
        CLI_EXPORT_LONGOPTS,
        {"suite", required_argument, NULL, 0x191},
        {"repo", required_argument, NULL, 0x192},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *commit = NULL, *suite_path = NULL, *repo = NULL;
    struct budget *bud = NULL;
    int nbud = 0;
    struct cli_export ci_export = {0};
    struct export_set xset = {0};
    struct err xe = {0};
    int xrc = 0;
    struct hist_check_opts o = HIST_CHECK_DEFAULTS;
    enum out_format fmt = FMT_TEXT;
    long persist = o.persist;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            commit = optarg;
            break;
        case 'd':
            if (!cli_parse_percent(CMD, cmd_history_usage, "--det-threshold", optarg,
                                   &o.det_threshold))
                return EXIT_USAGE;
            break;
        case 'p':
            if (!cli_parse_count(CMD, cmd_history_usage, "--persist", optarg, 1, 100, &persist))
                return EXIT_USAGE;
            o.persist = (int)persist;
            break;
        case 'f':
            if (!cli_parse_format(CMD, cmd_history_usage, optarg, FMT_TEXT | FMT_JSON, &fmt))
                return EXIT_USAGE;
            break;
        case CLI_OPT_EXPORT_BMF: case CLI_OPT_EXPORT_GAB: case CLI_OPT_EXPORT_JUNIT:
            cli_export_opt(&ci_export, c, optarg);
            break;
        case 0x191: suite_path = optarg; break;
        case 0x192: repo = optarg; break;
        case 'h':
            return help();
        default:
            return bad_option();
        }
    }
    if (optind >= argc)
        return cli_usage_error(CMD, cmd_history_usage, "check: no history FILE");

    struct hist_db db;
    struct err e = {0};
    int ld = load(argv + optind, argc - optind, repo, &db);
    if (ld != EXIT_OK)
        return ld;
    if (db.ncommits == 0) {
        cli_error(CMD, "no rows in the history: nothing to check");
        hist_db_free(&db);
        return EXIT_USAGE;
    }
    long ci = (long)db.ncommits - 1;
    if (commit && (ci = hist_db_find_commit(&db, commit, &e)) < 0) {
        hist_db_free(&db);
        return cli_fail(CMD, &e);
    }
    if (suite_path) {
        int st = cli_budgets_load(CMD, suite_path, &bud, &nbud);
        if (st != EXIT_OK) {
            hist_db_free(&db);
            return st;
        }
    }
    /* a [bench NAME] threshold of --suite */
    struct cli_budget_set bset = {bud, nbud};
    if (nbud) {
        o.threshold_of = cli_budget_threshold_of;
        o.threshold_ctx = &bset;
    }
    struct hist_check chk;
    if (hist_check_commit(&db, (size_t)ci, &o, &chk, &e) < 0) {
        hist_db_free(&db);
        cli_budgets_free(bud, nbud);
        return cli_fail(CMD, &e);
    }
    if (cli_export_wanted(&ci_export) && (export_init(&xset, "tare history check", &xe) < 0 ||
                                          check_export(&xset, &db, &chk, &xe) < 0))
        xrc = -1;
    size_t nunknown;
    char *unknown = unknown_columns(argv + optind, argc - optind, &nunknown);
    if (fmt == FMT_JSON)
        check_json(&db, &chk, argv + optind, argc - optind);
    else
        check_text(&db, &chk, unknown, nunknown);
    /* A failed measurement is the failure it is (exit 1), not a metric passed over. */
    if (chk.nna)
        cli_error(CMD, "measurement failed at commit %.12s: %zu metric%s NA (see above)",
                  db.commit[ci], chk.nna, chk.nna == 1 ? "" : "s");
    if (chk.ntested == 0)
        cli_error(CMD, "checked nothing at commit %.12s: %s", db.commit[ci],
                  chk.nna + chk.nskip ? "no series' metric could be tested (see above)"
                  : unknown ? "no metric tare knows in the history (see above)"
                  : "no series has a metric at this commit");
    free(unknown);
    size_t nreg = chk.nreg, ntested = chk.ntested, nna = chk.nna;
    hist_check_free(&chk);
    hist_db_free(&db);
    cli_budgets_free(bud, nbud);
    int xstatus = EXIT_OK;
    if (xset.suite || xrc < 0) {
        xstatus = xrc < 0 ? cli_fail(CMD, &xe) : cli_export_write(CMD, &ci_export, &xset);
        export_free(&xset);
    }
    if (xstatus != EXIT_OK)
        return xstatus;
    return nna ? EXIT_FAIL : nreg ? EXIT_REGRESSION : ntested == 0 ? EXIT_USAGE : EXIT_OK;
}

/* ---- noise ---- */

static int do_noise(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"repo", required_argument, NULL, 0x192},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    enum out_format fmt = FMT_TEXT;
    const char *repo = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!cli_parse_format(CMD, cmd_history_usage, optarg,
                                  FMT_TEXT | FMT_TSV | FMT_JSON | FMT_CSV | FMT_MARKDOWN, &fmt))
                return EXIT_USAGE;
            break;
        case 0x192:
            repo = optarg;
            break;
        case 'h':
            return help();
        default:
            return bad_option();
        }
    }
    if (optind >= argc)
        return cli_usage_error(CMD, cmd_history_usage, "noise: no history FILE");
    struct hist_db db;
    int ld = load(argv + optind, argc - optind, repo, &db);
    if (ld != EXIT_OK)
        return ld;
    static const char *const hdr[] = {"benchmark", "metric", "changes", "median_change",
                                      "p90_change"};
    struct table t;
    table_init(&t, 5, hdr, 1u | 2u);
    double *ch = NULL;
    size_t maxn = 0;
    for (size_t si = 0; si < db.nseries; si++)
        if (db.series[si].n > maxn)
            maxn = db.series[si].n;
    ch = malloc((maxn + 1) * sizeof *ch);
    struct jw w;
    jw_init(&w, stdout);
    if (fmt == FMT_JSON) {
        jw_object_begin(&w);
        jw_key(&w, "series");
        jw_array_begin_lines(&w, "\n  ", "\n");
    }
    size_t nrows = 0;
    for (size_t si = 0; si < db.nseries && ch; si++)
        for (int m = 0; m < hist_db_nmetrics(&db); m++) {
            if (!db.has[m])
                continue;
            size_t n = hist_changes(&db.series[si], m, ch);
            if (n == 0) {
                size_t pts = 0;
                for (size_t k = 0; k < db.series[si].n; k++)
                    pts += !isnan(db.series[si].v[m][k]);
                if (pts)
                    cli_error(CMD, "not computed: '%s' %s: %s", out_vis(db.series[si].name),
                              hist_db_metric_name(&db, m), pts == 1 ? "one point, and a change "
                              "needs two" : "no change between consecutive points with a ratio "
                              "(every earlier value is 0)");
                continue;
            }
            nrows++;
            stats_sort(ch, n);
            double med = stats_median(ch, n), p90 = stats_quantile(ch, n, 0.9);
            if (fmt == FMT_JSON) {
                jw_object_begin(&w);
                jw_kstring(&w, "benchmark", db.series[si].name);
                jw_kstring(&w, "metric", hist_db_metric_name(&db, m));
                jw_ku64(&w, "changes", n);
                jw_kdouble(&w, "median_change", med);
                jw_kdouble(&w, "p90_change", p90);
                jw_end(&w);
                continue;
            }
            table_row(&t);
            table_set(&t, 0, "%s", db.series[si].name);
            table_set(&t, 1, "%s", hist_db_metric_name(&db, m));
            table_set(&t, 2, "%zu", n);
            if (fmt == FMT_TEXT) {
                table_set(&t, 3, "%.1f%%", 100 * med);
                table_set(&t, 4, "%.1f%%", 100 * p90);
            } else {
                char b[32];
                table_set(&t, 3, "%s", fmt_num(b, med));
                table_set(&t, 4, "%s", fmt_num(b, p90));
            }
        }
    if (fmt == FMT_JSON) {
        jw_end(&w);
        jw_end(&w);
        out_json_end(&w, CMD);
    } else if (nrows || fmt != FMT_TEXT)
        table_print(&t, stdout, fmt);
    table_free(&t);
    free(ch);
    size_t nunknown;
    char *unknown = unknown_columns(argv + optind, argc - optind, &nunknown);
    if (unknown)
        cli_error(CMD, "not computed: column%s tare does not read: %s", nunknown == 1 ? "" : "s",
                  unknown);
    if (nrows == 0)
        cli_error(CMD, "no noise figures: %s", unknown && !db.npoints ? "no metric tare knows "
                  "in the history" : "no series has two values of a metric");
    free(unknown);
    hist_db_free(&db);
    return nrows ? EXIT_OK : EXIT_USAGE;
}

/* ---- merge ---- */

/* Names the temporary file merge writes, for the signal handler (-1: too long for it). */
static int merge_tmp_named(const char *path)
{
    if (path && strlen(path) >= sizeof sig_tmp)
        return -1;
    set_sig_tmp(path);
    return 0;
}

static int do_merge(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *outp = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            outp = optarg;
            break;
        case 'h':
            return help();
        default:
            return bad_option();
        }
    }
    if (!outp)
        return cli_usage_error(CMD, cmd_history_usage, "merge: no -o OUT");
    if (optind >= argc)
        return cli_usage_error(CMD, cmd_history_usage, "merge: no history FILE");
    catch_signals();
    int nf = argc - optind;
    size_t *torn = calloc(nf, sizeof *torn);
    if (!torn) {
        cli_error(CMD, "out of memory");
        return EXIT_USAGE;
    }
    struct err e = {0};
    long written = hist_merge(argv + optind, nf, outp, merge_tmp_named, torn, &e);
    /* A torn row is left out of OUT: never rewritten as a whole one. */
    for (int i = 0; i < nf; i++)
        if (torn[i])
            cli_error(CMD, "warning: '%s' line %zu: no newline at its end: a row cut off "
                      "mid-write, skipped", argv[optind + i], torn[i]);
    free(torn);
    if (written < 0)
        return cli_fail(CMD, &e);
    return EXIT_OK;
}

int cmd_history(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(CMD, cmd_history_usage, "no subcommand");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
        return help();
    for (size_t i = 0; i < sizeof history_subs / sizeof history_subs[0]; i++)
        if (strcmp(sub, history_subs[i].name) == 0) {
            /* getopt names its messages after argv[0]: "tare history check". */
            static char prog[64];
            snprintf(prog, sizeof prog, "tare history %s", sub);
            argv[1] = prog;
            if (history_subs[i].run != do_check && history_subs[i].run != do_noise)
                return history_subs[i].run(argc - 1, argv + 1);
            /* BRANCH:PATH arguments read from git into temporary copies */
            char **tmps;
            int st = cli_branch_resolve(CMD, argv + 2, argc - 2, &tmps);
            if (st != EXIT_OK)
                return st;
            branch_tmps = tmps;
            st = history_subs[i].run(argc - 1, argv + 1);
            cli_branch_release(tmps);
            return st;
        }
    if (sub[0] == '-')
        return cli_usage_error(CMD, cmd_history_usage, "unknown option '%s'", sub);
    return cli_usage_error(CMD, cmd_history_usage, "unknown subcommand '%s'", sub);
}
