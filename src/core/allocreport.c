/* allocreport.c: the reader of libtare-alloc's reports (format in allocreport.h). */
#include "core/allocreport.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct field {
    const char *key;
    size_t keylen;
    const char *val;
    size_t vallen;
};

#define MAX_FIELDS 32

/* Splits one line (without its newline) into words; false on an empty word. */
static int split(const char *s, size_t n, struct field *f, int max, size_t lineno, struct err *e)
{
    int nf = 0;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ' ')
            j++;
        if (j == i)
            return err_set(e, ERR_INPUT, "line %zu: empty field", lineno);
        if (nf == max)
            return err_set(e, ERR_INPUT, "line %zu: more than %d fields", lineno, max);
        const char *eq = memchr(s + i, '=', j - i);
        f[nf].key = s + i;
        f[nf].keylen = eq ? (size_t)(eq - (s + i)) : j - i;
        f[nf].val = eq ? eq + 1 : NULL;
        f[nf].vallen = eq ? (size_t)(s + j - eq - 1) : 0;
        nf++;
        i = j + 1;
        if (j + 1 == n && s[j] == ' ')
            return err_set(e, ERR_INPUT, "line %zu: trailing space", lineno);
    }
    return nf;
}

static const struct field *find(const struct field *f, int nf, const char *key)
{
    size_t kl = strlen(key);
    for (int i = 0; i < nf; i++)
        if (f[i].val && f[i].keylen == kl && memcmp(f[i].key, key, kl) == 0)
            return &f[i];
    return NULL;
}

