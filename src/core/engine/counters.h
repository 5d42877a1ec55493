/* counters.h: hardware and software counters of a child, through perf_event_open. */
#ifndef TARE_COUNTERS_H
#define TARE_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/util/err.h"

/*
 * How a caller uses this (tare stat, tare wall --counters, tare ab --counters):
 *
 *   struct ctr_set set;
 *   ctr_set_init(&set, &(struct ctr_config){.events = NULL, .pin_cpu = -1}, &e);
 *   ctr_set_probe(&set);                  // which counters this machine can open
 *   for each run:
 *       proc_opts.before_exec = ctr_attach; proc_opts.before_exec_arg = &set;
 *       proc_run(...);                     // counters open disabled, enabled on exec
 *       ctr_read(&set, &sample);           // reads, scales, closes
 *   ctr_median(samples, nruns, i), ...
 *   ctr_set_free(&set);
 */

#define CTR_MAX 32          /* counters in one set: events times core PMUs */
#define CTR_MAX_PMUS 4
#define CTR_MAX_CPUS 1024   /* CPU numbers a cpus list may name */

enum ctr_source { CTR_HARDWARE, CTR_SOFTWARE };

/* One entry of the event table. */
struct ctr_event {
    const char *name;        /* as perf names it: "cycles", "task-clock" */
    enum ctr_source source;
    uint64_t config;         /* PERF_COUNT_HW_* or PERF_COUNT_SW_* */
    bool kernel_side;        /* happens only in the kernel (a context switch): never user-only */
    const char *unit;        /* "ns" for the clocks, NULL for counts */
    const char *what;        /* a few words for the help */
};

/* The table, in display order; n is set to its length. */
const struct ctr_event *ctr_events(int *n);
const struct ctr_event *ctr_event_find(const char *name);
/* The events counted when none are named. */
extern const char ctr_default_events[];

/* A core PMU found under the sysfs root: "cpu", or "cpu_core" and "cpu_atom" on hybrids. */
struct ctr_pmu {
    char name[16];
    uint32_t type;           /* its perf type number, from NAME/type */
    bool have_cpus;          /* NAME/cpus was there; otherwise it covers every CPU */
    uint64_t cpus[CTR_MAX_CPUS / 64];
};

struct ctr_pmus {
    int n;
    bool hybrid;             /* cpu_core or cpu_atom: hardware events are opened per PMU */
    struct ctr_pmu pmu[CTR_MAX_PMUS];
    char root[256];          /* where they were looked for */
};

#define CTR_SYSFS_ROOT "/sys/bus/event_source/devices"

/* Looks for cpu, cpu_core and cpu_atom under root (NULL: CTR_SYSFS_ROOT). None found is
 * not an error (out->n = 0: a machine without hardware counters); a malformed type or
 * cpus file is (ERR_SYSTEM). */
int ctr_discover(const char *root, struct ctr_pmus *out, struct err *e);
/* The PMU whose cpus include cpu, or -1. */
int ctr_pmu_for_cpu(const struct ctr_pmus *p, int cpu);
/* Parses a kernel CPU list ("0-7,16,18-19", optionally ending in a newline) into a bitmap
 * of CTR_MAX_CPUS bits. */
int ctr_parse_cpulist(const char *s, uint64_t *bits, struct err *e);

/* One counter: an event, on one PMU on a hybrid machine. */
struct ctr_counter {
    const struct ctr_event *ev;
    int pmu;                 /* index into the set's pmus; -1: the generic (non-hybrid) event */
    char label[48];          /* "cycles", or "cpu_core/cycles" on a hybrid */
    int open_errno;          /* 0: the probe opened it */
    char why[512];           /* when it could not: the reason in words, errno last */
    int fd;                  /* during a run */
};

struct ctr_config {
    const char *events;      /* "cycles,instructions,cpu_core/cycles" or NULL for the default */
    const char *sysfs_root;  /* NULL: CTR_SYSFS_ROOT */
    int pin_cpu;             /* -1: none; on a hybrid, count only on that CPU's PMU */
    bool kernel;             /* count kernel mode too (needs perf_event_paranoid <= 1) */
};

