/* test_profile_match.c: the objects of two made-up profiles matched for `tare cg diff` (maps, the
 * same path, the same file name, each profile's program under two names) and the keyed diff,
 * each answer counted by hand from the profiles written here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/profile_match.h"
#include "unit.h"

/* A profile of the functions in spec, one "OBJECT|FUNCTION|SELF" a line, with the command cmd
 * (NULL: no cmd: line). */
static struct cg_profile *make(const char *cmd, const char *spec)
{
    static char text[16384];
    size_t at = 0;
    unsigned long long total = 0;
    at += (size_t)snprintf(text + at, sizeof text - at, "events: Ir\n");
    if (cmd)
        at += (size_t)snprintf(text + at, sizeof text - at, "cmd: %s\n", cmd);
    for (const char *s = spec; *s;) {
        const char *end = strchr(s, '\n');
        if (!end)
            end = s + strlen(s);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(end - s), s);
        char *b1 = strchr(line, '|'), *b2 = b1 ? strchr(b1 + 1, '|') : NULL;
        if (b2) {
            *b1 = *b2 = '\0';
            unsigned long long v = strtoull(b2 + 1, NULL, 10);
            total += v;
            at += (size_t)snprintf(text + at, sizeof text - at, "ob=%s\nfn=%s\n1 %llu\n", line,
                                   b1 + 1, v);
        }
        s = *end ? end + 1 : end;
    }
    snprintf(text + at, sizeof text - at, "totals: %llu\n", total);
    struct cg_profile *p = cg_profile_new();
    struct err e = {0};
    if (cg_read_mem(p, "t.out", text, strlen(text), NULL, &e) < 0 ||
        cg_profile_finish(p, &e) < 0) {
        printf("not ok - cannot read a made-up profile: %s\n", e.msg);
        cg_profile_free(p);
        return NULL;
    }
    return p;
}

static uint32_t obj_id(const struct cg_profile *p, const char *path)
{
    for (uint32_t f = 0; f < p->nfunc; f++)
        if (strcmp(cg_str(p, p->funcs[f].obj), path) == 0)
            return p->funcs[f].obj;
    return UINT32_MAX;
}

/* The pair of m whose object before is path a, or NULL. */
static const struct cg_obj_pair *pair_of(const struct cg_match *m, const struct cg_profile *pa,
                                         const char *a)
{
    for (uint32_t i = 0; i < m->npair; i++)
        if (strcmp(cg_str(pa, m->pair[i].a), a) == 0)
            return &m->pair[i];
    return NULL;
}

/* The row of function name in object obj (as the row names it), or NULL. */
static const struct cg_diff_row *row_of(const struct cg_diff_row *r, long n, const char *name,
                                        const char *obj)
{
    for (long i = 0; i < n; i++)
        if (strcmp(r[i].name, name) == 0 && strcmp(r[i].obj, obj) == 0)
            return &r[i];
    return NULL;
}

static void test_names(void)
{
    CHECK(cg_name_tells("luaV_execute"));
    CHECK(cg_name_tells("work"));
    CHECK(cg_name_tells("mainloop"));        /* not main */
    CHECK(!cg_name_tells("main"));
    CHECK(!cg_name_tells("(below main)"));
    CHECK(!cg_name_tells("_start"));
    CHECK(!cg_name_tells("frame_dummy"));
    CHECK(!cg_name_tells("__do_global_dtors_aux"));
    CHECK(!cg_name_tells("0x0000000000001130"));
    CHECK(!cg_name_tells("__x86.get_pc_thunk.bx"));
    CHECK(!cg_name_tells("puts@plt"));
    CHECK_STR(cg_obj_base("/usr/lib/libc.so.6"), "libc.so.6");
    CHECK_STR(cg_obj_base("prog"), "prog");
    CHECK_STR(cg_obj_base(""), "");
    CHECK_STR(cg_obj_base("/odd/"), "/odd/");   /* no file name after the slash: the whole */

    struct cg_obj_map m;
    struct err e;
    CHECK_INT(cg_obj_map_parse("lua-a=lua-b", &m, &e), 0);
    CHECK_INT(m.old_len, 5);
    CHECK(strncmp(m.old_obj, "lua-a", m.old_len) == 0);
    CHECK_STR(m.new_obj, "lua-b");
    CHECK_INT(cg_obj_map_parse("/a/x=/b/y=z", &m, &e), 0);   /* the first '=' splits */
    CHECK_INT(m.old_len, 4);
    CHECK_STR(m.new_obj, "/b/y=z");
    CHECK_INT(cg_obj_map_parse("lua-a", &m, &e), -1);
    CHECK(e.kind == ERR_INPUT && strstr(e.msg, "want OLD=NEW (no '=')"));
    CHECK_INT(cg_obj_map_parse("=b", &m, &e), -1);
    CHECK(strstr(e.msg, "OLD is empty") != NULL);
    CHECK_INT(cg_obj_map_parse("a=", &m, &e), -1);
    CHECK(strstr(e.msg, "NEW is empty") != NULL);
}

