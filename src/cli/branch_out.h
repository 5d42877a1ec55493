/* branch_out.h: history FILE arguments given as BRANCH:PATH, read from git
 * (core/history/gitbranch.h). */
#ifndef TARE_BRANCH_OUT_H
#define TARE_BRANCH_OUT_H

/* Replaces each BRANCH:PATH among paths[0..n) (option words, starting with '-', are passed
 * over) with a temporary copy read from git, said as an error on failure. *tmps lists the
 * copies (getopt may reorder argv afterwards). EXIT_OK, or the exit status of the error. */
int cli_branch_resolve(const char *cmd, char **paths, int n, char ***tmps);
/* Removes the temporary copies. */
void cli_branch_release(char **tmps);

#endif
