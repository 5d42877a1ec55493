/* test_allocreport.c: the reader of libtare-alloc's report lines, and the sums over processes. */
#include <stdlib.h>
#include <string.h>

#include "core/profile/allocreport.h"
#include "core/util/exe.h"
#include "unit.h"

static int parse(const char *s, struct alloc_report *r, struct err *e)
{
    return allocreport_parse(s, strlen(s), r, e);
}

static const char two[] =
    "program output that is not a report\n"
    "tare-alloc 1 pid=10 ppid=5 end=exec status=ok allocations=3 frees=1 bytes=300 peak_bytes=256 "
    "peak_slack=0 threads=1 scopes=0 exe=/bin/sh\n"
    "tare-alloc 1 pid=10 ppid=5 end=exit status=ok allocations=7 frees=7 bytes=70 peak_bytes=512 "
    "peak_slack=65536 threads=2 scopes=2 exe=/a%20b/prog future=1\n"
    "tare-alloc-scope 1 pid=10 label=parse%25x entries=2 allocs_incl=5 allocs_excl=4 bytes_incl=50 "
    "bytes_excl=40\n"
    "tare-alloc-scope 1 pid=10 label=emit entries=1 allocs_incl=1 allocs_excl=1 bytes_incl=9 "
    "bytes_excl=9\n"
    "tare-alloc 1 pid=11 ppid=10 end=_exit status=ok allocations=2 frees=0 bytes=20 "
    "peak_bytes=4096 "
    "peak_slack=0 threads=1 scopes=1 exe=/bin/child\n"
    "tare-alloc-scope 1 pid=11 label=emit entries=3 allocs_incl=2 allocs_excl=2 bytes_incl=20 "
    "bytes_excl=20\n";

static void test_parse(void)
{
    struct alloc_report r;
    struct err e = {0};
    CHECK_INT(parse(two, &r, &e), 0);
    CHECK_INT(r.nprocs, 3);
    CHECK_INT(r.procs[1].pid, 10);
    CHECK_INT(r.procs[1].ppid, 5);
    CHECK_STR(r.procs[0].end, "exec");
    CHECK_STR(r.procs[2].end, "_exit");
    CHECK_STR(r.procs[1].exe, "/a b/prog");
    CHECK_INT(r.procs[1].peak_slack, 65536);
    CHECK_INT(r.procs[1].nscopes, 2);
    CHECK_STR(r.procs[1].scopes[0].label, "parse%x");
    CHECK_INT(r.procs[1].scopes[0].allocs_excl, 4);

    struct alloc_totals t;
    CHECK_INT(allocreport_sum(&r, 5, &t, &e), 0);      /* the command's own pid, two images */
    CHECK_INT(t.nprocs, 2);
    CHECK_INT(t.allocations, 10);
    CHECK_INT(t.frees, 8);
    CHECK_INT(t.bytes, 370);
    CHECK_INT(t.peak_bytes, 512);
    CHECK_INT(t.peak_slack, 65536);
    CHECK_INT(t.nscopes, 2);
    CHECK_STR(t.scopes[0].label, "parse%x");
    allocreport_totals_free(&t);

    CHECK_INT(allocreport_sum(&r, -1, &t, &e), 0);     /* everything */
    CHECK_INT(t.nprocs, 3);
    CHECK_INT(t.allocations, 12);
    CHECK_INT(t.peak_bytes, 4096);
    CHECK_INT(t.peak_slack, 0);
    CHECK_INT(t.nscopes, 2);
    CHECK_STR(t.scopes[0].label, "parse%x");           /* 4 exclusive; emit 3, merged */
    CHECK_STR(t.scopes[1].label, "emit");
    CHECK_INT(t.scopes[1].entries, 4);
    CHECK_INT(t.scopes[1].allocs_excl, 3);
    CHECK_INT(t.scopes[1].bytes_incl, 29);
    CHECK(t.own_malloc == NULL);
    allocreport_totals_free(&t);
    allocreport_free(&r);

    CHECK_INT(parse("", &r, &e), 0);
    CHECK_INT(r.nprocs, 0);
    allocreport_free(&r);
}

static void expect_bad(const char *text, const char *msg)
{
    struct alloc_report r;
    struct err e = {0};
    CHECK_INT(parse(text, &r, &e), -1);
    CHECK(r.nprocs == 0 && r.procs == NULL);
    CHECK_INT(e.kind, ERR_INPUT);
    if (!strstr(e.msg, msg))
        printf("  message was: %s (want %s)\n", e.msg, msg);
    CHECK(strstr(e.msg, msg) != NULL);
}

#define L1                                                                                         \
    "tare-alloc 1 pid=1 ppid=0 end=exit status=ok allocations=1 frees=1 bytes=1 peak_bytes=1 "     \
    "peak_slack=0 threads=1 "

