/* counters.c: perf_event_open counters: event table, core PMU discovery, attach, read, scale. */
#define _GNU_SOURCE
#include "core/engine/counters.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util/stats.h"

/* The PMU type of a hybrid core PMU goes in config bits 32-63 (PERF_PMU_TYPE_SHIFT). */
#define CTR_PMU_TYPE_SHIFT 32

static const struct ctr_event ctr_table[] = {
    {"cycles", CTR_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, NULL, "CPU cycles"},
    {"instructions", CTR_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, NULL, "instructions retired"},
    {"branches", CTR_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false, NULL,
     "branch instructions"},
    {"branch-misses", CTR_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false, NULL,
     "mispredicted branches"},
    {"cache-references", CTR_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false, NULL,
     "last-level cache accesses"},
    {"cache-misses", CTR_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false, NULL,
     "last-level cache misses"},
    {"task-clock", CTR_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false, "ns", "CPU time of the tasks"},
    {"page-faults", CTR_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false, NULL, "page faults"},
    {"minor-faults", CTR_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false, NULL,
     "page faults served without I/O"},
    {"major-faults", CTR_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false, NULL,
     "page faults that needed I/O"},
    {"context-switches", CTR_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, true, NULL,
     "times a task left the CPU"},
    {"cpu-migrations", CTR_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, true, NULL,
     "moves to another CPU"},
};

const char ctr_default_events[] =
    "cycles,instructions,branch-misses,cache-references,cache-misses,task-clock,page-faults,"
    "context-switches";

const struct ctr_event *ctr_events(int *n)
{
    *n = (int)(sizeof ctr_table / sizeof ctr_table[0]);
    return ctr_table;
}

const struct ctr_event *ctr_event_find(const char *name)
{
    for (size_t i = 0; i < sizeof ctr_table / sizeof ctr_table[0]; i++)
        if (strcmp(ctr_table[i].name, name) == 0)
            return &ctr_table[i];
    return NULL;
}

/* ---- discovery ---- */

static void bit_set(uint64_t *bits, unsigned i)
{
    bits[i / 64] |= (uint64_t)1 << (i % 64);
}

static bool bit_get(const uint64_t *bits, unsigned i)
{
    return (bits[i / 64] >> (i % 64)) & 1;
}

static int parse_uint(const char **p, unsigned long *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (unsigned long)(*s - '0');
        if (v >= CTR_MAX_CPUS)
            return -1;
        s++;
    }
    *p = s;
    *out = v;
    return 0;
}

int ctr_parse_cpulist(const char *s, uint64_t *bits, struct err *e)
{
    memset(bits, 0, CTR_MAX_CPUS / 8);
    const char *p = s;
    if (*p == '\n' || *p == '\0')
        return (p[0] == '\0' || p[1] == '\0') ? 0 : err_set(e, ERR_SYSTEM, "bad CPU list");
    for (;;) {
        unsigned long a, b;
        if (parse_uint(&p, &a) < 0)
            return err_set(e, ERR_SYSTEM, "bad CPU list at '%.20s' (want N or N-M, below %d)", p,
                           CTR_MAX_CPUS);
        b = a;
        if (*p == '-') {
            p++;
            if (parse_uint(&p, &b) < 0 || b < a)
                return err_set(e, ERR_SYSTEM, "bad CPU range in list at '%.20s'", p);
        }
        for (unsigned long i = a; i <= b; i++)
            bit_set(bits, (unsigned)i);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\n')
            p++;
        if (*p != '\0')
            return err_set(e, ERR_SYSTEM, "bad CPU list: unexpected '%c'", *p);
        return 0;
    }
}

/* Reads a small sysfs file into buf; -1 with errno when it cannot. */
static int read_small(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, n - 1);
    int saved = errno;
    close(fd);
    if (got < 0) {
        errno = saved;
        return -1;
    }
    buf[got] = '\0';
    return 0;
}

