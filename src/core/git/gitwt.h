/* gitwt.h: a temporary git worktree of a revision, made beside the user's tree and removed. */
#ifndef TARE_GITWT_H
#define TARE_GITWT_H

#include <stddef.h>

#include "core/util/err.h"

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
/* The same for the repository around dir (NULL: the current directory): w->cwd is then dir's
 * place in the worktree. */
int gitwt_open_in(struct gitwt *w, const char *dir, const char *rev, struct err *e);
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

/* The top of the git working tree around dir into *top (malloc'd); 0, or 1 when dir is in no
 * working tree (or has no commit yet), or -1 when git cannot run, with e set. */
int gitwt_toplevel(const char *dir, char **top, struct err *e);

/* Commits as git log lists them: each one's full hash, committer date (UTC, ISO 8601:
 * 2026-11-01T00:23:00Z) and subject. */
struct gitwt_log {
    size_t n;
    char **hash, **date, **subject;
    char *buf, *dates;   /* the strings point into them */
};
/* Runs git log in dir with args (options and revisions, NULL-terminated: "--first-parent",
 * "A..B") into *out, newest first as git gives them. ERR_INPUT with git's words when git
 * refuses them (an unknown revision). */
int gitwt_log(const char *dir, char *const *args, struct gitwt_log *out, struct err *e);
/* The same with git's stdin from the file in (git log --stdin: revisions one a line). */
int gitwt_log_in(const char *dir, char *const *args, const char *in, struct gitwt_log *out,
                 struct err *e);
void gitwt_log_free(struct gitwt_log *l);

/*
 * Checks commit out in the worktree made by gitwt_add and runs build there (/bin/sh -c, in
 * w->cwd, its stdout discarded, timeout_s 0 for none): 0 built (or build NULL), 1 the build
 * failed, why set ("the build exited with status 1 (stderr: its last line)"), -1 an error
 * (git, interrupted: ERR_INTERRUPTED) with e set. tare bisect's probes and tare run
 * --revisions build this way.
 */
int gitwt_build(struct gitwt *w, const char *commit, const char *build, double timeout_s,
                char *why, size_t whyn, struct err *e);

#endif