static int get_u64(const struct field *f, int nf, const char *key, uint64_t *out, size_t lineno,
                   struct err *e)
{
    const struct field *x = find(f, nf, key);
    if (!x)
        return err_set(e, ERR_INPUT, "line %zu: no '%s' field", lineno, key);
    if (x->vallen == 0 || x->vallen > 20)
        return err_set(e, ERR_INPUT, "line %zu: bad number in '%s'", lineno, key);
    uint64_t v = 0;
    for (size_t i = 0; i < x->vallen; i++) {
        char c = x->val[i];
        if (c < '0' || c > '9')
            return err_set(e, ERR_INPUT, "line %zu: bad number '%.*s' in '%s'", lineno,
                           (int)x->vallen, x->val, key);
        if (v > (UINT64_MAX - (uint64_t)(c - '0')) / 10)
            return err_set(e, ERR_INPUT, "line %zu: number too large in '%s'", lineno, key);
        v = v * 10 + (uint64_t)(c - '0');
    }
    *out = v;
    return 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
         : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The decoded text value of key (percent escapes undone), malloc'd. */
static int get_text(const struct field *f, int nf, const char *key, char **out, size_t lineno,
                    struct err *e)
{
    const struct field *x = find(f, nf, key);
    if (!x)
        return err_set(e, ERR_INPUT, "line %zu: no '%s' field", lineno, key);
    char *s = malloc(x->vallen + 1);
    if (!s)
        return err_set(e, ERR_SYSTEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < x->vallen; i++) {
        if (x->val[i] != '%') {
            s[k++] = x->val[i];
            continue;
        }
        int a = i + 2 < x->vallen ? hexval(x->val[i + 1]) : -1;
        int b = i + 2 < x->vallen ? hexval(x->val[i + 2]) : -1;
        if (a < 0 || b < 0 || (a == 0 && b == 0)) {
            free(s);
            return err_set(e, ERR_INPUT, "line %zu: bad escape in '%s'", lineno, key);
        }
        s[k++] = (char)(a * 16 + b);
        i += 2;
    }
    s[k] = '\0';
    *out = s;
    return 0;
}

static int get_word(const struct field *f, int nf, const char *key, char *out, size_t cap,
                    const char *const *allowed, size_t lineno, struct err *e)
{
    const struct field *x = find(f, nf, key);
    if (!x)
        return err_set(e, ERR_INPUT, "line %zu: no '%s' field", lineno, key);
    for (const char *const *a = allowed; *a; a++) {
        if (strlen(*a) == x->vallen && memcmp(*a, x->val, x->vallen) == 0 && x->vallen < cap) {
            memcpy(out, x->val, x->vallen + 1);
            out[x->vallen] = '\0';
            return 0;
        }
    }
    return err_set(e, ERR_INPUT, "line %zu: unknown %s '%.*s'", lineno, key,
                   (int)(x->vallen > 40 ? 40 : x->vallen), x->val);
}

static bool starts(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    return n >= w && memcmp(s, word, w) == 0 && (n == w || s[w] == ' ');
}

static void proc_free(struct alloc_proc *p)
{
    for (size_t i = 0; i < p->nscopes; i++)
        free(p->scopes[i].label);
    free(p->scopes);
    free(p->exe);
}

void allocreport_free(struct alloc_report *r)
{
    for (size_t i = 0; i < r->nprocs; i++)
        proc_free(&r->procs[i]);
    free(r->procs);
    r->procs = NULL;
    r->nprocs = 0;
}

static int parse_proc(const struct field *f, int nf, struct alloc_proc *p, size_t lineno,
                      uint64_t *nscopes, struct err *e)
{
    static const char *const ends[] = {"exit", "_exit", "exec", NULL};
    static const char *const statuses[] = {"ok", "own-malloc", NULL};
    uint64_t pid, ppid;
    memset(p, 0, sizeof *p);
    if (get_u64(f, nf, "pid", &pid, lineno, e) < 0 ||
        get_u64(f, nf, "ppid", &ppid, lineno, e) < 0 ||
        get_word(f, nf, "end", p->end, sizeof p->end, ends, lineno, e) < 0 ||
        get_word(f, nf, "status", p->status, sizeof p->status, statuses, lineno, e) < 0 ||
        get_u64(f, nf, "allocations", &p->allocations, lineno, e) < 0 ||
        get_u64(f, nf, "frees", &p->frees, lineno, e) < 0 ||
        get_u64(f, nf, "bytes", &p->bytes, lineno, e) < 0 ||
        get_u64(f, nf, "peak_bytes", &p->peak_bytes, lineno, e) < 0 ||
        get_u64(f, nf, "peak_slack", &p->peak_slack, lineno, e) < 0 ||
        get_u64(f, nf, "threads", &p->threads, lineno, e) < 0 ||
        get_u64(f, nf, "scopes", nscopes, lineno, e) < 0)
        return -1;
    if (pid == 0 || pid > 0x7fffffff || ppid > 0x7fffffff)
        return err_set(e, ERR_INPUT, "line %zu: bad pid", lineno);
    if (*nscopes > 1000000)
        return err_set(e, ERR_INPUT, "line %zu: too many scopes", lineno);
    p->pid = (long)pid;
    p->ppid = (long)ppid;
    return get_text(f, nf, "exe", &p->exe, lineno, e);
}

static int parse_scope(const struct field *f, int nf, const struct alloc_proc *p,
                       struct alloc_scope *s, size_t lineno, struct err *e)
{
    uint64_t pid;
    memset(s, 0, sizeof *s);
    if (get_u64(f, nf, "pid", &pid, lineno, e) < 0)
        return -1;
    if ((long)pid != p->pid)
        return err_set(e, ERR_INPUT, "line %zu: scope of pid %llu inside the report of pid %ld",
                       lineno, (unsigned long long)pid, p->pid);
    if (get_u64(f, nf, "entries", &s->entries, lineno, e) < 0 ||
        get_u64(f, nf, "allocs_incl", &s->allocs_incl, lineno, e) < 0 ||
        get_u64(f, nf, "allocs_excl", &s->allocs_excl, lineno, e) < 0 ||
        get_u64(f, nf, "bytes_incl", &s->bytes_incl, lineno, e) < 0 ||
        get_u64(f, nf, "bytes_excl", &s->bytes_excl, lineno, e) < 0)
        return -1;
    return get_text(f, nf, "label", &s->label, lineno, e);
}

int allocreport_parse(const char *text, size_t len, struct alloc_report *r, struct err *e)
{
    r->procs = NULL;
    r->nprocs = 0;
    size_t cap = 0, lineno = 0;
    uint64_t want_scopes = 0;     /* scope lines still owed to the last report */
    struct field f[MAX_FIELDS];
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *line = p;
        p += n + (nl ? 1 : 0);
        lineno++;
        bool is_report = starts(line, n, "tare-alloc");
        bool is_scope = starts(line, n, "tare-alloc-scope");
        if (!is_report && !is_scope) {
            if (want_scopes) {
                err_set(e, ERR_INPUT, "line %zu: %llu scope line%s missing", lineno,
                        (unsigned long long)want_scopes, want_scopes == 1 ? "" : "s");
                goto fail;
            }
            continue;
        }
        if (!nl) {
            err_set(e, ERR_INPUT, "line %zu: incomplete last line", lineno);
            goto fail;
        }
        int nf = split(line, n, f, MAX_FIELDS, lineno, e);
        if (nf < 0)
            goto fail;
        if (nf < 2 || f[1].val || f[1].keylen != 1 || f[1].key[0] != '1') {
            err_set(e, ERR_INPUT, "line %zu: unknown report version", lineno);
            goto fail;
        }
        if (is_scope) {
            if (!want_scopes) {
                err_set(e, ERR_INPUT, "line %zu: scope line without its report line", lineno);
                goto fail;
            }
            struct alloc_proc *pr = &r->procs[r->nprocs - 1];
            if (parse_scope(f, nf, pr, &pr->scopes[pr->nscopes], lineno, e) < 0)
                goto fail;
            pr->nscopes++;
            want_scopes--;
            continue;
        }
        if (want_scopes) {
            err_set(e, ERR_INPUT, "line %zu: %llu scope line%s missing", lineno,
                    (unsigned long long)want_scopes, want_scopes == 1 ? "" : "s");
            goto fail;
        }
        if (r->nprocs == cap) {
            size_t nc = cap ? cap * 2 : 8;
            struct alloc_proc *np = realloc(r->procs, nc * sizeof *np);
            if (!np) {
                err_set(e, ERR_SYSTEM, "out of memory");
                goto fail;
            }
            r->procs = np;
            cap = nc;
        }
        struct alloc_proc *pr = &r->procs[r->nprocs];
        if (parse_proc(f, nf, pr, lineno, &want_scopes, e) < 0) {
            proc_free(pr);
            goto fail;
        }
        r->nprocs++;
        if (want_scopes) {
            pr->scopes = calloc(want_scopes, sizeof *pr->scopes);
            if (!pr->scopes) {
                err_set(e, ERR_SYSTEM, "out of memory");
                goto fail;
            }
        }
    }
    if (want_scopes) {
        err_set(e, ERR_INPUT, "line %zu: %llu scope line%s missing at the end", lineno,
                (unsigned long long)want_scopes, want_scopes == 1 ? "" : "s");
        goto fail;
    }
    return 0;
fail:
    allocreport_free(r);
    return -1;
}

