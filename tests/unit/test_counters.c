/* test_counters.c: CPU lists, PMU discovery on a fake sysfs tree, event sets, scaling, and
 * software counters read for real from a child. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/engine/counters.h"
#include "core/util/proc.h"
#include "unit.h"

static bool bit(const uint64_t *b, int i)
{
    return (b[i / 64] >> (i % 64)) & 1;
}

static int count_bits(const uint64_t *b)
{
    int n = 0;
    for (int i = 0; i < CTR_MAX_CPUS; i++)
        n += bit(b, i);
    return n;
}

static void put(const char *root, const char *dir, const char *file, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, file);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void rm_tree(const char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        printf("could not remove %s\n", root);
}

static void test_cpulist(void)
{
    uint64_t b[CTR_MAX_CPUS / 64];
    struct err e;
    CHECK_INT(ctr_parse_cpulist("0-7,16,18-19\n", b, &e), 0);
    CHECK_INT(count_bits(b), 11);
    CHECK(bit(b, 0) && bit(b, 7) && !bit(b, 8) && bit(b, 16) && !bit(b, 17) && bit(b, 19));
    CHECK_INT(ctr_parse_cpulist("\n", b, &e), 0);
    CHECK_INT(count_bits(b), 0);
    CHECK_INT(ctr_parse_cpulist("", b, &e), 0);
    CHECK_INT(ctr_parse_cpulist("1023", b, &e), 0);
    CHECK(bit(b, 1023));
    static const char *const bad[] = {"3-1", "a", "1,,2", "1-", "1024", "0-99999999999999999999",
                                      "1 2", "-3", "1,", "2\n\n", "\n1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = ctr_parse_cpulist(bad[i], b, &e);
        if (rc != -1)
            printf("not ok - cpulist '%s' accepted\n", bad[i]);
        CHECK_INT(rc, -1);
    }
}

static void test_discover(void)
{
    char root[] = "/tmp/tare-sysfs-XXXXXX";
    if (!mkdtemp(root)) {
        CHECK(!"mkdtemp");
        return;
    }
    struct ctr_pmus p;
    struct err e = {0};

    /* A machine without a core PMU (this VM): only software and friends. */
    put(root, "software", "type", "1\n");
    put(root, "tracepoint", "type", "2\n");
    CHECK_INT(ctr_discover(root, &p, &e), 0);
    CHECK_INT(p.n, 0);
    CHECK(!p.hybrid);

    /* A hybrid: cpu_core on 0-7, cpu_atom on 8-15, their own type numbers. */
    put(root, "cpu_core", "type", "4\n");
    put(root, "cpu_core", "cpus", "0-7\n");
    put(root, "cpu_atom", "type", "10\n");
    put(root, "cpu_atom", "cpus", "8-15\n");
    CHECK_INT(ctr_discover(root, &p, &e), 0);
    CHECK_INT(p.n, 2);
    CHECK(p.hybrid);
    CHECK_STR(p.pmu[0].name, "cpu_core");
    CHECK_INT(p.pmu[0].type, 4);
    CHECK_STR(p.pmu[1].name, "cpu_atom");
    CHECK_INT(p.pmu[1].type, 10);
    CHECK_INT(ctr_pmu_for_cpu(&p, 3), 0);
    CHECK_INT(ctr_pmu_for_cpu(&p, 9), 1);
    CHECK_INT(ctr_pmu_for_cpu(&p, 16), -1);
    CHECK_INT(ctr_pmu_for_cpu(&p, -1), -1);

    /* Event sets on it: each hardware event on each core PMU, the PMU's type in config's
     * upper half; software events once. */
    struct ctr_set s;
    struct ctr_config cfg = {.events = "cycles,task-clock,instructions", .sysfs_root = root,
                             .pin_cpu = -1};
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    CHECK_INT(s.n, 5);
    CHECK_STR(s.c[0].label, "cpu_core/cycles");
    CHECK_STR(s.c[1].label, "cpu_atom/cycles");
    CHECK_STR(s.c[2].label, "task-clock");
    CHECK_STR(s.c[3].label, "cpu_core/instructions");
    CHECK_STR(s.c[4].label, "cpu_atom/instructions");
    uint32_t type;
    uint64_t config;
    bool excl;
    ctr_counter_attr(&s, 0, &type, &config, &excl);
    CHECK_INT(type, 0);                           /* PERF_TYPE_HARDWARE */
    CHECK(config == ((uint64_t)4 << 32 | 0));     /* cycles on type 4 */
    CHECK(excl);                                  /* user space only by default */
    ctr_counter_attr(&s, 4, &type, &config, &excl);
    CHECK(config == ((uint64_t)10 << 32 | 1));    /* instructions on type 10 */
    ctr_counter_attr(&s, 2, &type, &config, &excl);
    CHECK_INT(type, 1);                           /* PERF_TYPE_SOFTWARE */
    CHECK(config == 1);                           /* task clock */

    /* Pinned to an E-core: only cpu_atom's counters. */
    cfg.pin_cpu = 9;
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    CHECK_INT(s.n, 3);
    CHECK_STR(s.c[0].label, "cpu_atom/cycles");
    CHECK_STR(s.c[2].label, "cpu_atom/instructions");
    cfg.pin_cpu = 40;
    CHECK_INT(ctr_set_init(&s, &cfg, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK(strstr(e.msg, "CPU 40") != NULL);

    /* Naming the PMU. */
    cfg = (struct ctr_config){.events = "cpu_core/cycles,context-switches", .sysfs_root = root,
                              .pin_cpu = -1};
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    CHECK_INT(s.n, 2);
    CHECK_STR(s.c[0].label, "cpu_core/cycles");
    ctr_counter_attr(&s, 1, &type, &config, &excl);
    CHECK(!excl);              /* a context switch is counted in the kernel, always */
    cfg.kernel = true;
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    ctr_counter_attr(&s, 0, &type, &config, &excl);
    CHECK(!excl);

    static const char *const bad[] = {"cpu/cycles", "cpu_core/task-clock", "cycles,cycles",
                                      "cpu_core/cycles,cycles", "bogus", "", "cycles,",
                                      ",cycles", "cycles,,instructions", "cpu_core/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg = (struct ctr_config){.events = bad[i], .sysfs_root = root, .pin_cpu = -1};
        int rc = ctr_set_init(&s, &cfg, &e);
        if (rc != -1)
            printf("not ok - event list '%s' accepted\n", bad[i]);
        CHECK_INT(rc, -1);
        CHECK_INT(e.kind, ERR_INPUT);
    }

    /* A plain machine: one 'cpu' PMU, generic events, no type in config. */
    rm_tree(root);
    mkdir(root, 0755);
    put(root, "cpu", "type", "4\n");
    CHECK_INT(ctr_discover(root, &p, &e), 0);
    CHECK_INT(p.n, 1);
    CHECK(!p.hybrid);
    CHECK_INT(ctr_pmu_for_cpu(&p, 100), 0);
    cfg =
        (struct ctr_config){.events = "cycles,cpu/instructions", .sysfs_root = root, .pin_cpu = 3};
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    CHECK_INT(s.n, 2);
    CHECK_STR(s.c[0].label, "cycles");
    CHECK_STR(s.c[1].label, "instructions");
    ctr_counter_attr(&s, 1, &type, &config, &excl);
    CHECK(config == 1);

    /* Malformed files are errors, not guesses. */
    put(root, "cpu", "type", "four\n");
    CHECK_INT(ctr_discover(root, &p, &e), -1);
    put(root, "cpu", "type", "4\n");
    put(root, "cpu", "cpus", "0-x\n");
    CHECK_INT(ctr_discover(root, &p, &e), -1);
    CHECK(strstr(e.msg, "cpus") != NULL);
    rm_tree(root);
}

static void test_scale(void)
{
    double v[2];
    bool sc[2];
    /* Not multiplexed: as read. */
    uint64_t raw1[] = {1000}, en1[] = {500}, run1[] = {500};
    ctr_scale(raw1, en1, run1, 1, v, sc);
    CHECK_NEAR(v[0], 1000, 0);
    CHECK(!sc[0]);
    /* Ran a quarter of the time: four times the reading, flagged. */
    uint64_t run2[] = {125};
    ctr_scale(raw1, en1, run2, 1, v, sc);
    CHECK_NEAR(v[0], 4000, 1e-9);
    CHECK(sc[0]);
    /* Never ran: NAN, not zero. */
    uint64_t run0[] = {0};
    ctr_scale(raw1, en1, run0, 1, v, sc);
    CHECK(isnan(v[0]));
    /* A hybrid's two core types, the task's time split between them: no scaling. */
    uint64_t rawh[] = {600, 400}, enh[] = {1000, 1000}, runh[] = {600, 400};
    ctr_scale(rawh, enh, runh, 2, v, sc);
    CHECK_NEAR(v[0], 600, 0);
    CHECK_NEAR(v[1], 400, 0);
    CHECK(!sc[0] && !sc[1]);
    /* ... and the same multiplexed to half: both doubled. */
    uint64_t runm[] = {300, 200};
    ctr_scale(rawh, enh, runm, 2, v, sc);
    CHECK_NEAR(v[0], 1200, 1e-9);
    CHECK_NEAR(v[1], 800, 1e-9);
    CHECK(sc[0] && sc[1]);
    /* Only on P-cores: the E-core count is a true zero. */
    uint64_t rawp[] = {900, 0}, runp[] = {1000, 0};
    ctr_scale(rawp, enh, runp, 2, v, sc);
    CHECK_NEAR(v[0], 900, 0);
    CHECK_NEAR(v[1], 0, 0);
}

static void test_stats(void)
{
    struct ctr_sample s[3];
    memset(s, 0, sizeof s);
    double vals[] = {30, 10, 20};
    for (int r = 0; r < 3; r++) {
        s[r].value[0] = vals[r];
        s[r].running[0] = r == 1 ? 0.5 : 1;
        s[r].scaled[0] = r == 1;
        s[r].value[1] = r == 2 ? NAN : 5;
    }
    CHECK_NEAR(ctr_median(s, 3, 0), 20, 0);
    CHECK_NEAR(ctr_min(s, 3, 0), 10, 0);
    CHECK_NEAR(ctr_max(s, 3, 0), 30, 0);
    CHECK(ctr_any_scaled(s, 3, 0));
    CHECK(!ctr_any_scaled(s, 3, 1));
    CHECK_NEAR(ctr_min_running(s, 3, 0), 0.5, 0);
    CHECK(isnan(ctr_median(s, 3, 1)));   /* missing in one run: no median */
}

/* The software events, for real: a child that touches N MiB takes about N*256 page faults. */
static double faults_of(int mib, struct ctr_set *s)
{
    char arg[16];
    snprintf(arg, sizeof arg, "%d", mib);
    const char *fx = getenv("FIXTURES");
    char path[512];
    snprintf(path, sizeof path, "%s/touchmem", fx ? fx : "build/fixtures");
    char *argv[] = {path, arg, NULL};
    struct proc_opts o = {
        .argv = argv, .pin_cpu = -1, .before_exec = ctr_attach, .before_exec_arg = s};
    struct proc_result r;
    struct err e = {0};
    if (proc_run(&o, &r, &e) < 0 || r.status != PROC_OK) {
        printf("not ok - touchmem %d: %s\n", mib, e.msg);
        return NAN;
    }
    struct ctr_sample smp;
    if (ctr_read(s, &smp, &e) < 0) {
        printf("not ok - read: %s\n", e.msg);
        return NAN;
    }
    CHECK(!smp.scaled[0]);
    CHECK_NEAR(smp.running[0], 1, 0);
    CHECK(smp.value[1] > 0);     /* task-clock: some CPU time, in ns */
    return smp.value[0];
}

static void test_software(void)
{
    struct ctr_set s;
    struct err e = {0};
    struct ctr_config cfg = {.events = "page-faults,task-clock", .pin_cpu = -1};
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    CHECK_INT(ctr_set_probe(&s), 0);
    double f8 = faults_of(8, &s), f40 = faults_of(40, &s);
    /* 32 MiB more in 4 KiB pages is 8192 more faults (fewer with huge pages, never more). */
    double per_mib = (f40 - f8) / 32;
    long page = sysconf(_SC_PAGESIZE);
    printf("page faults: 8 MiB %.0f, 40 MiB %.0f, %.1f per MiB (page size %ld)\n", f8, f40,
           per_mib, page);
    CHECK(f40 > f8);
    CHECK(per_mib <= (1 << 20) / page * 1.05);
    CHECK(per_mib >= 1);
    ctr_set_free(&s);

    /* Where the machine has no core PMU, a hardware event says so, with the errno. */
    cfg.events = "cycles,task-clock";
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    int bad = ctr_set_probe(&s);
    if (s.pmus.n == 0) {
        CHECK_INT(bad, 1);
        CHECK(s.c[0].open_errno != 0);
        CHECK(strstr(s.c[0].why, "this machine has no hardware counters") != NULL);
        CHECK(strstr(s.c[0].why, "perf_event_open: ") != NULL);
        CHECK_INT(s.c[1].open_errno, 0);
    } else {
        printf("(this machine has a core PMU: %s)\n", s.pmus.pmu[0].name);
    }
    ctr_set_free(&s);
}

/* A counter's summary: its median, min and max, the runs that counted it, whether scaled. */
static void test_summarize(void)
{
    struct ctr_sample smp[4];
    memset(smp, 0, sizeof smp);
    double v[4] = {10, 30, 25, 20}, gap[4] = {1, 2, NAN, 3};
    for (int r = 0; r < 4; r++)
        smp[r].value[0] = v[r], smp[r].value[1] = gap[r], smp[r].value[2] = 5;
    smp[1].scaled[2] = true;
    struct ctr_summary c = ctr_summarize(smp, 4, 0);
    CHECK_NEAR(c.median, 22.5, 1e-12);
    CHECK_NEAR(c.min, 10, 1e-12);
    CHECK_NEAR(c.max, 30, 1e-12);
    CHECK_INT(c.runs, 4);
    CHECK_STR(c.status, "ok");
    /* missing from one run: no honest median over all of them */
    c = ctr_summarize(smp, 4, 1);
    CHECK(isnan(c.median));
    CHECK_INT(c.runs, 3);
    CHECK_STR(c.status, "not-counted");
    CHECK_STR(ctr_summarize(smp, 4, 2).status, "scaled");
}

static int ndropped;

static void count_dropped(void *ctx, const struct ctr_counter *c)
{
    (void)ctx;
    CHECK_STR(c->label, "context-switches");
    ndropped++;
}

/* The default list at perf_event_paranoid 2: the kernel-side event refused (made up here:
 * EACCES set by hand) goes, with a word; the others stay; in kernel mode nothing goes. */
static void test_drop_kernel_side(void)
{
    struct ctr_set s;
    struct err e = {0};
    struct ctr_config cfg = {.events = "task-clock,context-switches,page-faults", .pin_cpu = -1};
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    CHECK_INT(s.n, 3);
    s.c[1].open_errno = EACCES;
    s.c[2].open_errno = EACCES;   /* refused too, but not kernel-side: left to be said */
    ctr_set_drop_kernel_side(&s, count_dropped, NULL);
    CHECK_INT(ndropped, 1);
    CHECK_INT(s.n, 2);
    CHECK_STR(s.c[0].label, "task-clock");
    CHECK_STR(s.c[1].label, "page-faults");
    ctr_set_free(&s);
    cfg.kernel = true;
    CHECK_INT(ctr_set_init(&s, &cfg, &e), 0);
    s.c[1].open_errno = EACCES;
    ctr_set_drop_kernel_side(&s, count_dropped, NULL);
    CHECK_INT(s.n, 3);
    ctr_set_free(&s);
    /* what a machine can count of the software events: task-clock everywhere perf is */
    char sw[128];
    ctr_working_software(false, sw, sizeof sw);
    CHECK(sw[0] == '\0' || strncmp(sw, "task-clock", 10) == 0);
}

int main(void)
{
    test_cpulist();
    test_discover();
    test_scale();
    test_stats();
    test_software();
    test_drop_kernel_side();
    test_summarize();
    CHECK(strstr(ctr_paranoid_meaning(2), "user-space") != NULL);
    CHECK(strstr(ctr_paranoid_meaning(3), "forbids") != NULL);
    return unit_done("test_counters");
}
