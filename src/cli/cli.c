/* cli.c: errors, usage, option parsing and signal handling shared by the commands. */
#define _GNU_SOURCE
#include "cli/cli.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/proc.h"

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tare%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_exit_for(const struct err *e)
{
    switch (e->kind) {
    case ERR_MEASURE:
    case ERR_UNSUPPORTED:
        return EXIT_FAIL;
    case ERR_INTERRUPTED:
        return cli_interrupted_status();
    default:
        return EXIT_USAGE;
    }
}

int cli_fail(const char *cmd, const struct err *e)
{
    cli_error(cmd, "%s", e->msg[0] ? e->msg : "unknown error");
    return cli_exit_for(e);
}

void cli_print_usage(FILE *f, const char *usage)
{
    const char *line = usage;
    bool first = true;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        fprintf(f, "%s%.*s\n", first ? "usage: " : "   or: ", (int)n, line);
        first = false;
        line += n + (end ? 1 : 0);
    }
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tare %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    cli_print_usage(stderr, usage);
    fprintf(stderr, "Try 'tare %s --help' for the options.\n", cmd);
    return EXIT_USAGE;
}

bool cli_parse_count(const char *cmd, const char *usage, const char *opt, const char *arg,
                     long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < min || v > max) {
        cli_usage_error(cmd, usage, "bad value '%s' for %s: want a whole number from %ld to %ld",
                        arg, opt, min, max);
        return false;
    }
    *out = v;
    return true;
}

bool cli_parse_percent(const char *cmd, const char *usage, const char *opt, const char *arg,
                       double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end != arg && *end == '%')
        end++;
    if (errno || end == arg || *end || !(v > 0) || v >= 1000) {
        cli_usage_error(cmd, usage, "bad value '%s' for %s: want a percentage above 0", arg, opt);
        return false;
    }
    *out = v / 100;
    return true;
}

bool cli_parse_seconds(const char *cmd, const char *usage, const char *opt, const char *arg,
                       double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    double scale = 1;
    if (end != arg) {
        if (strcmp(end, "ms") == 0) scale = 1e-3, end += 2;
        else if (strcmp(end, "s") == 0) end += 1;
        else if (strcmp(end, "m") == 0) scale = 60, end += 1;
    }
    if (errno || end == arg || *end || !(v > 0) || v * scale > 1e7) {
        cli_usage_error(cmd, usage, "bad value '%s' for %s: want a positive number of seconds "
                        "(suffix ms, s or m allowed)", arg, opt);
        return false;
    }
    *out = v * scale;
    return true;
}

bool cli_parse_format(const char *cmd, const char *usage, const char *arg, int allowed,
                      enum out_format *out)
{
    static const struct { const char *name; enum out_format f; } names[] = {
        {"text", FMT_TEXT}, {"tsv", FMT_TSV}, {"json", FMT_JSON},
        {"csv", FMT_CSV}, {"markdown", FMT_MARKDOWN},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(arg, names[i].name) == 0 && (allowed & names[i].f)) {
            *out = names[i].f;
            return true;
        }
    char list[128] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (allowed & names[i].f) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", names[i].name);
        }
    cli_usage_error(cmd, usage, "unknown format '%s': want one of %s", arg, list);
    return false;
}

/* Lines that name why valgrind stopped a program, printed even when they are not among
 * the last few: its SIGILL report ends some twenty lines after "unhandled instruction". */
static const char *const cause_marks[] = {
    "unhandled instruction bytes", "Unrecognised instruction",
    "Process terminating with default action", "the 'impossible' happened",
    "out of memory",
};

static void print_causes(const char *from, const char *to)
{
    for (const char *q = from; q < to;) {
        const char *nl = memchr(q, '\n', to - q);
        int len = nl ? (int)(nl - q) : (int)(to - q);
        for (size_t k = 0; k < sizeof cause_marks / sizeof cause_marks[0]; k++)
            if (memmem(q, len, cause_marks[k], strlen(cause_marks[k]))) {
                fprintf(stderr, "  | %.*s\n", len, q);
                break;
            }
        q += len + (nl ? 1 : 0);
    }
}

