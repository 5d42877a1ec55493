/* test_export.c: the CI export writers: BMF, github-action-benchmark and JUnit text, NA left
 * out and counted, names escaped, a benchmark's measures gathered, the file written whole. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/export.h"
#include "unit.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

int main(void)
{
    char dir[] = "/tmp/tare-test-export-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/out", dir);
    struct export_set s;
    struct err e = {0};
    CHECK_INT(export_init(&s, "tare wall", &e), 0);
    /* a's two measures come apart in the input; BMF gathers them under one key */
    struct export_rec r = {.bench = "a", .measure = "median_s", .value = 0.25, .lo = 0.2,
                           .hi = 0.3, .range_what = "median - MAD .. median + MAD", .runs = 7};
    CHECK_INT(export_add(&s, &r, &e), 0);
    r = (struct export_rec){.bench = "q\"<&>\n", .measure = "instructions", .value = 1000,
                            .lo = NAN, .hi = NAN, .runs = 1, .state = EXPORT_REGRESSED,
                            .note = "regression: 900 -> 1000"};
    CHECK_INT(export_add(&s, &r, &e), 0);
    r = (struct export_rec){.bench = "a", .measure = "peak_bytes", .value = 4096, .lo = NAN,
                            .hi = NAN, .runs = 1};
    CHECK_INT(export_add(&s, &r, &e), 0);
    r = (struct export_rec){.bench = "dead", .measure = "median_s", .value = NAN, .lo = NAN,
                            .hi = NAN, .state = EXPORT_FAILED, .note = "killed by signal 11"};
    CHECK_INT(export_add(&s, &r, &e), 0);
    r = (struct export_rec){.bench = "new", .measure = "min_s", .value = NAN, .lo = NAN,
                            .hi = NAN, .state = EXPORT_SKIPPED, .note = "not checked: too few"};
    CHECK_INT(export_add(&s, &r, &e), 0);

    size_t left = 99;
    CHECK_INT(export_write(&s, EXPORT_BMF, path, &left, &e), 0);
    CHECK_INT(left, 2);
    CHECK_STR(slurp(path),
              "{\n"
              "  \"a\": {\n"
              "    \"latency\": {\"value\": 250000000, \"lower_value\": 200000000, "
              "\"upper_value\": 300000000},\n"
              "    \"peak-bytes\": {\"value\": 4096}\n"
              "  },\n"
              "  \"q\\\"<&>\\n\": {\n"
              "    \"instructions\": {\"value\": 1000}\n"
              "  }\n"
              "}\n");

    CHECK_INT(export_write(&s, EXPORT_GAB, path, &left, &e), 0);
    CHECK_INT(left, 2);
    CHECK_STR(slurp(path),
              "[\n"
              "  {\"name\": \"a (median_s)\", \"unit\": \"s\", \"value\": 0.25, \"range\": "
              "\"± 0.05\", \"extra\": \"runs: 7\\nrange: median - MAD .. median + MAD\"},\n"
              "  {\"name\": \"q\\\"<&>\\n (instructions)\", \"unit\": \"instructions\", "
              "\"value\": 1000, \"extra\": \"runs: 1\\nregression: 900 -> 1000\"},\n"
              "  {\"name\": \"a (peak_bytes)\", \"unit\": \"bytes\", \"value\": 4096, "
              "\"extra\": \"runs: 1\"}\n"
              "]\n");

    CHECK_INT(export_write(&s, EXPORT_JUNIT, path, NULL, &e), 0);
    const char *x = slurp(path);
    CHECK(x && strstr(x, "<testsuite name=\"tare wall\" tests=\"5\" failures=\"2\" errors=\"0\" "
                         "skipped=\"1\">"));
    CHECK(x && strstr(x, "<testcase classname=\"tare.wall\" name=\"q&quot;&lt;&amp;&gt;&#10; "
                         "instructions\">\n      <failure type=\"regression\" "
                         "message=\"regression: 900 -&gt; 1000\"/>"));
    CHECK(x && strstr(x, "<failure type=\"measurement failed\" message=\"killed by signal 11\"/>\n"
                         "      <system-out>median_s = NA s</system-out>"));
    CHECK(x && strstr(x, "<skipped message=\"not checked: too few\"/>"));

    /* an empty set is still a well-formed file of each kind */
    struct export_set none;
    CHECK_INT(export_init(&none, "tare run", &e), 0);
    CHECK_INT(export_write(&none, EXPORT_BMF, path, &left, &e), 0);
    CHECK_STR(slurp(path), "{}\n");
    CHECK_INT(export_write(&none, EXPORT_GAB, path, &left, &e), 0);
    CHECK_STR(slurp(path), "[]\n");
    export_free(&none);

    /* a file that cannot be written: an error naming it, nothing left behind */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/no/such/dir.json", dir);
    CHECK_INT(export_write(&s, EXPORT_BMF, bad, &left, &e), -1);
    CHECK(strstr(e.msg, "cannot write '") != NULL);
    CHECK_INT(e.kind, ERR_INPUT);

    CHECK_STR(export_unit("ref_median_s"), "s");
    CHECK_STR(export_unit("allocations"), "allocations");
    export_free(&s);
    unlink(path);
    rmdir(dir);
    return unit_done("test_export");
}
