/* test_history_metrics.c: a program's own counters as history metrics: any metric.NAME column
 * is one, read as a count unless metrics_varied lists it; joined across files by name; a file
 * widened by them; judged at a commit (made-up histories, every answer placed by hand). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/history/history.h"
#include "unit.h"

static void test_table(void)
{
    const char *text = "commit\tbenchmark\tinstructions\tmetric.pulls\tmetric.b-2.x\t"
                       "metric.not valid\tmetrics_varied\n"
                       "c1\tb\t100\t3000\tNA\tx\t-\n"
                       "c2\tb\t100\t3001.5\t7\ty\tb-2.x\n";
    struct hist_table t;
    struct err e = {0};
    CHECK_INT(hist_parse("t.tsv", text, strlen(text), &t, &e), 0);
    CHECK_INT(t.nuser, 2);
    CHECK_INT(t.c_metric[HM_COUNT], 3);
    CHECK_INT(t.c_metric[HM_COUNT + 1], 4);
    CHECK_INT(t.c_varied, 6);
    CHECK_STR(hist_table_metric_name(&t, HM_COUNT + 1), "metric.b-2.x");
    CHECK_NEAR(hist_value(&t, 0, HM_COUNT), 3000, 0);
    CHECK_NEAR(hist_value(&t, 1, HM_COUNT), 3001.5, 0);   /* a median of two runs */
    CHECK(isnan(hist_value(&t, 0, HM_COUNT + 1)));
    hist_table_free(&t);
    CHECK(hist_user_column("metric.locals_pulls"));
    CHECK(!hist_user_column("metric."));
    CHECK(!hist_user_column("metric.a b"));
    CHECK(!hist_user_column("metrics_varied"));
    CHECK(hist_column_known("metric.locals_pulls") && hist_column_known("metrics_varied"));

    /* A counter's cell: a number, 0 or more. */
    const char *bad[] = {"commit\tbenchmark\tmetric.x\nc1\tb\tmany\n",
                         "commit\tbenchmark\tmetric.x\nc1\tb\t-3\n"};
    const char *want[] = {"'t.tsv' line 2: column 'metric.x': not a number: 'many'",
                          "'t.tsv' line 2: column 'metric.x': negative (a counter is 0 or more)"};
    for (int i = 0; i < 2; i++) {
        CHECK_INT(hist_parse("t.tsv", bad[i], strlen(bad[i]), &t, &e), -1);
        CHECK(strstr(e.msg, want[i]) != NULL);
    }
    /* More than HIST_USER_MAX of them: said, not cut. */
    char *big = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&big, &len);
    fputs("commit\tbenchmark", f);
    for (int k = 0; k <= HIST_USER_MAX; k++)
        fprintf(f, "\tmetric.c%d", k);
    fputs("\n", f);
    fclose(f);
    CHECK_INT(hist_parse("t.tsv", big, len, &t, &e), -1);
    CHECK(strstr(e.msg, "more than 64 metric.NAME columns") != NULL);
    free(big);
}

/* A db of the texts. */
static void load(struct hist_db *db, const char *const *texts, int n)
{
    struct err e = {0};
    hist_db_init(db);
    for (int i = 0; i < n; i++) {
        struct hist_table t;
        CHECK_INT(hist_parse("t.tsv", texts[i], strlen(texts[i]), &t, &e), 0);
        CHECK_INT(hist_db_add(db, &t, &e), 0);
        hist_table_free(&t);
    }
    hist_db_finish(db);
}

static void test_db(void)
{
    /* Two files, their counters in other orders and one only in the second: joined by name. */
    const char *texts[] = {
        "date\tcommit\tbenchmark\tmetric.a\tmetric.b\n"
        "2026-01-01\tc1\tx\t10\t20\n",
        "date\tcommit\tbenchmark\tmetric.c\tmetric.b\tmetric.a\tmetrics_varied\n"
        "2026-01-02\tc2\tx\t5\t21\t11\tc,zz\n",
    };
    struct hist_db db;
    load(&db, texts, 2);
    CHECK_INT(db.nuser, 3);
    CHECK_INT(hist_db_nmetrics(&db), HM_COUNT + 3);
    int a = hist_db_metric_index(&db, "a"), b = hist_db_metric_index(&db, "metric.b");
    int c = hist_db_metric_index(&db, "metric.c");
    CHECK_INT(a, HM_COUNT);
    CHECK_INT(b, HM_COUNT + 1);
    CHECK_INT(c, HM_COUNT + 2);
    CHECK_INT(hist_db_metric_index(&db, "instructions"), HM_INSTRUCTIONS);
    CHECK_INT(hist_db_metric_index(&db, "nope"), -1);
    CHECK_STR(hist_db_metric_name(&db, c), "metric.c");
    CHECK(db.has[a] && db.has[b] && db.has[c] && !db.has[HM_INSTRUCTIONS]);
    const struct hist_series *s = &db.series[0];
    CHECK_INT(s->n, 2);
    CHECK_NEAR(s->v[a][0], 10, 0);
    CHECK_NEAR(s->v[a][1], 11, 0);
    CHECK_NEAR(s->v[b][1], 21, 0);
    CHECK(isnan(s->v[c][0]));
    CHECK_NEAR(s->v[c][1], 5, 0);
    CHECK(hist_deterministic(s, a) && hist_deterministic(s, b));
    CHECK(!hist_deterministic(s, c));
    CHECK(hist_deterministic(s, HM_INSTRUCTIONS) && !hist_deterministic(s, HM_MEDIAN_S));
    hist_db_free(&db);
}

