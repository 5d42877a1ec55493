/* gitwt.h: a temporary git worktree of a revision, made beside the user's tree and removed. */
#ifndef TARE_GITWT_H
#define TARE_GITWT_H

#include <stddef.h>

#include "core/err.h"

struct gitwt {
    char *top;      /* the top of the user's working tree */
    char *prefix;   /* the current directory relative to it: "" or "sub/dir/" */
    char *rev;      /* the revision as given */
    char *commit;   /* the full hash it names */
    char *tmp;      /* the temporary directory holding the worktree, NULL when none */
    char *dir;      /* the worktree: tmp/base */
    char *cwd;      /* dir/prefix: where the current directory is in the worktree */
};

/*
 * Finds the repository around the current directory and resolves rev to a commit; changes
 * nothing. ERR_INPUT when this is not a git repository or rev names no commit.
 */
int gitwt_open(struct gitwt *w, const char *rev, struct err *e);
/* The commit checked out in dir (git rev-parse HEAD there): *sha malloc'd, the full hash.
 * -1 with e set when git cannot run or says no (not a repository, no commit yet). */
int gitwt_head(const char *dir, char **sha, struct err *e);
/* Makes the temporary worktree (git worktree add --detach); the user's tree and index are
 * not touched. On failure nothing is left behind. */
int gitwt_add(struct gitwt *w, struct err *e);
/*
 * Removes the worktree and its directory and prunes git's record of it. Safe to call
 * more than once, without a worktree, and after an interrupt (it does not go through
 * proc_run, which refuses to run anything once interrupted). Returns -1 if something
 * could not be removed, with e set.
 */
int gitwt_remove(struct gitwt *w, struct err *e);
/*
 * Runs git with argv (argv[0] "git") in the user's tree, its stdout into *out (the caller
 * frees it) when out is not NULL. Returns git's exit status (0 ok), with its last stderr
 * line in why; -1 when it could not run or tare was interrupted, with e set.
 */
int gitwt_git(const struct gitwt *w, char *const *argv, char **out, char *why, size_t whyn,
              struct err *e);
/* Checks commit out in the worktree made by gitwt_add (detached, local changes discarded;
 * untracked files such as build outputs stay, so builds can be incremental). */
int gitwt_checkout(struct gitwt *w, const char *commit, struct err *e);
/* Frees the strings (call gitwt_remove first). */
void gitwt_free(struct gitwt *w);

#endif
