/* test_allocstacks.c: the stack lines of libtare-alloc's report read, named and added up by
 * stack; sorting, the TSV round trip and its errors, the comparison of two tables. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "core/profile/allocstacks.h"
#include "unit.h"

/* Frames named "f" + the address in hex: no files read. */
static const char *fake_namer(void *ctx, const struct alloc_proc *p, uint64_t addr, char *buf,
                              size_t n)
{
    (void)ctx;
    (void)p;
    snprintf(buf, n, "f%llx", (unsigned long long)addr);
    return buf;
}

static const struct astk_opts fake = {-1, fake_namer, NULL};

static const char report[] =
    "tare-alloc 1 pid=10 ppid=5 end=exit status=ok allocations=8 frees=4 bytes=850 "
    "peak_bytes=512 peak_slack=0 threads=1 scopes=1 stacks=4 maps=1 sites=1 unwind=auto "
    "unwinder=libunwind by_fp=6 by_dwarf=2 peak_requested=300 exe=/bin/prog\n"
    "tare-alloc-scope 1 pid=10 label=load entries=1 allocs_incl=2 allocs_excl=2 bytes_incl=20 "
    "bytes_excl=20\n"
    "tare-alloc-map 1 pid=10 start=1000 end=2000 offset=0 inode=7 path=/bin/prog\n"
    "tare-alloc-site 1 pid=10 id=3 label=load%20phase\n"
    "tare-alloc-stack 1 pid=10 allocations=3 bytes=300 temporaries=3 peak_bytes=0 "
    "leaked_bytes=0 frames=a1,b2,c3\n"
    "tare-alloc-stack 1 pid=10 allocations=2 bytes=20 temporaries=0 peak_bytes=20 "
    "leaked_bytes=20 frames=a1,s3,c3\n"
    "tare-alloc-stack 1 pid=10 allocations=2 bytes=500 temporaries=1 peak_bytes=280 "
    "leaked_bytes=0 frames=d4,cut\n"
    "tare-alloc-stack 1 pid=10 allocations=1 bytes=30 temporaries=0 peak_bytes=0 "
    "leaked_bytes=0 frames=a1,b2,c3\n"
    "tare-alloc 1 pid=11 ppid=10 end=exit status=ok allocations=4 frees=0 bytes=40 "
    "peak_bytes=64 peak_slack=0 threads=1 scopes=0 exe=/bin/other\n";

/* The row whose stack is text, or NULL. */
static const struct astk_row *row_of(const struct astk_table *t, const char *text)
{
    for (size_t i = 0; i < t->nrows; i++) {
        char *s = astk_stack_text(t, &t->rows[i], ";");
        int same = s && strcmp(s, text) == 0;
        free(s);
        if (same)
            return &t->rows[i];
    }
    return NULL;
}

