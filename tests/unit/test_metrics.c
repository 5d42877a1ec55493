/* test_metrics.c: a program's own counters: the line formats, sums, the stream, a series'
 * summary, and one real run's capture (stderr, stdout, a file, $TARE_METRICS_OUT). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/util/metrics.h"
#include "unit.h"

static struct metrics_spec spec_default;

/* What metrics_parse_line gives for one line: "name=value", "-" (not a counter) or "!why". */
static const char *parsed(const struct metrics_spec *s, bool pair, const char *line)
{
    static char out[400];
    char name[METRICS_NAME_MAX + 1], why[200];
    uint64_t v = 0;
    int rc = metrics_parse_line(s, pair, line, strlen(line), name, &v, why, sizeof why);
    if (rc > 0)
        snprintf(out, sizeof out, "%s=%llu", name, (unsigned long long)v);
    else if (rc == 0)
        snprintf(out, sizeof out, "-");
    else
        snprintf(out, sizeof out, "!%s", why);
    return out;
}

static void test_default_lines(void)
{
    const struct metrics_spec *s = &spec_default;
    CHECK_STR(parsed(s, false, "locals_pulls: 123"), "locals_pulls=123");
    CHECK_STR(parsed(s, false, "env_flushes=7"), "env_flushes=7");
    CHECK_STR(parsed(s, false, "  clone.env-2 :\t 0 \r"), "clone.env-2=0");
    CHECK_STR(parsed(s, false, "18446744073709551614: 1"), "-");   /* a name starts a letter */
    CHECK_STR(parsed(s, false, "time: 3.5"), "-");
    CHECK_STR(parsed(s, false, "delta = -1"), "-");
    CHECK_STR(parsed(s, false, "x: 12 apples"), "-");
    CHECK_STR(parsed(s, false, "hello world"), "-");
    CHECK_STR(parsed(s, false, ""), "-");
    CHECK_STR(parsed(s, false, "x: 18446744073709551614"), "x=18446744073709551614");
    CHECK(parsed(s, false, "x: 18446744073709551615")[0] == '!');
    CHECK(parsed(s, false, "x: 99999999999999999999999")[0] == '!');
    char longname[100];
    memset(longname, 'a', 65);
    strcpy(longname + 65, ": 1");
    CHECK(parsed(s, false, longname)[0] == '!');
    longname[64] = ':';
    longname[65] = ' ';
    CHECK(parsed(s, false, longname)[0] != '!');
}

static void test_pair_lines(void)
{
    CHECK_STR(parsed(NULL, true, "steps 42"), "steps=42");
    CHECK_STR(parsed(NULL, true, "  steps\t42  "), "steps=42");
    CHECK_STR(parsed(NULL, true, ""), "-");
    CHECK_STR(parsed(NULL, true, "   "), "-");
    CHECK(strstr(parsed(NULL, true, "steps"), "is not NAME VALUE") != NULL);
    CHECK(strstr(parsed(NULL, true, "steps 1 2"), "is not NAME VALUE") != NULL);
    CHECK(strstr(parsed(NULL, true, "steps x"), "is not a whole number") != NULL);
    CHECK(strstr(parsed(NULL, true, "st/eps 1"), "is not a counter's name") != NULL);
    /* A line shown in a message by esc.h's rule: control bytes and bytes that are not UTF-8
     * as \xNN, valid UTF-8 as it is, and 60 bytes of it at most, never a sequence cut. */
    CHECK_STR(parsed(NULL, true, "a\x1b\xff b c"), "!'a\\x1b\\xff b c' is not NAME VALUE");
    CHECK_STR(parsed(NULL, true, "st\x7f 1"),
              "!'st\\x7f' is not a counter's name (letters, digits, _ . -, at most 64)");
    char wide[200] = "";
    for (int i = 0; i < 40; i++)
        strcat(wide, "\xc3\xa9");   /* U+00E9, 2 bytes: 80 in all */
    strcat(wide, " 1 2");
    char want[200] = "!'";
    for (int i = 0; i < 30; i++)
        strcat(want, "\xc3\xa9");
    strcat(want, "...' is not NAME VALUE");
    CHECK_STR(parsed(NULL, true, wide), want);
    memmove(wide + 1, wide, strlen(wide) + 1);   /* a sequence across byte 60: shown whole */
    wide[0] = 'x';
    snprintf(want, sizeof want, "!'x");
    for (int i = 0; i < 30; i++)
        strcat(want, "\xc3\xa9");
    strcat(want, "...' is not NAME VALUE");
    CHECK_STR(parsed(NULL, true, wide), want);
}

