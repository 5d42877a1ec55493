/* export.c: BMF JSON, github-action-benchmark JSON and JUnit XML writers (see export.h). */
#define _GNU_SOURCE
#include "core/util/export.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/esc.h"
#include "core/util/json.h"
#include "core/util/metrics.h"
#include "core/util/proc.h"
#include "core/util/xml.h"

const char *const export_format_names[EXPORT_NFORMATS] = {"bmf", "gab", "junit"};

int export_init(struct export_set *s, const char *suite, struct err *e)
{
    *s = (struct export_set){0};
    s->suite = strdup(suite);
    if (!s->suite)
        return err_set(e, ERR_SYSTEM, "out of memory");
    return 0;
}

static char *dup_or_null(const char *p, bool *oom)
{
    if (!p)
        return NULL;
    char *d = strdup(p);
    if (!d)
        *oom = true;
    return d;
}

int export_add(struct export_set *s, const struct export_rec *r, struct err *e)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        struct export_rec *p = realloc(s->r, cap * sizeof *p);
        if (!p)
            return err_set(e, ERR_SYSTEM, "out of memory");
        s->r = p;
        s->cap = cap;
    }
    bool oom = false;
    struct export_rec c = *r;
    c.bench = dup_or_null(r->bench, &oom);
    c.measure = dup_or_null(r->measure, &oom);
    c.range_what = dup_or_null(r->range_what, &oom);
    c.note = dup_or_null(r->note, &oom);
    if (oom) {
        free((char *)c.bench);
        free((char *)c.measure);
        free((char *)c.range_what);
        free((char *)c.note);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    s->r[s->n++] = c;
    return 0;
}

void export_free(struct export_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free((char *)s->r[i].bench);
        free((char *)s->r[i].measure);
        free((char *)s->r[i].range_what);
        free((char *)s->r[i].note);
    }
    free(s->r);
    free(s->suite);
    *s = (struct export_set){0};
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* A program's own counter (metric.NAME, core/util/metrics.h): a count of itself, whatever its
 * name ends in (a counter called time_s is no time). */
static bool program_counter(const char *measure)
{
    return strncmp(measure, METRICS_PREFIX, sizeof METRICS_PREFIX - 1) == 0;
}

const char *export_unit(const char *measure)
{
    if (program_counter(measure))
        return measure;
    if (ends_with(measure, "_s"))
        return "s";
    if (strcmp(measure, "ratio") == 0)
        return "ratio";
    if (strcmp(measure, "bytes") == 0 || strcmp(measure, "peak_bytes") == 0)
        return "bytes";
    return measure;   /* instructions, allocations: counts of themselves */
}

/*
 * BMF's measure for a tare metric. Times go to bencher's built-in Latency measure, which is in
 * nanoseconds: median_s is "latency", another *_s metric "NAME-latency" (min_s ->
 * "min-latency"); the rest keep tare's name in kebab case (peak_bytes -> "peak-bytes").
 */
static void bmf_measure(char *out, size_t n, const char *measure, double *scale)
{
    *scale = 1;
    if (strcmp(measure, "median_s") == 0) {
        snprintf(out, n, "latency");
        *scale = 1e9;
        return;
    }
    size_t len = strlen(measure);
    bool secs = ends_with(measure, "_s") && !program_counter(measure);
    if (secs) {
        len -= 2;
        *scale = 1e9;
    }
    snprintf(out, n, "%.*s%s", (int)len, measure, secs ? "-latency" : "");
    for (char *p = out; *p; p++)
        if (*p == '_')
            *p = '-';
}

static bool has_range(const struct export_rec *r)
{
    return !isnan(r->lo) && !isnan(r->hi);
}

static int write_bmf(FILE *f, const struct export_set *s, size_t *left_out)
{
    /* Benchmarks are keys: records of one benchmark are gathered under it in first-seen
     * order, whatever order they came in. */
    struct jw w;
    jw_init(&w, f);
    jw_object_begin_lines(&w, "\n  ", "\n");
    for (size_t i = 0; i < s->n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(s->r[j].bench, s->r[i].bench) == 0;
        if (seen)
            continue;
        bool first = true;
        for (size_t j = i; j < s->n; j++) {
            const struct export_rec *r = &s->r[j];
            if (strcmp(r->bench, s->r[i].bench) != 0)
                continue;
            if (isnan(r->value)) {
                (*left_out)++;
                continue;
            }
            if (first) {
                jw_key(&w, r->bench);
                jw_object_begin_lines(&w, "\n    ", "\n  ");
            }
            first = false;
            char name[128];
            double scale;
            bmf_measure(name, sizeof name, r->measure, &scale);
            jw_kobject(&w, name);
            jw_kdouble(&w, "value", r->value * scale);
            if (has_range(r)) {
                jw_kdouble(&w, "lower_value", r->lo * scale);
                jw_kdouble(&w, "upper_value", r->hi * scale);
            }
            jw_end(&w);
        }
        if (!first)
            jw_end(&w);
    }
    jw_end(&w);
    fputc('\n', f);
    return jw_done(&w, NULL);
}

