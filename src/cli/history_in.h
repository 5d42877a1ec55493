/* history_in.h: history files read for check, noise, report and trend: loaded, warnings
 * said, and the commits put in the order of the repository's first-parent history. */
#ifndef TARE_HISTORY_IN_H
#define TARE_HISTORY_IN_H

#include <stddef.h>

#include "core/history/history.h"

/* The --repo option's help line, shared by the commands that read histories. */
#define CLI_REPO_HELP \
    "      --repo DIR          order commits by the first-parent history of the git\n" \
    "                          repository DIR (default: the one the first FILE is in)\n"

/*
 * Loads paths[0..n) into *db (said on failure) and orders its commits: by the first-parent
 * history of HEAD in repo (--repo; not a repository there is an error), else in the
 * repository around guess (the first FILE's directory; see cli_history_guess), its commits
 * the repository does not have placed by date and said to be; without a repository, or one
 * that knows none of them, in date order, said in one line. Warnings (torn rows) are said.
 * EXIT_OK, or the exit status after saying why (db then freed).
 */
int cli_history_load(const char *cmd, char **paths, int n, const char *repo, const char *guess,
                     struct hist_db *db);

/* Where to look for the repository of history file arg: its directory, or "." when it is a
 * copy read from a git branch (one of tmps, NULL-terminated, may be NULL). */
const char *cli_history_guess(const char *arg, char *const *tmps, char *buf, size_t n);

#endif