static void test_report(void)
{
    struct alloc_report r;
    struct err e = {0};
    CHECK_INT(allocreport_parse(report, strlen(report), &r, &e), 0);
    CHECK_INT(r.nprocs, 2);
    const struct alloc_proc *p = &r.procs[0];
    CHECK(p->has_stacks);
    CHECK(!r.procs[1].has_stacks);
    CHECK_STR(p->unwind, "auto");
    CHECK(p->unwinder);
    CHECK_INT(p->by_fp, 6);
    CHECK_INT(p->peak_requested, 300);
    CHECK_INT(p->nmaps, 1);
    CHECK_INT(p->maps[0].start, 0x1000);
    CHECK_INT(p->maps[0].inode, 7);
    CHECK_STR(p->sites[0].label, "load phase");
    CHECK_INT(p->nstacks, 4);
    CHECK_INT(p->stacks[1].frames[1], ALLOC_FRAME_SCOPE | 3);
    CHECK(p->stacks[2].frames[1] == ALLOC_FRAME_CUT);

    /* Only pid 10: frames outermost first, the same named stack added up (rows 1 and 4). */
    struct astk_opts o = fake;
    o.ppid = 5;
    struct astk_table t;
    CHECK_INT(astk_from_report(&r, &o, &t, &e), 0);
    CHECK_INT(t.nrows, 3);
    const struct astk_row *x = row_of(&t, "fc3;fb2;fa1");
    CHECK(x != NULL);
    if (x) {
        CHECK_INT(x->v[ASTK_ALLOCS], 4);
        CHECK_INT(x->v[ASTK_BYTES], 330);
        CHECK_INT(x->v[ASTK_TEMPS], 3);
    }
    CHECK(row_of(&t, "fc3;[scope load phase];fa1") != NULL);
    CHECK(row_of(&t, "[truncated];fd4") != NULL);
    CHECK_INT(t.total[ASTK_ALLOCS], 8);
    CHECK_INT(t.total[ASTK_PEAK], 300);
    CHECK_INT(t.total[ASTK_LEAKED], 20);
    CHECK_INT(t.no_stack, 0);
    CHECK_INT(t.by_dwarf, 2);
    astk_free(&t);

    /* Both: two programs, so each stack starts with its program; the one without stack lines
     * is one "[no stack]" row of its allocations. */
    CHECK_INT(astk_from_report(&r, &fake, &t, &e), 0);
    CHECK(row_of(&t, "prog;fc3;fb2;fa1") != NULL);
    x = row_of(&t, "other;[no stack]");
    CHECK(x != NULL);
    if (x)
        CHECK_INT(x->v[ASTK_ALLOCS], 4);
    CHECK_INT(t.no_stack, 4);
    CHECK_INT(t.total[ASTK_ALLOCS], 12);
    CHECK_INT(t.nprocs, 2);

    /* Sorted by bytes, largest first. */
    astk_sort(&t, ASTK_BYTES);
    char *s = astk_stack_text(&t, &t.rows[0], ";");
    CHECK_STR(s, "prog;[truncated];fd4");
    free(s);
    for (size_t i = 1; i < t.nrows; i++)
        CHECK(t.rows[i - 1].v[ASTK_BYTES] >= t.rows[i].v[ASTK_BYTES]);
    astk_free(&t);
    allocreport_free(&r);
}

static void expect_error(const char *text, const char *want)
{
    struct alloc_report r;
    struct err e = {0};
    CHECK_INT(allocreport_parse(text, strlen(text), &r, &e), -1);
    CHECK(strstr(e.msg, want) != NULL);
    if (!strstr(e.msg, want))
        printf("#   got: %s\n", e.msg);
}