int allocreport_read_file(const char *path, struct alloc_report *r, struct err *e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return err_errno(e, ERR_INPUT, errno, "cannot read '%s'", path);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += got;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    bool bad = ferror(fp);
    fclose(fp);
    if (!buf)
        return err_set(e, ERR_SYSTEM, "out of memory");
    if (bad) {
        free(buf);
        return err_set(e, ERR_INPUT, "cannot read '%s'", path);
    }
    int rc = allocreport_parse(buf, len, r, e);
    free(buf);
    if (rc < 0)
        err_prefix(e, "'%s'", path);
    return rc;
}

int allocreport_sum(const struct alloc_report *r, long ppid, struct alloc_totals *t, struct err *e)
{
    memset(t, 0, sizeof *t);
    size_t cap = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        const struct alloc_proc *p = &r->procs[i];
        if (ppid >= 0 && p->ppid != ppid)
            continue;
        t->nprocs++;
        if (__builtin_add_overflow(t->allocations, p->allocations, &t->allocations) ||
            __builtin_add_overflow(t->frees, p->frees, &t->frees) ||
            __builtin_add_overflow(t->bytes, p->bytes, &t->bytes)) {
            allocreport_totals_free(t);
            return err_set(e, ERR_INPUT, "the processes' counts add up past 2^64");
        }
        if (p->peak_bytes > t->peak_bytes || t->nprocs == 1) {
            t->peak_bytes = p->peak_bytes;
            t->peak_slack = p->peak_slack;
        }
        if (!t->own_malloc && strcmp(p->status, "own-malloc") == 0)
            t->own_malloc = p;
        for (size_t k = 0; k < p->nscopes; k++) {
            const struct alloc_scope *s = &p->scopes[k];
            size_t j = 0;
            while (j < t->nscopes && strcmp(t->scopes[j].label, s->label) != 0)
                j++;
            if (j == t->nscopes) {
                if (t->nscopes == cap) {
                    size_t nc = cap ? cap * 2 : 16;
                    struct alloc_scope *ns = realloc(t->scopes, nc * sizeof *ns);
                    if (!ns) {
                        allocreport_totals_free(t);
                        return err_set(e, ERR_SYSTEM, "out of memory");
                    }
                    t->scopes = ns;
                    cap = nc;
                }
                t->scopes[t->nscopes] = *s;
                t->nscopes++;
                continue;
            }
            struct alloc_scope *d = &t->scopes[j];
            if (__builtin_add_overflow(d->entries, s->entries, &d->entries) ||
                __builtin_add_overflow(d->allocs_incl, s->allocs_incl, &d->allocs_incl) ||
                __builtin_add_overflow(d->allocs_excl, s->allocs_excl, &d->allocs_excl) ||
                __builtin_add_overflow(d->bytes_incl, s->bytes_incl, &d->bytes_incl) ||
                __builtin_add_overflow(d->bytes_excl, s->bytes_excl, &d->bytes_excl)) {
                allocreport_totals_free(t);
                return err_set(e, ERR_INPUT, "scope '%s': the processes' counts add up past 2^64",
                               s->label);
            }
        }
    }
    /* Most exclusive allocations first; ties by label, so the order is reproducible. */
    for (size_t i = 1; i < t->nscopes; i++) {
        struct alloc_scope x = t->scopes[i];
        size_t j = i;
        while (j > 0 && (t->scopes[j - 1].allocs_excl < x.allocs_excl ||
                         (t->scopes[j - 1].allocs_excl == x.allocs_excl &&
                          strcmp(t->scopes[j - 1].label, x.label) > 0))) {
            t->scopes[j] = t->scopes[j - 1];
            j--;
        }
        t->scopes[j] = x;
    }
    return 0;
}

void allocreport_totals_free(struct alloc_totals *t)
{
    free(t->scopes);
    t->scopes = NULL;
    t->nscopes = 0;
}
