/* gitwt.c: a temporary git worktree of a revision, so an A/B never stashes the user's work. */
#define _GNU_SOURCE
#include "core/git/gitwt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util/proc.h"

extern char **environ;

/* The last line of git's stderr, for messages: "fatal: not a git repository ...". */
static const char *last_line(char *tail)
{
    size_t n = strlen(tail);
    while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
        tail[--n] = '\0';
    char *nl = strrchr(tail, '\n');
    return nl ? nl + 1 : tail;
}

/* Runs git with argv in cwd (its stdin from in, or /dev/null); its stdout (if out) into a
 * string, trailing newline kept. Returns the exit status (0 ok, >0 git's), or -1 when it
 * could not run, with e set. */
static int git_run_in(const char *cwd, char *const *argv, const char *in, char **out, char *why,
                      size_t whyn, struct err *e)
{
    char path[] = "/tmp/tare-git-XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char *pathp = path;
    char buf[4096];
    if (tmpdir && *tmpdir) {
        snprintf(buf, sizeof buf, "%s/tare-git-XXXXXX", tmpdir);
        pathp = buf;
    }
    int fd = -1;
    if (out) {
        fd = mkstemp(pathp);
        if (fd < 0)
            return err_errno(e, ERR_SYSTEM, errno, "cannot make a temporary file in '%s'",
                             tmpdir && *tmpdir ? tmpdir : "/tmp");
    }
    struct proc_opts o = {.argv = argv, .cwd = cwd, .pin_cpu = -1, .stdin_path = in,
                          .stdout_path = out ? pathp : NULL};
    struct proc_result r;
    int rc = proc_run(&o, &r, e);
    if (rc == 0 && (r.status == PROC_INTERRUPTED || proc_interrupted()))
        rc = err_set(e, ERR_INTERRUPTED, "interrupted");
    if (rc == 0 && r.status != PROC_OK && r.status != PROC_EXITED) {
        char d[128];
        rc = err_set(e, ERR_SYSTEM, "git %s %s", argv[1], proc_describe(&r, 0, d, sizeof d));
    }
    if (rc == 0 && out) {
        FILE *f = fdopen(fd, "r");
        size_t cap = 0;
        *out = NULL;
        if (!f || getdelim(out, &cap, '\0', f) < 0) {
            free(*out);
            *out = strdup("");
        }
        if (f)
            fclose(f);
        else
            close(fd);
        fd = -1;
        if (!*out)
            rc = err_set(e, ERR_SYSTEM, "out of memory");
    }
    if (fd >= 0)
        close(fd);
    if (out)
        unlink(pathp);
    if (rc < 0)
        return -1;
    if (why)
        snprintf(why, whyn, "%s", last_line(r.stderr_tail));
    return r.status == PROC_OK ? 0 : r.exit_code ? r.exit_code : 1;
}

