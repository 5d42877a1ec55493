/* gitbranch.h: history files kept on a git branch (the seed's bench-data), read and appended
 * with git plumbing: the user's working tree and index are never touched. */
#ifndef TARE_GITBRANCH_H
#define TARE_GITBRANCH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/err.h"

/* Whether arg is a BRANCH:PATH spec rather than a file: it has a ':' with text on both sides
 * and no file of that name exists. */
bool gitbr_is_spec(const char *arg);

/*
 * Copies PATH at the tip of BRANCH (spec "BRANCH:PATH", in the repository around the current
 * directory) into a new file under a new temporary directory; *out gets the file's path
 * (malloc'd; gitbr_read_done removes both). ERR_INPUT when there is no repository, no such
 * branch or no such file on it.
 */
int gitbr_read(const char *spec, char **out, struct err *e);
void gitbr_read_done(char *path);

/* One file's rows to append: a header line then rows (TSV), as hist_append takes them. */
struct gitbr_rows {
    const char *path;    /* in the branch's tree: "wall.tsv", "bench/count.tsv" */
    const char *text;
    size_t len;
};

/* 0 when branch is a name git would give a new branch (git check-ref-format --branch: not
 * HEAD, not starting with '-', no "..", ...), else -1 with e set (ERR_INPUT). gitbr_append
 * checks it too; a command checks it before it measures. */
int gitbr_check_branch(const char *branch, struct err *e);
/*
 * Appends each file's rows at the tip of branch (created if it does not exist) as one new
 * commit with message, through hash-object, a temporary index (GIT_INDEX_FILE), write-tree,
 * commit-tree and update-ref with the old tip: when another writer moved the branch first,
 * it starts again from the new tip (up to 50 times), so concurrent writers keep every row
 * and every commit. Rows are checked and matched to each file's columns by hist_append.
 * *tries (may be NULL) gets how many attempts it took. 0, or -1 with e set.
 */
int gitbr_append(const char *branch, const struct gitbr_rows *files, int nfiles,
                 const char *message, int *tries, struct err *e);

/* gitbr_append of one file from a "BRANCH:PATH" spec, with the message "tare history append
 * PATH"; returns the rows appended (counted as hist_append counts them), or -1 with e set. */
long gitbr_append_spec(const char *spec, const char *text, size_t len, struct err *e);

#endif
