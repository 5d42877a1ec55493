/* profile_match.h: which objects of two profiles are one object, for `tare cg diff`: the same
 * path; the same file name in two directories (two work trees); each profile's program under
 * two names (two builds, `lua-3507c338` and `lua-5edacafc`), where they have functions in
 * common; or as the user maps them (--map-object OLD=NEW). Functions then match by name within
 * objects that match.
 *
 *     struct cg_obj_map maps[...];   // from cg_obj_map_parse, one per --map-object
 *     struct cg_match m;
 *     if (cg_match_objects(before, ev_before, after, ev_after, maps, nmaps, &m, &e) < 0)
 *         -> error (ERR_INPUT: a map names no object, or one twice)
 *     if (m.common == 0) -> nothing matched: say so, compare nothing
 *     cg_profile_diff_keyed(before, ..., after, ..., m.key_a, m.key_b, &rows);
 *     cg_match_free(&m);
 */
#ifndef TARE_PROFILE_MATCH_H
#define TARE_PROFILE_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"
#include "core/profile/profile.h"

/* Why two objects are one. */
enum cg_pair_how {
    CG_PAIR_MAP,       /* the user said so (--map-object) */
    CG_PAIR_PATH,      /* the same path */
    CG_PAIR_NAME,      /* the same file name, in two directories */
    CG_PAIR_PROGRAM,   /* each profile's program, under two names, with functions in common */
};

/* Two objects taken as one: a of the profile before, b of the one after (string ids). */
struct cg_obj_pair {
    uint32_t a, b;
    enum cg_pair_how how;
    uint32_t common;       /* functions of the same name in both (with a cost in the event) */
    uint32_t telling;      /* of those, names that tell a program apart (cg_name_tells) */
    uint32_t only_a, only_b;   /* functions with a cost in one of the two only */
};

/* The objects of two profiles matched. key_a[id] (key_b[id]) is the key of the object whose
 * string id in the profile before (after) is id, UINT32_MAX where the id names no object; an
 * object of each side with the same key is one object, and a key no object of the other side
 * has is an object of one side only. */
struct cg_match {
    uint32_t *key_a, *key_b;
    struct cg_obj_pair *pair;
    uint32_t npair;
    uint32_t prog_a, prog_b;   /* string id of each profile's program (cg_program), or
                                * UINT32_MAX where it is not known */
    bool prog_apart;           /* the two programs, under two names, have no telling function
                                * in common: not taken as one (nor are they, unless mapped) */
    uint64_t common;           /* functions matched, in all objects */
    uint64_t funcs_a, funcs_b; /* functions with a cost in the event, on each side */
};

/* One --map-object OLD=NEW: OLD an object of the profile before, NEW one of the profile after,
 * each by its path as the profile writes it or by its file name. Borrowed from the argument. */
struct cg_obj_map {
    const char *old_obj, *new_obj;
    size_t old_len;
};

/* Parses "OLD=NEW" (both not empty; the first '=' splits them: an object's path may hold one
 * later). ERR_INPUT with what is wrong. */
int cg_obj_map_parse(const char *arg, struct cg_obj_map *m, struct err *e);

/* Matches the objects of pa (before) and pb (after), counting functions with a cost in event
 * ea of pa, eb of pb; in this order: the maps, the same path, the same file name (where each
 * side has one object of that name left), then each profile's program (cg_program) where
 * both are left and they have a telling function in common. Errors (ERR_INPUT): a map whose
 * OLD or NEW names no object, or more than one (by file name), or an object mapped twice;
 * ERR_SYSTEM: no memory. On success free m with cg_match_free. */
int cg_match_objects(const struct cg_profile *pa, int ea, const struct cg_profile *pb, int eb,
                     const struct cg_obj_map *maps, size_t nmaps, struct cg_match *m,
                     struct err *e);
void cg_match_free(struct cg_match *m);

/* The string id of the object that is p's program, or UINT32_MAX: the object whose file name is
 * that of the first word of the profile's command (cmd:), where one is; else the one object
 * with a function named main. */
uint32_t cg_program(const struct cg_profile *p);

/* Whether a function's name tells one program from another: not main, not the C start-up
 * code every executable has (_start, _init, frame_dummy, (below main), ...), not a name made
 * of an address (0x..., a stripped function: two builds place code apart, and two programs
 * can have code at one address). */
bool cg_name_tells(const char *name);

/* The file name of an object's path (after its last '/'). */
const char *cg_obj_base(const char *path);

#endif