/* 20 commits of series x: counters steady, pulls 10% up from commit 12 on; and series y
 * whose counter noisy varies (metrics_varied) by up to 20% every commit. */
static char *twenty(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("date\tcommit\tbenchmark\tinstructions\tmetric.pulls\tmetric.flushes\t"
          "metric.noisy\tmetrics_varied\n", f);
    for (int i = 1; i <= 20; i++) {
        fprintf(f, "2026-01-%02d\tc%02d\tx\t1000\t%d\t100\tNA\t-\n", i, i,
                i >= 12 ? 3300 : 3000);
        fprintf(f, "2026-01-%02d\tc%02d\ty\t1000\tNA\tNA\t%d\tnoisy\n", i, i,
                1000 + (i * 37 % 11) * 20);
    }
    fclose(f);
    return text;
}

static void test_check(void)
{
    char *text = twenty();
    const char *texts[] = {text};
    struct hist_db db;
    load(&db, texts, 1);
    struct hist_check_opts o = HIST_CHECK_DEFAULTS;
    int pulls = hist_db_metric_index(&db, "pulls"), noisy = hist_db_metric_index(&db, "noisy");
    for (size_t ci = 1; ci < db.ncommits; ci++) {
        struct hist_check c;
        struct err e = {0};
        CHECK_INT(hist_check_commit(&db, ci, &o, &c, &e), 0);
        size_t want = strcmp(db.commit[ci], "c12") == 0;
        char what[64];
        snprintf(what, sizeof what, "regressions at %s", db.commit[ci]);
        unit_report(c.nreg == want, __FILE__, __LINE__, what);
        CHECK_INT(c.nimp, 0);
        for (size_t k = 0; k < c.n; k++) {
            const struct hist_judgement *j = &c.j[k];
            if (j->verdict == HIST_REGRESSION) {
                CHECK_INT(j->metric, pulls);
                CHECK_NEAR(j->st.change, 0.10, 1e-12);
                CHECK_NEAR(j->st.fence, 0.02, 0);   /* the count threshold */
            }
            /* The counter that varied is judged against its noise: a 20% swing is no step,
             * and with too few points no verdict at all. */
            if (j->metric == noisy)
                CHECK(j->verdict == HIST_UNTESTED || j->verdict == HIST_SAME ||
                      j->verdict == HIST_ECHO);
            if (j->metric == noisy && ci < HIST_MIN_BEFORE + 2)
                CHECK_INT(j->verdict, HIST_UNTESTED);
        }
        hist_check_free(&c);
    }
    hist_db_free(&db);
    free(text);
}

/* An old file without counters takes them: widened, its rows NA in the new columns. */
static void test_widen(void)
{
    char path[] = "/tmp/tare-test-hm-XXXXXX";
    int fd = mkstemp(path);
    const char *old = "date\tcommit\tbenchmark\tinstructions\n2026-01-01\tc1\tx\t5\n";
    CHECK(fd >= 0 && write(fd, old, strlen(old)) == (ssize_t)strlen(old));
    close(fd);
    const char *rows = "date\tcommit\tbenchmark\tinstructions\tmetric.pulls\tmetrics_varied\n"
                       "2026-01-02\tc2\tx\t6\t3000\t-\n";
    struct err e = {0};
    CHECK_INT(hist_append(path, rows, strlen(rows), &e), 1);
    struct hist_table t;
    CHECK_INT(hist_read(path, &t, &e), 0);
    CHECK_INT(t.nuser, 1);
    CHECK_INT(t.nrows, 2);
    CHECK(isnan(hist_value(&t, 0, HM_COUNT)));
    CHECK_NEAR(hist_value(&t, 1, HM_COUNT), 3000, 0);
    hist_table_free(&t);
    /* A column tare does not know is still refused (a typo). */
    const char *typo = "date\tcommit\tbenchmark\tmetrc.pulls\n2026-01-03\tc3\tx\t1\n";
    CHECK_INT(hist_append(path, typo, strlen(typo), &e), -1);
    unlink(path);
}

int main(void)
{
    test_table();
    test_db();
    test_check();
    test_widen();
    return unit_done("test_history_metrics");
}