static void test_pattern(void)
{
    struct metrics_spec s;
    struct err e = {0};
    CHECK_INT(metrics_spec_init(&s, "stderr", "^\\[vm\\] ([a-z_]+) -> ([^ ]+)$", &e), 0);
    CHECK_INT(s.from, METRICS_FROM_STDERR);
    CHECK_STR(parsed(&s, false, "[vm] locals_pulls -> 9"), "locals_pulls=9");
    CHECK_STR(parsed(&s, false, "locals_pulls: 9"), "-");
    CHECK(strstr(parsed(&s, false, "[vm] locals_pulls -> nine"), "'nine' is not a whole") != NULL);
    metrics_spec_free(&s);

    CHECK_INT(metrics_spec_init(&s, "stdout", "([a-z]+)", &e), -1);
    CHECK(strstr(e.msg, "has 1 group: it needs two") != NULL);
    metrics_spec_free(&s);
    CHECK_INT(metrics_spec_init(&s, "stdout", "([a-z]+", &e), -1);
    CHECK(strstr(e.msg, "--metrics-pattern '([a-z]+'") != NULL);
    metrics_spec_free(&s);
    CHECK_INT(metrics_spec_init(&s, "", NULL, &e), -1);
    metrics_spec_free(&s);
    CHECK_INT(metrics_spec_init(&s, "out/stats.txt", NULL, &e), 0);
    CHECK_INT(s.from, METRICS_FROM_FILE);
    CHECK_STR(metrics_spec_source(&s), "out/stats.txt");
    metrics_spec_free(&s);
}

static uint64_t run_value(const struct metrics_run *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->kv[i].name, name) == 0)
            return r->kv[i].value;
    return 12345678;
}

static void test_feed(void)
{
    struct metrics_run r = {0};
    struct metrics_feed f;
    metrics_feed_init(&f, &spec_default, false, &r);
    /* Lines cut anywhere by the pipe's chunks; a name seen twice (two processes) summed. */
    const char *text = "noise\nsteps: 10\nallo";
    metrics_feed(&f, text, strlen(text));
    metrics_feed(&f, "cs=3\nsteps: 5\n", 14);
    char big[METRICS_LINE_MAX + 100];
    memset(big, 'x', sizeof big);
    metrics_feed(&f, big, sizeof big);   /* one line too long: not a counter */
    metrics_feed(&f, ": 1\nlast: 7", 11);
    metrics_feed_end(&f);
    CHECK_INT(r.n, 3);
    CHECK_INT(run_value(&r, "steps"), 15);
    CHECK_INT(run_value(&r, "allocs"), 3);
    CHECK_INT(run_value(&r, "last"), 7);
    CHECK_STR(r.bad, "");
    /* A sum past 2^64 - 2 is not a value. */
    CHECK(metrics_run_add(&r, "big", UINT64_MAX - 2));
    CHECK(metrics_run_add(&r, "big", 1));   /* 2^64 - 2: the largest */
    CHECK(!metrics_run_add(&r, "big", 1));
    CHECK(strstr(r.bad, "'big': the sum of its values passes") != NULL);
    struct metrics ms = {0};
    struct err e = {0};
    CHECK_INT(metrics_add_run(&ms, &r, &e), 0);
    CHECK(metrics_find(&ms, "big") == NULL);
    CHECK(strstr(ms.note, "the sum of its values passes") != NULL);
    metrics_free(&ms);
    metrics_run_free(&r);
    /* Past METRICS_MAX names: left out, and said. */
    for (int i = 0; i < METRICS_MAX + 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        metrics_run_add(&r, name, 1);
    }
    CHECK_INT(r.n, METRICS_MAX);
    CHECK(r.lost);
    metrics_run_free(&r);
}

static void test_series(void)
{
    struct metrics ms = {0};
    struct err e = {0};
    /* Three runs: steps the same in each, clock_ns differing, once absent from one run. */
    const uint64_t clock[] = {300, 100, 200};
    for (int k = 0; k < 3; k++) {
        struct metrics_run r = {0};
        metrics_run_add(&r, "steps", 1000);
        metrics_run_add(&r, "clock_ns", clock[k]);
        if (k != 1)
            metrics_run_add(&r, "sometimes", 5);
        CHECK_INT(metrics_add_run(&ms, &r, &e), 0);
        metrics_run_free(&r);
    }
    metrics_finish(&ms);
    CHECK_INT(ms.nruns, 3);
    CHECK(metrics_checked(&ms));
    const struct metric *m = metrics_find(&ms, "steps");
    CHECK(m && !m->varied && m->min == 1000 && m->max == 1000);
    CHECK_NEAR(m ? m->median : 0, 1000, 0);
    m = metrics_find(&ms, "clock_ns");
    CHECK(m && m->varied && m->min == 100 && m->max == 300);
    CHECK_NEAR(m ? m->median : 0, 200, 0);
    m = metrics_find(&ms, "sometimes");
    CHECK(m && m->varied && m->nv == 2 && m->min == 5 && m->max == 5);
    CHECK_STR(ms.m[0].name, "steps");   /* first seen first */
    metrics_free(&ms);

    /* An even count's median is the middle two's mean; one run is not checked. */
    for (int k = 0; k < 2; k++) {
        struct metrics_run r = {0};
        metrics_run_add(&r, "x", k ? 11 : 4);
        metrics_add_run(&ms, &r, &e);
        metrics_run_free(&r);
    }
    metrics_finish(&ms);
    CHECK_NEAR(ms.m[0].median, 7.5, 0);
    metrics_free(&ms);
    struct metrics_run r = {0};
    metrics_run_add(&r, "x", 1);
    metrics_add_run(&ms, &r, &e);
    metrics_finish(&ms);
    CHECK(!metrics_checked(&ms));
    CHECK(!ms.m[0].varied);
    metrics_free(&ms);
    metrics_run_free(&r);
}

