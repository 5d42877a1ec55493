/* test_history_check.c: the verdicts at a commit (hist_check_commit, hist_judge) on made-up
 * histories whose every answer is placed by hand: what history check, report, trend and the
 * CI files print. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/history/history.h"
#include "unit.h"

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

/* The judgement of series name's metric m in c, or NULL. */
static const struct hist_judgement *find(const struct hist_db *db, const struct hist_check *c,
                                         const char *name, int m)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->j[i].metric == m && strcmp(db->series[c->j[i].series].name, name) == 0)
            return &c->j[i];
    return NULL;
}

static double five_percent(const char *series, void *ctx)
{
    (void)ctx;
    return strcmp(series, "e") == 0 ? 0.05 : 0;
}

/* Counts: each verdict once, at the newest commit c5. */
static void test_counts(void)
{
    static const char *const text[] = {
        "date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\n"
        "2026-01-01\tc1\ta\t1000\t10\t100\t0\n"
        "2026-01-02\tc2\ta\t1000\t10\t100\t0\n"
        "2026-01-03\tc3\ta\t1000\t10\t100\t0\n"
        "2026-01-04\tc4\ta\t1000\t10\t100\t0\n"
        "2026-01-05\tc5\ta\t1031\t10\tNA\t5\n"
        "2026-01-04\tc4\tb\t1000\t10\t100\t7\n"
        "2026-01-05\tc5\tb\t970\t10\t100\t7\n"
        "2026-01-04\tc4\tc\t1000\t10\t100\t7\n"
        "2026-01-05\tc5\td\t1000\t10\t100\t7\n"
        "2026-01-04\tc4\te\t1000\t10\t100\t7\n"
        "2026-01-05\tc5\te\t1031\t10\t100\t7\n",
    };
    struct hist_db db;
    load(&db, text, 1);
    struct hist_check_opts o = HIST_CHECK_DEFAULTS;
    struct hist_check c;
    struct err e = {0};
    CHECK_INT(hist_check_commit(&db, 4, &o, &c, &e), 0);
    CHECK_INT(c.commit, 4);
    CHECK_INT(c.nseries, 4);   /* a, b, d, e; c has no row at c5 */
    CHECK_INT(c.nabsent, 1);
    CHECK_INT(c.n, 16);
    CHECK_INT(c.nreg, 2);      /* a's and e's instructions (e at the default 2%) */
    CHECK_INT(c.nimp, 1);      /* b's instructions */
    CHECK_INT(c.nna, 1);       /* a's bytes */
    CHECK_INT(c.nskip, 5);     /* a's peak_bytes (from 0); d's four (nothing earlier) */
    CHECK_INT(c.ntested, 10);
    CHECK_INT(c.npend, 0);
    const struct hist_judgement *j = find(&db, &c, "a", HM_INSTRUCTIONS);
    CHECK(j && j->verdict == HIST_REGRESSION);
    if (j) {
        CHECK_NEAR(j->st.before, 1000, 0);
        CHECK_NEAR(j->st.after, 1031, 0);
        CHECK_NEAR(j->st.change, 0.031, 1e-12);
        CHECK_NEAR(j->st.fence, 0.02, 0);
        CHECK_NEAR(j->now, 1031, 0);
        CHECK_NEAR(j->prev, 1000, 0);
        CHECK_INT(j->point, 4);
        CHECK_INT(j->step_point, 4);
    }
    j = find(&db, &c, "a", HM_ALLOCATIONS);
    CHECK(j && j->verdict == HIST_SAME && j->st.change == 0);
    j = find(&db, &c, "a", HM_BYTES);
    CHECK(j && j->verdict == HIST_NA && isnan(j->now) && j->prev == 100);
    /* a count's fence is its threshold even where nothing was compared */
    CHECK(j && j->st.fence == 0.02);
    j = find(&db, &c, "a", HM_PEAK_BYTES);
    CHECK(j && j->verdict == HIST_UNTESTED && j->st.untested == HIST_EARLIER_ZERO);
    j = find(&db, &c, "b", HM_INSTRUCTIONS);
    CHECK(j && j->verdict == HIST_IMPROVEMENT);
    if (j)
        CHECK_NEAR(j->st.change, -0.03, 1e-12);
    j = find(&db, &c, "d", HM_INSTRUCTIONS);
    CHECK(j && j->verdict == HIST_UNTESTED && j->st.untested == HIST_NO_EARLIER);
    CHECK(find(&db, &c, "c", HM_INSTRUCTIONS) == NULL);
    /* Why, long and terse. */
    char buf[128];
    CHECK_STR(hist_untested_why(&j->st, false, buf, sizeof buf),
              "no earlier value to compare with");
    CHECK_STR(hist_untested_why(&j->st, true, buf, sizeof buf), "no earlier value");
    hist_check_free(&c);

    /* A series' own threshold (a suite's [bench e] threshold = 5%): +3.1% is within it. */
    o.threshold_of = five_percent;
    CHECK_INT(hist_check_commit(&db, 4, &o, &c, &e), 0);
    CHECK_INT(c.nreg, 1);
    j = find(&db, &c, "e", HM_INSTRUCTIONS);
    CHECK(j && j->verdict == HIST_SAME && j->st.fence == 0.05);
    j = find(&db, &c, "a", HM_INSTRUCTIONS);
    CHECK(j && j->verdict == HIST_REGRESSION && j->st.fence == 0.02);
    hist_check_free(&c);

    /* An earlier commit: c4, where b, c and e begin (nothing earlier) and a is flat. */
    o.threshold_of = NULL;
    CHECK_INT(hist_check_commit(&db, 3, &o, &c, &e), 0);
    CHECK_INT(c.nseries, 4);
    CHECK_INT(c.nabsent, 1);
    CHECK_INT(c.nreg + c.nimp + c.nna, 0);
    CHECK_INT(c.ntested, 4);
    CHECK_INT(c.nskip, 12);
    hist_check_free(&c);
    hist_db_free(&db);
}

