/* profile_match.c: the objects of two profiles matched for `tare cg diff` (maps, the same path,
 * the same file name, each profile's program under two names), and the functions in common. */
#define _GNU_SOURCE
#include "core/profile/profile_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOKEY UINT32_MAX          /* the string id names no object */
#define FREE (UINT32_MAX - 1)     /* an object not matched yet */

const char *cg_obj_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

bool cg_name_tells(const char *name)
{
    /* what gcc's and glibc's start-up files put in every executable, and main */
    static const char *const startup[] = {
        "main", "(below main)", "_start", "_init", "_fini", "frame_dummy",
        "register_tm_clones", "deregister_tm_clones", "__do_global_dtors_aux",
        "__libc_csu_init", "__libc_csu_fini", "_dl_relocate_static_pie",
    };
    if (strncmp(name, "0x", 2) == 0 || strncmp(name, "__x86.get_pc_thunk.", 19) == 0)
        return false;
    size_t n = strlen(name);
    if (n >= 4 && strcmp(name + n - 4, "@plt") == 0)
        return false;
    for (size_t i = 0; i < sizeof startup / sizeof startup[0]; i++)
        if (strcmp(name, startup[i]) == 0)
            return false;
    return true;
}

uint32_t cg_program(const struct cg_profile *p)
{
    uint32_t found = NOKEY;
    if (p->command) {
        const char *w = p->command + strspn(p->command, " \t");
        size_t len = strcspn(w, " \t");
        const char *slash = memrchr(w, '/', len);
        if (slash) {
            len -= (size_t)(slash + 1 - w);
            w = slash + 1;
        }
        bool two = false;
        for (uint32_t f = 0; len && f < p->nfunc && !two; f++) {
            uint32_t o = p->funcs[f].obj;
            const char *b = cg_obj_base(cg_str(p, o));
            if (o != found && strlen(b) == len && memcmp(b, w, len) == 0) {
                two = found != NOKEY;
                found = o;
            }
        }
        if (found != NOKEY && !two)
            return found;
        found = NOKEY;
    }
    for (uint32_t f = 0; f < p->nfunc; f++) {
        if (p->funcs[f].folded || strcmp(cg_str(p, p->funcs[f].name), "main") != 0)
            continue;
        if (found != NOKEY && found != p->funcs[f].obj)
            return NOKEY;
        found = p->funcs[f].obj;
    }
    return found;
}

int cg_obj_map_parse(const char *arg, struct cg_obj_map *m, struct err *e)
{
    const char *eq = strchr(arg, '=');
    if (!eq)
        return err_set(e, ERR_INPUT, "--map-object '%s': want OLD=NEW (no '=')", arg);
    if (eq == arg || !eq[1])
        return err_set(e, ERR_INPUT, "--map-object '%s': want OLD=NEW (%s is empty)", arg,
                       eq == arg ? "OLD" : "NEW");
    *m = (struct cg_obj_map){.old_obj = arg, .old_len = (size_t)(eq - arg), .new_obj = eq + 1};
    return 0;
}

/* ---- one side: its objects, and its functions with a cost sorted by object, then name ---- */

struct side {
    const struct cg_profile *p;
    int ev;
    uint32_t *objs;       /* the distinct objects (string ids) */
    uint32_t nobj;
    uint32_t *fn;         /* the functions with a cost, by object id, then by name */
    uint32_t nfn;
    uint32_t *key;        /* by string id: NOKEY, FREE, or the pair's index */
};

/* qsort_r's orders; ctx is the profile */
static int by_obj_name(const void *x, const void *y, void *ctx)
{
    const struct cg_profile *p = ctx;
    const struct cg_func *a = &p->funcs[*(const uint32_t *)x], *b = &p->funcs[*(const uint32_t *)y];
    if (a->obj != b->obj)
        return a->obj < b->obj ? -1 : 1;
    return strcmp(cg_str(p, a->name), cg_str(p, b->name));
}

static int by_path(const void *x, const void *y, void *ctx)
{
    const struct cg_profile *p = ctx;
    return strcmp(cg_str(p, *(const uint32_t *)x), cg_str(p, *(const uint32_t *)y));
}

static int by_base(const void *x, const void *y, void *ctx)
{
    const struct cg_profile *p = ctx;
    return strcmp(cg_obj_base(cg_str(p, *(const uint32_t *)x)),
                  cg_obj_base(cg_str(p, *(const uint32_t *)y)));
}

