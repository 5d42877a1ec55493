/* test_history.c: history files read by column name, appended safely, joined into series,
 * and the regression test on synthetic series whose steps we place ourselves. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/history/history.h"
#include "core/util/proc.h"
#include "unit.h"

static char dir[256];

/* e.msg against a whole expected message (CHECK_STR would warn on its 1 KiB size). */
#define CHECK_MSG(want) do { \
        if (strcmp(e.msg, want) != 0) \
            printf("  got message: %s\n", e.msg); \
        CHECK(strcmp(e.msg, want) == 0); \
    } while (0)

static int parse(const char *text, struct hist_table *t, struct err *e)
{
    return hist_parse("t.tsv", text, strlen(text), t, e);
}

static void test_parse(void)
{
    struct hist_table t;
    struct err e = {0};
    const char *tare =
        "date\tcommit\tbenchmark\tmedian_s\tmin_s\tref_median_s\tratio\truns\trunner\treference\n"
        "2026-01-01T00:00:00Z\taaaa\tfib\t0.5\t0.4\t1.0\t0.5\t7\t4c\tref\n"
        "2026-01-02T00:00:00Z\tbbbb\tfib+jit\tNA\t0.2\t\t0.25\t7\t4c\tref\n";
    CHECK_INT(parse(tare, &t, &e), 0);
    CHECK_INT(t.nrows, 2);
    CHECK_INT(t.c_metric[HM_MEDIAN_S], 3);
    CHECK_INT(t.c_metric[HM_INSTRUCTIONS], -1);
    CHECK_NEAR(hist_value(&t, 0, HM_RATIO), 0.5, 0);
    CHECK(isnan(hist_value(&t, 1, HM_MEDIAN_S)));
    CHECK(isnan(hist_value(&t, 1, HM_REF_MEDIAN_S)));
    CHECK_STR(hist_cell(&t, 1, t.c_benchmark), "fib+jit");
    CHECK_INT(t.line[1], 3);
    hist_table_free(&t);

    /* Columns by name, in any order; the seed's names through the mapping. */
    const char *mutsu =
        "benchmark\tcommit\tdate\tratio_mutsu_over_raku\tmutsu_median_s\trakudo\n"
        "fib\tc1\t2026\t0.3\t0.9\tv2022\n";
    CHECK_INT(parse(mutsu, &t, &e), 0);
    CHECK_NEAR(hist_value(&t, 0, HM_MEDIAN_S), 0.9, 0);
    CHECK_NEAR(hist_value(&t, 0, HM_RATIO), 0.3, 0);
    CHECK_STR(hist_cell(&t, 0, t.c_reference), "v2022");
    hist_table_free(&t);

    /* An old row without the newest (last) column reads it as NA. */
    CHECK_INT(parse("commit\tbenchmark\tinstructions\tbytes\nc\tb\t100\n", &t, &e), 0);
    CHECK(isnan(hist_value(&t, 0, HM_BYTES)));
    CHECK_NEAR(hist_value(&t, 0, HM_INSTRUCTIONS), 100, 0);
    hist_table_free(&t);

    /* CRLF; a last row without its newline was cut off mid-write (3 of 3.25): skipped, and
     * its line kept for the warning. */
    CHECK_INT(parse("commit\tbenchmark\tratio\r\nc\tb\t2\r\nd\tb\t3", &t, &e), 0);
    CHECK_INT(t.nrows, 1);
    CHECK_INT(t.torn_line, 3);
    CHECK_NEAR(hist_value(&t, 0, HM_RATIO), 2, 0);
    hist_table_free(&t);
    CHECK_INT(parse("commit\tbenchmark\tratio\nc\tb\t2\n", &t, &e), 0);
    CHECK_INT(t.nrows, 1);
    CHECK_INT(t.torn_line, 0);
    hist_table_free(&t);
    CHECK_INT(parse("commit\tbenchmark\tinstruc", &t, &e), -1);
    CHECK_MSG("'t.tsv' line 1: the header has no newline: a cut file");

    /* Values a history must never hold: each an error naming the file, line and column. */
    static const struct { const char *text, *msg;
    } bad[] = {
        {"commit\tbenchmark\tmedian_s\nc\tb\t-0.5\n",
         "'t.tsv' line 2: column 'median_s': negative (times and ratios are 0 or more): '-0.5'"},
        {"commit\tbenchmark\tratio_mutsu_over_raku\nc\tb\t-1\n",
         "'t.tsv' line 2: column 'ratio_mutsu_over_raku': negative (times and ratios are 0 or "
         "more): '-1'"},
        {"commit\tbenchmark\tinstructions\nc\tb\t-200\n",
         "'t.tsv' line 2: column 'instructions': not a count (a whole number from 0 to 2^64-1): "
         "'-200'"},
        {"commit\tbenchmark\tbytes\nc\tb\t18446744073709551616\n",
         "'t.tsv' line 2: column 'bytes': not a count (a whole number from 0 to 2^64-1): "
         "'18446744073709551616'"},
        {"commit\tbenchmark\tallocations\nc\tb\t1.5\n",
         "'t.tsv' line 2: column 'allocations': not a count (a whole number from 0 to 2^64-1): "
         "'1.5'"},
        {"commit\tbenchmark\tpeak_bytes\nc\tb\t1e6\n",
         "'t.tsv' line 2: column 'peak_bytes': not a count (a whole number from 0 to 2^64-1): "
         "'1e6'"},
        {"date\tcommit\tbenchmark\nyesterday\tc\tb\n",
         "'t.tsv' line 2: column 'date': not an ISO 8601 date (2026-07-12T06:07:21Z): 'yesterday'"},
        {"date\tcommit\tbenchmark\n2026-13-01\tc\tb\n",
         "'t.tsv' line 2: column 'date': not an ISO 8601 date (2026-07-12T06:07:21Z): "
         "'2026-13-01'"},
        {"date\tcommit\tbenchmark\n2026-01-01T25:00:00Z\tc\tb\n",
         "'t.tsv' line 2: column 'date': not an ISO 8601 date (2026-07-12T06:07:21Z): "
         "'2026-01-01T25:00:00Z'"},
        {"commit\tbenchmark\truns\nc\tb\t7\nc\tb\tseven\n",
         "'t.tsv' line 3: column 'runs': not a count (a whole number, 0 or more): 'seven'"},
        {"commit\tbenchmark\truns\nc\tb\t-7\n",
         "'t.tsv' line 2: column 'runs': not a count (a whole number, 0 or more): '-7'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(parse(bad[i].text, &t, &e), -1);
        CHECK_MSG(bad[i].msg);
        CHECK_INT(e.kind, ERR_INPUT);
    }
    /* What they may hold: counts up to 2^64-1, zero, NA and empty; dates in ISO 8601's
     * shorter and zoned forms. */
    const char *good = "date\tcommit\tbenchmark\tinstructions\tmedian_s\truns\n"
                       "2026-07-12T06:07:21Z\tc1\tb\t18446744073709551615\t0\t0\n"
                       "2026-07-12T06:07:21.25+02:00\tc2\tb\tNA\t\tNA\n"
                       "2026-07-12\tc3\tb\t0\t1e-3\t7\n"
                       "NA\tc4\tb\t1\t2\t\n"
                       "2026\tc5\tb\t1\t2\t3\n";
    CHECK_INT(parse(good, &t, &e), 0);
    CHECK_INT(t.nrows, 5);
    CHECK_NEAR(hist_value(&t, 0, HM_INSTRUCTIONS), 18446744073709551615.0, 0);
    CHECK_NEAR(hist_value(&t, 2, HM_MEDIAN_S), 0.001, 0);
    hist_table_free(&t);

    /* Malformed: each names the file and line. */
    CHECK_INT(parse("commit\tbenchmark\tratio\nc\tb\t2\nc\tb\t2\textra\n", &t, &e), -1);
    CHECK_MSG("'t.tsv' line 3: 4 fields, the header has 3");
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK_INT(parse("commit\tbenchmark\tratio\nc\tb\tfast\n", &t, &e), -1);
    CHECK_MSG("'t.tsv' line 2: column 'ratio': not a number: 'fast'");
    CHECK_INT(parse("commit\tbenchmark\tmedian_s\nc\tb\tinf\n", &t, &e), -1);
    CHECK_INT(parse("commit\tbenchmark\nc\t\n", &t, &e), -1);
    CHECK_MSG("'t.tsv' line 2: empty benchmark");
    CHECK_INT(parse("date\tbenchmark\n", &t, &e), -1);
    CHECK_MSG("'t.tsv' line 1: no 'commit' column: not a history file");
    CHECK_INT(parse("", &t, &e), -1);
    CHECK_MSG("'t.tsv' line 1: no header (an empty file or first line)");
    CHECK_INT(parse("commit\tbenchmark\tmedian_s\tmutsu_median_s\n", &t, &e), -1);
    CHECK_MSG("'t.tsv' line 1: column 'mutsu_median_s' twice");
    CHECK_INT(hist_parse("t.tsv", "commit\tbench\0mark\n", 17, &t, &e), -1);
    CHECK_INT(hist_read("/nonexistent/h.tsv", &t, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
}

static void test_mutsu(void)
{
    const char *root = getenv("TARE_ROOT");
    char path[512];
    snprintf(path, sizeof path, "%s/tests/fixtures/mutsu-excerpt.tsv", root ? root : ".");
    struct hist_table t;
    struct err e = {0};
    CHECK_INT(hist_read(path, &t, &e), 0);
    CHECK_INT(t.nrows, 150);
    CHECK(t.c_metric[HM_MEDIAN_S] >= 0 && t.c_metric[HM_RATIO] >= 0 && t.c_metric[HM_MIN_S] >= 0);
    CHECK(t.c_metric[HM_REF_MEDIAN_S] >= 0);
    /* The first row, as the file has it: bench-fib 2.2818 s, ratio 7.39. */
    CHECK_STR(hist_cell(&t, 0, t.c_benchmark), "bench-fib");
    CHECK_NEAR(hist_value(&t, 0, HM_MEDIAN_S), 2.2818, 1e-12);
    CHECK_NEAR(hist_value(&t, 0, HM_RATIO), 7.39, 1e-12);
    hist_table_free(&t);

    /* The whole real file when the shared data is beside the repository. */
    /* $TARE_DATA, or ../shared/data beside the repository. */
    const char *data = getenv("TARE_DATA");
    if (data)
        snprintf(path, sizeof path, "%s/mutsu-bench-history.tsv", data);
    else
        snprintf(path, sizeof path, "%s/../shared/data/mutsu-bench-history.tsv", root ? root : ".");
    if (access(path, R_OK) == 0) {
        CHECK_INT(hist_read(path, &t, &e), 0);
        CHECK_INT(t.nrows, 27202);
        struct hist_db db;
        hist_db_init(&db);
        CHECK_INT(hist_db_add(&db, &t, &e), 0);
        hist_db_finish(&db);
        CHECK_INT(db.nseries, 44);
        CHECK_INT(db.ncommits, 649);
        CHECK(db.has[HM_MEDIAN_S] && db.has[HM_RATIO] && !db.has[HM_INSTRUCTIONS]);
        size_t total = 0;
        for (size_t i = 0; i < db.nseries; i++)
            total += db.series[i].n;
        CHECK_INT(total, 27202);
        hist_db_free(&db);
        hist_table_free(&t);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&buf, &cap);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    fclose(m);
    *len = cap;
    return buf;
}

static void write_file(const char *path, const char *text);

/* Rows with columns tare knows but the file lacks: the header widened at its end, older rows
 * NA in them, the rows after; a file that is not whole takes no new columns. */
static void test_append_widen(const char *path)
{
    struct err e = {0};
    size_t len;
    char *text = slurp(path, &len);
    const char *rows = "commit\tbenchmark\tengine\tinstructions\nc6\tfib\tcachegrind\t900\n";
    CHECK_INT(hist_append(path, rows, strlen(rows), &e), 1);
    /* What the file held, each row with two NA more, then the new row. */
    char *want = NULL;
    size_t wl = 0;
    FILE *m = open_memstream(&want, &wl);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        fprintf(m, "%s\t%s\n", line, line == text ? "engine\tinstructions" : "NA\tNA");
    fputs("NA\tc6\tfib\tNA\tcachegrind\t900\n", m);
    fclose(m);
    free(text);
    text = slurp(path, &len);
    CHECK_STR(text, want);
    free(text);
    free(want);
    struct hist_table t;
    CHECK_INT(hist_read(path, &t, &e), 0);
    CHECK(t.c_engine == 4 && t.c_metric[HM_INSTRUCTIONS] == 5);
    CHECK(isnan(hist_value(&t, 0, HM_INSTRUCTIONS)));
    CHECK(hist_value(&t, t.nrows - 1, HM_INSTRUCTIONS) == 900);
    hist_table_free(&t);
    /* The same columns again: a plain append now. */
    const char *more = "commit\tbenchmark\tinstructions\nc7\tfib\t901\n";
    CHECK_INT(hist_append(path, more, strlen(more), &e), 1);
    /* A file with a malformed row takes no new columns, and keeps every byte. */
    char broken[400];
    snprintf(broken, sizeof broken, "%s.broken", path);
    write_file(broken, "commit\tbenchmark\tmedian_s\nc1\tfib\tslow\n");
    CHECK_INT(hist_append(broken, rows, strlen(rows), &e), -1);
    CHECK(strstr(e.msg, "line 2: column 'median_s': not a number") != NULL);
    CHECK(strstr(e.msg, "nothing written") != NULL);
    text = slurp(broken, &len);
    CHECK_STR(text, "commit\tbenchmark\tmedian_s\nc1\tfib\tslow\n");
    free(text);
    unlink(broken);
}

static void test_append(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/wall.tsv", dir);
    struct err e = {0};
    const char *rows = "date\tcommit\tbenchmark\tmedian_s\n2026-01-01\tc1\tfib\t0.5\n";
    CHECK_INT(hist_append(path, rows, strlen(rows), &e), 1);
    /* Columns matched by name in another order; the missing one written as NA. */
    const char *more = "benchmark\tcommit\n" "fib\tc2\n" "fib\tc3\n";
    CHECK_INT(hist_append(path, more, strlen(more), &e), 2);
    size_t len;
    char *text = slurp(path, &len);
    CHECK_STR(text, "date\tcommit\tbenchmark\tmedian_s\n2026-01-01\tc1\tfib\t0.5\n"
                    "NA\tc2\tfib\tNA\nNA\tc3\tfib\tNA\n");
    free(text);
    /* A column the file lacks and tare does not know (a typo) is refused, nothing written. */
    const char *bad = "commit\tbenchmark\tinstrutions\nc4\tfib\t9\n";
    CHECK_INT(hist_append(path, bad, strlen(bad), &e), -1);
    CHECK(strstr(e.msg, "column 'instrutions' is not in") != NULL);
    /* A malformed input row is refused with its line. */
    const char *bad2 = "commit\tbenchmark\tmedian_s\nc4\tfib\tslow\n";
    CHECK_INT(hist_append(path, bad2, strlen(bad2), &e), -1);
    CHECK_MSG("'<stdin>' line 2: column 'median_s': not a number: 'slow'");
    /* Input cut off mid-row (a producer killed), or with a value a history must not hold:
     * refused, nothing written. */
    size_t before;
    free(slurp(path, &before));
    const char *cut = "commit\tbenchmark\tmedian_s\nc4\tfib\t0.5\nc5\tfib\t0.";
    CHECK_INT(hist_append(path, cut, strlen(cut), &e), -1);
    CHECK_MSG("'<stdin>' line 3: no newline at its end: a cut row (nothing written)");
    const char *neg = "commit\tbenchmark\tmedian_s\nc4\tfib\t0.5\nc5\tfib\t-0.5\n";
    CHECK_INT(hist_append(path, neg, strlen(neg), &e), -1);
    CHECK_MSG(
        "'<stdin>' line 3: column 'median_s': negative (times and ratios are 0 or more): '-0.5'");
    free(slurp(path, &len));
    CHECK_INT(len, before);
    /* A torn last line (a writer killed mid-row) is cut off before appending. */
    int fd = open(path, O_WRONLY | O_APPEND);
    CHECK(write(fd, "2026-01-09\tc9\tfi", 16) == 16);
    close(fd);
    const char *last = "commit\tbenchmark\nc5\tfib\n";
    CHECK_INT(hist_append(path, last, strlen(last), &e), 1);
    struct hist_table t;
    CHECK_INT(hist_read(path, &t, &e), 0);
    CHECK_INT(t.nrows, 4);
    CHECK_STR(hist_cell(&t, 3, t.c_commit), "c5");
    hist_table_free(&t);
    test_append_widen(path);
}

/* The header hist_write_header writes for (which, flags), as a string to free. */
static char *header_of(enum hist_file which, unsigned flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK_INT(hist_write_header(m, which, flags), 0);
    fclose(m);
    return buf;
}

/* The headers tare run writes, read back: every column found by the reader's names. */
static void test_headers(void)
{
    char *buf = header_of(HIST_WALL, HIST_CACHE);
    CHECK_STR(buf, "date\tcommit\tbenchmark\tmedian_s\tmin_s\tref_median_s\tratio\truns\trunner"
                   "\treference\n");
    struct hist_table t;
    struct err e = {0};
    CHECK_INT(parse(buf, &t, &e), 0);
    CHECK(t.c_date == 0 && t.c_commit == 1 && t.c_benchmark == 2 && t.c_runs == 7 &&
          t.c_runner == 8 && t.c_reference == 9 && t.c_toolchain == -1);
    for (int k = HM_MEDIAN_S; k <= HM_RATIO; k++)
        CHECK_INT(t.c_metric[k], 3 + k);
    CHECK_INT(t.c_metric[HM_INSTRUCTIONS], -1);
    hist_table_free(&t);
    free(buf);
    buf = header_of(HIST_COUNT, 0);
    CHECK_STR(buf, "date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes"
                   "\ttoolchain\tengine\n");
    CHECK_INT(parse(buf, &t, &e), 0);
    CHECK(t.c_toolchain == 7 && t.c_engine == 8 && t.c_runs == -1 &&
          t.c_metric[HM_MEDIAN_S] == -1 && t.c_metric[HM_L1I_MISSES] == -1);
    for (int k = HM_INSTRUCTIONS; k <= HM_PEAK_BYTES; k++)
        CHECK_INT(t.c_metric[k], 3 + k - HM_INSTRUCTIONS);
    hist_table_free(&t);
    free(buf);
    /* With the cache simulation: its five metrics after the engine, read as metrics. */
    buf = header_of(HIST_COUNT, HIST_CACHE);
    CHECK_STR(buf, "date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes"
                   "\ttoolchain\tengine\tl1i_misses\tl1d_misses\tlli_misses\tlld_misses"
                   "\test_cycles\n");
    CHECK_INT(parse(buf, &t, &e), 0);
    CHECK(t.c_engine == 8);
    for (int k = HM_L1I_MISSES; k <= HM_EST_CYCLES; k++) {
        CHECK_INT(t.c_metric[k], 9 + k - HM_L1I_MISSES);
        CHECK(hist_metric_deterministic(k));
    }
    hist_table_free(&t);
    free(buf);
    /* With the valgrind options (tare run --valgrind-arg): after the engine. */
    buf = header_of(HIST_COUNT, HIST_VGARGS | HIST_CACHE);
    CHECK_STR(buf, "date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes"
                   "\ttoolchain\tengine\tvalgrind_args\tl1i_misses\tl1d_misses\tlli_misses"
                   "\tlld_misses\test_cycles\n");
    CHECK_INT(parse(buf, &t, &e), 0);
    CHECK(t.c_vg_args == 9 && t.c_metric[HM_L1I_MISSES] == 10);
    hist_table_free(&t);
    free(buf);
    /* With the net counts too (tare run --subtract): before the cache columns. */
    buf = header_of(HIST_COUNT, HIST_NET | HIST_CACHE);
    CHECK_STR(buf, "date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes"
                   "\ttoolchain\tengine\tnet_instructions\tnet_allocations\tnet_bytes"
                   "\tl1i_misses\tl1d_misses\tlli_misses\tlld_misses\test_cycles\n");
    CHECK_INT(parse(buf, &t, &e), 0);
    for (int k = HM_NET_INSTRUCTIONS; k <= HM_NET_BYTES; k++) {
        CHECK_INT(t.c_metric[k], 9 + k - HM_NET_INSTRUCTIONS);
        CHECK(hist_metric_deterministic(k));
    }
    CHECK_INT(t.c_metric[HM_L1I_MISSES], 12);
    hist_table_free(&t);
    free(buf);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int tmp_calls, tmp_forgets;
static char tmp_seen[400];

static int note_tmp(const char *path)
{
    if (path) {
        tmp_calls++;
        snprintf(tmp_seen, sizeof tmp_seen, "%s", path);
    } else {
        tmp_forgets++;
    }
    return 0;
}

static int refuse_tmp(const char *path)
{
    return path ? -1 : 0;
}

/* Shards merged: columns united by canonical name, rows in commit (date) order then by series,
 * absent cells NA, a row given twice written once, a torn row left out. */
static void test_merge(void)
{
    char a[300], b[300], out[300];
    snprintf(a, sizeof a, "%s/merge-a.tsv", dir);
    snprintf(b, sizeof b, "%s/merge-b.tsv", dir);
    snprintf(out, sizeof out, "%s/merge-out.tsv", dir);
    write_file(a, "date\tcommit\tbenchmark\tmutsu_median_s\n"
                  "2026-01-02\tc2\tzeta\t0.5\n"
                  "2026-01-02\tc2\talpha\t0.25\n"
                  "2026-01-01\tc1\talpha\t0.125\n");
    write_file(b, "commit\tdate\tbenchmark\tinstructions\n"
                  "c1\t2026-01-01\talpha\t1000\n"
                  "c3\t2026-01-03\talpha\t900\n"
                  "c3\t2026-01-03\tal");
    /* a twice: its rows meet their copies in the order (same commit, series, next seq). */
    char *paths[] = {a, a, b};
    size_t torn[3] = {9, 9, 9};
    struct err e = {0};
    tmp_calls = tmp_forgets = 0;
    CHECK_INT(hist_merge(paths, 3, out, note_tmp, torn, &e), 5);
    CHECK_INT(torn[0], 0);
    CHECK_INT(torn[1], 0);
    CHECK_INT(torn[2], 4);
    CHECK_INT(tmp_calls, 1);
    CHECK(tmp_forgets >= 1);
    char want_tmp[400];
    snprintf(want_tmp, sizeof want_tmp, "%s.tmp.%d", out, (int)getpid());
    CHECK_STR(tmp_seen, want_tmp);
    CHECK(access(want_tmp, F_OK) != 0);
    size_t len;
    char *text = slurp(out, &len);
    CHECK_STR(text, "date\tcommit\tbenchmark\tmedian_s\tinstructions\n"
                    "2026-01-01\tc1\talpha\t0.125\tNA\n"
                    "2026-01-01\tc1\talpha\tNA\t1000\n"
                    "2026-01-02\tc2\talpha\t0.25\tNA\n"
                    "2026-01-02\tc2\tzeta\t0.5\tNA\n"
                    "2026-01-03\tc3\talpha\tNA\t900\n");
    /* The output merged alone: the same rows, the same file. */
    char out2[320];
    snprintf(out2, sizeof out2, "%s/merge-out2.tsv", dir);
    char *again[] = {out};
    CHECK_INT(hist_merge(again, 1, out2, NULL, NULL, &e), 5);
    size_t len2;
    char *text2 = slurp(out2, &len2);
    CHECK(text && text2 && len2 == len && memcmp(text, text2, len) == 0);
    free(text);
    free(text2);
    /* A name the caller cannot hold is refused, and out is left as it was. */
    CHECK_INT(hist_merge(paths, 1, out, refuse_tmp, NULL, &e), -1);
    CHECK(strstr(e.msg, "name too long") != NULL);
    text = slurp(out, &len);
    CHECK(text && strstr(text, "\t900\n") != NULL);
    free(text);
    /* An unreadable input: -1, the error names it, out untouched. */
    char missing[320];
    snprintf(missing, sizeof missing, "%s/absent.tsv", dir);
    char *bad[] = {a, missing};
    CHECK_INT(hist_merge(bad, 2, out, NULL, NULL, &e), -1);
    CHECK(strstr(e.msg, "absent.tsv") != NULL);
}

/* Entries of the directory starting with '.': the transaction's copies and second names. */
static int hidden_entries(const char *d)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^\\.' > /dev/null", d);
    return system(cmd) == 0;
}

static void check_file(const char *path, const char *want)
{
    size_t len;
    char *text = slurp(path, &len);
    CHECK_STR(text, want);
    free(text);
}

/* tare run's wall.tsv and count.tsv as one transaction: both get their rows or neither. */
static void test_append_files(void)
{
    char sub[300], w[330], c[330], link_path[330], target[330];
    snprintf(sub, sizeof sub, "%s/tx", dir);
    mkdir(sub, 0777);
    snprintf(w, sizeof w, "%s/wall.tsv", sub);
    snprintf(c, sizeof c, "%s/count.tsv", sub);
    struct err e = {0};
    const char *wr = "commit\tbenchmark\tmedian_s\nc1\tb\t0.5\n";
    const char *cr = "commit\tbenchmark\tinstructions\nc1\tb\t100\n";
    struct hist_rows f[2] = {{w, wr, strlen(wr)}, {c, cr, strlen(cr)}};
    /* Two new files: both made with their header and row. */
    CHECK_INT(hist_append_files(f, 2, &e), 0);
    check_file(w, wr);
    check_file(c, cr);
    /* The second cannot take its rows (a column nobody knows): neither file moves, no copy
     * is left, and a file made only to be locked is gone again. */
    const char *bad = "commit\tbenchmark\tinstrs\nc2\tb\t100\n";
    char c2[330];
    snprintf(c2, sizeof c2, "%s/new.tsv", sub);
    struct hist_rows g[2] = {{c2, wr, strlen(wr)}, {c, bad, strlen(bad)}};
    CHECK_INT(hist_append_files(g, 2, &e), -1);
    CHECK(strstr(e.msg, "column 'instrs' is not in") != NULL);
    check_file(c, cr);
    CHECK(access(c2, F_OK) != 0);
    CHECK(!hidden_entries(sub));
    g[0] = (struct hist_rows){w, "commit\tbenchmark\tmedian_s\nc2\tb\t0.6\n", 0};
    g[0].len = strlen(g[0].text);
    /* A malformed row already in the second file: no widening, nothing written to either. */
    write_file(c2, "commit\tbenchmark\tmedian_s\nc1\tb\tslow\n");
    g[1] = (struct hist_rows){c2, cr, strlen(cr)};
    CHECK_INT(hist_append_files(g, 2, &e), -1);
    CHECK(strstr(e.msg, "line 2: column 'median_s': not a number: 'slow'") != NULL);
    CHECK(strstr(e.msg, c2) != NULL);
    check_file(w, wr);
    CHECK(!hidden_entries(sub));
    unlink(c2);
    /* Widened in the transaction (count.tsv gains engine), a torn last line of wall.tsv cut,
     * and wall.tsv reached through a symbolic link, which stays one. */
    int fd = open(w, O_WRONLY | O_APPEND);
    CHECK(write(fd, "c9\tb\t0.", 7) == 7);
    close(fd);
    snprintf(target, sizeof target, "%s/wall-real.tsv", sub);
    snprintf(link_path, sizeof link_path, "%s/wall-link.tsv", sub);
    CHECK_INT(rename(w, target), 0);
    CHECK_INT(symlink("wall-real.tsv", link_path), 0);
    const char *cr2 = "commit\tbenchmark\tinstructions\tengine\nc2\tb\t101\tcallgrind\n";
    struct hist_rows h[2] = {{link_path, g[0].text, g[0].len}, {c, cr2, strlen(cr2)}};
    CHECK_INT(hist_append_files(h, 2, &e), 0);
    check_file(target, "commit\tbenchmark\tmedian_s\nc1\tb\t0.5\nc2\tb\t0.6\n");
    check_file(c, "commit\tbenchmark\tinstructions\tengine\nc1\tb\t100\tNA\n"
                  "c2\tb\t101\tcallgrind\n");
    char lbuf[64] = "";
    CHECK(readlink(link_path, lbuf, sizeof lbuf - 1) > 0 && strcmp(lbuf, "wall-real.tsv") == 0);
    CHECK(!hidden_entries(sub));
    /* An interrupt before the renames (a child: the flag stays set) writes nothing. */
    pid_t pid = fork();
    if (pid == 0) {
        proc_interrupt(SIGINT);
        struct err ce = {0};
        int rc = hist_append_files(h, 2, &ce);
        _exit(rc == -1 && ce.kind == ERR_INTERRUPTED ? 0 : 1);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    check_file(target, "commit\tbenchmark\tmedian_s\nc1\tb\t0.5\nc2\tb\t0.6\n");
    CHECK(!hidden_entries(sub));
}

/* Eight processes append 500 rows each, one row per append, all at once: 4,000 intact rows. */
static void test_concurrent(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/race.tsv", dir);
    enum { NPROC = 8, NROW = 500 };
    pid_t pids[NPROC];
    for (int p = 0; p < NPROC; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            char row[512];
            struct err e;
            for (int r = 0; r < NROW; r++) {
                /* A long-ish row, so a torn write would show. */
                int n = snprintf(row, sizeof row,
                                 "commit\tbenchmark\tinstructions\trunner\n"
                                 "c%d-%d\tbench-%d\t%d\t%0200d\n", p, r, p, p * 100000 + r, r);
                if (hist_append(path, row, n, &e) != 1)
                    _exit(1);
            }
            _exit(0);
        }
    }
    int ok = 1;
    for (int p = 0; p < NPROC; p++) {
        int st;
        waitpid(pids[p], &st, 0);
        ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    CHECK(ok);
    struct hist_table t;
    struct err e = {0};
    CHECK_INT(hist_read(path, &t, &e), 0);
    CHECK_INT(t.nrows, NPROC * NROW);
    /* Every row intact, and each process's rows all there, in its own order. */
    int next[NPROC] = {0}, intact = 1;
    for (size_t r = 0; r < t.nrows; r++) {
        int p, k;
        if (sscanf(hist_cell(&t, r, t.c_commit), "c%d-%d", &p, &k) != 2 || p < 0 || p >= NPROC) {
            intact = 0;
            continue;
        }
        char want[32];
        snprintf(want, sizeof want, "bench-%d", p);
        intact &= k == next[p]++;
        intact &= strcmp(hist_cell(&t, r, t.c_benchmark), want) == 0;
        intact &= hist_value(&t, r, HM_INSTRUCTIONS) == p * 100000 + k;
        intact &= strlen(hist_cell(&t, r, t.c_runner)) == 200;
    }
    CHECK(intact);
    hist_table_free(&t);
}

/* Whether pid waits on a flock (a "->" line of /proc/locks). */
static int waits_on_lock(pid_t pid)
{
    FILE *f = fopen("/proc/locks", "r");
    char line[256], want[32];
    int found = 0;
    snprintf(want, sizeof want, " %d ", (int)pid);
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, "->") && strstr(line, want);
    if (f)
        fclose(f);
    return found;
}

/* The protocol's hard case: an appender waits on the lock while the holder renames a new file
 * into place (as merge does); once it has the lock it must append to the new file, not to
 * the old one that no name reaches any more. */
static void test_lock_replaced(void)
{
    char path[300], tmp[320];
    snprintf(path, sizeof path, "%s/replaced.tsv", dir);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    struct err e = {0};
    const char *first = "commit\tbenchmark\nold\tb\n";
    CHECK_INT(hist_append(path, first, strlen(first), &e), 1);
    int fd = hist_lock_open(path, O_RDONLY, true, &e);
    CHECK(fd >= 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd);   /* the lock belongs to the open file, which fork shares */
        const char *row = "commit\tbenchmark\nwaited\tb\n";
        _exit(hist_append(path, row, strlen(row), &e) == 1 ? 0 : 1);
    }
    while (!waits_on_lock(pid))
        usleep(1000);
    FILE *f = fopen(tmp, "w");
    fputs("commit\tbenchmark\nnew\tb\n", f);
    fclose(f);
    CHECK_INT(rename(tmp, path), 0);
    close(fd);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    size_t len;
    char *text = slurp(path, &len);
    CHECK_STR(text, "commit\tbenchmark\nnew\tb\nwaited\tb\n");
    free(text);
    /* A reader waits for a writer and reads what it wrote, whole. */
    fd = hist_lock_open(path, O_RDWR | O_APPEND, true, &e);
    pid = fork();
    if (pid == 0) {
        close(fd);
        struct hist_table t;
        int ok = hist_read(path, &t, &e) == 0 && t.nrows == 3 && !t.torn_line;
        hist_table_free(&t);
        _exit(ok ? 0 : 1);
    }
    while (!waits_on_lock(pid))
        usleep(1000);
    CHECK(write(fd, "late\tb\n", 7) == 7);
    close(fd);
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* A missing file is an input error, and nothing is created by a reader. */
    snprintf(tmp, sizeof tmp, "%s/absent.tsv", dir);
    CHECK_INT(hist_lock_open(tmp, O_RDONLY, false, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK(access(tmp, F_OK) != 0);
}

static void test_db(void)
{
    struct hist_table w, c;
    struct err e = {0};
    /* Two files joined by commit and benchmark; commits ordered by date. */
    CHECK_INT(parse("date\tcommit\tbenchmark\tmedian_s\n"
                    "2026-01-02\tc2\tfib\t2\n2026-01-01\tc1\tfib\t1\n2026-01-03\tc3\tfib\t3\n"
                    "2026-01-03\tc3\tfib+jit\t1.5\n", &w, &e), 0);
    CHECK_INT(parse("date\tcommit\tbenchmark\tinstructions\n"
                    "2026-01-01\tc1\tfib\t100\n2026-01-03\tc3\tfib\t300\n", &c, &e), 0);
    struct hist_db db;
    hist_db_init(&db);
    CHECK_INT(hist_db_add(&db, &w, &e), 0);
    CHECK_INT(hist_db_add(&db, &c, &e), 0);
    hist_db_finish(&db);
    CHECK_INT(db.ncommits, 3);
    CHECK_STR(db.commit[0], "c1");
    CHECK_STR(db.commit[2], "c3");
    CHECK_INT(db.nseries, 2);
    struct hist_series *s = &db.series[0];
    CHECK_STR(s->name, "fib");
    CHECK_INT(s->n, 3);
    CHECK_NEAR(s->v[HM_MEDIAN_S][0], 1, 0);
    CHECK_NEAR(s->v[HM_MEDIAN_S][2], 3, 0);
    CHECK_NEAR(s->v[HM_INSTRUCTIONS][0], 100, 0);
    CHECK(isnan(s->v[HM_INSTRUCTIONS][1]));
    CHECK_INT(db.series[1].commit[0], 2);
    double ch[8];
    CHECK_INT(hist_changes(s, HM_INSTRUCTIONS, ch), 1);
    CHECK_NEAR(ch[0], 2, 1e-12);
    CHECK_INT(hist_changes(s, HM_MEDIAN_S, ch), 2);
    CHECK_NEAR(ch[1], 0.5, 1e-12);
    CHECK_INT(hist_db_find_commit(&db, "c2", &e), 1);
    CHECK_INT(hist_db_find_commit(&db, "c9999", &e), -1);
    hist_db_free(&db);
    hist_table_free(&w);
    hist_table_free(&c);
    /* Rows of another engine, or taken with valgrind options, are series of their own, named
     * with them; NA in either column is the plain series. */
    CHECK_INT(parse("commit\tbenchmark\tengine\tvalgrind_args\tlld_misses\n"
                    "c1\twalk\tNA\tNA\t10\nc2\twalk\tcallgrind\t--LL=1048576,16,64\t900\n"
                    "c3\twalk\tcachegrind\t--LL=1048576,16,64\t901\n"
                    "c4\twalk\tcachegrind\t\t11\n", &c, &e), 0);
    hist_db_init(&db);
    CHECK_INT(hist_db_add(&db, &c, &e), 0);
    hist_db_finish(&db);
    CHECK_INT(db.nseries, 4);
    CHECK_STR(db.series[0].name, "walk");
    CHECK_STR(db.series[1].name, "walk [--LL=1048576,16,64]");
    CHECK_STR(db.series[2].name, "walk@cachegrind [--LL=1048576,16,64]");
    CHECK_STR(db.series[3].name, "walk@cachegrind");
    hist_db_free(&db);
    hist_table_free(&c);
}

/* Deterministic pseudo-random normal noise (xorshift + Box-Muller). */
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

static struct hist_series make_series(const double *v, size_t n, int m)
{
    struct hist_series s = {.name = "synthetic", .n = n};
    s.commit = malloc(n * sizeof *s.commit);
    for (int k = 0; k < HM_COUNT; k++) {
        s.v[k] = malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++)
            s.v[k][i] = k == m ? v[i] : NAN;
    }
    for (size_t i = 0; i < n; i++)
        s.commit[i] = i;
    return s;
}

static void free_series(struct hist_series *s)
{
    free(s->commit);
    for (int k = 0; k < HM_COUNT; k++)
        free(s->v[k]);
}

static void test_check(void)
{
    struct hist_check_opts o = {.det_threshold = 0.02, .persist = 3, .window = 10, .noise_n = 60};
    enum { N = 300 };
    double v[N];
    struct hist_step st;

    /* Noise must not ring: pure noise at several levels (2%, 10%, 25% sd), every commit. */
    const double sds[] = {0.02, 0.10, 0.25};
    int rang = 0, checked = 0;
    for (int rep = 0; rep < 20; rep++)
        for (size_t k = 0; k < 3; k++) {
            for (size_t i = 0; i < N; i++)
                v[i] = fmax(0.01, 1.0 * (1 + sds[k] * normal()));
            struct hist_series s = make_series(v, N, HM_MEDIAN_S);
            for (size_t i = 0; i < N; i++) {
                hist_check_point(&s, HM_MEDIAN_S, i, &o, &st);
                rang += st.found;
                checked++;
            }
            free_series(&s);
        }
    CHECK_INT(rang, 0);
    CHECK_INT(checked, 20 * 3 * N);

    /* A real 30% step (after 200 commits of 5% noise) must ring, once per series, when the
     * third commit confirms it, at its commit (noise may place it one commit off). */
    int found_at_step = 0, found_elsewhere = 0, exact = 0;
    for (int rep = 0; rep < 20; rep++) {
        for (size_t i = 0; i < N; i++)
            v[i] = (i >= 200 ? 1.3 : 1.0) * (1 + 0.05 * normal());
        struct hist_series s = make_series(v, N, HM_RATIO);
        for (size_t i = 0; i < N; i++) {
            hist_check_point(&s, HM_RATIO, i, &o, &st);
            if (st.found && st.at >= 199 && st.at <= 201 && i == st.at + 2) {
                found_at_step++;
                exact += st.at == 200;
                CHECK_NEAR(st.change, 0.3, 0.1);
            } else if (st.found) {
                found_elsewhere++;
            }
        }
        free_series(&s);
    }
    /* The scan over a whole series agrees with a check after every commit. */
    {
        for (size_t i = 0; i < N; i++)
            v[i] = (i >= 150 ? 1.3 : 1.0) * (1 + 0.05 * normal());
        struct hist_series s = make_series(v, N, HM_RATIO);
        struct hist_step scan[N];
        size_t nfound = hist_scan(&s, HM_RATIO, &o, scan);
        int agree = 1;
        for (size_t i = 0; i < N; i++) {
            hist_check_point(&s, HM_RATIO, i, &o, &st);
            agree &= st.found == scan[i].found && (!st.found || st.at == scan[i].at);
        }
        CHECK(agree);
        CHECK(nfound >= 1);
        free_series(&s);
    }
    CHECK_INT(found_at_step, 20);
    CHECK_INT(found_elsewhere, 0);
    CHECK(exact >= 18);

    /* The step is pending at its own commit, before persistence confirms it. */
    for (size_t i = 0; i < N; i++)
        v[i] = (i >= 200 ? 1.3 : 1.0) * (1 + 0.02 * normal());
    struct hist_series s = make_series(v, N, HM_MEDIAN_S);
    hist_check_point(&s, HM_MEDIAN_S, 200, &o, &st);
    CHECK(!st.found && st.pending && st.at == 200);
    /* An improvement is a step too (negative change). */
    for (size_t i = 0; i < N; i++)
        s.v[HM_MEDIAN_S][i] = (i >= 100 ? 0.7 : 1.0) * (1 + 0.02 * normal());
    hist_check_point(&s, HM_MEDIAN_S, 102, &o, &st);
    CHECK(st.found && st.at == 100 && st.change < -0.2);
    /* A single spike is not a step. */
    for (size_t i = 0; i < N; i++)
        s.v[HM_MEDIAN_S][i] = (i == 100 ? 1.5 : 1.0) * (1 + 0.02 * normal());
    for (size_t i = 100; i < 110; i++) {
        hist_check_point(&s, HM_MEDIAN_S, i, &o, &st);
        CHECK(!st.found);
    }
    free_series(&s);

    /* Values to two decimals (a ratio of 0.04) move by whole steps of 0.01, 25% of the value:
     * one step is not a change that can be told; a doubling is. */
    {
        double q[80];
        for (size_t i = 0; i < 80; i++)
            q[i] = i >= 70 ? 0.05 : (i % 9 == 4 ? 0.05 : 0.04);
        struct hist_series qs = make_series(q, 80, HM_RATIO);
        hist_check_point(&qs, HM_RATIO, 72, &o, &st);
        CHECK(!st.found);
        CHECK(!st.pending);
        for (size_t i = 70; i < 80; i++)
            qs.v[HM_RATIO][i] = 0.08;
        hist_check_point(&qs, HM_RATIO, 72, &o, &st);
        CHECK(st.found && st.at == 70);
        CHECK_NEAR(st.change, 1.0, 1e-9);
        /* Which metrics alarm: with a ratio, not the seconds; never the reference's time. */
        CHECK(hist_alarms(&qs, HM_RATIO));
        qs.v[HM_MEDIAN_S][3] = 1.0;
        CHECK(!hist_alarms(&qs, HM_MEDIAN_S));
        CHECK(!hist_alarms(&qs, HM_MIN_S));
        CHECK(!hist_alarms(&qs, HM_REF_MEDIAN_S));
        CHECK(hist_alarms(&qs, HM_INSTRUCTIONS));
        for (size_t i = 0; i < 80; i++)
            qs.v[HM_RATIO][i] = NAN;
        CHECK(hist_alarms(&qs, HM_MEDIAN_S));
        free_series(&qs);
    }

    /* Deterministic: a fixed threshold against the previous value. */
    double d[] = {1000, 1000, NAN, 1010, 1031};
    s = make_series(d, 5, HM_INSTRUCTIONS);
    hist_check_point(&s, HM_INSTRUCTIONS, 3, &o, &st);
    CHECK(!st.found);
    CHECK_NEAR(st.change, 0.01, 1e-12);
    CHECK_NEAR(st.before, 1000, 0);
    hist_check_point(&s, HM_INSTRUCTIONS, 4, &o, &st);
    CHECK(st.found);
    CHECK_NEAR(st.change, 1031.0 / 1010 - 1, 1e-12);
    hist_check_point(&s, HM_INSTRUCTIONS, 2, &o, &st);
    CHECK(!st.found);
    free_series(&s);
}


/* A year and more of history at scale: 10,000 commits x 50 series (500,000 rows), written
 * newest first so the reader must order them, with a 5% instructions step planted at commit
 * 9000 of series 7 and a 30% ratio step at commit 8000 of series 3. A table of 1,024 commit
 * slots once hung every reader past 1,024 commits. */
static void test_scale(void)
{
    enum { NC = 10000, NS = 50 };
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    fputs("date\tcommit\tbenchmark\tratio\tinstructions\n", m);
    uint64_t r = 12345;
    for (int k = NC - 1; k >= 0; k--) {
        time_t when = 1767225600 + (time_t)k * 3600;   /* 2026-01-01, one commit an hour */
        struct tm tm;
        gmtime_r(&when, &tm);
        char date[32];
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        for (int b = 0; b < NS; b++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            double ratio =
                (b == 3 && k >= 8000 ? 1.3 : 1.0) * (1 + 0.02 * ((r % 1001) / 500.0 - 1));
            long long ins = 1000000 + b * 1000 + k % 7;
            if (b == 7 && k >= 9000)
                ins = ins * 105 / 100;
            fprintf(m, "%s\tc%05d\tbench-%02d\t%.4f\t%lld\n", date, k, b, ratio, ins);
        }
    }
    fclose(m);
    struct hist_table t;
    struct err e = {0};
    CHECK_INT(hist_parse("scale.tsv", text, len, &t, &e), 0);
    free(text);
    CHECK_INT(t.nrows, NC * NS);
    struct hist_db db;
    hist_db_init(&db);
    CHECK_INT(hist_db_add(&db, &t, &e), 0);
    hist_db_finish(&db);
    CHECK_INT(db.ncommits, NC);
    CHECK_INT(db.nseries, NS);
    int ordered = 1, found = 1, full = 1;
    for (size_t i = 0; i < db.ncommits; i++) {
        char want[32];
        snprintf(want, sizeof want, "c%05zu", i);
        ordered &= strcmp(db.commit[i], want) == 0;
        found &= hist_db_find_commit(&db, want, &e) == (long)i;
    }
    for (size_t si = 0; si < db.nseries; si++) {
        full &= db.series[si].n == NC;
        for (size_t i = 0; i < db.series[si].n; i++)
            full &= db.series[si].commit[i] == i;
    }
    CHECK(ordered);
    CHECK(found);
    CHECK(full);
    struct hist_check_opts o = {.det_threshold = 0.02, .persist = 3, .window = 10, .noise_n = 60};
    struct hist_step st;
    long s7 = -1, s3 = -1;
    for (size_t si = 0; si < db.nseries; si++) {
        if (strcmp(db.series[si].name, "bench-07") == 0)
            s7 = (long)si;
        if (strcmp(db.series[si].name, "bench-03") == 0)
            s3 = (long)si;
    }
    CHECK(s7 >= 0 && s3 >= 0);
    if (s7 >= 0 && s3 >= 0) {
        hist_check_point(&db.series[s7], HM_INSTRUCTIONS, 9000, &o, &st);
        CHECK(st.found && st.at == 9000);
        CHECK_NEAR(st.change, 0.05, 0.001);
        struct hist_step *scan = calloc(NC, sizeof *scan);
        CHECK_INT(hist_scan(&db.series[s7], HM_INSTRUCTIONS, &o, scan), 1);
        CHECK_INT(hist_scan(&db.series[s3], HM_RATIO, &o, scan), 1);
        CHECK(scan[8002].found && scan[8002].at == 8000);
        free(scan);
    }
    hist_db_free(&db);
    hist_table_free(&t);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tare-history-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    test_parse();
    test_mutsu();
    test_append();
    test_merge();
    test_append_files();
    test_headers();
    test_concurrent();
    test_lock_replaced();
    test_db();
    test_check();
    test_scale();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return unit_done("test_history");
}
