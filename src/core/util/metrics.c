/* metrics.c: a measured program's own counters: lines parsed as they come, per run, per series. */
#define _GNU_SOURCE
#include "core/util/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/esc.h"

/* A value no counter may hold: a sum that passed 2^64 - 2 (and history's NA sentinel). */
#define METRIC_BAD UINT64_MAX

int metrics_spec_init(struct metrics_spec *s, const char *from, const char *pattern,
                      struct err *e)
{
    *s = (struct metrics_spec){.from = METRICS_FROM_NONE};
    if (from && strcmp(from, "stderr") == 0) {
        s->from = METRICS_FROM_STDERR;
    } else if (from && strcmp(from, "stdout") == 0) {
        s->from = METRICS_FROM_STDOUT;
    } else if (from) {
        if (!*from)
            return err_set(e, ERR_INPUT, "--metrics-from takes stderr, stdout or a file's path, "
                           "not ''");
        s->from = METRICS_FROM_FILE;
        if (!(s->file = strdup(from)))
            return err_set(e, ERR_SYSTEM, "out of memory");
    }
    if (!pattern)
        return 0;
    if (!(s->pattern = strdup(pattern)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    int rc = regcomp(&s->re, pattern, REG_EXTENDED);
    if (rc != 0) {
        char why[256];
        regerror(rc, &s->re, why, sizeof why);
        free(s->pattern);
        s->pattern = NULL;
        return err_set(e, ERR_INPUT, "--metrics-pattern '%.300s': %s", pattern, why);
    }
    if (s->re.re_nsub < 2)
        return err_set(e, ERR_INPUT, "--metrics-pattern '%.300s' has %zu group%s: it needs two, "
                       "(NAME) then (VALUE)", pattern, s->re.re_nsub,
                       s->re.re_nsub == 1 ? "" : "s");
    return 0;
}

void metrics_spec_free(struct metrics_spec *s)
{
    if (s->pattern)
        regfree(&s->re);
    free(s->pattern);
    free(s->file);
    *s = (struct metrics_spec){0};
}

int metrics_ini_key(const char *file, unsigned long line, const char *key, const char *value,
                    char **from, char **pattern, struct err *e)
{
    bool is_from = strcmp(key, "metrics") == 0;
    if (!is_from && strcmp(key, "metrics-pattern") != 0)
        return 0;
    char **slot = is_from ? from : pattern;
    if (*slot)
        return err_set(e, ERR_INPUT, "'%s' line %lu: %s again", file, line, key);
    if (!*value)
        return err_set(e, ERR_INPUT, "'%s' line %lu: '%s' is empty", file, line, key);
    struct metrics_spec s;
    int rc = metrics_spec_init(&s, is_from ? value : "stderr", is_from ? NULL : value, e);
    metrics_spec_free(&s);
    if (rc < 0)
        return err_prefix(e, "'%s' line %lu", file, line);
    if (!(*slot = strdup(value)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    return 1;
}

const char *metrics_spec_source(const struct metrics_spec *s)
{
    switch (s->from) {
    case METRICS_FROM_STDERR: return "stderr";
    case METRICS_FROM_STDOUT: return "stdout";
    case METRICS_FROM_FILE: return s->file;
    default: return "";
    }
}

static bool name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

bool metrics_name_valid(const char *name, size_t len)
{
    if (len < 1 || len > METRICS_NAME_MAX || !name_start(name[0]))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!name_char(name[i]))
            return false;
    return true;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* A whole number of len digits (nothing else) into *v; false past 2^64 - 2 or not digits. */
static bool parse_value(const char *s, size_t len, uint64_t *v)
{
    if (len == 0)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (METRIC_BAD - 1 - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

#define SHOWN_IN 60     /* bytes of a line shown in a message */
#define SHOWN_MAX 80    /* room for them written visibly (a why fits 200 bytes) */

/* A cell of a line for a message, into buf (SHOWN_MAX bytes): its first SHOWN_IN bytes in
 * esc.h's text form (control characters and bytes that are not UTF-8 as \xNN: a program's
 * output is any bytes), "..." after when cut. */
static const char *shown(char *buf, const char *s, size_t len)
{
    char in[SHOWN_IN + 4];   /* room to finish a sequence begun before SHOWN_IN */
    size_t n = len < sizeof in - 1 ? len : sizeof in - 1, o = 0, i = 0;
    memcpy(in, s, n);
    in[n] = '\0';
    while (i < n && i < SHOWN_IN) {
        char vis[16];
        const char *part = vis;
        uint32_t cp = 0;
        int u = in[i] ? esc_utf8(in + i, &cp) : 1;   /* a NUL byte is U+0000 */
        size_t k = u > 0 ? (size_t)u : 1;
        if (u == 0)
            esc_visible_byte(vis, (unsigned char)in[i]);
        else if (esc_is_control(cp))
            esc_visible_code(vis, cp);
        else
            part = NULL;
        size_t w = part ? strlen(vis) : k;
        if (o + w > SHOWN_MAX - 4)
            break;
        memcpy(buf + o, part ? part : in + i, w);
        o += w;
        i += k;
    }
    snprintf(buf + o, 4, "%s", i < len ? "..." : "");
    return buf;
}

/* name (len bytes) and value text as a counter: 1, or -1 with why. */
static int take(const char *name, size_t nlen, const char *val, size_t vlen, char *out,
                uint64_t *v, char *why, size_t whylen)
{
    char b[SHOWN_MAX];
    if (!metrics_name_valid(name, nlen)) {
        snprintf(why, whylen, "'%s' is not a counter's name (letters, digits, _ . -, at most "
                 "%d)", shown(b, name, nlen), METRICS_NAME_MAX);
        return -1;
    }
    memcpy(out, name, nlen);
    out[nlen] = '\0';
    if (!parse_value(val, vlen, v)) {
        snprintf(why, whylen, "'%s': '%s' is not a whole number within 0 .. 2^64 - 2", out,
                 shown(b, val, vlen));
        return -1;
    }
    return 1;
}

/* The default pattern: NAME: INTEGER or NAME=INTEGER, blanks around each part. */
static int parse_default(const char *s, size_t len, char *name, uint64_t *v, char *why,
                         size_t whylen)
{
    size_t i = 0;
    while (i < len && blank(s[i]))
        i++;
    size_t n0 = i;
    if (i >= len || !name_start(s[i]))
        return 0;
    while (i < len && name_char(s[i]))
        i++;
    size_t n1 = i;
    while (i < len && blank(s[i]))
        i++;
    if (i >= len || (s[i] != ':' && s[i] != '='))
        return 0;
    i++;
    while (i < len && blank(s[i]))
        i++;
    size_t v0 = i;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t v1 = i;
    while (i < len && blank(s[i]))
        i++;
    if (i < len || v1 == v0)
        return 0;   /* "time: 3.5 s", "x = -1": not a count */
    return take(s + n0, n1 - n0, s + v0, v1 - v0, name, v, why, whylen);
}

/* $TARE_METRICS_OUT's lines: NAME VALUE, blanks between; a blank line is nothing. */
static int parse_pair(const char *s, size_t len, char *name, uint64_t *v, char *why,
                      size_t whylen)
{
    size_t i = 0;
    while (i < len && blank(s[i]))
        i++;
    if (i == len)
        return 0;
    size_t n0 = i;
    while (i < len && !blank(s[i]))
        i++;
    size_t n1 = i;
    while (i < len && blank(s[i]))
        i++;
    size_t v0 = i;
    while (i < len && !blank(s[i]))
        i++;
    size_t v1 = i;
    while (i < len && blank(s[i]))
        i++;
    if (v1 == v0 || i < len) {
        char b[SHOWN_MAX];
        snprintf(why, whylen, "'%s' is not NAME VALUE", shown(b, s, len));
        return -1;
    }
    return take(s + n0, n1 - n0, s + v0, v1 - v0, name, v, why, whylen);
}

static int parse_regex(const struct metrics_spec *sp, const char *s, size_t len, char *name,
                       uint64_t *v, char *why, size_t whylen)
{
    char line[METRICS_LINE_MAX + 1];
    if (len > METRICS_LINE_MAX || memchr(s, '\0', len))
        return 0;
    memcpy(line, s, len);
    line[len] = '\0';
    regmatch_t m[3];
    if (regexec(&sp->re, line, 3, m, 0) != 0 || m[1].rm_so < 0 || m[2].rm_so < 0)
        return 0;
    return take(line + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), line + m[2].rm_so,
                (size_t)(m[2].rm_eo - m[2].rm_so), name, v, why, whylen);
}

int metrics_parse_line(const struct metrics_spec *s, bool pair, const char *line, size_t len,
                       char name[METRICS_NAME_MAX + 1], uint64_t *v, char *why, size_t whylen)
{
    if (pair)
        return parse_pair(line, len, name, v, why, whylen);
    if (s && s->pattern)
        return parse_regex(s, line, len, name, v, why, whylen);
    return parse_default(line, len, name, v, why, whylen);
}

void metrics_run_free(struct metrics_run *r)
{
    free(r->kv);
    *r = (struct metrics_run){0};
}

bool metrics_run_add(struct metrics_run *r, const char *name, uint64_t value)
{
    for (int i = 0; i < r->n; i++) {
        struct metrics_kv *kv = &r->kv[i];
        if (strcmp(kv->name, name) != 0)
            continue;
        if (kv->value == METRIC_BAD)
            return false;
        if (value >= METRIC_BAD - kv->value) {
            kv->value = METRIC_BAD;
            if (!r->bad[0])
                snprintf(r->bad, sizeof r->bad, "'%s': the sum of its values passes 2^64 - 2",
                         name);
            return false;
        }
        kv->value += value;
        return true;
    }
    if (r->n >= METRICS_MAX) {
        r->lost = true;
        return false;
    }
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        struct metrics_kv *kv = realloc(r->kv, (size_t)cap * sizeof *kv);
        if (!kv) {
            r->lost = true;
            return false;
        }
        r->kv = kv;
        r->cap = cap;
    }
    snprintf(r->kv[r->n].name, sizeof r->kv[r->n].name, "%s", name);
    r->kv[r->n++].value = value;
    return true;
}

void metrics_feed_init(struct metrics_feed *f, const struct metrics_spec *s, bool pair,
                       struct metrics_run *run)
{
    f->spec = s;
    f->pair = pair;
    f->run = run;
    f->len = 0;
    f->overlong = false;
}

static void feed_line(struct metrics_feed *f)
{
    if (f->overlong) {
        f->overlong = false;
        if (f->pair && !f->run->bad[0])
            snprintf(f->run->bad, sizeof f->run->bad, "a line longer than %d bytes is not NAME "
                     "VALUE", METRICS_LINE_MAX);
        f->len = 0;
        return;
    }
    char name[METRICS_NAME_MAX + 1], why[200];
    uint64_t v;
    int rc = metrics_parse_line(f->spec, f->pair, f->line, f->len, name, &v, why, sizeof why);
    if (rc > 0)
        metrics_run_add(f->run, name, v);
    else if (rc < 0 && !f->run->bad[0])
        snprintf(f->run->bad, sizeof f->run->bad, "%s", why);
    f->len = 0;
}

void metrics_feed(struct metrics_feed *f, const char *buf, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(buf, '\n', n);
        size_t k = nl ? (size_t)(nl - buf) : n;
        if (!f->overlong && f->len + k <= sizeof f->line) {
            memcpy(f->line + f->len, buf, k);
            f->len += k;
        } else {
            f->overlong = true;
        }
        if (!nl)
            return;
        feed_line(f);
        buf += k + 1;
        n -= k + 1;
    }
}

void metrics_feed_end(struct metrics_feed *f)
{
    if (f->len > 0 || f->overlong)
        feed_line(f);
}

void metrics_feed_sink(void *arg, const char *buf, size_t n)
{
    metrics_feed(arg, buf, n);
}

/* A new empty file dir/tare-metrics-XXXXXX (dir NULL: $TMPDIR) into path. */
static int new_file(char *path, size_t size, const char *dir, struct err *e)
{
    const char *tmp = getenv("TMPDIR");
    if (!dir)
        dir = tmp && *tmp ? tmp : "/tmp";
    snprintf(path, size, "%s/tare-metrics-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot make a file for counters '%s'", path);
    close(fd);
    return 0;
}

/* Reads path from offset off through a feed into the capture's run; absent is nothing. */
static void read_into(struct metrics_capture *c, const char *path, long long off, bool pair)
{
    /* Not blocking: a FIFO put in the file's place after the run began is not waited on. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT && !c->run->bad[0])
            snprintf(c->run->bad, sizeof c->run->bad, "cannot read '%.150s': %s", path,
                     strerror(errno));
        return;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (!c->run->bad[0])
            snprintf(c->run->bad, sizeof c->run->bad, "'%.150s' is not a regular file", path);
        close(fd);
        return;
    }
    struct metrics_feed f;
    metrics_feed_init(&f, c->spec, pair, c->run);
    char buf[8192];
    ssize_t got;
    if (off > 0 && lseek(fd, (off_t)off, SEEK_SET) < 0)
        got = -1;
    else
        while ((got = read(fd, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
            if (got > 0)
                metrics_feed(&f, buf, (size_t)got);
    if (got < 0 && !c->run->bad[0])
        snprintf(c->run->bad, sizeof c->run->bad, "cannot read '%.150s': %s", path,
                 strerror(errno));
    metrics_feed_end(&f);
    close(fd);
}

int metrics_capture_begin(struct metrics_capture *c, const struct metrics_spec *s,
                          const char *dir, char *const *env, const char *cwd,
                          struct proc_opts *o, struct metrics_run *run, struct err *e)
{
    memset(c, 0, sizeof *c);
    c->spec = s;
    c->run = run;
    metrics_feed_init(&c->feed, s, false, run);
    size_t n = 0;
    while (env && env[n])
        n++;
    char *entry = NULL;
    if (new_file(c->env_path, sizeof c->env_path, dir, e) < 0)
        return -1;
    c->env = calloc(n + 2, sizeof *c->env);
    if (!c->env || asprintf(&entry, "%s=%s", METRICS_ENV, c->env_path) < 0) {
        unlink(c->env_path);
        free(c->env);
        c->env = NULL;
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(env[i], METRICS_ENV "=", sizeof METRICS_ENV) != 0)
            c->env[m++] = env[i];
    c->env[m] = entry;   /* freed by metrics_capture_end: the last one */
    o->env_set = c->env;
    if (s->from == METRICS_FROM_STDERR) {
        o->stderr_sink = metrics_feed_sink;
        o->stderr_sink_arg = &c->feed;
        c->fed = true;
    } else if (s->from == METRICS_FROM_STDOUT && o->stdout_pipe) {   /* --output pipe */
        o->stdout_sink = metrics_feed_sink;
        o->stdout_sink_arg = &c->feed;
        c->fed = true;
    } else if (s->from == METRICS_FROM_STDOUT && o->stdout_path) {
        struct stat st;
        snprintf(c->out_path, sizeof c->out_path, "%s", o->stdout_path);
        c->out_off = o->stdout_append && stat(c->out_path, &st) == 0 ? (long long)st.st_size : 0;
    } else if (s->from == METRICS_FROM_STDOUT) {
        if (new_file(c->out_path, sizeof c->out_path, dir, e) < 0) {
            metrics_capture_end(c);
            return -1;
        }
        c->out_ours = true;
        o->stdout_path = c->out_path;
        o->stdout_append = false;
    } else if (s->from == METRICS_FROM_FILE) {
        if (s->file[0] != '/' && cwd)
            snprintf(c->file, sizeof c->file, "%s/%s", cwd, s->file);
        else
            snprintf(c->file, sizeof c->file, "%s", s->file);
        /* Emptied, so that what a run did not write is not read again as its; only a
         * regular file (a FIFO would block the open, a device is no file of counters). */
        struct stat st;
        if (lstat(c->file, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
            metrics_capture_end(c);
            return err_set(e, ERR_INPUT, "--metrics-from '%s': not a regular file", s->file);
        }
        int fd = open(c->file, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
            close(fd);
            metrics_capture_end(c);
            return err_set(e, ERR_INPUT, "--metrics-from '%s': not a regular file", s->file);
        }
        if (fd >= 0) {
            close(fd);
        } else if (errno != ENOENT) {
            int er = errno;
            metrics_capture_end(c);
            return err_errno(e, ERR_INPUT, er, "--metrics-from '%s': cannot empty it", s->file);
        }
    }
    return 0;
}

void metrics_capture_end(struct metrics_capture *c)
{
    if (!c->env)
        return;
    read_into(c, c->env_path, 0, true);
    unlink(c->env_path);
    if (c->fed)
        metrics_feed_end(&c->feed);
    if (c->out_path[0]) {
        read_into(c, c->out_path, c->out_off, false);
        if (c->out_ours)
            unlink(c->out_path);
    }
    if (c->file[0])
        read_into(c, c->file, 0, false);
    for (size_t i = 0; c->env[i]; i++)
        if (!c->env[i + 1])
            free(c->env[i]);
    free(c->env);
    c->env = NULL;
}

int metrics_add_run(struct metrics *ms, const struct metrics_run *r, struct err *e)
{
    if (!ms->note[0] && r->bad[0])
        snprintf(ms->note, sizeof ms->note, "a line not taken: %s", r->bad);
    else if (!ms->note[0] && r->lost)
        snprintf(ms->note, sizeof ms->note, "more than %d counters: the rest left out",
                 METRICS_MAX);
    for (int i = 0; i < r->n; i++) {
        const struct metrics_kv *kv = &r->kv[i];
        if (kv->value == METRIC_BAD)
            continue;
        struct metric *m = (struct metric *)metrics_find(ms, kv->name);
        if (!m) {
            struct metric *grown = realloc(ms->m, (size_t)(ms->n + 1) * sizeof *grown);
            if (!grown)
                return err_set(e, ERR_SYSTEM, "out of memory");
            ms->m = grown;
            m = &ms->m[ms->n++];
            *m = (struct metric){0};
            snprintf(m->name, sizeof m->name, "%s", kv->name);
        }
        if (m->nv == m->cap) {
            int cap = m->cap ? m->cap * 2 : 4;
            uint64_t *v = realloc(m->v, (size_t)cap * sizeof *v);
            if (!v)
                return err_set(e, ERR_SYSTEM, "out of memory");
            m->v = v;
            m->cap = cap;
        }
        m->v[m->nv++] = kv->value;
    }
    ms->nruns++;
    return 0;
}

int metrics_merge(struct metrics *dst, const struct metrics *src, struct err *e)
{
    if (!dst->note[0] && src->note[0])
        snprintf(dst->note, sizeof dst->note, "%s", src->note);
    for (int i = 0; i < src->n; i++) {
        const struct metric *s = &src->m[i];
        struct metric *m = (struct metric *)metrics_find(dst, s->name);
        if (!m) {
            struct metric *grown = realloc(dst->m, (size_t)(dst->n + 1) * sizeof *grown);
            if (!grown)
                return err_set(e, ERR_SYSTEM, "out of memory");
            dst->m = grown;
            m = &dst->m[dst->n++];
            *m = (struct metric){0};
            snprintf(m->name, sizeof m->name, "%s", s->name);
        }
        uint64_t *v = realloc(m->v, (size_t)(m->nv + s->nv + 1) * sizeof *v);
        if (!v)
            return err_set(e, ERR_SYSTEM, "out of memory");
        memcpy(v + m->nv, s->v, (size_t)s->nv * sizeof *v);
        m->v = v;
        m->nv += s->nv;
        m->cap = m->nv + 1;
    }
    dst->nruns += src->nruns;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void metrics_finish(struct metrics *ms)
{
    for (int i = 0; i < ms->n; i++) {
        struct metric *m = &ms->m[i];
        qsort(m->v, (size_t)m->nv, sizeof *m->v, cmp_u64);   /* the runs' order is not kept */
        m->min = m->v[0];
        m->max = m->v[m->nv - 1];
        int h = m->nv / 2;
        m->median = m->nv % 2 ? (double)m->v[h]
                    : (double)(((long double)m->v[h - 1] + (long double)m->v[h]) / 2);
        m->varied = m->nv < ms->nruns || m->min != m->max;
    }
}

void metrics_free(struct metrics *ms)
{
    for (int i = 0; i < ms->n; i++)
        free(ms->m[i].v);
    free(ms->m);
    *ms = (struct metrics){0};
}

const struct metric *metrics_find(const struct metrics *ms, const char *name)
{
    for (int i = 0; i < ms->n; i++)
        if (strcmp(ms->m[i].name, name) == 0)
            return &ms->m[i];
    return NULL;
}