static bool side_init(struct side *s, const struct cg_profile *p, int ev)
{
    *s = (struct side){.p = p, .ev = ev};
    s->key = malloc(((size_t)p->nstr + 1) * sizeof *s->key);
    s->objs = malloc(((size_t)p->nfunc + 1) * sizeof *s->objs);
    s->fn = malloc(((size_t)p->nfunc + 1) * sizeof *s->fn);
    if (!s->key || !s->objs || !s->fn)
        return false;
    for (uint32_t i = 0; i < p->nstr; i++)
        s->key[i] = NOKEY;
    for (uint32_t f = 0; f < p->nfunc; f++) {
        const struct cg_func *fu = &p->funcs[f];
        if (s->key[fu->obj] == NOKEY) {
            s->key[fu->obj] = FREE;
            s->objs[s->nobj++] = fu->obj;
        }
        if (!fu->folded && ev >= 0 && ev < p->nev && (cg_self(p, f)[ev] || cg_incl(p, f)[ev]))
            s->fn[s->nfn++] = f;
    }
    qsort_r(s->fn, s->nfn, sizeof *s->fn, by_obj_name, (void *)p);
    return true;
}

static void side_free(struct side *s)
{
    free(s->objs);
    free(s->fn);
}

/* The functions of object o: fn[*lo .. *hi). */
static void obj_range(const struct side *s, uint32_t o, uint32_t *lo, uint32_t *hi)
{
    uint32_t a = 0, b = s->nfn;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (s->p->funcs[s->fn[mid]].obj < o)
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    for (b = a; b < s->nfn && s->p->funcs[s->fn[b]].obj == o; b++)
        ;
    *hi = b;
}

/* Counts the functions of object oa of side a and ob of side b: those of one name in both
 * (and of them the telling ones), and those of one side only. */
static void count_pair(const struct side *a, const struct side *b, struct cg_obj_pair *pr)
{
    uint32_t i, ie, j, je;
    obj_range(a, pr->a, &i, &ie);
    obj_range(b, pr->b, &j, &je);
    pr->common = pr->telling = pr->only_a = pr->only_b = 0;
    while (i < ie && j < je) {
        const char *x = cg_str(a->p, a->p->funcs[a->fn[i]].name),
                   *y = cg_str(b->p, b->p->funcs[b->fn[j]].name);
        int c = strcmp(x, y);
        if (c == 0) {
            pr->common++;
            pr->telling += cg_name_tells(x);
            i++, j++;
        } else if (c < 0) {
            pr->only_a++, i++;
        } else {
            pr->only_b++, j++;
        }
    }
    pr->only_a += ie - i;
    pr->only_b += je - j;
}

/* The object of side s that text names (its path, else its file name), or NOKEY with e set. */
static uint32_t find_obj(const struct side *s, const char *text, size_t len, const char *arg,
                         const char *which, struct err *e)
{
    uint32_t by_base_name = NOKEY, nbase = 0;
    for (uint32_t i = 0; i < s->nobj; i++) {
        const char *path = cg_str(s->p, s->objs[i]);
        if (strlen(path) == len && memcmp(path, text, len) == 0)
            return s->objs[i];
        const char *b = cg_obj_base(path);
        if (strlen(b) == len && memcmp(b, text, len) == 0)
            by_base_name = s->objs[i], nbase++;
    }
    if (nbase == 1)
        return by_base_name;
    if (nbase > 1) {
        err_set(e, ERR_INPUT, "--map-object '%s': %u objects of the profile %s are named '%.*s' "
                "(give its path)", arg, nbase, which, (int)len, text);
        return NOKEY;
    }
    /* the first objects there are (by file name), to say what could be meant */
    char some[300] = "";
    size_t at = 0;
    uint32_t i = 0;
    for (; i < s->nobj; i++) {
        const char *b = cg_obj_base(cg_str(s->p, s->objs[i]));
        size_t k = strlen(b) + (i ? 4 : 2);
        if (at + k >= sizeof some - 8)
            break;
        at += (size_t)snprintf(some + at, sizeof some - at, "%s'%s'", i ? ", " : "", b);
    }
    err_set(e, ERR_INPUT, "--map-object '%s': no object '%.*s' in the profile %s (it has %s%s)",
            arg, (int)len, text, which, s->nobj ? some : "none", i < s->nobj ? ", ..." : "");
    return NOKEY;
}

static bool add_pair(struct cg_match *m, struct side *a, struct side *b, uint32_t oa,
                     uint32_t ob, enum cg_pair_how how)
{
    struct cg_obj_pair *np = realloc(m->pair, (m->npair + 1) * sizeof *np);
    if (!np)
        return false;
    m->pair = np;
    np[m->npair] = (struct cg_obj_pair){.a = oa, .b = ob, .how = how};
    count_pair(a, b, &np[m->npair]);
    a->key[oa] = b->key[ob] = m->npair++;
    return true;
}

/* The objects of side s not matched yet, sorted by cmp. */
static uint32_t free_objs(const struct side *s, uint32_t *out,
                          int (*cmp)(const void *, const void *, void *))
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nobj; i++)
        if (s->key[s->objs[i]] == FREE)
            out[n++] = s->objs[i];
    qsort_r(out, n, sizeof *out, cmp, (void *)s->p);
    return n;
}

