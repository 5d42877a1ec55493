/* gitbranch.c: history on a git branch through plumbing only (see gitbranch.h). */
#define _GNU_SOURCE
#include "core/history/gitbranch.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/history/history.h"
#include "core/util/input.h"
#include "core/util/proc.h"

#define GITBR_TRIES 50

bool gitbr_is_spec(const char *arg)
{
    const char *colon = strchr(arg, ':');
    struct stat st;
    return colon && colon != arg && colon[1] && stat(arg, &st) < 0;
}

/* A new temporary directory (under $TMPDIR or /tmp) into dir. */
static int make_tmpdir(char *dir, size_t n, struct err *e)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, n, "%s/tare-branch-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir))
        return err_errno(e, ERR_SYSTEM, errno, "cannot make a temporary directory in '%s'",
                         t && *t ? t : "/tmp");
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/*
 * Runs git (argv without "git") with env on top of tare's; its stdout into *out (malloc'd,
 * trailing newlines cut) when out is not NULL, captured through dir/out. Returns git's exit
 * status (0 ok), or -1 when it could not run, with e set; why gets git's last stderr line.
 */
static int git(const char *dir, char *const *args, char *const *env, char **out, char *why,
               size_t whyn, struct err *e)
{
    char *argv[16] = {"git"};
    int n = 1;
    for (; args[n - 1] && n < 15; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    char opath[4200];
    snprintf(opath, sizeof opath, "%s/out", dir);
    struct proc_opts o = {.argv = argv, .env_set = env, .pin_cpu = -1,
                          .stdout_path = out ? opath : NULL};
    struct proc_result r;
    if (proc_run(&o, &r, e) < 0)
        return err_prefix(e, "git %s", args[0]);
    if (r.status == PROC_INTERRUPTED || proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    if (why) {
        size_t l = strlen(r.stderr_tail);
        while (l && r.stderr_tail[l - 1] == '\n')
            r.stderr_tail[--l] = '\0';
        const char *nl = strrchr(r.stderr_tail, '\n');
        snprintf(why, whyn, "%s", nl ? nl + 1 : r.stderr_tail);
    }
    if (r.status != PROC_OK && r.status != PROC_EXITED)
        return err_set(e, ERR_SYSTEM, "git %s was killed", args[0]);
    if (out) {
        /* bounded, and a NUL (a blob that is not text) refused, not read as the text's end */
        char name[64];
        snprintf(name, sizeof name, "git %s", args[0]);
        int fd = open(opath, O_RDONLY | O_CLOEXEC);
        size_t len;
        *out = NULL;
        int rd = fd < 0 ? -1 : in_read_all(fd, name, IN_MAX_FILE, IN_MAX_LINE, out, &len, e);
        if (fd >= 0)
            close(fd);
        unlink(opath);
        if (fd >= 0 && rd < 0)
            return -1;
        if (!*out)
            *out = strdup("");
        if (!*out)
            return err_set(e, ERR_SYSTEM, "out of memory");
        size_t l = strlen(*out);
        while (l && ((*out)[l - 1] == '\n' || (*out)[l - 1] == '\r'))
            (*out)[--l] = '\0';
    }
    return r.status == PROC_OK ? 0 : r.exit_code ? r.exit_code : 1;
}

/* The tip of refs/heads/branch into *tip (malloc'd), or *tip NULL when there is none. */
static int branch_tip(const char *dir, const char *branch, char **tip, struct err *e)
{
    char ref[1100];
    snprintf(ref, sizeof ref, "refs/heads/%s^{commit}", branch);
    char *args[] = {"rev-parse", "--verify", "-q", ref, NULL};
    int rc = git(dir, args, NULL, tip, NULL, 0, e);
    if (rc < 0)
        return -1;
    if (rc != 0) {
        free(*tip);
        *tip = NULL;
    }
    return 0;
}

int gitbr_read(const char *spec, char **out, struct err *e)
{
    *out = NULL;
    char dir[4096];
    if (make_tmpdir(dir, sizeof dir, e) < 0)
        return -1;
    const char *colon = strchr(spec, ':');
    char path[4200], why[512] = "";
    const char *base = strrchr(colon + 1, '/');
    snprintf(path, sizeof path, "%s/%s", dir, base ? base + 1 : colon + 1);
    /* "BRANCH:PATH" as git names a blob; a branch is looked up as refs/heads/BRANCH first */
    char obj[2200];
    snprintf(obj, sizeof obj, "refs/heads/%.*s:%s", (int)(colon - spec), spec, colon + 1);
    char *args[] = {"cat-file", "blob", obj, NULL};
    char *text = NULL;
    int rc = git(dir, args, NULL, &text, why, sizeof why, e);
    if (rc != 0) {
        if (rc > 0)
            err_set(e, ERR_INPUT, "cannot read '%s' from git: %s", spec,
                    why[0] ? why : "no such branch or file");
        free(text);
        remove_tree(dir);
        return -1;
    }
    FILE *f = fopen(path, "w");
    size_t len = strlen(text);
    bool bad = !f || fwrite(text, 1, len, f) != len || (len && fputc('\n', f) == EOF);
    if (f && fclose(f) != 0)
        bad = true;
    free(text);
    if (bad) {
        remove_tree(dir);
        return err_errno(e, ERR_SYSTEM, errno, "cannot write '%s'", path);
    }
    *out = strdup(path);
    if (!*out) {
        remove_tree(dir);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    return 0;
}

void gitbr_read_done(char *path)
{
    if (!path)
        return;
    char *slash = strrchr(path, '/');
    if (slash) {
        *slash = '\0';
        remove_tree(path);
    }
    free(path);
}

/* One attempt: the new commit on top of old (or a root commit) into *commit. */
static int build_commit(const char *dir, const char *old, const struct gitbr_rows *files,
                        int nfiles, const char *message, char *const *env, char **commit,
                        struct err *e)
{
    char why[512] = "";
    char idx[4200];
    snprintf(idx, sizeof idx, "GIT_INDEX_FILE=%s/index", dir);
    char *ienv[8];
    int k = 0;
    for (; env && env[k] && k < 6; k++)
        ienv[k] = env[k];
    ienv[k++] = idx;
    ienv[k] = NULL;
    if (old) {
        char *rt[] = {"read-tree", (char *)old, NULL};
        int rc = git(dir, rt, ienv, NULL, why, sizeof why, e);
        if (rc != 0)
            return rc < 0 ? -1 : err_set(e, ERR_SYSTEM, "git read-tree: %s", why);
    }
    for (int i = 0; i < nfiles; i++) {
        char file[4200], obj[2200];
        snprintf(file, sizeof file, "%s/file%d.tsv", dir, i);
        unlink(file);
        if (old) {
            snprintf(obj, sizeof obj, "%s:%s", old, files[i].path);
            char *ck[] = {"cat-file", "-e", obj, NULL};
            int rc = git(dir, ck, NULL, NULL, NULL, 0, e);
            if (rc < 0)
                return -1;
            if (rc == 0) {
                char *cat[] = {"cat-file", "blob", obj, NULL};
                char *text = NULL;
                if (git(dir, cat, NULL, &text, why, sizeof why, e) != 0) {
                    free(text);
                    return err_set(e, ERR_SYSTEM, "git cat-file '%s': %s", obj, why);
                }
                FILE *f = fopen(file, "w");
                size_t len = strlen(text);
                bool bad = !f || fwrite(text, 1, len, f) != len ||
                           (len && fputc('\n', f) == EOF);
                if (f && fclose(f) != 0)
                    bad = true;
                free(text);
                if (bad)
                    return err_errno(e, ERR_SYSTEM, errno, "cannot write '%s'", file);
            }
        }
        if (hist_append(file, files[i].text, files[i].len, e) < 0)
            return err_prefix(e, "%s", files[i].path);
        char *blob = NULL;
        char *ho[] = {"hash-object", "-w", file, NULL};
        if (git(dir, ho, NULL, &blob, why, sizeof why, e) != 0) {
            free(blob);
            return err_set(e, ERR_SYSTEM, "git hash-object: %s", why);
        }
        char info[4300];
        snprintf(info, sizeof info, "100644,%s,%s", blob, files[i].path);
        free(blob);
        char *ui[] = {"update-index", "--add", "--cacheinfo", info, NULL};
        int rc = git(dir, ui, ienv, NULL, why, sizeof why, e);
        if (rc != 0)
            return rc < 0 ? -1 : err_set(e, ERR_INPUT, "git update-index: %s", why);
    }
    char *tree = NULL;
    char *wt[] = {"write-tree", NULL};
    if (git(dir, wt, ienv, &tree, why, sizeof why, e) != 0) {
        free(tree);
        return err_set(e, ERR_SYSTEM, "git write-tree: %s", why);
    }
    char *ct_old[] = {"commit-tree", tree, "-p", (char *)old, "-m", (char *)message, NULL};
    char *ct_new[] = {"commit-tree", tree, "-m", (char *)message, NULL};
    int rc = git(dir, old ? ct_old : ct_new, env, commit, why, sizeof why, e);
    free(tree);
    if (rc != 0)
        return rc < 0 ? -1 : err_set(e, ERR_SYSTEM, "git commit-tree: %s", why);
    return 0;
}

int gitbr_check_branch(const char *branch, struct err *e)
{
    char dir[4096];
    if (make_tmpdir(dir, sizeof dir, e) < 0)
        return -1;
    /* git's own rule for a new branch's name (no HEAD, no leading '-', no "a..b"); the name
     * must come back as given (a shorthand such as @{-1} would name another branch) */
    char *chk[] = {"check-ref-format", "--branch", (char *)branch, NULL};
    char *canon = NULL;
    int rc = git(dir, chk, NULL, &canon, NULL, 0, e);
    bool same = rc == 0 && canon && strcmp(canon, branch) == 0;
    free(canon);
    remove_tree(dir);
    if (rc < 0)
        return -1;
    if (!same)
        return err_set(e, ERR_INPUT, "'%s' is not a branch name git accepts (git "
                       "check-ref-format --branch)", branch);
    return 0;
}

int gitbr_append(const char *branch, const struct gitbr_rows *files, int nfiles,
                 const char *message, int *tries, struct err *e)
{
    char dir[4096];
    if (make_tmpdir(dir, sizeof dir, e) < 0)
        return -1;
    char ref[1100];
    snprintf(ref, sizeof ref, "refs/heads/%s", branch);
    if (gitbr_check_branch(branch, e) < 0) {
        remove_tree(dir);
        return -1;
    }
    int rc;
    /* commit-tree needs a name: where git has none configured, tare signs the commit */
    char *env[5] = {NULL};
    char *mail = NULL;
    char *cfg[] = {"config", "user.email", NULL};
    if (!getenv("GIT_AUTHOR_EMAIL") && !getenv("EMAIL") &&
        git(dir, cfg, NULL, &mail, NULL, 0, e) != 0) {
        env[0] = "GIT_AUTHOR_NAME=tare";
        env[1] = "GIT_AUTHOR_EMAIL=tare@localhost";
        env[2] = "GIT_COMMITTER_NAME=tare";
        env[3] = "GIT_COMMITTER_EMAIL=tare@localhost";
    }
    free(mail);
    int status = -1;
    for (int attempt = 1; attempt <= GITBR_TRIES; attempt++) {
        if (tries)
            *tries = attempt;
        char *old = NULL, *commit = NULL, why[512] = "";
        char idx[4200];
        snprintf(idx, sizeof idx, "%s/index", dir);
        unlink(idx);
        if (branch_tip(dir, branch, &old, e) < 0 ||
            build_commit(dir, old, files, nfiles, message, env, &commit, e) < 0) {
            free(old);
            free(commit);
            break;
        }
        char *ur[] = {"update-ref", "-m", (char *)message, ref, commit, old ? old : "", NULL};
        rc = git(dir, ur, NULL, NULL, why, sizeof why, e);
        free(commit);
        if (rc < 0) {
            free(old);
            break;
        }
        if (rc == 0) {
            free(old);
            status = 0;
            break;
        }
        /* refused: another writer moved the branch (or holds its lock); start again */
        char *now = NULL;
        int br = branch_tip(dir, branch, &now, e);
        bool moved = br == 0 && (old ? !now || strcmp(old, now) != 0 : now != NULL);
        bool locked = strstr(why, "lock") != NULL;
        free(old);
        free(now);
        if (br < 0)
            break;
        if (!moved && !locked) {
            err_set(e, ERR_SYSTEM, "git update-ref %s: %s", ref, why);
            break;
        }
        struct timespec ts = {0, (long)(1000000L * (1 + rand() % 20))};
        nanosleep(&ts, NULL);
        if (attempt == GITBR_TRIES)
            err_set(e, ERR_SYSTEM, "'%s' kept moving: gave up after %d attempts", ref,
                    GITBR_TRIES);
    }
    remove_tree(dir);
    return status;
}

long gitbr_append_spec(const char *spec, const char *text, size_t len, struct err *e)
{
    const char *colon = strchr(spec, ':');
    char branch[1024], msg[1200];
    snprintf(branch, sizeof branch, "%.*s", (int)(colon - spec), spec);
    snprintf(msg, sizeof msg, "tare history append %s", colon + 1);
    struct gitbr_rows f = {.path = colon + 1, .text = text, .len = len};
    if (gitbr_append(branch, &f, 1, msg, NULL, e) < 0)
        return -1;
    long rows = 0;
    for (size_t i = 0; i < len; i++)
        rows += text[i] == '\n';
    return rows > 0 ? rows - 1 : 0;
}