static void test_program(void)
{
    /* the object named as the command's first word, whatever its directory */
    struct cg_profile *p = make("./lua-3507c338 x.lua",
                                "/w/lua-3507c338|main|1\n/lib/libc.so.6|malloc|2\n"
                                "/w/lua-3507c338|luaV_execute|5\n");
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(cg_program(p), obj_id(p, "/w/lua-3507c338"));
        cg_profile_free(p);
    }
    /* no command: the object with main */
    p = make(NULL, "/lib/libc.so.6|malloc|2\n/w/prog|main|3\n");
    if (p) {
        CHECK_INT(cg_program(p), obj_id(p, "/w/prog"));
        cg_profile_free(p);
    }
    /* a command no object is named as (python3 runs /usr/bin/python3.11): main again; and
     * main in two objects: not known */
    p = make("python3 x.py", "/usr/bin/python3.11|main|1\n/lib/libc.so.6|puts|2\n");
    if (p) {
        CHECK_INT(cg_program(p), obj_id(p, "/usr/bin/python3.11"));
        cg_profile_free(p);
    }
    p = make("run", "/a/one|main|1\n/b/two|main|2\n");
    if (p) {
        CHECK_INT(cg_program(p), UINT32_MAX);
        cg_profile_free(p);
    }
    /* two objects of the command's file name: by main */
    p = make("/x/prog", "/x/prog|main|1\n/y/prog|helper|2\n");
    if (p) {
        CHECK_INT(cg_program(p), obj_id(p, "/x/prog"));
        cg_profile_free(p);
    }
}

/* Two builds of one program under two names, in two directories, with a library in two
 * directories and one at one path. */
static const char build_a[] =
    "/w1/lua-3507c338|main|10\n/w1/lua-3507c338|luaV_execute|1000\n"
    "/w1/lua-3507c338|luaH_get|300\n/w1/lua-3507c338|0x1130|4\n"
    "/w1/lua-3507c338|luaD_gone|7\n"
    "/w1/lib/libaux.so|aux_f|50\n/lib/libc.so.6|malloc|20\n/lib/libc.so.6|free|9\n";
static const char build_b[] =
    "/w2/lua-5edacafc|main|10\n/w2/lua-5edacafc|luaV_execute|1200\n"
    "/w2/lua-5edacafc|luaH_get|250\n/w2/lua-5edacafc|0x1130|4\n"
    "/w2/lua-5edacafc|luaH_new|40\n"
    "/w2/lib/libaux.so|aux_f|55\n/lib/libc.so.6|malloc|26\n";