void cli_print_stderr_tail(const char *tail)
{
    /* The last six lines: enough to see why, short enough to read; above them only the
     * lines that name a cause, then "...". */
    const char *p = tail + strlen(tail);
    int lines = 0;
    while (p > tail && lines < 6)
        if (*--p == '\n' && p[1])
            lines++;
    if (*p == '\n')
        p++;
    if (p > tail) {
        print_causes(tail, p);
        fputs("  | ...\n", stderr);
    }
    for (const char *q = p; *q;) {
        const char *nl = strchr(q, '\n');
        int len = nl ? (int)(nl - q) : (int)strlen(q);
        fprintf(stderr, "  | %.*s\n", len, q);
        q += len + (nl ? 1 : 0);
    }
}

enum cli_style cli_style = CLI_STYLE_AUTO;

bool cli_progress(void)
{
    if (cli_style == CLI_STYLE_FULL || cli_style == CLI_STYLE_NOCOLOR)
        return true;
    if (cli_style != CLI_STYLE_AUTO)
        return false;
    return isatty(STDERR_FILENO);
}

bool cli_use_color(FILE *f)
{
    if (cli_style == CLI_STYLE_FULL || cli_style == CLI_STYLE_COLOR)
        return true;
    if (cli_style != CLI_STYLE_AUTO)
        return false;
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(fileno(f));
}

int cli_interrupted_status(void)
{
    int sig = proc_interrupt_signal();
    return 128 + (sig > 0 ? sig : SIGINT);
}

/* Temporaries to remove on a signal: slots the handler reads, set and cleared atomically. */
#define CLI_MAX_TMP 8
static const char *volatile tmp_paths[CLI_MAX_TMP];

bool cli_tmp_add(const char *path)
{
    for (int i = 0; i < CLI_MAX_TMP; i++) {
        const char *none = NULL;
        if (__atomic_compare_exchange_n((const char **)&tmp_paths[i], &none, path, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return true;
    }
    return false;
}

void cli_tmp_forget(const char *path)
{
    for (int i = 0; i < CLI_MAX_TMP; i++)
        if (tmp_paths[i] == path)
            __atomic_store_n((const char **)&tmp_paths[i], NULL, __ATOMIC_SEQ_CST);
}

static void on_signal(int sig)
{
    /* Async-signal-safe: marks the flag and kills the measured process groups; errno kept
     * for the code the signal interrupted (kill() may set it). */
    int saved = errno;
    proc_interrupt(sig);
    errno = saved;
}

static void on_signal_exit(int sig)
{
    /* Async-signal-safe too: the last registered first (a directory after its files). */
    proc_interrupt(sig);
    for (int i = CLI_MAX_TMP - 1; i >= 0; i--) {
        const char *p = tmp_paths[i];
        if (p && unlink(p) < 0)
            rmdir(p);
    }
    _exit(128 + sig);
}

static void install(void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigfillset(&sa.sa_mask);   /* one handler at a time: a second signal waits for the first */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

void cli_install_signal_handlers(void)
{
    install(on_signal);
}

void cli_install_exit_on_signal(void)
{
    install(on_signal_exit);
}

/* TARE_ALLOC_LIB, else beside the tare binary, else ../lib/tare/ from it. */
int cli_find_alloc_lib(char *out, size_t n, struct err *e)
{
    const char *env = getenv("TARE_ALLOC_LIB");
    if (env && env[0]) {
        if (env[0] != '/' ? !realpath(env, out) : (size_t)snprintf(out, n, "%s", env) >= n)
            return err_errno(e, ERR_INPUT, errno, "TARE_ALLOC_LIB '%s'", env);
        if (access(out, R_OK) != 0)
            return err_errno(e, ERR_INPUT, errno, "TARE_ALLOC_LIB '%s'", env);
        return 0;
    }
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len < 0)
        return err_errno(e, ERR_SYSTEM, errno, "cannot find tare's own path");
    self[len] = '\0';
    const char *dir = dirname(self);
    static const char *const rel[] = {"/libtare-alloc.so", "/../lib/tare/libtare-alloc.so"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char p[PATH_MAX];
        if ((size_t)snprintf(p, sizeof p, "%s%s", dir, rel[i]) < sizeof p && access(p, R_OK) == 0 &&
            realpath(p, out))
            return 0;
    }
    return err_set(e, ERR_UNSUPPORTED,
                   "cannot find libtare-alloc.so beside '%s' or in '%s/../lib/tare'; "
                   "set TARE_ALLOC_LIB",
                   self, dir);
}