int ctr_discover(const char *root, struct ctr_pmus *out, struct err *e)
{
    static const char *const names[] = {"cpu", "cpu_core", "cpu_atom"};
    memset(out, 0, sizeof *out);
    if (!root)
        root = CTR_SYSFS_ROOT;
    snprintf(out->root, sizeof out->root, "%s", root);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[512], buf[4096];
        snprintf(path, sizeof path, "%s/%s/type", root, names[k]);
        if (read_small(path, buf, 64) < 0) {
            if (errno == ENOENT || errno == ENOTDIR)
                continue;
            return err_errno(e, ERR_SYSTEM, errno, "cannot read '%s'", path);
        }
        const char *p = buf;
        unsigned long type = 0;
        char *end;
        errno = 0;
        type = strtoul(p, &end, 10);
        if (end == p || errno || type > UINT32_MAX || (*end != '\0' && strcmp(end, "\n") != 0))
            return err_set(e, ERR_SYSTEM, "'%s' is not a PMU type number", path);
        struct ctr_pmu *u = &out->pmu[out->n];
        snprintf(u->name, sizeof u->name, "%s", names[k]);
        u->type = (uint32_t)type;
        snprintf(path, sizeof path, "%s/%s/cpus", root, names[k]);
        if (read_small(path, buf, sizeof buf) == 0) {
            if (ctr_parse_cpulist(buf, u->cpus, e) < 0)
                return err_prefix(e, "'%s'", path);
            u->have_cpus = true;
        }
        if (k > 0)
            out->hybrid = true;
        out->n++;
    }
    return 0;
}

int ctr_pmu_for_cpu(const struct ctr_pmus *p, int cpu)
{
    if (cpu < 0 || cpu >= CTR_MAX_CPUS)
        return -1;
    for (int i = 0; i < p->n; i++)
        if (!p->pmu[i].have_cpus || bit_get(p->pmu[i].cpus, (unsigned)cpu))
            return i;
    return -1;
}

/* ---- the set ---- */

static int read_paranoid(void)
{
    char buf[32];
    if (read_small("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf) < 0)
        return CTR_PARANOID_UNKNOWN;
    char *end;
    long v = strtol(buf, &end, 10);
    return end == buf ? CTR_PARANOID_UNKNOWN : (int)v;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set: paranoid does not apply. */
static bool read_privileged(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return geteuid() == 0;
    char line[256];
    unsigned long long caps = 0;
    bool found = false;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &caps) == 1) {
            found = true;
            break;
        }
    fclose(f);
    if (!found)
        return geteuid() == 0;
    return ((caps >> 38) & 1) || ((caps >> 21) & 1);
}

const char *ctr_paranoid_meaning(int level)
{
    if (level == CTR_PARANOID_UNKNOWN)
        return "unknown (/proc/sys/kernel/perf_event_paranoid could not be read)";
    if (level <= -1)
        return "no restriction";
    if (level == 0)
        return "all events but raw tracepoints allowed to every user";
    if (level == 1)
        return "user and kernel events of one's own processes allowed; CPU-wide events need "
               "CAP_PERFMON";
    if (level == 2)
        return "user-space events of one's own processes allowed; kernel-mode counting needs "
               "CAP_PERFMON or a setting of 1 or less";
    return "a distribution's setting that forbids perf_event_open to users without CAP_PERFMON "
           "entirely";
}

static int add_counter(struct ctr_set *s, const struct ctr_event *ev, int pmu, struct err *e)
{
    for (int i = 0; i < s->n; i++)
        if (s->c[i].ev == ev && s->c[i].pmu == pmu)
            return err_set(e, ERR_INPUT, "event '%s' named twice", s->c[i].label);
    if (s->n == CTR_MAX)
        return err_set(e, ERR_INPUT, "too many counters (at most %d)", CTR_MAX);
    struct ctr_counter *c = &s->c[s->n++];
    memset(c, 0, sizeof *c);
    c->ev = ev;
    c->pmu = pmu;
    c->fd = -1;
    char label[sizeof c->label];
    if (pmu >= 0 && s->pmus.hybrid)
        snprintf(label, sizeof label, "%s/%s", s->pmus.pmu[pmu].name, ev->name);
    else
        snprintf(label, sizeof label, "%s", ev->name);
    memcpy(c->label, label, sizeof label);
    return 0;
}

int ctr_set_init(struct ctr_set *s, const struct ctr_config *cfg, struct err *e)
{
    memset(s, 0, sizeof *s);
    s->kernel = cfg->kernel;
    s->paranoid = read_paranoid();
    s->privileged = read_privileged();
    if (ctr_discover(cfg->sysfs_root, &s->pmus, e) < 0)
        return -1;
    int pinned_pmu = -1;
    if (cfg->pin_cpu >= 0 && s->pmus.hybrid) {
        pinned_pmu = ctr_pmu_for_cpu(&s->pmus, cfg->pin_cpu);
        if (pinned_pmu < 0)
            return err_set(e, ERR_INPUT, "CPU %d is in no core PMU's cpus under '%s'",
                           cfg->pin_cpu, s->pmus.root);
    }
    const char *list = cfg->events ? cfg->events : ctr_default_events;
    char *copy = strdup(list);
    if (!copy)
        return err_set(e, ERR_SYSTEM, "out of memory");
    int ret = 0;
    char *save = NULL;
    if (!*list || list[strlen(list) - 1] == ',' || *list == ',' || strstr(list, ",,")) {
        ret = err_set(e, ERR_INPUT, "empty event name in '%s'", list);
        goto out;
    }
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(tok, '/');
        const char *evname = slash ? slash + 1 : tok;
        const struct ctr_event *ev = ctr_event_find(evname);
        if (!ev) {
            int n;
            const struct ctr_event *t = ctr_events(&n);
            char known[512] = "";
            for (int i = 0; i < n; i++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                         t[i].name);
            ret = err_set(e, ERR_INPUT, "unknown event '%s' (known: %s)", evname, known);
            goto out;
        }
        if (slash) {
            *slash = '\0';
            int pmu = -1;
            for (int i = 0; i < s->pmus.n; i++)
                if (strcmp(s->pmus.pmu[i].name, tok) == 0)
                    pmu = i;
            if (pmu < 0) {
                ret = err_set(e, ERR_INPUT, "no PMU '%s' under '%s' (this machine has %s)", tok,
                              s->pmus.root, s->pmus.n == 0 ? "none" : s->pmus.hybrid ?
                              "cpu_core and/or cpu_atom" : "'cpu'");
                goto out;
            }
            if (ev->source != CTR_HARDWARE) {
                ret = err_set(e, ERR_INPUT, "'%s' is a software event: name it without a PMU",
                              ev->name);
                goto out;
            }
            if (!s->pmus.hybrid)
                pmu = -1;   /* the one 'cpu' PMU: the generic event is the same counter */
            if ((ret = add_counter(s, ev, pmu, e)) < 0)
                goto out;
        } else if (ev->source == CTR_HARDWARE && s->pmus.hybrid) {
            /* Each core type has its own counters: open the event on each, or on the
             * pinned CPU's only, so no row is ever "<not counted>" for want of asking. */
            for (int i = 0; i < s->pmus.n; i++)
                if ((pinned_pmu < 0 || pinned_pmu == i) && (ret = add_counter(s, ev, i, e)) < 0)
                    goto out;
        } else if ((ret = add_counter(s, ev, -1, e)) < 0) {
            goto out;
        }
    }
out:
    free(copy);
    return ret;
}