static void test_report_errors(void)
{
    const char *head = "tare-alloc 1 pid=10 ppid=5 end=exit status=ok allocations=1 frees=0 "
                       "bytes=1 peak_bytes=1 peak_slack=0 threads=1 scopes=0 stacks=1 maps=0 "
                       "sites=0 unwind=fp unwinder=none by_fp=1 by_dwarf=0 peak_requested=1 "
                       "exe=/x\n";
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", head);
    expect_error(buf, "1 stack line missing at the end");
    snprintf(buf, sizeof buf, "%sother output\n", head);
    expect_error(buf, "line 2: 1 stack line missing");
    snprintf(buf, sizeof buf, "%stare-alloc-stack 1 pid=10 allocations=1 bytes=1 temporaries=2 "
             "peak_bytes=0 leaked_bytes=0 frames=a\n", head);
    expect_error(buf, "line 2: more temporaries than allocations");
    snprintf(buf, sizeof buf, "%stare-alloc-stack 1 pid=10 allocations=1 bytes=1 temporaries=0 "
             "peak_bytes=0 leaked_bytes=0 frames=a,,b\n", head);
    expect_error(buf, "line 2: bad frame");
    snprintf(buf, sizeof buf, "%stare-alloc-stack 1 pid=10 allocations=1 bytes=1 temporaries=0 "
             "peak_bytes=0 leaked_bytes=0 frames=0x12\n", head);
    expect_error(buf, "line 2: bad frame");
    snprintf(buf, sizeof buf, "%stare-alloc-stack 1 pid=10 allocations=1 bytes=1 temporaries=0 "
             "peak_bytes=0 leaked_bytes=0 frames=s4\n", head);
    expect_error(buf, "has a scope frame of site 4, which it does not name");
    snprintf(buf, sizeof buf, "%stare-alloc-stack 1 pid=12 allocations=1 bytes=1 temporaries=0 "
             "peak_bytes=0 leaked_bytes=0 frames=a\n", head);
    expect_error(buf, "stack of pid 12 inside the report of pid 10");
    snprintf(buf, sizeof buf, "%stare-alloc-stack 1 pid=10 allocations=1 bytes=1 temporaries=0 "
             "peak_bytes=0 leaked_bytes=0 frames=a\ntare-alloc-stack 1 pid=10 allocations=1 "
             "bytes=1 temporaries=0 peak_bytes=0 leaked_bytes=0 frames=a\n", head);
    expect_error(buf, "line 3: stack line without its report line");
    expect_error("tare-alloc-map 1 pid=1 start=2 end=1 offset=0 inode=0 path=x\n",
                 "map line without its report line");
    expect_error("tare-alloc 1 pid=10 ppid=5 end=exit status=ok allocations=1 frees=0 bytes=1 "
                 "peak_bytes=1 peak_slack=0 threads=1 scopes=0 stacks=0 maps=1 sites=0 "
                 "unwind=fp unwinder=none by_fp=1 by_dwarf=0 peak_requested=1 exe=/x\n"
                 "tare-alloc-map 1 pid=10 start=2 end=1 offset=0 inode=0 path=x\n",
                 "line 2: a map that ends before it starts");
    expect_error("tare-alloc 1 pid=10 ppid=5 end=exit status=ok allocations=1 frees=0 bytes=1 "
                 "peak_bytes=1 peak_slack=0 threads=1 scopes=0 stacks=0 maps=0 sites=0 "
                 "unwind=sideways unwinder=none by_fp=1 by_dwarf=0 peak_requested=1 exe=/x\n",
                 "unknown unwind 'sideways'");
}

static void test_tsv(void)
{
    struct astk_table t = {0};
    struct err e = {0};
    const char *a[] = {"main", "a;b", "tab\there"};
    const char *b[] = {"main", "op%\xff"};
    uint64_t va[ASTK_NMEASURES] = {5, 50, 1, 10, 0};
    uint64_t vb[ASTK_NMEASURES] = {7, 70, 0, 0, 70};
    CHECK_INT(astk_add(&t, a, 3, va, &e), 0);
    CHECK_INT(astk_add(&t, b, 2, vb, &e), 0);
    CHECK_INT(astk_add(&t, b, 2, vb, &e), 0);                  /* adds up */
    CHECK_INT(t.nrows, 2);
    astk_sort(&t, ASTK_ALLOCS);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    astk_write_tsv(&t, f, 0);
    fclose(f);
    /* the rule of every output (a tab and a byte that is not UTF-8 visibly), ';' as \x3b */
    CHECK_STR(text, "stack\tallocations\tbytes\ttemporaries\tpeak_bytes\tleaked_bytes\n"
                    "main;op%\\xff\t14\t140\t0\t0\t140\n"
                    "main;a\\x3bb;tab\\x09here\t5\t50\t1\t10\t0\n");
    struct astk_table u;
    CHECK_INT(astk_parse_tsv(text, len, "x.tsv", &u, &e), 0);
    CHECK_INT(u.nrows, 2);
    CHECK_STR(u.names[u.fr[u.rows[1].off + 1]], "a;b");          /* \x3b read back */
    CHECK_STR(u.names[u.fr[u.rows[1].off + 2]], "tab\\x09here");  /* the rest as text */
    CHECK_INT(u.total[ASTK_LEAKED], 140);
    free(text);

    /* The comparison: matched by names, new and gone, biggest change first. */
    struct astk_table w = {0};
    const char *c[] = {"main", "new"};
    uint64_t vc[ASTK_NMEASURES] = {2, 2, 0, 0, 0};
    uint64_t vb2[ASTK_NMEASURES] = {20, 70, 0, 0, 70};
    const char *b_read[] = {"main", "op%\\xff"};               /* b as a saved table has it */
    CHECK_INT(astk_add(&w, c, 2, vc, &e), 0);
    CHECK_INT(astk_add(&w, b_read, 2, vb2, &e), 0);
    struct astk_delta *d;
    size_t nd;
    CHECK_INT(astk_diff(&u, &w, ASTK_ALLOCS, &d, &nd, &e), 0);
    CHECK_INT(nd, 3);
    CHECK_INT(d[0].before[ASTK_ALLOCS], 14);                   /* main;op%: 14 -> 20 */
    CHECK_INT(d[0].after[ASTK_ALLOCS], 20);
    CHECK(d[0].row_before != UINT32_MAX && d[0].row_after != UINT32_MAX);
    CHECK_INT(d[1].before[ASTK_ALLOCS], 5);                    /* main;a;b: gone, -5 */
    CHECK(d[1].row_after == UINT32_MAX);
    CHECK_INT(d[2].after[ASTK_ALLOCS], 2);                     /* main;new: new, +2 */
    CHECK(d[2].row_before == UINT32_MAX);
    free(d);
    astk_free(&w);
    astk_free(&u);
    astk_free(&t);
}