/* One shell command run with the capture around it; its counters. */
static struct metrics_run captured(const char *from, const char *cmd, const char *stdout_path)
{
    struct metrics_spec s;
    struct err e = {0};
    struct metrics_run r = {0};
    CHECK_INT(metrics_spec_init(&s, from, NULL, &e), 0);
    char *argv[] = {"sh", "-c", (char *)cmd, NULL};
    char *lane[] = {"LANE=1", "TARE_METRICS_OUT=/nonexistent/x", NULL};
    struct proc_opts o = {.argv = argv, .pin_cpu = -1, .stdout_path = stdout_path,
                          .stdout_append = true};
    struct metrics_capture c;
    CHECK_INT(metrics_capture_begin(&c, &s, NULL, lane, NULL, &o, &r, &e), 0);
    struct proc_result pr;
    CHECK_INT(proc_run(&o, &pr, &e), 0);
    CHECK_INT(pr.status, PROC_OK);
    char gone[4096];
    snprintf(gone, sizeof gone, "%s", c.env_path);
    metrics_capture_end(&c);
    CHECK(access(gone, F_OK) != 0);   /* tare's file removed */
    metrics_spec_free(&s);
    return r;
}

static void test_capture(void)
{
    /* The lane's own TARE_METRICS_OUT is replaced by tare's; lane variables stay. */
    struct metrics_run r = captured(NULL, "echo \"lane $LANE\" >> \"$TARE_METRICS_OUT\"; "
                                    "echo 'steps 4' >> \"$TARE_METRICS_OUT\"; echo 'x: 1' >&2",
                                    NULL);
    CHECK_INT(r.n, 2);
    CHECK_INT(run_value(&r, "lane"), 1);
    CHECK_INT(run_value(&r, "steps"), 4);
    metrics_run_free(&r);
    r = captured("stderr", "echo 'steps: 4' >&2; echo 'steps: 6' >&2; echo 'out: 1'", NULL);
    CHECK_INT(r.n, 1);
    CHECK_INT(run_value(&r, "steps"), 10);
    metrics_run_free(&r);
    r = captured("stdout", "echo 'steps: 4'; echo 'err: 1' >&2", NULL);
    CHECK_INT(r.n, 1);
    CHECK_INT(run_value(&r, "steps"), 4);
    metrics_run_free(&r);
    /* stdout to the user's file, appended to: only this run's part is read. */
    char path[] = "/tmp/tare-test-metrics-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "old: 99\n", 8) == 8);
    close(fd);
    r = captured("stdout", "echo 'new: 5'", path);
    CHECK_INT(r.n, 1);
    CHECK_INT(run_value(&r, "new"), 5);
    metrics_run_free(&r);
    /* A file the program writes: emptied before the run. */
    char cmd[200];
    snprintf(cmd, sizeof cmd, "echo 'f: 3' >> %s", path);
    r = captured(path, cmd, NULL);
    CHECK_INT(r.n, 1);
    CHECK_INT(run_value(&r, "f"), 3);
    metrics_run_free(&r);
    r = captured(path, "true", NULL);
    CHECK_INT(r.n, 0);
    metrics_run_free(&r);
    unlink(path);
    /* A bad line in TARE_METRICS_OUT is said, the good ones kept. */
    r = captured(NULL, "printf 'a 1\\nb two\\nc 3\\n' >> \"$TARE_METRICS_OUT\"", NULL);
    CHECK_INT(r.n, 2);
    CHECK(strstr(r.bad, "'b': 'two' is not a whole number") != NULL);
    metrics_run_free(&r);
}

int main(void)
{
    test_default_lines();
    test_pair_lines();
    test_pattern();
    test_feed();
    test_series();
    test_capture();
    return unit_done("test_metrics");
}
