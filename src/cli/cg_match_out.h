/* cg_match_out.h: how `tare cg diff` and `tare cg page --diff` say which objects of their two
 * profiles they took as one, and that nothing matched where nothing did. */
#ifndef TARE_CG_MATCH_OUT_H
#define TARE_CG_MATCH_OUT_H

#include <stddef.h>

#include "core/profile/profile_match.h"

/*
 * Matches the objects of BEFORE (pa, event ea, read from file_a) and AFTER (pb, eb, file_b)
 * with the user's maps (cg_match_objects), and says on stderr, one line each, the objects taken
 * as one that are not at one path ("tare WHO: matched lua-3507c338 with lua-5edacafc
 * (...)"). Where nothing matched -- no function at all, or the two programs, under two names,
 * have no telling function in common and no map makes them one -- says so in one line and
 * returns EXIT_USAGE with m freed: a diff of profiles of two programs is not made (with maps
 * given, it is made as asked). Errors of the maps: EXIT_USAGE. EXIT_OK: free m with
 * cg_match_free.
 */
int cg_diff_match(const char *who, const struct cg_profile *pa, int ea,
                  const struct cg_profile *pb, int eb, const char *file_a, const char *file_b,
                  const struct cg_obj_map *maps, size_t nmaps, struct cg_match *m);

#endif
