/* allocreport.c: the reader of libtare-alloc's reports (format in allocreport.h). */
#include "core/profile/allocreport.h"

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

/* A hex number of 1 to 16 digits (no 0x) in [s, s + n): 0, or -1 when it is not one. */
static int hex_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 16)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = hexval(s[i]);
        if (d < 0 || (s[i] >= 'A' && s[i] <= 'F'))
            return -1;
        v = v * 16 + (uint64_t)d;
    }
    *out = v;
    return 0;
}

static int get_hex(const struct field *f, int nf, const char *key, uint64_t *out, size_t lineno,
                   struct err *e)
{
    const struct field *x = find(f, nf, key);
    if (!x)
        return err_set(e, ERR_INPUT, "line %zu: no '%s' field", lineno, key);
    if (hex_u64(x->val, x->vallen, out) < 0)
        return err_set(e, ERR_INPUT, "line %zu: bad hex number in '%s'", lineno, key);
    return 0;
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
    for (size_t i = 0; i < p->nmaps; i++)
        free(p->maps[i].path);
    free(p->maps);
    for (size_t i = 0; i < p->nsites; i++)
        free(p->sites[i].label);
    free(p->sites);
    for (size_t i = 0; i < p->nstacks; i++)
        free(p->stacks[i].frames);
    free(p->stacks);
}

void allocreport_free(struct alloc_report *r)
{
    for (size_t i = 0; i < r->nprocs; i++)
        proc_free(&r->procs[i]);
    free(r->procs);
    r->procs = NULL;
    r->nprocs = 0;
}

/* What a report line says follows it: scope, map, site and stack lines. */
struct owed {
    uint64_t scopes, maps, sites, stacks;
};

/* The stack fields of a report line, when it has them (stacks=). */
static int parse_stack_fields(const struct field *f, int nf, struct alloc_proc *p,
                              struct owed *o, size_t lineno, struct err *e)
{
    static const char *const unwinds[] = {"auto", "fp", "dwarf", NULL};
    static const char *const unwinders[] = {"libunwind", "none", NULL};
    if (!find(f, nf, "stacks"))
        return 0;
    char uw[16];
    if (get_u64(f, nf, "stacks", &o->stacks, lineno, e) < 0 ||
        get_u64(f, nf, "maps", &o->maps, lineno, e) < 0 ||
        get_u64(f, nf, "sites", &o->sites, lineno, e) < 0 ||
        get_word(f, nf, "unwind", p->unwind, sizeof p->unwind, unwinds, lineno, e) < 0 ||
        get_word(f, nf, "unwinder", uw, sizeof uw, unwinders, lineno, e) < 0 ||
        get_u64(f, nf, "by_fp", &p->by_fp, lineno, e) < 0 ||
        get_u64(f, nf, "by_dwarf", &p->by_dwarf, lineno, e) < 0 ||
        get_u64(f, nf, "peak_requested", &p->peak_requested, lineno, e) < 0)
        return -1;
    if (o->stacks > 100000000 || o->maps > 1000000 || o->sites > 1000000)
        return err_set(e, ERR_INPUT, "line %zu: too many stacks, maps or sites", lineno);
    p->has_stacks = true;
    p->unwinder = strcmp(uw, "libunwind") == 0;
    if ((o->maps && !(p->maps = calloc(o->maps, sizeof *p->maps))) ||
        (o->sites && !(p->sites = calloc(o->sites, sizeof *p->sites))))
        return err_set(e, ERR_SYSTEM, "out of memory");
    return 0;
}

static int check_pid(const struct field *f, int nf, const struct alloc_proc *p,
                     const char *what, size_t lineno, struct err *e)
{
    uint64_t pid;
    if (get_u64(f, nf, "pid", &pid, lineno, e) < 0)
        return -1;
    if ((long)pid != p->pid)
        return err_set(e, ERR_INPUT, "line %zu: %s of pid %llu inside the report of pid %ld",
                       lineno, what, (unsigned long long)pid, p->pid);
    return 0;
}

static int parse_map(const struct field *f, int nf, const struct alloc_proc *p,
                     struct alloc_map *m, size_t lineno, struct err *e)
{
    memset(m, 0, sizeof *m);
    if (check_pid(f, nf, p, "map", lineno, e) < 0 ||
        get_hex(f, nf, "start", &m->start, lineno, e) < 0 ||
        get_hex(f, nf, "end", &m->end, lineno, e) < 0 ||
        get_hex(f, nf, "offset", &m->offset, lineno, e) < 0 ||
        get_u64(f, nf, "inode", &m->inode, lineno, e) < 0)
        return -1;
    if (m->end <= m->start)
        return err_set(e, ERR_INPUT, "line %zu: a map that ends before it starts", lineno);
    return get_text(f, nf, "path", &m->path, lineno, e);
}

