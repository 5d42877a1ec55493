/* run_revs.h: tare run --revisions as people see it: core/engine/revs.h's backfill, its progress on
 * stderr and its summary on stdout. cmd_run.c measures each commit (revs_opts.measure). */
#ifndef TARE_RUN_REVS_H
#define TARE_RUN_REVS_H

#include "core/engine/revs.h"

/* The backfill (said on stderr as it goes, with an estimate of the time left, and its
 * failures once at the end): the exit status (0, 1 when a build or a series failed, 2 bad
 * input, 130/143 interrupted: no worktree and no partial row left). */
int run_revisions(const char *cmd, const struct revs_opts *o);

#endif