/* A wall-clock series with a step of +30% at point 30 of ±1% noise: pending at the step,
 * confirmed on its third point, an echo after; the seconds beside a ratio not judged. */
static void test_wall(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    fputs("date\tcommit\tbenchmark\tratio\tmedian_s\n", m);
    for (int i = 0; i < 40; i++) {
        double noise = 1 + 0.005 * ((i * 3) % 5 - 2);
        fprintf(m, "2026-02-01T00:%02d:00Z\tc%d\tw\t%.4f\t%.4f\n", i, i,
                (i >= 30 ? 1.3 : 1.0) * noise, 2 * noise);
    }
    fprintf(m, "2026-02-01T00:40:00Z\tc40\tshort\t1\t1\n");
    fclose(m);
    const char *texts[] = {text};
    struct hist_db db;
    load(&db, texts, 1);
    free(text);
    CHECK_INT(db.ncommits, 41);
    const struct hist_series *s = &db.series[0];
    CHECK_STR(s->name, "w");
    struct hist_check_opts o = HIST_CHECK_DEFAULTS;
    struct hist_judgement j;
    hist_judge(s, HM_RATIO, 29, &o, &j);
    CHECK(j.verdict == HIST_SAME && fabs(j.st.change) < j.st.fence && j.st.fence >= 0.01);
    hist_judge(s, HM_RATIO, 30, &o, &j);
    CHECK(j.verdict == HIST_PENDING && j.step_point == 30);
    hist_judge(s, HM_RATIO, 32, &o, &j);
    CHECK(j.verdict == HIST_REGRESSION && j.step_point == 30 && j.point == 32);
    CHECK_NEAR(j.st.change, 0.3, 0.02);
    CHECK_NEAR(j.st.before, 1.0, 0.01);
    hist_judge(s, HM_RATIO, 35, &o, &j);
    CHECK(j.verdict == HIST_ECHO && isnan(j.st.change));
    hist_judge(s, HM_RATIO, 10, &o, &j);
    CHECK(j.verdict == HIST_UNTESTED && j.st.untested == HIST_TOO_FEW);
    char buf[128];
    CHECK_STR(hist_untested_why(&j.st, false, buf, sizeof buf),
              "too few points: 11 of the 16 a step test needs");
    CHECK_STR(hist_untested_why(&j.st, true, buf, sizeof buf), "too few points: 11 of 16");
    /* At commit c32 the check judges the ratio only: the seconds beside it do not alarm. */
    struct hist_check c;
    struct err e = {0};
    long ci = hist_db_find_commit(&db, "c32", &e);
    CHECK(ci >= 0);
    CHECK_INT(hist_check_commit(&db, (size_t)ci, &o, &c, &e), 0);
    CHECK_INT(c.n, 1);
    CHECK(c.n == 1 && c.j[0].metric == HM_RATIO && c.j[0].verdict == HIST_REGRESSION);
    CHECK_INT(c.nreg, 1);
    CHECK_INT(c.nabsent, 1);
    hist_check_free(&c);
    /* The newest commit: only "short", one point of each: too few. */
    CHECK_INT(hist_check_commit(&db, db.ncommits - 1, &o, &c, &e), 0);
    CHECK_INT(c.nseries, 1);
    CHECK_INT(c.ntested, 0);
    CHECK_INT(c.nskip, 1);
    hist_check_free(&c);
    hist_db_free(&db);
}