static int parse_site(const struct field *f, int nf, const struct alloc_proc *p,
                      struct alloc_site *s, size_t lineno, struct err *e)
{
    memset(s, 0, sizeof *s);
    if (check_pid(f, nf, p, "site", lineno, e) < 0 ||
        get_u64(f, nf, "id", &s->id, lineno, e) < 0)
        return -1;
    if (s->id == 0 || s->id > 0xffffffffu)
        return err_set(e, ERR_INPUT, "line %zu: bad site id", lineno);
    for (size_t i = 0; i < p->nsites; i++)
        if (p->sites[i].id == s->id)
            return err_set(e, ERR_INPUT, "line %zu: site %llu twice", lineno,
                           (unsigned long long)s->id);
    return get_text(f, nf, "label", &s->label, lineno, e);
}

/* The frames list F,F,... of a stack line. */
static int parse_frames(const struct field *x, struct alloc_stack *st, size_t lineno,
                        struct err *e)
{
    size_t n = 1;
    for (size_t i = 0; i < x->vallen; i++)
        n += x->val[i] == ',';
    if (n > ALLOC_MAX_FRAMES)
        return err_set(e, ERR_INPUT, "line %zu: more than %d frames", lineno, ALLOC_MAX_FRAMES);
    st->frames = malloc(n * sizeof *st->frames);
    if (!st->frames)
        return err_set(e, ERR_SYSTEM, "out of memory");
    const char *s = x->val, *end = x->val + x->vallen;
    for (size_t k = 0; k < n; k++) {
        const char *c = memchr(s, ',', (size_t)(end - s));
        size_t len = c ? (size_t)(c - s) : (size_t)(end - s);
        uint64_t v;
        if (len == 3 && memcmp(s, "cut", 3) == 0) {
            v = ALLOC_FRAME_CUT;
        } else if (len == 4 && memcmp(s, "many", 4) == 0) {
            v = ALLOC_FRAME_MANY;
        } else if (len >= 2 && len <= 11 && s[0] == 's') {
            uint64_t id = 0;
            for (size_t i = 1; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                    return err_set(e, ERR_INPUT, "line %zu: bad frame '%.*s'", lineno,
                                   (int)(len > 40 ? 40 : len), s);
                id = id * 10 + (uint64_t)(s[i] - '0');
            }
            if (id == 0 || id > 0xffffffffu)
                return err_set(e, ERR_INPUT, "line %zu: bad scope frame", lineno);
            v = ALLOC_FRAME_SCOPE | id;
        } else if (hex_u64(s, len, &v) < 0 || v == 0 || v >= ALLOC_FRAME_SCOPE) {
            return err_set(e, ERR_INPUT, "line %zu: bad frame '%.*s'", lineno,
                           (int)(len > 40 ? 40 : len), s);
        }
        st->frames[k] = v;
        s += len + 1;
    }
    st->nframes = n;
    return 0;
}

