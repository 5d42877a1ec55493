/* test_gitwt.c: the commit of a directory's checkout (gitwt_head) against git's own answer,
 * in a repository the test makes, and the refusal outside one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/git/gitwt.h"
#include "unit.h"

/* The first line a shell command prints, or "". */
static void first_line(const char *cmd, char *out, size_t n)
{
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    if (!fgets(out, (int)n, p))
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

int main(void)
{
    char dir[] = "/tmp/tare-gitwt-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char cmd[512], want[128];
    struct err e = {0};
    char *sha = NULL;
    /* Not a repository yet (GIT_CEILING_DIRECTORIES keeps git from looking above /tmp). */
    setenv("GIT_CEILING_DIRECTORIES", "/tmp", 1);
    CHECK_INT(gitwt_head(dir, &sha, &e), -1);
    CHECK(sha == NULL);
    CHECK(strstr(e.msg, "git rev-parse HEAD failed in") != NULL);
    snprintf(cmd, sizeof cmd, "cd '%s' && git init -q && git -c user.name=t -c user.email=t@t "
             "commit -q --allow-empty -m one && git rev-parse HEAD", dir);
    first_line(cmd, want, sizeof want);
    CHECK_INT(strlen(want) >= 40, 1);
    CHECK_INT(gitwt_head(dir, &sha, &e), 0);
    CHECK_STR(sha, want);
    free(sha);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return unit_done("test_gitwt");
}