static void tsv_error(const char *text, const char *want)
{
    struct astk_table t;
    struct err e = {0};
    CHECK_INT(astk_parse_tsv(text, strlen(text), "t.tsv", &t, &e), -1);
    CHECK(strstr(e.msg, want) != NULL);
    if (!strstr(e.msg, want))
        printf("#   got: %s\n", e.msg);
}

static void test_tsv_errors(void)
{
#define H "stack\tallocations\tbytes\ttemporaries\tpeak_bytes\tleaked_bytes\n"
    tsv_error("", "t.tsv: empty");
    tsv_error("stack\tbytes\n", "t.tsv line 1: no column 'allocations'");
    tsv_error("stack\tstack\n", "column 'stack' twice");
    tsv_error(H "a\t1\t2\t3\t4\n", "t.tsv line 2: 5 fields, the header has 6");
    tsv_error(H "a\t1\t2\t3\t4\tx\n", "line 2: bad number 'x' in leaked_bytes");
    tsv_error(H "a\t99999999999999999999\t1\t0\t0\t0\n", "bad number");
    tsv_error(H "a\t1\t1\t2\t0\t0\n", "more temporaries than allocations");
    tsv_error(H "a;\t1\t1\t0\t0\t0\n", "line 2: bad stack");
    tsv_error(H "\t1\t1\t0\t0\t0\n", "line 2: bad stack");
    tsv_error(H "a\x1b[2J\t1\t1\t0\t0\t0\n", "line 2: bad stack");
    tsv_error(H "a\r\t1\t1\t0\t0\t0\n", "line 2: bad stack");
    tsv_error(H "a;b\t1\t1\t0\t0\t0\na;b\t1\t1\t0\t0\t0\n",
              "t.tsv line 3: the same stack as an earlier line");
    tsv_error(H "a\t18446744073709551615\t0\t0\t0\t0\nb\t1\t0\t0\t0\t0\n",
              "line 3: the allocations add up past 2^64");
#undef H
}

static void test_measures(void)
{
    int m = -1;
    CHECK_INT(astk_measure_parse("peak", &m), 0);
    CHECK_INT(m, ASTK_PEAK);
    CHECK_INT(astk_measure_parse("leaked_bytes", &m), 0);
    CHECK_INT(m, ASTK_LEAKED);
    CHECK_INT(astk_measure_parse("temporaries", &m), 0);
    CHECK_INT(m, ASTK_TEMPS);
    CHECK_INT(astk_measure_parse("size", &m), -1);
    CHECK_STR(astk_measure_name(ASTK_BYTES), "bytes");
}

int main(void)
{
    test_report();
    test_report_errors();
    test_tsv();
    test_tsv_errors();
    test_measures();
    return unit_done("test_allocstacks");
}
