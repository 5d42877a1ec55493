/* cli.h: what every command file shares: the command table entry, errors, options, output. */
#ifndef TARE_CLI_H
#define TARE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "core/util/err.h"

/* Exit statuses, named as the guide asks. */
enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,     /* a measurement failed */
    EXIT_USAGE = 2,    /* bad usage or bad input */
    EXIT_REGRESSION = 3,   /* a regression was found (or a budget exceeded): CI tells it apart */
    EXIT_INTERRUPTED = 130,   /* 128 + the signal: 130 after SIGINT, 143 after SIGTERM */
};

struct cli_command {
    const char *name;
    const char *summary;
    const char *usage;             /* the man page SYNOPSIS, one form per line */
    int (*run)(int argc, char **argv);
};

extern const struct cli_command cli_commands[];
extern const int cli_command_count;

/* Output formats a command may accept; each command says which. */
enum out_format { FMT_TEXT = 1, FMT_TSV = 2, FMT_JSON = 4, FMT_CSV = 8, FMT_MARKDOWN = 16 };

/* "tare CMD: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports e as above and returns the exit status its kind calls for. */
int cli_fail(const char *cmd, const struct err *e);
int cli_exit_for(const struct err *e);
/* Prints the usage lines ("usage: ...", "   or: ...") to f. */
void cli_print_usage(FILE *f, const char *usage);
/* "tare CMD: <message>" then the usage, on stderr; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Option value parsers: false (and a usage error printed) on a bad value. */
bool cli_parse_count(const char *cmd, const char *usage, const char *opt, const char *arg,
                     long min, long max, long *out);
bool cli_parse_seconds(const char *cmd, const char *usage, const char *opt, const char *arg,
                       double *out);
bool cli_parse_format(const char *cmd, const char *usage, const char *arg, int allowed,
                      enum out_format *out);
/* A percentage above 0 and under 1000, "2" or "2%", as a fraction (0.02). */
bool cli_parse_percent(const char *cmd, const char *usage, const char *opt, const char *arg,
                       double *out);

/* libtare-alloc.so: $TARE_ALLOC_LIB, else beside the tare binary, else ../lib/tare/ from it.
 * ERR_UNSUPPORTED when it is nowhere. */
int cli_find_alloc_lib(char *out, size_t n, struct err *e);

/* Prints the last lines of a failed run's stderr, indented as quoted output. */
void cli_print_stderr_tail(const char *tail);

/* hyperfine's --style: auto (colour and a progress line on a terminal), basic (neither),
 * full (both, terminal or not), nocolor (the progress line), color (the colour), none
 * (neither, and nothing on standard output). */
enum cli_style { CLI_STYLE_AUTO, CLI_STYLE_BASIC, CLI_STYLE_FULL, CLI_STYLE_NOCOLOR,
                 CLI_STYLE_COLOR, CLI_STYLE_NONE };
extern enum cli_style cli_style;
/* Colour only on a terminal and never with NO_COLOR set (unless --style asks for it). */
bool cli_use_color(FILE *f);
/* A progress line on stderr: on a terminal, unless --style says otherwise. */
bool cli_progress(void);

/*
 * Signals (SIGINT, SIGTERM, SIGHUP), in one of two ways:
 * - measuring commands: the handler kills the measured process groups and sets the flag
 *   (proc_interrupted()) that their loops check; they clean up, say "interrupted" and exit
 *   with cli_interrupted_status();
 * - commands that only read and write files: the handler removes the files registered with
 *   cli_tmp_add() (temporaries not yet renamed into place) and exits at once, 128 + signal.
 */
void cli_install_signal_handlers(void);
void cli_install_exit_on_signal(void);
/* 128 + the signal that interrupted tare: 130 for SIGINT, 143 for SIGTERM. */
int cli_interrupted_status(void);
/* A temporary file (or an empty directory) to remove if a signal ends tare; the path is
 * borrowed until cli_tmp_forget(). At most 8 at once (false if full). */
bool cli_tmp_add(const char *path);
void cli_tmp_forget(const char *path);

#endif