static void test_bad(void)
{
    expect_bad(L1 "scopes=0 exe=x", "incomplete last line");
    expect_bad("tare-alloc 2 pid=1\n", "line 1: unknown report version");
    expect_bad(L1 "scopes=1 exe=x\n", "scope line missing at the end");
    expect_bad(L1 "scopes=1 exe=x\nother\n", "line 2: 1 scope line missing");
    expect_bad(L1 "scopes=0 exe=x\ntare-alloc-scope 1 pid=1 label=a entries=1 allocs_incl=1 "
                  "allocs_excl=1 bytes_incl=1 bytes_excl=1\n",
               "line 2: scope line without its report line");
    expect_bad(L1 "scopes=1 exe=x\ntare-alloc-scope 1 pid=2 label=a entries=1 allocs_incl=1 "
                  "allocs_excl=1 bytes_incl=1 bytes_excl=1\n",
               "scope of pid 2");
    expect_bad(L1 "scopes=0 exe=%4\n", "bad escape in 'exe'");
    expect_bad(L1 "scopes=0 exe=%00\n", "bad escape in 'exe'");
    expect_bad(L1 "scopes=0\n", "no 'exe' field");
    expect_bad("tare-alloc 1 pid=1 ppid=0 end=exit status=ok allocations=-1 frees=1 bytes=1 "
               "peak_bytes=1 peak_slack=0 threads=1 scopes=0 exe=x\n",
               "bad number '-1' in 'allocations'");
    expect_bad("tare-alloc 1 pid=1 ppid=0 end=exit status=ok allocations=99999999999999999999 "
               "frees=1 bytes=1 peak_bytes=1 peak_slack=0 threads=1 scopes=0 exe=x\n",
               "number too large in 'allocations'");
    expect_bad("tare-alloc 1 pid=1 ppid=0 end=die status=ok allocations=1 frees=1 bytes=1 "
               "peak_bytes=1 peak_slack=0 threads=1 scopes=0 exe=x\n",
               "unknown end 'die'");
    expect_bad("tare-alloc 1 pid=0 ppid=0 end=exit status=ok allocations=1 frees=1 bytes=1 "
               "peak_bytes=1 peak_slack=0 threads=1 scopes=0 exe=x\n",
               "bad pid");
    expect_bad(L1 " scopes=0 exe=x\n", "empty field");
    expect_bad(L1 "scopes=0 exe=x \n", "trailing space");
}

static void test_own_malloc(void)
{
    struct alloc_report r;
    struct err e = {0};
    CHECK_INT(
        parse("tare-alloc 1 pid=1 ppid=0 end=exit status=own-malloc allocations=0 frees=0 bytes=0 "
              "peak_bytes=0 peak_slack=0 threads=0 scopes=0 exe=/p\n",
              &r, &e),
        0);
    struct alloc_totals t;
    CHECK_INT(allocreport_sum(&r, 0, &t, &e), 0);
    CHECK(t.own_malloc == &r.procs[0]);
    allocreport_totals_free(&t);
    allocreport_free(&r);
}

/* Sums past 2^64 are an error, never a count wrapped to a small one. */
static void test_overflow(void)
{
    struct alloc_report r;
    struct err e = {0};
    struct alloc_totals t;
#define BIG(pid, bytes)                                                                            \
    "tare-alloc 1 pid=" pid " ppid=1 end=exit status=ok allocations=1 frees=1 "                    \
    "bytes=" bytes " peak_bytes=1 peak_slack=0 threads=1 scopes=0 exe=x\n"
    CHECK_INT(parse(BIG("2", "9223372036854775808") BIG("3", "9223372036854775808"), &r, &e), 0);
    CHECK_INT(allocreport_sum(&r, -1, &t, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK(strstr(e.msg, "add up past 2^64") != NULL);
    allocreport_free(&r);
    /* one less is 2^64 - 1: the largest sum there is */
    CHECK_INT(parse(BIG("2", "9223372036854775808") BIG("3", "9223372036854775807"), &r, &e), 0);
    CHECK_INT(allocreport_sum(&r, -1, &t, &e), 0);
    CHECK(t.bytes == UINT64_MAX);
    allocreport_totals_free(&t);
    allocreport_free(&r);
#undef BIG
#define SCOPE(pid, n) "tare-alloc 1 pid=" pid " ppid=1 end=exit status=ok allocations=1 frees=1 " \
    "bytes=1 peak_bytes=1 peak_slack=0 threads=1 scopes=1 exe=x\ntare-alloc-scope 1 pid=" pid \
    " label=s entries=1 allocs_incl=" n " allocs_excl=1 bytes_incl=1 bytes_excl=1\n"
    CHECK_INT(parse(SCOPE("2", "18446744073709551615") SCOPE("3", "1"), &r, &e), 0);
    CHECK_INT(allocreport_sum(&r, -1, &t, &e), -1);
    CHECK(strstr(e.msg, "scope 's': the processes' counts add up past 2^64") != NULL);
    allocreport_free(&r);
#undef SCOPE
}

static void test_exe(void)
{
    char path[4096], interp[4096];
    struct err e = {0};
    enum exe_link k;
    CHECK_INT(exe_find("sh", path, sizeof path, &e), 0);
    CHECK(strchr(path, '/') != NULL);
    CHECK_INT(exe_link_kind(path, &k, interp, sizeof interp, &e), 0);
    CHECK_INT(k, EXE_DYNAMIC);
    CHECK_INT(exe_find("no-such-command-xyz", path, sizeof path, &e), -1);
    CHECK_INT(exe_link_kind("/etc/passwd", &k, interp, sizeof interp, &e), 0);
    CHECK_INT(k, EXE_OTHER);
    CHECK_INT(exe_link_kind("/no/such/file", &k, interp, sizeof interp, &e), -1);
}

int main(void)
{
    test_parse();
    test_bad();
    test_own_malloc();
    test_overflow();
    test_exe();
    return unit_done("test_allocreport");
}
