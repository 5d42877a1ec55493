/* fuzz_callgrind.c: the callgrind reader must never crash, leak or loop on any input, and a
 * profile it accepts must be consistent: the functions' self costs add up to the totals, no
 * inclusive cost is above them, the outer calls into a function add up to its exact inclusive
 * cost (cg_profile_check), and the allocation sites add up to the allocation count, in sums
 * that may not pass 2^64 (the reader refuses costs that do: a sum here that wraps is a total
 * it let through wrapped). Read in one range and again cut into small
 * ranges lexed in threads, it must give the same model or the same error. Its frame tree
 * (core/profile/flame.c, what folded stacks and the page draw) keeps its invariants
 * (cg_flame_check:
 * where no frame was merged, the frames of every function hold its self cost, whatever the
 * file's calls say, and the outermost ones its inclusive cost but where the tree says they
 * are an estimate), or is refused as too big, also when built from the file's
 * --separate-callers contexts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/flame.h"
#include "core/profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cg_profile *p = cg_profile_new();
    if (!p)
        return 0;
    struct err e;
    struct cg_read_opts o = {.lines_for = ""};
    if (cg_read_mem(p, "fuzz", (const char *)data, size, &o, &e) == 0 &&
        cg_profile_finish(p, &e) == 0) {
        char why[512];
        if (!cg_profile_check(p, why, sizeof why))
            abort();
        for (int ev = 0; ev < p->nev; ev++) {
            uint64_t sum = 0, lines = 0;
            for (uint32_t f = 0; f < p->nfunc; f++)
                if (__builtin_add_overflow(sum, cg_self(p, f)[ev], &sum))
                    abort();
            for (uint32_t l = 0; l < p->nline; l++)
                if (__builtin_add_overflow(lines, p->line_cost[(size_t)l * p->nev + ev], &lines))
                    abort();
            if (sum != cg_total(p, ev))
                abort();
            if (lines > sum)
                abort();
        }
        /* the frame tree, every frame or small ones merged into "other" */
        struct cg_flame fl;
        struct cg_flame_opts fo = {.min_frac = size && data[0] & 1 ? 0.01 : 0,
                                   .max_frames = 100000};
        if (cg_flame_build(p, &fo, &fl, &e) == 0) {
            if (!cg_flame_check(&fl, p, why, sizeof why) || (fl.checked && fl.self_est))
                abort();
            cg_flame_free(&fl);
        } else if (e.kind != ERR_INPUT) {
            abort();
        }
        /* read again with the --separate-callers contexts apart: the same totals, and the
         * frame tree built from them keeps the same invariants */
        struct cg_profile *ctx = cg_profile_new();
        struct cg_read_opts co = {.keep_callers = true};
        if (ctx && cg_read_mem(ctx, "fuzz", (const char *)data, size, &co, &e) == 0 &&
            cg_profile_finish(ctx, &e) == 0) {
            if (!cg_profile_check(ctx, why, sizeof why) || ctx->nev != p->nev ||
                ctx->contexts != p->contexts)
                abort();
            for (int ev = 0; ev < p->nev; ev++)
                if (cg_total(ctx, ev) != cg_total(p, ev))
                    abort();
            fo.ctx = ctx;
            if (cg_flame_build(p, &fo, &fl, &e) == 0) {
                if (!cg_flame_check(&fl, p, why, sizeof why))
                    abort();
                cg_flame_free(&fl);
            } else if (e.kind != ERR_INPUT) {
                abort();
            }
        }
        cg_profile_free(ctx);
        /* call sites, seen through PLT stubs, account for every allocation */
        struct cg_site *sites;
        long n = cg_alloc_sites(p, &sites);
        if (n >= 0) {
            uint64_t sum = 0;
            for (long i = 0; i < n; i++)
                if (__builtin_add_overflow(sum, sites[i].allocations, &sum))
                    abort();
            if (sum != cg_allocations(p))
                abort();
            free(sites);
        }
    }
    /* the same input in ranges of 1 to 64 bytes, three lexed at once, and in rounds that
     * small one after another; and with the general parser alone */
    size_t chunk = size ? data[size / 2] % 64 + 1 : 1;
    struct cg_read_opts o1 = {.threads = 1}, ways[] = {{.threads = 3, .chunk = chunk},
                                                      {.threads = 1, .chunk = chunk},
                                                      {.threads = 1, .general_only = true}};
    struct cg_profile *one = cg_profile_new();
    struct err e1;
    int r1 = cg_read_mem(one, "fuzz", (const char *)data, size, &o1, &e1);
    for (size_t i = 0; i < sizeof ways / sizeof *ways; i++) {
        struct cg_profile *other = cg_profile_new();
        struct err e2;
        int r2 = cg_read_mem(other, "fuzz", (const char *)data, size, &ways[i], &e2);
        char why[512];
        if (r1 != r2 || (r1 < 0 && strcmp(e1.msg, e2.msg) != 0) ||
            (r1 == 0 && !cg_profile_same(one, other, why, sizeof why)))
            abort();
        cg_profile_free(other);
    }
    cg_profile_free(one);
    cg_profile_free(p);
    return 0;
}