/* The action's "extra": the run count, what the range is, the note; one a line. */
static int gab_extra(struct jw *w, const struct export_rec *r)
{
    char *extra = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&extra, &len);
    if (!m)
        return -1;
    const char *sep = "";
    if (r->runs > 0) {
        fprintf(m, "runs: %ld", r->runs);
        sep = "\n";
    }
    if (has_range(r) && r->range_what) {
        fprintf(m, "%srange: %s", sep, r->range_what);
        sep = "\n";
    }
    if (r->note)
        fprintf(m, "%s%s", sep, r->note);
    if (fclose(m) != 0) {
        free(extra);
        return -1;
    }
    if (len > 0)
        jw_kstring(w, "extra", extra);
    free(extra);
    return 0;
}

static int write_gab(FILE *f, const struct export_set *s, size_t *left_out)
{
    struct jw w;
    jw_init(&w, f);
    jw_array_begin_lines(&w, "\n  ", "\n");
    for (size_t i = 0; i < s->n; i++) {
        const struct export_rec *r = &s->r[i];
        if (isnan(r->value)) {
            (*left_out)++;
            continue;
        }
        char *name = NULL;
        if (asprintf(&name, "%s (%s)", r->bench, r->measure) < 0)
            return -1;
        jw_object_begin(&w);
        jw_kstring(&w, "name", name);
        free(name);
        jw_kstring(&w, "unit", export_unit(r->measure));
        jw_kdouble(&w, "value", r->value);
        if (has_range(r)) {
            /* the action shows range as written: "± x" when it is symmetric */
            char buf[128], lo[ESC_NUM_MAX], hi[ESC_NUM_MAX];
            double d = (r->hi - r->lo) / 2;
            if (fabs(r->value - d - r->lo) <= 1e-9 * fabs(r->value) + 1e-300)
                snprintf(buf, sizeof buf, "± %s", esc_number(lo, d));
            else
                snprintf(buf, sizeof buf, "%s .. %s", esc_number(lo, r->lo),
                         esc_number(hi, r->hi));
            jw_kstring(&w, "range", buf);
        }
        if (gab_extra(&w, r) < 0)
            return -1;
        jw_end(&w);
    }
    jw_end(&w);
    fputc('\n', f);
    return jw_done(&w, NULL);
}

static int write_junit(FILE *f, const struct export_set *s)
{
    size_t failures = 0, skipped = 0;
    for (size_t i = 0; i < s->n; i++) {
        failures += s->r[i].state == EXPORT_FAILED || s->r[i].state == EXPORT_REGRESSED;
        skipped += s->r[i].state == EXPORT_SKIPPED;
    }
    char classname[256];
    snprintf(classname, sizeof classname, "%s", s->suite);
    for (char *p = classname; *p; p++)
        if (*p == ' ')
            *p = '.';
    struct xw w;
    xw_init(&w, f);
    /* the root carries no skipped count: Jenkins' junit-10.xsd allows it on a suite only */
    xw_begin(&w, "testsuites");
    xw_attr(&w, "name", s->suite);
    xw_attr_u64(&w, "tests", s->n);
    xw_attr_u64(&w, "failures", failures);
    xw_attr_u64(&w, "errors", 0);
    xw_begin(&w, "testsuite");
    xw_attr(&w, "name", s->suite);
    xw_attr_u64(&w, "tests", s->n);
    xw_attr_u64(&w, "failures", failures);
    xw_attr_u64(&w, "errors", 0);
    xw_attr_u64(&w, "skipped", skipped);
    for (size_t i = 0; i < s->n; i++) {
        const struct export_rec *r = &s->r[i];
        xw_begin(&w, "testcase");
        xw_attr(&w, "classname", classname);
        char *name = NULL;
        if (asprintf(&name, "%s %s", r->bench, r->measure) < 0)
            return -1;
        xw_attr(&w, "name", name);
        free(name);
        const char *note = r->note ? r->note : "";
        if (r->state == EXPORT_FAILED || r->state == EXPORT_REGRESSED) {
            xw_begin(&w, "failure");
            xw_attr(&w, "type", r->state == EXPORT_FAILED ? "measurement failed" : "regression");
            xw_attr(&w, "message", note);
            xw_end(&w);
        } else if (r->state == EXPORT_SKIPPED) {
            xw_begin(&w, "skipped");
            xw_attr(&w, "message", note);
            xw_end(&w);
        }
        /* the figures, for a person reading the test's output */
        char v[ESC_NUM_MAX], lo[ESC_NUM_MAX], hi[ESC_NUM_MAX], runs[48] = "";
        xw_begin(&w, "system-out");
        xw_text(&w, r->measure);
        xw_text(&w, " = ");
        xw_text(&w, esc_number(v, r->value));
        xw_text(&w, " ");
        xw_text(&w, export_unit(r->measure));
        if (has_range(r)) {
            xw_text(&w, " (");
            xw_text(&w, r->range_what ? r->range_what : "range");
            xw_text(&w, ": ");
            xw_text(&w, esc_number(lo, r->lo));
            xw_text(&w, " .. ");
            xw_text(&w, esc_number(hi, r->hi));
            xw_text(&w, ")");
        }
        if (r->runs > 0)
            snprintf(runs, sizeof runs, ", runs %ld", r->runs);
        xw_text(&w, runs);
        xw_end(&w);
        xw_end(&w);
    }
    xw_end(&w);
    xw_end(&w);
    return xw_done(&w, NULL);
}