static int parse_stack(const struct field *f, int nf, const struct alloc_proc *p,
                       struct alloc_stack *st, size_t lineno, struct err *e)
{
    memset(st, 0, sizeof *st);
    if (check_pid(f, nf, p, "stack", lineno, e) < 0 ||
        get_u64(f, nf, "allocations", &st->allocations, lineno, e) < 0 ||
        get_u64(f, nf, "bytes", &st->bytes, lineno, e) < 0 ||
        get_u64(f, nf, "temporaries", &st->temporaries, lineno, e) < 0 ||
        get_u64(f, nf, "peak_bytes", &st->peak_bytes, lineno, e) < 0 ||
        get_u64(f, nf, "leaked_bytes", &st->leaked_bytes, lineno, e) < 0)
        return -1;
    if (st->temporaries > st->allocations)
        return err_set(e, ERR_INPUT, "line %zu: more temporaries than allocations", lineno);
    const struct field *x = find(f, nf, "frames");
    if (!x)
        return err_set(e, ERR_INPUT, "line %zu: no 'frames' field", lineno);
    return parse_frames(x, st, lineno, e);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every scope frame of p names one of its sites. */
static int check_sites(const struct alloc_proc *p, size_t lineno, struct err *e)
{
    uint64_t *ids = malloc((p->nsites ? p->nsites : 1) * sizeof *ids);
    if (!ids)
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (size_t i = 0; i < p->nsites; i++)
        ids[i] = p->sites[i].id;
    qsort(ids, p->nsites, sizeof *ids, cmp_u64);
    for (size_t i = 0; i < p->nstacks; i++)
        for (size_t k = 0; k < p->stacks[i].nframes; k++) {
            uint64_t fr = p->stacks[i].frames[k];
            if ((fr & 0xffff000000000000ull) != ALLOC_FRAME_SCOPE)
                continue;
            uint64_t id = fr & 0xffffffffu;
            if (!bsearch(&id, ids, p->nsites, sizeof *ids, cmp_u64)) {
                free(ids);
                return err_set(e, ERR_INPUT, "line %zu: the report of pid %ld has a scope "
                               "frame of site %llu, which it does not name", lineno, p->pid,
                               (unsigned long long)id);
            }
        }
    free(ids);
    return 0;
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
    size_t cap = 0, lineno = 0, stacks_cap = 0;
    struct owed o = {0, 0, 0, 0};   /* lines still owed to the last report */
    bool open_block = false;        /* the last report's lines are not checked yet */
    struct field f[MAX_FIELDS];
    const char *p = text, *end = text + len;
    for (;;) {
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t n = p < end ? (nl ? (size_t)(nl - p) : (size_t)(end - p)) : 0;
        const char *line = p;
        bool at_end = p >= end;
        p += n + (nl ? 1 : 0);
        lineno += !at_end;
        enum { NONE, REPORT, SCOPE, MAP, SITE, STACK } kind = NONE;
        if (!at_end) {
            kind = starts(line, n, "tare-alloc") ? REPORT
                 : starts(line, n, "tare-alloc-scope") ? SCOPE
                 : starts(line, n, "tare-alloc-map") ? MAP
                 : starts(line, n, "tare-alloc-site") ? SITE
                 : starts(line, n, "tare-alloc-stack") ? STACK : NONE;
        }
        /* A report's block ends at a line of no kind of its own, or at the end. */
        if (at_end || kind == NONE || kind == REPORT) {
            const char *what = o.scopes ? "scope" : o.maps ? "map" : o.sites ? "site"
                             : o.stacks ? "stack" : NULL;
            uint64_t left = o.scopes ? o.scopes : o.maps ? o.maps : o.sites ? o.sites : o.stacks;
            if (what) {
                err_set(e, ERR_INPUT, "line %zu: %llu %s line%s missing%s", lineno,
                        (unsigned long long)left, what, left == 1 ? "" : "s",
                        at_end ? " at the end" : "");
                goto fail;
            }
            if (open_block && check_sites(&r->procs[r->nprocs - 1], lineno, e) < 0)
                goto fail;
            open_block = false;
            if (at_end)
                break;
            if (kind == NONE)
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
        if (kind != REPORT) {
            static const char *const names[] = {"", "", "scope", "map", "site", "stack"};
            uint64_t *owe = kind == SCOPE ? &o.scopes : kind == MAP ? &o.maps
                          : kind == SITE ? &o.sites : &o.stacks;
            if (!*owe) {
                err_set(e, ERR_INPUT, "line %zu: %s line without its report line", lineno,
                        names[kind]);
                goto fail;
            }
            struct alloc_proc *pr = &r->procs[r->nprocs - 1];
            int rc;
            if (kind == SCOPE) {
                rc = parse_scope(f, nf, pr, &pr->scopes[pr->nscopes], lineno, e);
                pr->nscopes += rc == 0;
            } else if (kind == MAP) {
                rc = parse_map(f, nf, pr, &pr->maps[pr->nmaps], lineno, e);
                pr->nmaps += rc == 0;
            } else if (kind == SITE) {
                rc = parse_site(f, nf, pr, &pr->sites[pr->nsites], lineno, e);
                pr->nsites += rc == 0;
            } else {
                if (pr->nstacks == stacks_cap) {
                    /* grown as lines come: the count on the report line is not trusted */
                    size_t nc = stacks_cap ? stacks_cap * 2 : 64;
                    struct alloc_stack *ns = realloc(pr->stacks, nc * sizeof *ns);
                    if (!ns) {
                        err_set(e, ERR_SYSTEM, "out of memory");
                        goto fail;
                    }
                    pr->stacks = ns;
                    stacks_cap = nc;
                }
                rc = parse_stack(f, nf, pr, &pr->stacks[pr->nstacks], lineno, e);
                if (rc < 0)
                    free(pr->stacks[pr->nstacks].frames);
                pr->nstacks += rc == 0;
            }
            if (rc < 0) {
                if (kind == MAP)
                    free(pr->maps[pr->nmaps].path);
                if (kind == SITE)
                    free(pr->sites[pr->nsites].label);
                if (kind == SCOPE)
                    free(pr->scopes[pr->nscopes].label);
                goto fail;
            }
            (*owe)--;
            continue;
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
        stacks_cap = 0;
        if (parse_proc(f, nf, pr, lineno, &o.scopes, e) < 0 ||
            parse_stack_fields(f, nf, pr, &o, lineno, e) < 0) {
            proc_free(pr);
            memset(&o, 0, sizeof o);
            goto fail;
        }
        r->nprocs++;
        open_block = true;
        if (o.scopes) {
            pr->scopes = calloc(o.scopes, sizeof *pr->scopes);
            if (!pr->scopes) {
                err_set(e, ERR_SYSTEM, "out of memory");
                goto fail;
            }
        }
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
