/* fuzz_profile_match.c: two profiles (the input cut at its first "\n--\n" line, else in
 * halves) matched as `tare cg diff` matches them must never crash or leak, and the match must
 * agree with the keyed diff: as many rows with both sides as functions in common, as many
 * with a side as that side's functions; a profile against itself is every object at its path
 * and every function in common; a map of two of their objects is taken or refused as input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/profile_match.h"

static struct cg_profile *read_one(const uint8_t *data, size_t size)
{
    struct cg_profile *p = cg_profile_new();
    struct err e;
    if (p && cg_read_mem(p, "fuzz", (const char *)data, size, NULL, &e) == 0 &&
        cg_profile_finish(p, &e) == 0)
        return p;
    cg_profile_free(p);
    return NULL;
}

/* The match of a and b (maps: nmaps) against their keyed diff; aborts where they disagree. */
static void check(const struct cg_profile *a, const struct cg_profile *b,
                  const struct cg_obj_map *maps, size_t nmaps, bool same)
{
    struct cg_match m;
    struct err e;
    if (cg_match_objects(a, 0, b, 0, maps, nmaps, &m, &e) < 0) {
        if (e.kind != ERR_INPUT || !nmaps)
            abort();
        return;
    }
    for (uint32_t f = 0; f < a->nfunc; f++)
        if (m.key_a[a->funcs[f].obj] == UINT32_MAX)
            abort();
    for (uint32_t f = 0; f < b->nfunc; f++)
        if (m.key_b[b->funcs[f].obj] == UINT32_MAX)
            abort();
    uint64_t common = 0;
    for (uint32_t i = 0; i < m.npair; i++) {
        const struct cg_obj_pair *pr = &m.pair[i];
        if (m.key_a[pr->a] != i || m.key_b[pr->b] != i || pr->telling > pr->common)
            abort();
        if (same && (pr->how != CG_PAIR_PATH || pr->only_a || pr->only_b))
            abort();
        common += pr->common;
    }
    if (common != m.common || (same && (m.prog_apart || m.common != m.funcs_a)))
        abort();
    struct cg_diff_row *r;
    long n = cg_profile_diff_keyed(a, 0, b, 0, CG_DIFF_INCLUSIVE, m.key_a, m.key_b, &r);
    if (n >= 0) {
        uint64_t both = 0, with_a = 0, with_b = 0;
        for (long i = 0; i < n; i++) {
            both += r[i].has_a && r[i].has_b;
            with_a += r[i].has_a;
            with_b += r[i].has_b;
        }
        if (both != m.common || with_a != m.funcs_a || with_b != m.funcs_b)
            abort();
        free(r);
    }
    cg_match_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cut = size / 2, skip = 0;
    for (size_t i = 0; i + 4 <= size; i++)
        if (memcmp(data + i, "\n--\n", 4) == 0) {
            cut = i + 1;
            skip = 3;
            break;
        }
    struct cg_profile *a = read_one(data, cut), *b = read_one(data + cut + skip,
                                                             size - cut - skip);
    if (a && a->nev > 0)
        check(a, a, NULL, 0, true);
    if (a && b && a->nev > 0 && b->nev > 0) {
        check(a, b, NULL, 0, false);
        /* the last object of each by its file name, and the first by its path */
        if (a->nfunc && b->nfunc) {
            char old[256], new_[256], arg[600];
            snprintf(old, sizeof old, "%s", cg_obj_base(cg_str(a, a->funcs[a->nfunc - 1].obj)));
            snprintf(new_, sizeof new_, "%s", cg_obj_base(cg_str(b, b->funcs[b->nfunc - 1].obj)));
            snprintf(arg, sizeof arg, "%s=%s", old, new_);
            struct cg_obj_map maps[2];
            struct err e;
            size_t nmaps = 0;
            if (cg_obj_map_parse(arg, &maps[nmaps], &e) == 0)
                nmaps++;
            char arg2[600];
            snprintf(arg2, sizeof arg2, "%s=%s", cg_str(a, a->funcs[0].obj),
                     cg_str(b, b->funcs[0].obj));
            if (cg_obj_map_parse(arg2, &maps[nmaps], &e) == 0)
                nmaps++;
            check(a, b, maps, nmaps, false);
        }
    }
    cg_profile_free(a);
    cg_profile_free(b);
    return 0;
}