static void test_builds(void)
{
    struct cg_profile *a = make("/w1/lua-3507c338 a.lua", build_a),
                      *b = make("./lua-5edacafc b.lua", build_b);
    CHECK(a && b);
    if (!a || !b) {
        cg_profile_free(a);
        cg_profile_free(b);
        return;
    }
    struct cg_match m;
    struct err e;
    CHECK_INT(cg_match_objects(a, 0, b, 0, NULL, 0, &m, &e), 0);
    CHECK_INT(m.npair, 3);
    CHECK(!m.prog_apart);
    CHECK_INT(m.prog_a, obj_id(a, "/w1/lua-3507c338"));
    CHECK_INT(m.prog_b, obj_id(b, "/w2/lua-5edacafc"));
    const struct cg_obj_pair *pr = pair_of(&m, a, "/lib/libc.so.6");
    CHECK(pr && pr->how == CG_PAIR_PATH && pr->common == 1 && pr->only_a == 1 && pr->only_b == 0);
    pr = pair_of(&m, a, "/w1/lib/libaux.so");
    CHECK(pr && pr->how == CG_PAIR_NAME && pr->common == 1 &&
          strcmp(cg_str(b, pr->b), "/w2/lib/libaux.so") == 0);
    /* the programs: main, 0x1130, luaV_execute, luaH_get in both; two of them tell */
    pr = pair_of(&m, a, "/w1/lua-3507c338");
    CHECK(pr && pr->how == CG_PAIR_PROGRAM && pr->common == 4 && pr->telling == 2 &&
          pr->only_a == 1 && pr->only_b == 1);
    CHECK_INT(m.common, 6);
    CHECK_INT(m.funcs_a, 8);
    CHECK_INT(m.funcs_b, 7);
    CHECK_INT(m.key_a[obj_id(a, "/w1/lua-3507c338")], m.key_b[obj_id(b, "/w2/lua-5edacafc")]);

    /* the diff by these keys: each function's change is its own, exact */
    struct cg_diff_row *r;
    long n = cg_profile_diff_keyed(a, 0, b, 0, CG_DIFF_SELF, m.key_a, m.key_b, &r);
    CHECK_INT(n, 9);    /* 8 functions before, 7 after, 6 in both */
    long both = 0;
    for (long i = 0; i < n; i++)
        both += r[i].has_a && r[i].has_b;
    CHECK_INT(both, m.common);
    const struct cg_diff_row *x = row_of(r, n, "luaV_execute", "/w1/lua-3507c338");
    CHECK(x && x->has_a && x->has_b && x->a == 1000 && x->b == 1200);
    CHECK_STR(r[0].name, "luaV_execute");   /* the biggest change first: +200 */
    x = row_of(r, n, "luaH_get", "/w1/lua-3507c338");
    CHECK(x && x->a == 300 && x->b == 250);
    x = row_of(r, n, "luaH_new", "/w2/lua-5edacafc");
    CHECK(x && !x->has_a && x->b == 40);
    x = row_of(r, n, "luaD_gone", "/w1/lua-3507c338");
    CHECK(x && !x->has_b && x->a == 7);
    x = row_of(r, n, "aux_f", "/w1/lib/libaux.so");
    CHECK(x && x->a == 50 && x->b == 55);
    x = row_of(r, n, "free", "/lib/libc.so.6");
    CHECK(x && x->has_a && !x->has_b);
    free(r);
    /* without the keys (by file name), the programs do not match: what issue 33 found */
    n = cg_profile_diff(a, 0, b, 0, CG_DIFF_SELF, &r);
    CHECK_INT(n, 13);   /* the 5 of each program apart */
    x = row_of(r, n, "luaV_execute", "/w1/lua-3507c338");
    CHECK(x && !x->has_b);
    free(r);
    cg_match_free(&m);

    /* a profile against itself: every object at its path, every function in common */
    CHECK_INT(cg_match_objects(a, 0, a, 0, NULL, 0, &m, &e), 0);
    CHECK_INT(m.npair, 3);
    CHECK_INT(m.common, 8);
    for (uint32_t i = 0; i < m.npair; i++)
        CHECK(m.pair[i].how == CG_PAIR_PATH && m.pair[i].only_a == 0 && m.pair[i].only_b == 0);
    cg_match_free(&m);
    cg_profile_free(a);
    cg_profile_free(b);
}

