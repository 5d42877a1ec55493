/* branch_out.c: BRANCH:PATH history arguments read through git (branch_out.h). */
#include "cli/branch_out.h"

#include <stdlib.h>

#include "cli/cli.h"
#include "core/history/gitbranch.h"

int cli_branch_resolve(const char *cmd, char **paths, int n, char ***tmps)
{
    *tmps = calloc((size_t)n + 1, sizeof **tmps);
    if (!*tmps) {
        cli_error(cmd, "out of memory");
        return EXIT_USAGE;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (paths[i][0] == '-' || !gitbr_is_spec(paths[i]))
            continue;
        struct err e = {0};
        if (gitbr_read(paths[i], &(*tmps)[k], &e) < 0) {
            cli_branch_release(*tmps);
            *tmps = NULL;
            return cli_fail(cmd, &e);
        }
        paths[i] = (*tmps)[k++];
    }
    return EXIT_OK;
}

void cli_branch_release(char **tmps)
{
    for (int i = 0; tmps && tmps[i]; i++)
        gitbr_read_done(tmps[i]);
    free(tmps);
}