FILE *export_file_open(const char *path, char *tmp, struct err *e)
{
    /* A path that is there and not a regular file (/dev/stdout, a pipe, a terminal) is
     * written directly: a temporary renamed over it would replace the device or the pipe
     * (as root, /dev/stdout itself). */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            err_set(e, ERR_INPUT, "cannot write '%s': a directory", path);
            return NULL;
        }
        tmp[0] = '\0';
        FILE *f = fopen(path, "w");
        if (!f)
            err_errno(e, ERR_INPUT, errno, "cannot write '%s'", path);
        return f;
    }
    if (snprintf(tmp, EXPORT_TMP_MAX, "%s.tmp.%d", path, (int)getpid()) >= EXPORT_TMP_MAX) {
        err_set(e, ERR_INPUT, "cannot write '%s': name too long", path);
        return NULL;
    }
    FILE *f = fopen(tmp, "w");
    if (!f)
        err_errno(e, ERR_INPUT, errno, "cannot write '%s'", path);
    return f;
}

int export_file_commit(FILE *f, const char *tmp, const char *path, struct err *e)
{
    errno = 0;
    bool bad = fflush(f) != 0 || ferror(f) != 0;
    int en = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        en = errno;
    }
    if (bad) {
        if (tmp[0])
            unlink(tmp);
        if (!en)
            return err_set(e, ERR_INPUT, "cannot write '%s': a write failed", path);
        return err_errno(e, ERR_INPUT, en, "cannot write '%s'", path);
    }
    if (!tmp[0])   /* written directly: nothing to rename */
        return proc_interrupted() ? err_set(e, ERR_INTERRUPTED, "interrupted") : 0;
    if (proc_interrupted()) {
        unlink(tmp);
        return err_set(e, ERR_INTERRUPTED, "interrupted: '%s' not written", path);
    }
    if (rename(tmp, path) < 0) {
        int rn = errno;
        unlink(tmp);
        return err_errno(e, ERR_INPUT, rn, "cannot rename '%s' to '%s'", tmp, path);
    }
    return 0;
}

int export_append_whole(const char *path, const char *text, size_t len, struct err *e)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return err_errno(e, ERR_INPUT, errno, "cannot append to '%s'", path);
    struct stat st;
    off_t old = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
    size_t done = 0;
    int en = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            en = w < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    if (done < len && old >= 0 && ftruncate(fd, old) < 0)
        en = en ? en : errno;
    if (close(fd) < 0 && done == len)
        return err_errno(e, ERR_INPUT, errno, "cannot append to '%s'", path);
    if (done < len)
        return err_errno(e, ERR_INPUT, en, "cannot append to '%s' (nothing appended)", path);
    return 0;
}

int export_write(const struct export_set *s, enum export_format fmt, const char *path,
                 size_t *left_out, struct err *e)
{
    size_t dropped = 0;
    char tmp[EXPORT_TMP_MAX];
    FILE *f = export_file_open(path, tmp, e);
    if (!f)
        return -1;
    int rc = fmt == EXPORT_BMF   ? write_bmf(f, s, &dropped)
             : fmt == EXPORT_GAB ? write_gab(f, s, &dropped)
                                 : write_junit(f, s);
    if (rc < 0) {
        fclose(f);
        if (tmp[0])
            unlink(tmp);
        return err_set(e, ERR_SYSTEM, "cannot write '%s': out of memory", path);
    }
    if (export_file_commit(f, tmp, path, e) < 0)
        return -1;
    if (left_out)
        *left_out = dropped;
    return 0;
}