struct ctr_set {
    struct ctr_pmus pmus;
    bool kernel;
    int n;
    struct ctr_counter c[CTR_MAX];
    int paranoid;            /* /proc/sys/kernel/perf_event_paranoid; CTR_PARANOID_UNKNOWN */
    bool privileged;         /* CAP_PERFMON or CAP_SYS_ADMIN: perf_event_paranoid does not apply */
};

#define CTR_PARANOID_UNKNOWN (-1000)

/* Parses the event list and discovers the PMUs. ERR_INPUT for an unknown or repeated event,
 * a PMU that is not there, or a --pin CPU no core PMU covers. */
int ctr_set_init(struct ctr_set *s, const struct ctr_config *cfg, struct err *e);
/* Opens each counter on tare itself and closes it again, filling open_errno and why.
 * Returns how many cannot be counted here. */
int ctr_set_probe(struct ctr_set *s);
/* What counter i is opened with: perf type, config (a hybrid PMU's type in bits 32-63),
 * and whether kernel mode is left out. */
void ctr_counter_attr(const struct ctr_set *s, int i, uint32_t *type, uint64_t *config,
                      bool *exclude_kernel);
/* Removes counter i from the set (one the default list asked for and this machine refuses). */
void ctr_set_remove(struct ctr_set *s, int i);
/* For a default event list, after ctr_set_probe: removes the kernel-side events (context
 * switches) that the permissions forbid in user-only counting, so the default works at
 * perf_event_paranoid 2; dropped(ctx, c) is told of each before it goes (may be NULL). */
void ctr_set_drop_kernel_side(struct ctr_set *s,
                              void (*dropped)(void *ctx, const struct ctr_counter *c), void *ctx);
/* The software events (task-clock, page-faults, context-switches) this machine can count with
 * kernel mode as given, probed one by one, as an --event list into buf ("" when none). */
void ctr_working_software(bool kernel, char *buf, size_t n);
/* Closes whatever is open. */
void ctr_set_free(struct ctr_set *s);

/* A proc_opts.before_exec hook (arg: the struct ctr_set): opens every available counter on
 * pid, disabled, inherited, enabled when pid execs. */
int ctr_attach(void *set, pid_t pid, struct err *e);

/* One run's readings. value is NAN for a counter that is unavailable or never ran. */
struct ctr_sample {
    double value[CTR_MAX];   /* scaled when multiplexed */
    double raw[CTR_MAX];
    double running[CTR_MAX];  /* time_running / time_enabled, 0..1; NAN when unavailable */
    bool scaled[CTR_MAX];
};

/* One counter's figures over n runs (n > 0): the median, min and max of its values, the runs
 * that counted it, and a status: "ok", "scaled" (multiplexed: scaled from the share of time it
 * ran) or "not-counted" (no run counted it). */
struct ctr_summary {
    double median, min, max;
    int runs;
    const char *status;
};
/* Counter i's summary over the samples s[0..n). */
struct ctr_summary ctr_summarize(const struct ctr_sample *s, int n, int i);
/* The counter of event ev on the same PMU as counter i, or -1 (instructions' cycles). */
int ctr_find_pair(const struct ctr_set *set, int i, const char *ev);

/* Reads each counter opened by ctr_attach, scales it, closes it. */
int ctr_read(struct ctr_set *s, struct ctr_sample *out, struct err *e);

/*
 * Scaling, for a group of n counters of one event (n > 1: the same event on each core PMU
 * of a hybrid, where time running on one PMU is time not spent on the other). The group's
 * running time is the sum; when it falls short of the time enabled the counters were
 * multiplexed, and each is scaled by enabled / (sum of running). A group that never ran is
 * NAN, never 0.
 */
void ctr_scale(const uint64_t *raw, const uint64_t *enabled, const uint64_t *running, int n,
               double *value, bool *scaled);

/* Over the runs of a series: statistics of counter i, NAN when no run has it. */
double ctr_median(const struct ctr_sample *s, int nruns, int i);
double ctr_min(const struct ctr_sample *s, int nruns, int i);
double ctr_max(const struct ctr_sample *s, int nruns, int i);
bool ctr_any_scaled(const struct ctr_sample *s, int nruns, int i);
/* The smallest running fraction over the runs (how much it was multiplexed). */
double ctr_min_running(const struct ctr_sample *s, int nruns, int i);

/* What a perf_event_paranoid value allows, in words. */
const char *ctr_paranoid_meaning(int level);

#endif
