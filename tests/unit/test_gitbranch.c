/* test_gitbranch.c: history rows committed to a branch of a repository the test makes, read
 * back through BRANCH:PATH, the working tree, index and HEAD untouched, a moved ref retried. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/history/gitbranch.h"
#include "unit.h"

static char top[] = "/tmp/tare-test-gitbranch-XXXXXX";

/* e.msg against a whole expected message (CHECK_STR would warn on its 1 KiB size). */
#define CHECK_MSG(want) do { \
        if (strcmp(e.msg, want) != 0) \
            printf("  got message: %s\n", e.msg); \
        CHECK(strcmp(e.msg, want) == 0); \
    } while (0)

/* What a shell command prints (its trailing newline kept), malloc'd; "" when it fails. */
static char *capture(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    char *s = NULL;
    size_t cap = 0;
    if (!p || getdelim(&s, &cap, '\0', p) < 0) {
        free(s);
        s = strdup("");
    }
    if (p && pclose(p) != 0)
        printf("  '%s' failed\n", cmd);
    return s;
}

static int sh(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0)
        printf("  '%s' failed\n", cmd);
    return rc;
}

/* What the repository's user sees: status, the index's bytes, HEAD and where it points. */
static char *user_state(void)
{
    return capture("git status --porcelain=v1 --untracked-files=all; sha1sum .git/index; "
                   "git rev-parse HEAD; git symbolic-ref HEAD; cat tracked; "
                   "git for-each-ref --format='%(refname)' refs/heads/main");
}

/* Whether dir holds nothing: gitbranch's temporary directories are all gone. */
static bool empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n == 0;
}

#define HDR "date\tcommit\tbenchmark\tinstructions\n"
#define ROW(c, v) "2026-01-01T00:00:00Z\t" c "\tb\t" v "\n"

static void test_spec(void)
{
    CHECK(gitbr_is_spec("bench-data:hist/count.tsv"));
    CHECK(gitbr_is_spec("a:b"));
    CHECK(!gitbr_is_spec(":b"));
    CHECK(!gitbr_is_spec("a:"));
    CHECK(!gitbr_is_spec("count.tsv"));
    /* a file whose name has a colon is a file */
    CHECK_INT(sh("touch x:y.tsv"), 0);
    CHECK(!gitbr_is_spec("x:y.tsv"));
    unlink("x:y.tsv");
}

static void test_append_read(const char *tmp)
{
    struct err e = {0};
    char *before = user_state();
    int tries = 0;
    const char r1[] = HDR ROW("c1", "1000000");
    struct gitbr_rows f1 = {"hist/count.tsv", r1, sizeof r1 - 1};
    CHECK_INT(gitbr_append("bench-data", &f1, 1, "first rows", &tries, &e), 0);
    CHECK_INT(tries, 1);
    /* two files in one commit; the rows' columns in another order are matched by name */
    const char r2[] = "commit\tdate\tbenchmark\tinstructions\n"
                      "c2\t2026-01-02T00:00:00Z\tb\t1100000\n";
    const char w[] = "date\tcommit\tbenchmark\tmedian_s\n2026-01-02T00:00:00Z\tc2\tb\t0.5\n";
    struct gitbr_rows f2[] = {{"hist/count.tsv", r2, sizeof r2 - 1}, {"wall.tsv", w, sizeof w - 1}};
    CHECK_INT(gitbr_append("bench-data", f2, 2, "second rows", &tries, &e), 0);
    CHECK_INT(tries, 1);
    char *s = capture("git rev-list --count bench-data");
    CHECK_STR(s, "2\n");
    free(s);
    s = capture("git log --format=%s bench-data");
    CHECK_STR(s, "second rows\nfirst rows\n");
    free(s);
    s = capture("git ls-tree -r --name-only bench-data");
    CHECK_STR(s, "hist/count.tsv\nwall.tsv\n");
    free(s);
    s = capture("git show bench-data:hist/count.tsv");
    CHECK_STR(s, HDR ROW("c1", "1000000") "2026-01-02T00:00:00Z\tc2\tb\t1100000\n");
    free(s);

    /* read back through BRANCH:PATH: the same bytes as git show, in a file named PATH's base */
    char *path = NULL;
    CHECK_INT(gitbr_read("bench-data:hist/count.tsv", &path, &e), 0);
    CHECK(path && strncmp(path, tmp, strlen(tmp)) == 0);
    CHECK(path && strcmp(strrchr(path, '/'), "/count.tsv") == 0);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cat '%s'", path ? path : "/nonexistent");
    char *got = capture(cmd);
    s = capture("git show bench-data:hist/count.tsv");
    CHECK(strcmp(got, s) == 0);
    free(got);
    free(s);
    gitbr_read_done(path);
    CHECK(empty_dir(tmp));

    /* one file from a spec: the rows it appended, counted */
    const char r3[] = HDR ROW("c3", "1200000") ROW("c3", "1300000");
    CHECK_INT(gitbr_append_spec("bench-data:hist/count.tsv", r3, sizeof r3 - 1, &e), 2);
    s = capture("git log -1 --format=%s bench-data");
    CHECK_STR(s, "tare history append hist/count.tsv\n");
    free(s);
    s = capture("git show bench-data:hist/count.tsv | cut -f2 | tr '\\n' ' '");
    CHECK_STR(s, "commit c1 c2 c3 c3 ");
    free(s);

    /* nothing the user sees has changed, and no temporary directory is left */
    char *after = user_state();
    CHECK(strcmp(before, after) == 0);
    if (strcmp(before, after) != 0)
        printf("  before:\n%s  after:\n%s", before, after);
    free(before);
    free(after);
    CHECK(empty_dir(tmp));
}