static int git_run(const char *cwd, char *const *argv, char **out, char *why, size_t whyn,
                   struct err *e)
{
    return git_run_in(cwd, argv, NULL, out, why, whyn, e);
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

int gitwt_head(const char *dir, char **sha, struct err *e)
{
    char *argv[] = {"git", "rev-parse", "HEAD", NULL};
    char why[512] = "", *out = NULL;
    *sha = NULL;
    int rc = git_run(dir, argv, &out, why, sizeof why, e);
    if (rc < 0)
        return -1;
    if (rc == 0)
        out[strcspn(out, "\n")] = '\0';
    if (rc > 0 || !out[0]) {
        free(out);
        return err_set(e, ERR_INPUT, "git rev-parse HEAD failed in '%s' (git says: %s)", dir,
                       why[0] ? why : "nothing");
    }
    *sha = out;
    return 0;
}

int gitwt_open(struct gitwt *w, const char *rev, struct err *e)
{
    return gitwt_open_in(w, NULL, rev, e);
}

int gitwt_open_in(struct gitwt *w, const char *dir, const char *rev, struct err *e)
{
    memset(w, 0, sizeof *w);
    char why[512], *out = NULL;
    char *top_argv[] = {"git", "rev-parse", "--show-toplevel", "--show-prefix", NULL};
    int rc = git_run(dir, top_argv, &out, why, sizeof why, e);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        free(out);
        return err_set(e, ERR_INPUT, "not in a git working tree (git says: %s)",
                       why[0] ? why : "nothing");
    }
    char *nl = strchr(out, '\n');
    if (!nl) {
        free(out);
        return err_set(e, ERR_SYSTEM, "git rev-parse printed no top-level directory");
    }
    *nl = '\0';
    w->top = strdup(out);
    w->prefix = strdup(nl + 1);
    free(out);
    if (!w->top || !w->prefix)
        goto nomem;
    chomp(w->prefix);
    w->rev = strdup(rev);
    char *spec = NULL;
    if (!w->rev || asprintf(&spec, "%s^{commit}", rev) < 0)
        goto nomem;
    char *rev_argv[] = {"git", "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL};
    rc = git_run(w->top, rev_argv, &out, why, sizeof why, e);
    free(spec);
    if (rc < 0) {
        gitwt_free(w);
        return -1;
    }
    if (rc > 0 || rev[0] == '-') {
        free(out);
        gitwt_free(w);
        return err_set(e, ERR_INPUT, "unknown revision '%s': it names no commit here", rev);
    }
    chomp(out);
    w->commit = out;
    return 0;
nomem:
    gitwt_free(w);
    return err_set(e, ERR_SYSTEM, "out of memory");
}

int gitwt_add(struct gitwt *w, struct err *e)
{
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    if (asprintf(&w->tmp, "%s/tare-ab-XXXXXX", tmpdir) < 0) {
        w->tmp = NULL;
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    if (!mkdtemp(w->tmp)) {
        err_errno(e, ERR_SYSTEM, errno, "cannot make a temporary directory in '%s'", tmpdir);
        free(w->tmp);
        w->tmp = NULL;
        return -1;
    }
    if (asprintf(&w->dir, "%s/base", w->tmp) < 0) {
        w->dir = NULL;
        gitwt_remove(w, NULL);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    if (asprintf(&w->cwd, "%s/%s", w->dir, w->prefix) < 0) {
        w->cwd = NULL;
        gitwt_remove(w, NULL);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    char why[512];
    char *argv[] = {"git", "worktree", "add", "--detach", "--quiet", w->dir, w->commit, NULL};
    int rc = git_run(w->top, argv, NULL, why, sizeof why, e);
    if (rc != 0) {
        if (rc > 0)
            err_set(e, ERR_SYSTEM, "cannot make a worktree of '%s' in '%s' (git says: %s)",
                    w->rev, w->dir, why);
        struct err ignored;
        gitwt_remove(w, &ignored);
        return -1;
    }
    return 0;
}

/* Spawns git in its own process group and waits, whatever the interrupt flag says: the
 * cleanup must run after Ctrl-C, and a second Ctrl-C must not cut it short. */
static int git_cleanup(const char *top, char *const *argv)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addchdir_np(&fa, top);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

int gitwt_remove(struct gitwt *w, struct err *e)
{
    if (!w->tmp)
        return 0;
    if (w->dir && w->top) {
        char *rm_argv[] = {"git", "worktree", "remove", "--force", "--force", w->dir, NULL};
        git_cleanup(w->top, rm_argv);
    }
    /* Whatever git left (an interrupted add, say), then git's record of it. */
    struct stat st;
    if (lstat(w->tmp, &st) == 0)
        nftw(w->tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (w->top) {
        char *prune_argv[] = {"git", "worktree", "prune", NULL};
        git_cleanup(w->top, prune_argv);
    }
    int rc = 0;
    if (lstat(w->tmp, &st) == 0)
        rc = err_set(e, ERR_SYSTEM, "cannot remove the temporary worktree '%s'", w->tmp);
    free(w->tmp);
    free(w->dir);
    free(w->cwd);
    w->tmp = w->dir = w->cwd = NULL;
    return rc;
}

void gitwt_free(struct gitwt *w)
{
    free(w->top);
    free(w->prefix);
    free(w->rev);
    free(w->commit);
    free(w->tmp);
    free(w->dir);
    free(w->cwd);
    memset(w, 0, sizeof *w);
}

int gitwt_git(const struct gitwt *w, char *const *argv, char **out, char *why, size_t whyn,
              struct err *e)
{
    return git_run(w->top, argv, out, why, whyn, e);
}

int gitwt_checkout(struct gitwt *w, const char *commit, struct err *e)
{
    char why[512];
    char *argv[] = {"git", "checkout", "--quiet", "--detach", "--force", (char *)commit, NULL};
    int rc = git_run(w->dir, argv, NULL, why, sizeof why, e);
    if (rc > 0)
        return err_set(e, ERR_SYSTEM, "cannot check out %.12s in '%s' (git says: %s)", commit,
                       w->dir, why);
    return rc < 0 ? -1 : 0;
}

/* Whether dir or a directory above it has a .git (or GIT_DIR is set): where not, git would
 * find no repository either, and a reader of history files need not start it to learn so. */
static bool maybe_in_repo(const char *dir)
{
    const char *gd = getenv("GIT_DIR");
    char path[PATH_MAX];
    if ((gd && *gd) || !realpath(dir ? dir : ".", path))
        return true;
    for (;;) {
        size_t n = strlen(path);
        struct stat st;
        if (n + 6 >= sizeof path)
            return true;
        snprintf(path + n, sizeof path - n, "%s", n > 1 ? "/.git" : ".git");
        if (stat(path, &st) == 0)
            return true;
        path[n] = '\0';
        char *slash = strrchr(path, '/');
        if (!slash || n == 1)
            return false;
        slash[slash == path ? 1 : 0] = '\0';
    }
}

int gitwt_toplevel(const char *dir, char **top, struct err *e)
{
    *top = NULL;
    if (!maybe_in_repo(dir))
        return 1;
    char *argv[] = {"git", "rev-parse", "--show-toplevel", "--verify", "--quiet", "HEAD", NULL};
    char why[512], *out = NULL;
    *top = NULL;
    int rc = git_run(dir, argv, &out, why, sizeof why, e);
    if (rc != 0) {
        free(out);
        return rc < 0 ? -1 : 1;
    }
    out[strcspn(out, "\n")] = '\0';   /* the top; the hash of HEAD follows */
    if (!out[0]) {
        free(out);
        return 1;
    }
    *top = out;
    return 0;
}

/* Splits one "HASH<US>SECONDS<US>SUBJECT" line into l's next commit, its date written in
 * UTC into when (21 bytes). */
static void log_line(struct gitwt_log *l, char *line, char *when)
{
    char *f1 = strchr(line, '\x1f'), *f2 = f1 ? strchr(f1 + 1, '\x1f') : NULL;
    if (!f2)
        return;
    *f1 = *f2 = '\0';
    time_t t = (time_t)strtoll(f1 + 1, NULL, 10);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(when, 21, "%Y-%m-%dT%H:%M:%SZ", &tm))
        when[0] = '\0';
    l->hash[l->n] = line;
    l->date[l->n] = when;
    l->subject[l->n] = f2 + 1;
    l->n++;
}

int gitwt_log(const char *dir, char *const *args, struct gitwt_log *out, struct err *e)
{
    return gitwt_log_in(dir, args, NULL, out, e);
}

int gitwt_log_in(const char *dir, char *const *args, const char *in, struct gitwt_log *out,
                 struct err *e)
{
    memset(out, 0, sizeof *out);
    char *argv[64] = {"git", "log", "--format=%H%x1f%ct%x1f%s"};
    int na = 3;
    for (; args[na - 3] && na < 63; na++)
        argv[na] = args[na - 3];
    argv[na] = NULL;
    char why[512];
    int rc = git_run_in(dir, argv, in, &out->buf, why, sizeof why, e);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        free(out->buf);
        out->buf = NULL;
        return err_set(e, ERR_INPUT, "git log failed in '%s' (git says: %s)", dir ? dir : ".",
                       why[0] ? why : "nothing");
    }
    size_t lines = 1;
    for (const char *p = out->buf; *p; p++)
        lines += *p == '\n';
    out->hash = malloc(lines * sizeof *out->hash);
    out->date = malloc(lines * sizeof *out->date);
    out->subject = malloc(lines * sizeof *out->subject);
    out->dates = malloc(lines * 21);
    if (!out->hash || !out->date || !out->subject || !out->dates) {
        gitwt_log_free(out);
        return err_set(e, ERR_SYSTEM, "out of memory");
    }
    for (char *line = out->buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        log_line(out, line, out->dates + 21 * out->n);
    }
    return 0;
}

void gitwt_log_free(struct gitwt_log *l)
{
    free(l->hash);
    free(l->date);
    free(l->subject);
    free(l->dates);
    free(l->buf);
    memset(l, 0, sizeof *l);
}

int gitwt_build(struct gitwt *w, const char *commit, const char *build, double timeout_s,
                char *why, size_t whyn, struct err *e)
{
    if (proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    if (gitwt_checkout(w, commit, e) < 0)
        return -1;
    if (!build)
        return 0;
    char *argv[] = {"/bin/sh", "-c", (char *)build, NULL};
    struct proc_opts o = {.argv = argv, .cwd = w->cwd, .pin_cpu = -1,
                          .stdout_path = "/dev/null", .timeout_s = timeout_s};
    struct proc_result r;
    if (proc_run(&o, &r, e) < 0)
        return -1;
    if (r.status == PROC_INTERRUPTED || proc_interrupted())
        return err_set(e, ERR_INTERRUPTED, "interrupted");
    if (r.status == PROC_OK)
        return 0;
    /* the last line of its stderr says most: "prog.c:7: error: ..." */
    char d[128];
    const char *last = last_line(r.stderr_tail);
    snprintf(why, whyn, "the build %s%s%s%s", proc_describe(&r, timeout_s, d, sizeof d),
             *last ? " (stderr: " : "", last, *last ? ")" : "");
    return 1;
}