/* Two programs that share only the start-up code, main and libc. */
static void test_unrelated(void)
{
    struct cg_profile *a = make("./fib 20", "/t/fib|main|5\n/t/fib|fib|900\n/t/fib|_start|1\n"
                                            "/t/fib|0x1130|4\n/lib/libc.so.6|puts|30\n"),
                      *b = make("./sorter", "/t/sorter|main|7\n/t/sorter|sort|800\n"
                                            "/t/sorter|_start|1\n/t/sorter|0x1130|4\n"
                                            "/lib/libc.so.6|puts|20\n");
    CHECK(a && b);
    if (!a || !b) {
        cg_profile_free(a);
        cg_profile_free(b);
        return;
    }
    struct cg_match m;
    struct err e;
    CHECK_INT(cg_match_objects(a, 0, b, 0, NULL, 0, &m, &e), 0);
    CHECK(m.prog_apart);
    CHECK_INT(m.npair, 1);              /* libc alone */
    CHECK_INT(m.common, 1);
    CHECK(m.key_a[obj_id(a, "/t/fib")] != m.key_b[obj_id(b, "/t/sorter")]);
    cg_match_free(&m);

    /* mapped: one object, main, _start and 0x1130 in common, none of them telling */
    struct cg_obj_map map;
    CHECK_INT(cg_obj_map_parse("fib=sorter", &map, &e), 0);
    CHECK_INT(cg_match_objects(a, 0, b, 0, &map, 1, &m, &e), 0);
    CHECK(!m.prog_apart);
    const struct cg_obj_pair *pr = pair_of(&m, a, "/t/fib");
    CHECK(pr && pr->how == CG_PAIR_MAP && pr->common == 3 && pr->telling == 0 &&
          pr->only_a == 1 && pr->only_b == 1);
    CHECK_INT(m.common, 4);
    cg_match_free(&m);
    /* by the full path too */
    CHECK_INT(cg_obj_map_parse("/t/fib=/t/sorter", &map, &e), 0);
    CHECK_INT(cg_match_objects(a, 0, b, 0, &map, 1, &m, &e), 0);
    CHECK(pair_of(&m, a, "/t/fib") && pair_of(&m, a, "/t/fib")->how == CG_PAIR_MAP);
    cg_match_free(&m);

    /* bad maps: an object that is not there (its objects listed), one mapped twice */
    CHECK_INT(cg_obj_map_parse("fob=sorter", &map, &e), 0);
    CHECK_INT(cg_match_objects(a, 0, b, 0, &map, 1, &m, &e), -1);
    CHECK(e.kind == ERR_INPUT &&
          strstr(e.msg, "--map-object 'fob=sorter': no object 'fob' in the profile before "
                        "(it has 'fib', 'libc.so.6')"));
    CHECK(m.key_a == NULL && m.pair == NULL);
    CHECK_INT(cg_obj_map_parse("fib=fib", &map, &e), 0);
    CHECK_INT(cg_match_objects(a, 0, b, 0, &map, 1, &m, &e), -1);
    CHECK(strstr(e.msg, "no object 'fib' in the profile after") != NULL);
    struct cg_obj_map two[2];
    CHECK_INT(cg_obj_map_parse("fib=sorter", &two[0], &e), 0);
    CHECK_INT(cg_obj_map_parse("libc.so.6=sorter", &two[1], &e), 0);
    CHECK_INT(cg_match_objects(a, 0, b, 0, two, 2, &m, &e), -1);
    CHECK(strstr(e.msg, "'libc.so.6=sorter': '/t/sorter' is mapped twice") != NULL);
    cg_profile_free(a);
    cg_profile_free(b);

    /* stripped: functions named by address only; two such programs are not one */
    a = make("./s1", "/t/s1|0x1000|50\n/t/s1|0x1040|9\n");
    b = make("./s2", "/t/s2|0x1000|60\n/t/s2|0x1040|9\n");
    if (a && b) {
        CHECK_INT(cg_match_objects(a, 0, b, 0, NULL, 0, &m, &e), 0);
        CHECK(m.prog_apart);
        CHECK_INT(m.common, 0);
        cg_match_free(&m);
    }
    cg_profile_free(a);
    cg_profile_free(b);

    /* nothing at all in common, the programs not known: m.common 0 */
    a = make(NULL, "/x/p|f|5\n");
    b = make(NULL, "/y/q|g|6\n");
    if (a && b) {
        CHECK_INT(cg_match_objects(a, 0, b, 0, NULL, 0, &m, &e), 0);
        CHECK(!m.prog_apart && m.prog_a == UINT32_MAX);
        CHECK_INT(m.npair, 0);
        CHECK_INT(m.common, 0);
        CHECK_INT(m.funcs_a, 1);
        CHECK_INT(m.funcs_b, 1);
        cg_match_free(&m);
    }
    cg_profile_free(a);
    cg_profile_free(b);
}

/* One file name in two directories on one side: which is meant is not known, so none is
 * matched by its name; a map says which (by path: by name it names two). */
static void test_ambiguous(void)
{
    struct cg_profile *a = make("./p", "/t/p|main|1\n/x/libz.so|z1|5\n/y/libz.so|z2|6\n"),
                      *b = make("./p", "/t/p|main|1\n/z/libz.so|z1|7\n");
    CHECK(a && b);
    if (!a || !b) {
        cg_profile_free(a);
        cg_profile_free(b);
        return;
    }
    struct cg_match m;
    struct err e;
    CHECK_INT(cg_match_objects(a, 0, b, 0, NULL, 0, &m, &e), 0);
    CHECK_INT(m.npair, 1);
    CHECK(pair_of(&m, a, "/t/p") && !pair_of(&m, a, "/x/libz.so"));
    cg_match_free(&m);
    struct cg_obj_map map;
    CHECK_INT(cg_obj_map_parse("libz.so=libz.so", &map, &e), 0);
    CHECK_INT(cg_match_objects(a, 0, b, 0, &map, 1, &m, &e), -1);
    CHECK(strstr(e.msg, "2 objects of the profile before are named 'libz.so' (give its path)"));
    CHECK_INT(cg_obj_map_parse("/x/libz.so=libz.so", &map, &e), 0);
    CHECK_INT(cg_match_objects(a, 0, b, 0, &map, 1, &m, &e), 0);
    const struct cg_obj_pair *pr = pair_of(&m, a, "/x/libz.so");
    CHECK(pr && pr->how == CG_PAIR_MAP && pr->common == 1);
    CHECK_INT(m.common, 2);
    cg_match_free(&m);
    cg_profile_free(a);
    cg_profile_free(b);
}

