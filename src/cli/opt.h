/* opt.h: a command's options as data, one table entry per option (git's parse-options is the
 * model): its letter, long name, argument, help and where its value goes. opt_parse reads
 * argv with getopt_long from the table and opt_help prints --help's option lines from it, so
 * what a command accepts and what its --help says are one list. */
#ifndef TARE_OPT_H
#define TARE_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
    OPT_T_END,        /* the end of a table */
    OPT_T_GROUP,      /* a heading line of --help (help), no option */
    OPT_T_HELP,       /* -h, --help: the usage, the command's paragraph and the options */
    OPT_T_BOOL,       /* *(bool *)value = true */
    OPT_T_LONG,       /* a whole number from min to max into *(long *)value */
    OPT_T_INT,        /* the same into *(int *)value */
    OPT_T_SECONDS,    /* seconds above 0 ("2", "500ms", "1m") into *(double *)value */
    OPT_T_STRING,     /* *(const char **)value = the argument (the last one given wins) */
    OPT_T_LIST,       /* appends the argument to the array value (room for every argument),
                         *(int *)count counting: the option is repeatable */
    OPT_T_FORMAT,     /* --format: one of the formats of the mask min into *(enum out_format *) */
    OPT_T_CALLBACK,   /* cb(entry, argument, parser): 0, or -1 after printing the error */
};

struct opt;
struct opt_parser;
typedef int opt_cb(const struct opt *o, const char *arg, const struct opt_parser *p);

struct opt {
    enum opt_type type;
    int short_name;           /* the letter, or 0 for a long option only */
    const char *long_name;    /* without "--", or NULL for a letter only */
    void *value;              /* where the value goes (the callback's own pointer) */
    const char *argh;         /* the argument's name in --help ("N", "FILE"); NULL: none */
    const char *help;         /* --help's text, lines split at '\n'; NULL: not listed */
    long min, max;            /* OPT_T_LONG, OPT_T_INT: the range; OPT_T_FORMAT: min the mask */
    opt_cb *cb;               /* OPT_T_CALLBACK */
    void *count;              /* OPT_T_LIST: its int count */
    intptr_t defval;          /* for the callback: which hook, ... */
    bool *given;              /* set true when the option is given (NULL: not asked) */
    const char *alias;        /* a second long name with the same meaning, said in help */
    bool words;               /* argh names the words after the option, which the callback
                                 takes itself (from p->argv[optind]): getopt takes none */
};

/* The entries. The trailing arguments, if any, set more members: `.given = &x`. */
#define OPT_END() {.type = OPT_T_END}
#define OPT_GROUP(h) {.type = OPT_T_GROUP, .help = (h)}
#define OPT_HELP() \
    {.type = OPT_T_HELP, .short_name = 'h', .long_name = "help", .help = "show this help"}
#define OPT_BOOL(s, l, v, h, ...) \
    {.type = OPT_T_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h), \
     __VA_ARGS__}
#define OPT_LONG(s, l, v, a, lo, hi, h, ...) \
    {.type = OPT_T_LONG, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
     .min = (lo), .max = (hi), .help = (h), __VA_ARGS__}
#define OPT_INT(s, l, v, a, lo, hi, h, ...) \
    {.type = OPT_T_INT, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
     .min = (lo), .max = (hi), .help = (h), __VA_ARGS__}
#define OPT_SECONDS(s, l, v, a, h, ...) \
    {.type = OPT_T_SECONDS, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
     .help = (h), __VA_ARGS__}
#define OPT_STRING(s, l, v, a, h, ...) \
    {.type = OPT_T_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
     .help = (h), __VA_ARGS__}
#define OPT_LIST(s, l, v, n, a, h, ...) \
    {.type = OPT_T_LIST, .short_name = (s), .long_name = (l), .value = (v), .count = (n), \
     .argh = (a), .help = (h), __VA_ARGS__}
/* -f, --format FORMAT, its help made from the mask (enum out_format, cli.h); text first. */
#define OPT_FORMAT(v, mask, ...) \
    {.type = OPT_T_FORMAT, .short_name = 'f', .long_name = "format", .value = (v), \
     .argh = "FORMAT", .min = (mask), __VA_ARGS__}
#define OPT_CALLBACK(s, l, v, a, h, fn, ...) \
    {.type = OPT_T_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
     .help = (h), .cb = (fn), __VA_ARGS__}

/* One command's reading of its arguments. */
struct opt_parser {
    const char *cmd;          /* "wall": for messages */
    const char *usage;        /* its usage lines (the man page SYNOPSIS) */
    const char *about;        /* --help's paragraph between the usage and the options, or NULL */
    const char *after;        /* --help's lines after the options, or NULL */
    int argc;                 /* getopt reads argv[1..argc): a command's words before "--" */
    char **argv;
    bool in_order;            /* the options stop at the first operand (a command follows) */
    const struct opt *opts;   /* set by opt_parse */
};

/*
 * Reads the options of p->argv[1..p->argc) (getopt_long: options and operands in any order;
 * operands from optind on after it) into the table's values, in the order given.
 * 0: go on; 1: --help was printed (exit 0); -1: bad usage, the error and the usage printed
 * (exit 2). opt_status turns 1 and -1 into those exit statuses.
 */
int opt_parse(struct opt_parser *p, const struct opt *opts);
int opt_status(int rc);
/* The option lines of --help, from the table. */
void opt_help(FILE *f, const struct opt *opts);
/* "--runs", or "-N" for a letter only: an entry's name for messages. */
const char *opt_name(const struct opt *o, char *buf, size_t n);

#endif
