/* cg_match_out.c: the lines `tare cg diff` and `cg page --diff` say about the objects they
 * matched (cg_match_out.h). */
#include "cli/cg_match_out.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/out.h"

/* "3 functions in both, 1 only before, 0 only after" */
static void say_counts(const struct cg_obj_pair *pr)
{
    fprintf(stderr, "%" PRIu32 " function%s in both, %" PRIu32 " only before, %" PRIu32
            " only after", pr->common, pr->common == 1 ? "" : "s", pr->only_a, pr->only_b);
}

int cg_diff_match(const char *who, const struct cg_profile *pa, int ea,
                  const struct cg_profile *pb, int eb, const char *file_a, const char *file_b,
                  const struct cg_obj_map *maps, size_t nmaps, struct cg_match *m)
{
    struct err e;
    if (cg_match_objects(pa, ea, pb, eb, maps, nmaps, m, &e) < 0)
        return cli_fail(who, &e);
    if (m->prog_apart) {
        const char *x = cg_obj_base(cg_str(pa, m->prog_a)), *y = cg_obj_base(cg_str(pb, m->prog_b));
        cli_error(who, "nothing matched: the programs '%s' ('%s') and '%s' ('%s') have no "
                  "function in common but main and the C start-up code; not compared "
                  "(--map-object %s=%s compares them)", out_vis(x), out_vis(file_a), out_vis(y),
                  out_vis(file_b), out_vis(x), out_vis(y));
        cg_match_free(m);
        return EXIT_USAGE;
    }
    if (m->common == 0 && m->funcs_a && m->funcs_b && nmaps == 0) {   /* a map: as asked */
        cli_error(who, "nothing matched: no function of '%s' is in '%s' (by name, in "
                  "objects of one name); not compared (--map-object OLD=NEW matches objects)",
                  out_vis(file_a), out_vis(file_b));
        cg_match_free(m);
        return EXIT_USAGE;
    }
    for (uint32_t i = 0; i < m->npair; i++) {
        const struct cg_obj_pair *pr = &m->pair[i];
        const char *x = cg_str(pa, pr->a), *y = cg_str(pb, pr->b);
        if (pr->how == CG_PAIR_PATH)
            continue;
        if (pr->how == CG_PAIR_NAME) {  /* one file name: the paths tell them apart */
            fprintf(stderr, "tare %s: matched %s with %s (one file name in two directories: ",
                    who, out_vis(x), out_vis(y));
        } else {
            fprintf(stderr, "tare %s: %s %s %s %s (%s: ", who,
                    pr->how == CG_PAIR_MAP ? "mapped" : "matched", out_vis(cg_obj_base(x)),
                    pr->how == CG_PAIR_MAP ? "to" : "with",
                    out_vis(cg_obj_base(y)),
                    pr->how == CG_PAIR_MAP ? "--map-object" : "the program of each profile");
        }
        say_counts(pr);
        fputs(")\n", stderr);
    }
    return EXIT_OK;
}
