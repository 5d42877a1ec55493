/* test_series.c: commands x lanes -> named series: lanes parsed, names defaulted, clashing
 * names told apart, shell syntax refused without --shell. */
#include <stdlib.h>
#include <string.h>

#include "core/engine/series.h"
#include "unit.h"

static void test_lanes(void)
{
    struct err e = {0};
    struct suite_lane l;
    CHECK_INT(lane_parse("jit:PYTHONJIT=1,X=a=b", &l, &e), 0);
    CHECK_STR(l.name, "jit");
    CHECK_STR(l.env[0], "PYTHONJIT=1");
    CHECK_STR(l.env[1], "X=a=b");
    CHECK(l.env[2] == NULL);
    lane_free(&l);
    CHECK(l.name == NULL && l.env == NULL);
    /* The unnamed lane, and a lane without variables. */
    CHECK_INT(lane_parse(":X=1", &l, &e), 0);
    CHECK_STR(l.name, "");
    lane_free(&l);
    CHECK_INT(lane_parse("plain:", &l, &e), 0);
    CHECK(l.env && l.env[0] == NULL);
    lane_free(&l);
    CHECK_INT(lane_parse("nocolon", &l, &e), -1);
    CHECK_STR(e.msg, "bad lane 'nocolon': want NAME:VAR=VALUE[,VAR=VALUE...]");
    CHECK_INT(lane_parse("a b:X=1", &l, &e), -1);
    CHECK(strstr(e.msg, "bad lane name") != NULL);
    CHECK_INT(lane_parse("a:X=1,1Y=2", &l, &e), -1);
    CHECK_STR(e.msg, "bad variable '1Y=2' in lane 'a:X=1,1Y=2': want VAR=VALUE");
    CHECK_INT(lane_parse("a:X", &l, &e), -1);

    char *s = series_name("fib", "jit");
    CHECK_STR(s, "fib+jit");
    free(s);
    s = series_name("fib", "");
    CHECK_STR(s, "fib");
    free(s);
    s = series_name("fib", NULL);
    CHECK_STR(s, "fib");
    free(s);
}

static void test_names(void)
{
    struct err e = {0};
    struct series_spec spec;
    CHECK(series_spec_init(&spec, 8));
    struct series *t = NULL;
    int n = 0;
    /* Two commands of one basename, a third alike: "basename args", then "#2". */
    char *cmds[] = {"/usr/bin/python3 a.py", "python3 b.py", "python3 b.py"};
    CHECK_INT(series_build(&spec, cmds, 3, false, &t, &n, &e), 0);
    CHECK_INT(n, 3);
    if (n == 3) {
        CHECK_STR(t[0].name, "python3 a.py");
        CHECK_STR(t[1].name, "python3 b.py");
        CHECK_STR(t[2].name, "python3 b.py #2");
        CHECK_STR(t[0].argv[0], "/usr/bin/python3");
        CHECK(t[0].env == NULL && t[0].lane == NULL);
    }
    series_free(t, n);
    free(t);
    /* Lanes: one series per command and lane, by command then lane; lane variables first in
     * the command as a person would type it. */
    CHECK(lane_parse("jit:J=1", &spec.lanes[spec.nlanes++], &e) == 0);
    CHECK(lane_parse(":J=0", &spec.lanes[spec.nlanes++], &e) == 0);
    spec.names[spec.nnames++] = "first";
    char *two[] = {"echo x", "true"};
    CHECK_INT(series_build(&spec, two, 2, false, &t, &n, &e), 0);
    CHECK_INT(n, 4);
    if (n == 4) {
        CHECK_STR(t[0].name, "first+jit");
        CHECK_STR(t[0].lane, "jit");
        CHECK_STR(t[0].command, "J=1 echo x");
        CHECK_STR(t[1].name, "first");
        CHECK(t[1].lane == NULL);
        CHECK_STR(t[1].env[0], "J=0");
        CHECK_STR(t[2].name, "true+jit");
        CHECK_STR(t[3].name, "true");
    }
    series_free(t, n);
    free(t);
    /* Names given twice, and lanes that make two series one name, are refused. */
    spec.names[spec.nnames++] = "first";
    CHECK_INT(series_build(&spec, two, 2, false, &t, &n, &e), -1);
    CHECK_STR(e.msg, "two commands are both named 'first'");
    spec.nnames = 0;
    lane_free(&spec.lanes[1]);
    CHECK(lane_parse("jit:J=2", &spec.lanes[1], &e) == 0);
    CHECK_INT(series_build(&spec, two, 2, false, &t, &n, &e), -1);
    CHECK_STR(e.msg, "two series are both named 'echo+jit'; give each lane its own name");
    CHECK_INT(series_build(&spec, two, 0, false, &t, &n, &e), -1);
    CHECK_STR(e.msg, "no command to measure");
    series_spec_free(&spec);

    /* After "--": one argv as given, named after its first word. */
    CHECK(series_spec_init(&spec, 2));
    char *argv[] = {"/bin/echo", "a b", NULL};
    CHECK_INT(series_build(&spec, argv, 2, true, &t, &n, &e), 0);
    CHECK_INT(n, 1);
    if (n == 1) {
        CHECK_STR(t[0].name, "echo");
        CHECK_STR(t[0].argv[1], "a b");
    }
    series_free(t, n);
    free(t);
    series_spec_free(&spec);
}

static void test_split(void)
{
    struct err e = {0};
    char **argv = NULL;
    CHECK_INT(series_split("ls | wc", NULL, &argv, &e), -1);
    CHECK(strstr(e.msg, "uses shell syntax ('|')") != NULL);
    CHECK_INT(series_split("ls | wc", "/bin/sh", &argv, &e), 0);
    CHECK_STR(argv[0], "/bin/sh");
    CHECK_STR(argv[2], "ls | wc");
    for (int i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
    /* A shell with its own words: "bash --norc" -c STRING. */
    CHECK_INT(series_split("ls | wc", "bash --norc", &argv, &e), 0);
    CHECK_STR(argv[0], "bash");
    CHECK_STR(argv[1], "--norc");
    CHECK_STR(argv[2], "-c");
    CHECK_STR(argv[3], "ls | wc");
    CHECK(argv[4] == NULL);
    for (int i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
    /* With --shell, the name is the command's own first word, not "sh". */
    struct series t;
    CHECK_INT(series_from_string("sleep 0 && true", NULL, "sh", &t, &e), 0);
    CHECK_STR(t.name, "sleep");
    series_free(&t, 1);
}

int main(void)
{
    test_lanes();
    test_names();
    test_split();
    return unit_done("test_series");
}
