/* export.c: BMF JSON, github-action-benchmark JSON and JUnit XML writers (see export.h). */
#define _GNU_SOURCE
#include "core/export.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/proc.h"

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

const char *export_unit(const char *measure)
{
    if (ends_with(measure, "_s"))
        return "s";
    if (strcmp(measure, "ratio") == 0)
        return "ratio";
    if (strcmp(measure, "bytes") == 0 || strcmp(measure, "peak_bytes") == 0)
        return "bytes";
    return measure;   /* instructions, allocations: counts of themselves */
}

/* A number as JSON and XML take it: whole numbers whole, others to 9 significant digits. */
static void put_num(FILE *f, double v)
{
    if (v == floor(v) && fabs(v) < 9e15)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.9g", v);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void xml_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\t': fputs("&#9;", f); break;
        default:
            fputc(*p < 0x20 ? '?' : *p, f);   /* XML 1.0 has no other control characters */
        }
    }
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
    bool secs = ends_with(measure, "_s");
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

static void write_bmf(FILE *f, const struct export_set *s, size_t *left_out)
{
    /* Benchmarks are keys: records of one benchmark are gathered under it in first-seen
     * order, whatever order they came in. */
    fputs("{", f);
    bool first_bench = true;
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
                fputs(first_bench ? "\n  " : ",\n  ", f);
                first_bench = false;
                json_string(f, r->bench);
                fputs(": {", f);
            }
            char name[128];
            double scale;
            bmf_measure(name, sizeof name, r->measure, &scale);
            fputs(first ? "\n    " : ",\n    ", f);
            first = false;
            json_string(f, name);
            fputs(": {\"value\": ", f);
            put_num(f, r->value * scale);
            if (has_range(r)) {
                fputs(", \"lower_value\": ", f);
                put_num(f, r->lo * scale);
                fputs(", \"upper_value\": ", f);
                put_num(f, r->hi * scale);
            }
            fputs("}", f);
        }
        if (!first)
            fputs("\n  }", f);
    }
    fputs(first_bench ? "}\n" : "\n}\n", f);
}

static void write_gab(FILE *f, const struct export_set *s, size_t *left_out)
{
    fputs("[", f);
    bool first = true;
    for (size_t i = 0; i < s->n; i++) {
        const struct export_rec *r = &s->r[i];
        if (isnan(r->value)) {
            (*left_out)++;
            continue;
        }
        fputs(first ? "\n  " : ",\n  ", f);
        first = false;
        char name[1024];
        snprintf(name, sizeof name, "%s (%s)", r->bench, r->measure);
        fputs("{\"name\": ", f);
        json_string(f, name);
        fputs(", \"unit\": ", f);
        json_string(f, export_unit(r->measure));
        fputs(", \"value\": ", f);
        put_num(f, r->value);
        if (has_range(r)) {
            /* the action shows range as written: "± x" when it is symmetric */
            char buf[128];
            double d = (r->hi - r->lo) / 2;
            if (fabs(r->value - d - r->lo) <= 1e-9 * fabs(r->value) + 1e-300)
                snprintf(buf, sizeof buf, "± %.9g", d);
            else
                snprintf(buf, sizeof buf, "%.9g .. %.9g", r->lo, r->hi);
            fputs(", \"range\": ", f);
            json_string(f, buf);
        }
        char extra[1024];
        int n = 0;
        if (r->runs > 0)
            n += snprintf(extra + n, sizeof extra - (size_t)n, "runs: %ld", r->runs);
        if (has_range(r) && r->range_what && n < (int)sizeof extra)
            n += snprintf(extra + n, sizeof extra - (size_t)n, "%srange: %s", n ? "\n" : "",
                          r->range_what);
        if (r->note && n < (int)sizeof extra)
            n += snprintf(extra + n, sizeof extra - (size_t)n, "%s%s", n ? "\n" : "", r->note);
        if (n > 0) {
            fputs(", \"extra\": ", f);
            json_string(f, extra);
        }
        fputs("}", f);
    }
    fputs(first ? "]\n" : "\n]\n", f);
}

static void write_junit(FILE *f, const struct export_set *s)
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
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", f);
    xml_text(f, s->suite);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", s->n,
            failures, skipped);
    fputs("  <testsuite name=\"", f);
    xml_text(f, s->suite);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", s->n,
            failures, skipped);
    for (size_t i = 0; i < s->n; i++) {
        const struct export_rec *r = &s->r[i];
        fputs("    <testcase classname=\"", f);
        xml_text(f, classname);
        fputs("\" name=\"", f);
        xml_text(f, r->bench);
        fputc(' ', f);
        xml_text(f, r->measure);
        fputs("\">\n", f);
        const char *note = r->note ? r->note : "";
        if (r->state == EXPORT_FAILED || r->state == EXPORT_REGRESSED) {
            fprintf(f, "      <failure type=\"%s\" message=\"",
                    r->state == EXPORT_FAILED ? "measurement failed" : "regression");
            xml_text(f, note);
            fputs("\"/>\n", f);
        } else if (r->state == EXPORT_SKIPPED) {
            fputs("      <skipped message=\"", f);
            xml_text(f, note);
            fputs("\"/>\n", f);
        }
        /* the figures, for a person reading the test's output */
        fputs("      <system-out>", f);
        xml_text(f, r->measure);
        fputs(" = ", f);
        if (isnan(r->value))
            fputs("NA", f);
        else
            put_num(f, r->value);
        fprintf(f, " %s", export_unit(r->measure));
        if (has_range(r)) {
            fputs(" (", f);
            xml_text(f, r->range_what ? r->range_what : "range");
            fputs(": ", f);
            put_num(f, r->lo);
            fputs(" .. ", f);
            put_num(f, r->hi);
            fputs(")", f);
        }
        if (r->runs > 0)
            fprintf(f, ", runs %ld", r->runs);
        fputs("</system-out>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
}

FILE *export_file_open(const char *path, char *tmp, struct err *e)
{
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
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        int en = errno;
        unlink(tmp);
        return err_errno(e, ERR_INPUT, en, "cannot write '%s'", path);
    }
    if (proc_interrupted()) {
        unlink(tmp);
        return err_set(e, ERR_INTERRUPTED, "interrupted: '%s' not written", path);
    }
    if (rename(tmp, path) < 0) {
        int en = errno;
        unlink(tmp);
        return err_errno(e, ERR_INPUT, en, "cannot rename '%s' to '%s'", tmp, path);
    }
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
    if (fmt == EXPORT_BMF)
        write_bmf(f, s, &dropped);
    else if (fmt == EXPORT_GAB)
        write_gab(f, s, &dropped);
    else
        write_junit(f, s);
    if (export_file_commit(f, tmp, path, e) < 0)
        return -1;
    if (left_out)
        *left_out = dropped;
    return 0;
}