static void fill_attr(const struct ctr_set *s, const struct ctr_counter *c,
                      struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    if (c->ev->source == CTR_HARDWARE) {
        a->type = PERF_TYPE_HARDWARE;
        a->config = c->ev->config;
        if (c->pmu >= 0 && s->pmus.hybrid)
            a->config |= (uint64_t)s->pmus.pmu[c->pmu].type << CTR_PMU_TYPE_SHIFT;
    } else {
        a->type = PERF_TYPE_SOFTWARE;
        a->config = c->ev->config;
    }
    a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a->disabled = 1;
    a->inherit = 1;
    /* A context switch only ever happens in the kernel: user-only would read 0, a silent
     * zero, so those are always counted whole (and need the permission for it). */
    a->exclude_kernel = !(s->kernel || c->ev->kernel_side);
    a->exclude_hv = 1;
}

void ctr_counter_attr(const struct ctr_set *s, int i, uint32_t *type, uint64_t *config,
                      bool *exclude_kernel)
{
    struct perf_event_attr a;
    fill_attr(s, &s->c[i], &a);
    *type = a.type;
    *config = a.config;
    *exclude_kernel = a.exclude_kernel;
}

static int perf_open(struct perf_event_attr *a, pid_t pid)
{
    return (int)syscall(SYS_perf_event_open, a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void explain(const struct ctr_set *s, struct ctr_counter *c, int err)
{
    char pre[320];
    const char *reason;
    bool kernel = s->kernel || c->ev->kernel_side;
    if (err == EACCES || err == EPERM) {
        if (s->paranoid >= 3)
            reason = "perf_event_paranoid forbids perf_event_open to users without CAP_PERFMON";
        else if (c->ev->kernel_side && !s->kernel)
            reason = "it happens in the kernel, and counting kernel mode needs perf_event_paranoid "
                     "1 or less, or CAP_PERFMON";
        else if (kernel)
            reason = "--kernel needs perf_event_paranoid 1 or less, or CAP_PERFMON";
        else
            reason = "the kernel does not allow this user to count it";
    } else if (c->ev->source == CTR_HARDWARE && s->pmus.n == 0 &&
               (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL)) {
        snprintf(pre, sizeof pre, "this machine has no hardware counters (no cpu, cpu_core or "
                 "cpu_atom PMU under %.160s; a virtual machine without a virtual PMU, most likely)",
                 s->pmus.root);
        reason = pre;
    } else if (err == ENOENT || err == EOPNOTSUPP) {
        reason = c->pmu >= 0 ? "this PMU cannot count it" : "the CPU's PMU cannot count it";
    } else if (err == EBUSY) {
        reason = "the counters are taken (by the NMI watchdog or another profiler)";
    } else if (err == EMFILE || err == ENFILE) {
        reason = "too many open files";
    } else {
        reason = "the kernel refused it";
    }
    snprintf(c->why, sizeof c->why, "%s: perf_event_open: %s", reason, strerror(err));
}

int ctr_set_probe(struct ctr_set *s)
{
    int bad = 0;
    for (int i = 0; i < s->n; i++) {
        struct ctr_counter *c = &s->c[i];
        struct perf_event_attr a;
        fill_attr(s, c, &a);
        int fd = perf_open(&a, 0);
        if (fd < 0) {
            c->open_errno = errno;
            explain(s, c, errno);
            bad++;
        } else {
            c->open_errno = 0;
            c->why[0] = '\0';
            close(fd);
        }
    }
    return bad;
}

void ctr_set_remove(struct ctr_set *s, int i)
{
    if (i < 0 || i >= s->n)
        return;
    if (s->c[i].fd >= 0)
        close(s->c[i].fd);
    memmove(&s->c[i], &s->c[i + 1], (size_t)(s->n - i - 1) * sizeof s->c[0]);
    s->n--;
}

void ctr_set_free(struct ctr_set *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->c[i].fd >= 0) {
            close(s->c[i].fd);
            s->c[i].fd = -1;
        }
}

int ctr_attach(void *arg, pid_t pid, struct err *e)
{
    struct ctr_set *s = arg;
    ctr_set_free(s);   /* a run that never reached ctr_read leaves nothing open */
    for (int i = 0; i < s->n; i++) {
        struct ctr_counter *c = &s->c[i];
        if (c->open_errno)
            continue;
        struct perf_event_attr a;
        fill_attr(s, c, &a);
        a.enable_on_exec = 1;   /* counts from the exec on: none of the fork or the gate */
        c->fd = perf_open(&a, pid);
        if (c->fd < 0) {
            int err = errno;
            explain(s, c, err);
            ctr_set_free(s);
            return err_set(e, ERR_UNSUPPORTED, "cannot count '%s': %s", c->label, c->why);
        }
    }
    return 0;
}

void ctr_scale(const uint64_t *raw, const uint64_t *enabled, const uint64_t *running, int n,
               double *value, bool *scaled)
{
    uint64_t en = 0, run = 0;
    for (int i = 0; i < n; i++) {
        if (enabled[i] > en)
            en = enabled[i];
        run += running[i];
    }
    for (int i = 0; i < n; i++) {
        scaled[i] = false;
        if (run == 0) {
            value[i] = NAN;   /* never ran: not counted, which is not zero */
        } else if (run < en) {
            value[i] = (double)raw[i] * ((double)en / (double)run);
            scaled[i] = true;
        } else {
            value[i] = (double)raw[i];
        }
    }
}

int ctr_read(struct ctr_set *s, struct ctr_sample *out, struct err *e)
{
    uint64_t raw[CTR_MAX], en[CTR_MAX], run[CTR_MAX];
    bool have[CTR_MAX];
    int ret = 0;
    for (int i = 0; i < CTR_MAX; i++) {
        out->value[i] = out->raw[i] = out->running[i] = NAN;
        out->scaled[i] = false;
    }
    for (int i = 0; i < s->n; i++) {
        have[i] = false;
        struct ctr_counter *c = &s->c[i];
        if (c->fd < 0)
            continue;
        uint64_t v[3];
        ssize_t got = read(c->fd, v, sizeof v);
        if (got != (ssize_t)sizeof v) {
            if (ret == 0)
                ret = err_errno(e, ERR_SYSTEM, got < 0 ? errno : EIO, "cannot read counter '%s'",
                                c->label);
        } else {
            raw[i] = v[0];
            en[i] = v[1];
            run[i] = v[2];
            have[i] = true;
        }
        close(c->fd);
        c->fd = -1;
    }
    /* Scale each event's group: its counters on every core PMU together. */
    bool done[CTR_MAX] = {false};
    for (int i = 0; i < s->n; i++) {
        if (!have[i] || done[i])
            continue;
        int idx[CTR_MAX], k = 0;
        uint64_t r[CTR_MAX], en_g[CTR_MAX], run_g[CTR_MAX];
        for (int j = i; j < s->n; j++)
            if (have[j] && !done[j] && s->c[j].ev == s->c[i].ev) {
                idx[k] = j;
                r[k] = raw[j];
                en_g[k] = en[j];
                run_g[k] = run[j];
                k++;
                done[j] = true;
            }
        double val[CTR_MAX];
        bool sc[CTR_MAX];
        ctr_scale(r, en_g, run_g, k, val, sc);
        for (int m = 0; m < k; m++) {
            out->value[idx[m]] = val[m];
            out->raw[idx[m]] = (double)r[m];
            out->scaled[idx[m]] = sc[m];
            out->running[idx[m]] = en_g[m] ? (double)run_g[m] / (double)en_g[m] : NAN;
        }
    }
    return ret;
}

/* The values of counter i over the runs, NANs left out; returns how many. */
static int gather(const struct ctr_sample *s, int nruns, int i, double *v)
{
    int n = 0;
    for (int r = 0; r < nruns; r++)
        if (!isnan(s[r].value[i]))
            v[n++] = s[r].value[i];
    return n;
}

static double over_runs(const struct ctr_sample *s, int nruns, int i,
                        double (*f)(const double *, int))
{
    if (nruns <= 0)
        return NAN;
    double *v = malloc((size_t)nruns * sizeof *v);
    if (!v)
        return NAN;
    int n = gather(s, nruns, i, v);
    /* A counter missing from some runs has no honest median over all of them. */
    double out = n == nruns ? f(v, n) : NAN;
    free(v);
    return out;
}

static double median_(const double *v, int n) { return stats_median(v, n); }
static double min_(const double *v, int n) { return stats_min(v, n); }
static double max_(const double *v, int n) { return stats_max(v, n); }

double ctr_median(const struct ctr_sample *s, int nruns, int i)
{
    return over_runs(s, nruns, i, median_);
}
double ctr_min(const struct ctr_sample *s, int nruns, int i)
{
    return over_runs(s, nruns, i, min_);
}
double ctr_max(const struct ctr_sample *s, int nruns, int i)
{
    return over_runs(s, nruns, i, max_);
}

bool ctr_any_scaled(const struct ctr_sample *s, int nruns, int i)
{
    for (int r = 0; r < nruns; r++)
        if (s[r].scaled[i])
            return true;
    return false;
}

double ctr_min_running(const struct ctr_sample *s, int nruns, int i)
{
    double m = NAN;
    for (int r = 0; r < nruns; r++)
        if (!isnan(s[r].running[i]) && (isnan(m) || s[r].running[i] < m))
            m = s[r].running[i];
    return m;
}

void ctr_set_drop_kernel_side(struct ctr_set *s,
                              void (*dropped)(void *ctx, const struct ctr_counter *c), void *ctx)
{
    for (int i = 0; i < s->n;) {
        const struct ctr_counter *c = &s->c[i];
        if (c->ev->kernel_side && !s->kernel &&
            (c->open_errno == EACCES || c->open_errno == EPERM)) {
            if (dropped)
                dropped(ctx, c);
            ctr_set_remove(s, i);
        } else {
            i++;
        }
    }
}

void ctr_working_software(bool kernel, char *buf, size_t n)
{
    static const char *const sw[] = {"task-clock", "page-faults", "context-switches"};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
        struct ctr_set probe;
        struct err e;
        struct ctr_config cfg = {.events = sw[i], .pin_cpu = -1, .kernel = kernel};
        if (ctr_set_init(&probe, &cfg, &e) == 0 && ctr_set_probe(&probe) == 0) {
            size_t len = strlen(buf);
            snprintf(buf + len, n - len, "%s%s", len ? "," : "", sw[i]);
        }
        ctr_set_free(&probe);
    }
}

struct ctr_summary ctr_summarize(const struct ctr_sample *s, int n, int i)
{
    struct ctr_summary c = {ctr_median(s, n, i), ctr_min(s, n, i), ctr_max(s, n, i), 0, "ok"};
    for (int r = 0; r < n; r++)
        c.runs += !isnan(s[r].value[i]);
    if (isnan(c.median))
        c.status = "not-counted";
    else if (ctr_any_scaled(s, n, i))
        c.status = "scaled";
    return c;
}

int ctr_find_pair(const struct ctr_set *set, int i, const char *ev)
{
    for (int j = 0; j < set->n; j++)
        if (set->c[j].pmu == set->c[i].pmu && strcmp(set->c[j].ev->name, ev) == 0)
            return j;
    return -1;
}