/* hist_db_order_git on a made-up log: the rows written newest first, a commit the log does
 * not have placed by its date, one named by a prefix, one rows give a subject of. */
static void test_order(void)
{
    static const char *const text[] = {
        "date\tcommit\tbenchmark\tinstructions\tcommit_date\tsubject\n"
        "2026-03-09\tcccccccccccccccccccccccccccccccccccccccc\tb\t300\tNA\tNA\n"
        "2026-03-08\tbbbbbbb\tb\t200\tNA\tNA\n"
        "2026-03-07\taaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\tb\t100\tNA\tmine\n"
        "2026-03-06\tx1\tb\t150\t2026-01-02T00:00:00Z\tunknown\n"
        "2026-03-05\tx2\tb\t400\tNA\tNA\n",
    };
    struct hist_db db;
    load(&db, text, 1);
    CHECK_STR(db.commit[0], "x1");   /* date order: x1 by its commit date, the rest by the run's */
    char *hash[] = {"cccccccccccccccccccccccccccccccccccccccc",
                    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    char *date[] = {"2026-01-03T00:00:00Z", "2026-01-02T12:00:00Z", "2026-01-01T00:00:00Z"};
    char *subject[] = {"third", "second", "first"};
    struct hist_gitlog log = {3, hash, date, subject};
    struct hist_order o;
    struct err e = {0};
    CHECK_INT(hist_db_order_git(&db, &log, &o, &e), 0);
    CHECK_INT(o.known, 3);
    CHECK_INT(o.unknown, 2);
    /* a, x1 (2026-01-02: before b, committed later), b, c, then x2 (a run date, March) */
    const char *want[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "x1", "bbbbbbb",
                          "cccccccccccccccccccccccccccccccccccccccc", "x2"};
    for (int i = 0; i < 5 && i < (int)db.ncommits; i++)
        CHECK_STR(db.commit[i], want[i]);
    CHECK_STR(db.subject[0], "mine");   /* the rows' own subject kept */
    CHECK_STR(db.subject[2], "second");
    CHECK_STR(db.cdate[3], "2026-01-03T00:00:00Z");
    /* the series' points follow: 100, 150, 200, 300, 400 */
    const struct hist_series *s = &db.series[0];
    for (size_t i = 0; i < s->n; i++)
        CHECK_INT(s->commit[i], i);
    CHECK_NEAR(s->v[HM_INSTRUCTIONS][1], 150, 0);
    CHECK_NEAR(s->v[HM_INSTRUCTIONS][4], 400, 0);
    CHECK_INT(hist_db_find_commit(&db, "cccccccc", &e), 3);
    hist_db_free(&db);
    /* a log that knows none of them: date order kept */
    load(&db, text, 1);
    char *other[] = {"dddddddddddddddddddddddddddddddddddddddd"};
    struct hist_gitlog none = {1, other, date, subject};
    CHECK_INT(hist_db_order_git(&db, &none, &o, &e), 0);
    CHECK_INT(o.known, 0);
    CHECK_STR(db.commit[0], "x1");
    CHECK_STR(db.commit[4], "cccccccccccccccccccccccccccccccccccccccc");
    hist_db_free(&db);
}

int main(void)
{
    test_counts();
    test_wall();
    test_order();
    return unit_done("test_history_check");
}