/* The objects of the same path (base: the same file name, where each side has one) paired. */
static bool pair_alike(struct cg_match *m, struct side *a, struct side *b, bool base,
                       uint32_t *ta, uint32_t *tb)
{
    int (*cmp)(const void *, const void *, void *) = base ? by_base : by_path;
    uint32_t na = free_objs(a, ta, cmp), nb = free_objs(b, tb, cmp);
    uint32_t i = 0, j = 0;
    while (i < na && j < nb) {
        const char *x = cg_str(a->p, ta[i]), *y = cg_str(b->p, tb[j]);
        if (base)
            x = cg_obj_base(x), y = cg_obj_base(y);
        int c = strcmp(x, y);
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
        uint32_t i2 = i + 1, j2 = j + 1;   /* the group of that name on each side */
        while (i2 < na && strcmp(x, base ? cg_obj_base(cg_str(a->p, ta[i2]))
                                         : cg_str(a->p, ta[i2])) == 0)
            i2++;
        while (j2 < nb && strcmp(y, base ? cg_obj_base(cg_str(b->p, tb[j2]))
                                         : cg_str(b->p, tb[j2])) == 0)
            j2++;
        if (i2 - i == 1 && j2 - j == 1 &&
            !add_pair(m, a, b, ta[i], tb[j], base ? CG_PAIR_NAME : CG_PAIR_PATH))
            return false;
        i = i2, j = j2;
    }
    return true;
}

void cg_match_free(struct cg_match *m)
{
    free(m->key_a);
    free(m->key_b);
    free(m->pair);
    *m = (struct cg_match){0};
}

int cg_match_objects(const struct cg_profile *pa, int ea, const struct cg_profile *pb, int eb,
                     const struct cg_obj_map *maps, size_t nmaps, struct cg_match *m,
                     struct err *e)
{
    *m = (struct cg_match){.prog_a = NOKEY, .prog_b = NOKEY};
    struct side a, b;
    uint32_t *ta = NULL, *tb = NULL;
    bool ok = side_init(&a, pa, ea);   /* both, so that both can be freed */
    ok = side_init(&b, pb, eb) && ok;
    m->key_a = a.key;
    m->key_b = b.key;
    if (ok) {
        ta = malloc(((size_t)a.nobj + 1) * sizeof *ta);
        tb = malloc(((size_t)b.nobj + 1) * sizeof *tb);
        ok = ta && tb;
    }
    if (!ok)
        goto nomem;
    for (size_t i = 0; i < nmaps; i++) {
        const struct cg_obj_map *mp = &maps[i];
        uint32_t oa = find_obj(&a, mp->old_obj, mp->old_len, mp->old_obj, "before", e);
        uint32_t ob = oa == NOKEY ? NOKEY
                                  : find_obj(&b, mp->new_obj, strlen(mp->new_obj), mp->old_obj,
                                             "after", e);
        if (oa == NOKEY || ob == NOKEY)
            goto fail;
        if (a.key[oa] != FREE || b.key[ob] != FREE) {
            err_set(e, ERR_INPUT, "--map-object '%s': '%s' is mapped twice", mp->old_obj,
                    a.key[oa] != FREE ? cg_str(pa, oa) : cg_str(pb, ob));
            goto fail;
        }
        if (!add_pair(m, &a, &b, oa, ob, CG_PAIR_MAP))
            goto nomem;
    }
    if (!pair_alike(m, &a, &b, false, ta, tb) || !pair_alike(m, &a, &b, true, ta, tb))
        goto nomem;
    m->prog_a = cg_program(pa);
    m->prog_b = cg_program(pb);
    if (m->prog_a != NOKEY && m->prog_b != NOKEY && a.key[m->prog_a] == FREE &&
        b.key[m->prog_b] == FREE) {
        struct cg_obj_pair pr = {.a = m->prog_a, .b = m->prog_b};
        count_pair(&a, &b, &pr);
        if (pr.telling == 0)
            m->prog_apart = true;
        else if (!add_pair(m, &a, &b, m->prog_a, m->prog_b, CG_PAIR_PROGRAM))
            goto nomem;
    }
    /* the objects of one side only: keys of their own */
    uint32_t next = m->npair;
    for (uint32_t i = 0; i < a.nobj; i++)
        if (a.key[a.objs[i]] == FREE)
            a.key[a.objs[i]] = next++;
    for (uint32_t i = 0; i < b.nobj; i++)
        if (b.key[b.objs[i]] == FREE)
            b.key[b.objs[i]] = next++;
    for (uint32_t i = 0; i < m->npair; i++)
        m->common += m->pair[i].common;
    m->funcs_a = a.nfn;
    m->funcs_b = b.nfn;
    free(ta);
    free(tb);
    side_free(&a);
    side_free(&b);
    return 0;
nomem:
    err_set(e, ERR_SYSTEM, "out of memory matching the objects of two profiles");
fail:
    free(ta);
    free(tb);
    side_free(&a);
    side_free(&b);
    cg_match_free(m);
    return -1;
}