static void test_errors(const char *tmp)
{
    struct err e = {0};
    char *path = NULL;
    char *tip = capture("git rev-parse bench-data");
    CHECK_INT(gitbr_read("nosuch:count.tsv", &path, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK(strncmp(e.msg, "cannot read 'nosuch:count.tsv' from git: ", 41) == 0);
    CHECK(path == NULL);
    CHECK_INT(gitbr_read("bench-data:nosuch.tsv", &path, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK(strncmp(e.msg, "cannot read 'bench-data:nosuch.tsv' from git: ", 46) == 0);
    struct gitbr_rows f = {"count.tsv", HDR ROW("c", "1"), sizeof HDR ROW("c", "1") - 1};
    CHECK_INT(gitbr_append("a..b", &f, 1, "m", NULL, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK_MSG("'a..b' is not a branch name git accepts (git check-ref-format --branch)");
    /* rows with a column the branch's file lacks: refused, the branch where it was */
    const char bad[] = "date\tcommit\tbenchmark\tcycles\n2026\tc\tb\t5\n";
    struct gitbr_rows fb = {"hist/count.tsv", bad, sizeof bad - 1};
    CHECK_INT(gitbr_append("bench-data", &fb, 1, "m", NULL, &e), -1);
    CHECK(strncmp(e.msg, "hist/count.tsv: ", 16) == 0);
    char *now = capture("git rev-parse bench-data");
    CHECK(strcmp(tip, now) == 0);
    free(now);
    free(tip);
    CHECK(empty_dir(tmp));
    /* outside any repository */
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK_INT(chdir(tmp), 0);
    CHECK_INT(gitbr_read("bench-data:hist/count.tsv", &path, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK(strncmp(e.msg, "cannot read 'bench-data:hist/count.tsv' from git: ", 50) == 0);
    CHECK(empty_dir(tmp));
    CHECK_INT(chdir(cwd), 0);
}

/*
 * A git on PATH before the real one that moves bench-data while tare builds its commit: on the
 * first commit-tree only (once), or on every one, each time to a new commit of
 * the tip's tree, as another writer would.
 */
static void write_wrapper(const char *bin, const char *real, int once)
{
    char path[512];
    snprintf(path, sizeof path, "%s/git", bin);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "#!/bin/sh\n"
               "if [ \"$1\" = commit-tree ] && { [ %d = 0 ] || [ ! -e '%s/moved' ]; }; then\n"
               "  : > '%s/moved'\n"
               "  t=$('%s' rev-parse bench-data) || exit 99\n"
               "  c=$('%s' commit-tree \"$t^{tree}\" -p \"$t\" -m 'the other writer') || exit 99\n"
               "  '%s' update-ref refs/heads/bench-data \"$c\" \"$t\" || exit 99\n"
               "fi\n"
               "exec '%s' \"$@\"\n", once ? 1 : 0, bin, bin, real, real, real, real);
    fclose(f);
    chmod(path, 0755);
}

static void test_moved(const char *tmp, const char *bin)
{
    struct err e = {0};
    char *real = capture("command -v git | tr -d '\\n'");
    const char *oldpath = getenv("PATH");
    char *saved = strdup(oldpath ? oldpath : "/usr/bin:/bin");
    char newpath[8192];
    snprintf(newpath, sizeof newpath, "%s:%s", bin, saved);
    char *before = user_state();
    char *tip = capture("git rev-parse bench-data | tr -d '\\n'");

    write_wrapper(bin, real, 1);
    setenv("PATH", newpath, 1);
    int tries = 0;
    const char r[] = HDR ROW("c4", "1400000");
    struct gitbr_rows f = {"hist/count.tsv", r, sizeof r - 1};
    CHECK_INT(gitbr_append("bench-data", &f, 1, "after a move", &tries, &e), 0);
    setenv("PATH", saved, 1);
    CHECK_INT(tries, 2);
    /* the other writer's commit kept, ours on top of it */
    char *s = capture("git log --format=%s -2 bench-data");
    CHECK_STR(s, "after a move\nthe other writer\n");
    free(s);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "git rev-parse bench-data~2 | tr -d '\\n'");
    s = capture(cmd);
    CHECK_STR(s, tip);
    free(s);
    s = capture("git show bench-data:hist/count.tsv | cut -f2 | tr '\\n' ' '");
    CHECK_STR(s, "commit c1 c2 c3 c3 c4 ");
    free(s);

    /* a branch that moves on every attempt: given up after 50, nothing of ours committed */
    char *tip2 = capture("git rev-parse bench-data | tr -d '\\n'");
    snprintf(cmd, sizeof cmd, "rm -f '%s/moved'", bin);
    sh(cmd);
    write_wrapper(bin, real, 0);
    setenv("PATH", newpath, 1);
    CHECK_INT(gitbr_append("bench-data", &f, 1, "never", &tries, &e), -1);
    setenv("PATH", saved, 1);
    CHECK_INT(tries, 50);
    CHECK_INT(e.kind, ERR_SYSTEM);
    CHECK_MSG("'refs/heads/bench-data' kept moving: gave up after 50 attempts");
    snprintf(cmd, sizeof cmd, "git rev-list --count %s..bench-data", tip2);
    s = capture(cmd);
    CHECK_STR(s, "50\n");
    free(s);
    s = capture("git log --format=%s bench-data | { grep -c never || :; }");
    CHECK_STR(s, "0\n");
    free(s);

    char *after = user_state();
    CHECK(strcmp(before, after) == 0);
    CHECK(empty_dir(tmp));
    free(before);
    free(after);
    free(tip);
    free(tip2);
    free(real);
    free(saved);
}

int main(void)
{
    char *v = capture("git --version 2>/dev/null");
    bool have_git = strncmp(v, "git version", 11) == 0;
    free(v);
    if (!have_git) {
        printf("skip: no git\n");
        return unit_done("test_gitbranch");
    }
    CHECK(mkdtemp(top) != NULL);
    char tmp[128], bin[128], repo[128];
    snprintf(tmp, sizeof tmp, "%s/tmp", top);
    snprintf(bin, sizeof bin, "%s/bin", top);
    snprintf(repo, sizeof repo, "%s/repo", top);
    /* gitbranch's temporary directories go under TMPDIR: the test sees them all removed */
    setenv("TMPDIR", tmp, 1);
    /* a repository of the user's: a commit, then a staged change, an unstaged one and a new
     * file, none of which an append may touch */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir '%s' '%s' && cd '%s' && git init -q -b main . && "
             "git config user.email t@example.com && git config user.name t && "
             "echo one > tracked && git add tracked && git commit -qm init && "
             "echo staged >> tracked && git add tracked && echo unstaged >> tracked && "
             "echo new > untracked", tmp, bin, repo);
    mkdir(repo, 0755);
    int made = sh(cmd) == 0 && chdir(repo) == 0;
    CHECK(made);
    if (!made)
        return unit_done("test_gitbranch");
    test_spec();
    test_append_read(tmp);
    test_errors(tmp);
    test_moved(tmp, bin);
    CHECK_INT(chdir("/"), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    sh(cmd);
    return unit_done("test_gitbranch");
}
