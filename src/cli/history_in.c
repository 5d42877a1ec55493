/* history_in.c: history files read in git's order (history_in.h). */
#include "cli/history_in.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/git/gitwt.h"

const char *cli_history_guess(const char *arg, char *const *tmps, char *buf, size_t n)
{
    for (int i = 0; tmps && tmps[i]; i++)
        if (tmps[i] == arg || strcmp(tmps[i], arg) == 0)
            return ".";   /* BRANCH:PATH: the repository around the current directory */
    const char *slash = strrchr(arg, '/');
    if (!slash)
        return ".";
    snprintf(buf, n, "%.*s", slash == arg ? 1 : (int)(slash - arg), arg);
    return buf;
}

/* The db in the order of the first-parent history of HEAD in top, and what was placed by
 * date said. EXIT_OK or the exit status. */
static int order_by_git(const char *cmd, const char *top, struct hist_db *db)
{
    struct gitwt_log log;
    struct err e = {0};
    char *args[] = {"--first-parent", "HEAD", NULL};
    if (gitwt_log(top, args, &log, &e) < 0)
        return cli_fail(cmd, &e);
    struct hist_gitlog view = {log.n, log.hash, log.date, log.subject};
    struct hist_order o;
    int rc = hist_db_order_git(db, &view, &o, &e);
    gitwt_log_free(&log);
    if (rc < 0)
        return cli_fail(cmd, &e);
    if (o.known == 0 && db->ncommits > 1)
        cli_error(cmd, "note: commits in date order: none of the history's %zu is in the "
                  "first-parent history of '%s' (HEAD)", db->ncommits, top);
    else if (o.unknown)
        cli_error(cmd, "note: %zu of the history's %zu commits %s not in the first-parent "
                  "history of '%s' (HEAD): placed among the others by date", o.unknown,
                  db->ncommits, o.unknown == 1 ? "is" : "are", top);
    return EXIT_OK;
}

int cli_history_load(const char *cmd, char **paths, int n, const char *repo, const char *guess,
                     struct hist_db *db)
{
    struct err e = {0};
    if (hist_db_load(db, paths, n, &e) < 0)
        return cli_fail(cmd, &e);
    for (size_t i = 0; i < db->nwarn; i++)
        cli_error(cmd, "warning: %s", db->warn[i]);
    char *top = NULL;
    const char *dir = repo ? repo : guess;
    int rc = gitwt_toplevel(dir, &top, &e);
    int st = EXIT_OK;
    if (rc < 0) {
        st = cli_fail(cmd, &e);
    } else if (rc > 0 && repo) {
        cli_error(cmd, "--repo '%s': not a git working tree with a commit", repo);
        st = EXIT_USAGE;
    } else if (rc > 0) {
        if (db->ncommits > 1)
            cli_error(cmd, "note: commits in date order: '%s' is in no git repository (--repo "
                      "DIR orders them by its first-parent history)", dir);
    } else {
        st = order_by_git(cmd, top, db);
    }
    free(top);
    if (st != EXIT_OK)
        hist_db_free(db);
    return st;
}