/* Ten times the largest real profile (gcc's cc1: 35,000 functions): 350,000 functions in 1,000
 * libraries of two work trees and a program under two names; the build after lacks every
 * 100th function and has as many new ones. */
static void test_scale(void)
{
    enum { NFN = 350000, NOBJ = 1000 };
    size_t cap = (size_t)NFN * 48 + 4096;
    char *ta = malloc(cap), *tb = malloc(cap);
    struct cg_profile *a = cg_profile_new(), *b = cg_profile_new();
    CHECK(ta && tb && a && b);
    if (!ta || !tb || !a || !b)
        goto out;
    size_t la = (size_t)snprintf(ta, cap, "events: Ir\ncmd: /w1/prog-1\n");
    size_t lb = (size_t)snprintf(tb, cap, "events: Ir\ncmd: /w2/prog-2\n");
    for (unsigned i = 0; i < NFN; i++) {
        unsigned o = i % NOBJ;
        char obj[32];
        if (o == 0)
            snprintf(obj, sizeof obj, "prog-");
        else
            snprintf(obj, sizeof obj, "lib/l%u.so", o);
        la += (size_t)snprintf(ta + la, cap - la, "ob=/w1/%s%s\nfn=f%u\n1 1\n", obj,
                               o ? "" : "1", i);
        lb += (size_t)snprintf(tb + lb, cap - lb, "ob=/w2/%s%s\nfn=%s%u\n1 2\n", obj,
                               o ? "" : "2", i % 100 == 7 ? "g" : "f", i);
    }
    la += (size_t)snprintf(ta + la, cap - la, "totals: %u\n", (unsigned)NFN);
    lb += (size_t)snprintf(tb + lb, cap - lb, "totals: %u\n", 2u * NFN);
    struct err e;
    CHECK(cg_read_mem(a, "a.out", ta, la, NULL, &e) == 0 && cg_profile_finish(a, &e) == 0);
    CHECK(cg_read_mem(b, "b.out", tb, lb, NULL, &e) == 0 && cg_profile_finish(b, &e) == 0);
    struct cg_match m;
    CHECK_INT(cg_match_objects(a, 0, b, 0, NULL, 0, &m, &e), 0);
    CHECK_INT(m.npair, NOBJ);
    CHECK_INT(m.common, NFN - NFN / 100);
    CHECK_INT(m.funcs_a, NFN);
    uint32_t named = 0, program = 0;
    for (uint32_t i = 0; i < m.npair; i++) {
        named += m.pair[i].how == CG_PAIR_NAME;
        program += m.pair[i].how == CG_PAIR_PROGRAM;
    }
    CHECK_INT(named, NOBJ - 1);
    CHECK_INT(program, 1);
    struct cg_diff_row *r;
    long n = cg_profile_diff_keyed(a, 0, b, 0, CG_DIFF_SELF, m.key_a, m.key_b, &r);
    CHECK_INT(n, NFN + NFN / 100);
    long both = 0, ok = 0;
    for (long i = 0; i < n; i++) {
        both += r[i].has_a && r[i].has_b;
        /* each function 1 before and 2 after; gone: 1 and 0; new: 0 and 2 */
        ok += r[i].a == (r[i].has_a ? 1u : 0u) && r[i].b == (r[i].has_b ? 2u : 0u);
    }
    CHECK_INT(both, m.common);
    CHECK_INT(ok, n);
    free(r);
    cg_match_free(&m);
out:
    free(ta);
    free(tb);
    cg_profile_free(a);
    cg_profile_free(b);
}

int main(void)
{
    test_names();
    test_program();
    test_builds();
    test_unrelated();
    test_ambiguous();
    test_scale();
    return unit_done("test_profile_match");
}
