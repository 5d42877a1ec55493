/* opt.c: reading a command's options from its table (opt.h), and --help's lines from it. */
#define _GNU_SOURCE
#include "cli/opt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* getopt_long's values of long options without a letter: clear of every letter. */
#define OPT_VAL_BASE 0x100
/* --help's columns: the option at 2 (a long one alone at 6), its text at 26 (on the next
 * line when the option leaves no space before it). */
#define OPT_HELP_COL 26

const char *opt_name(const struct opt *o, char *buf, size_t n)
{
    if (o->long_name)
        snprintf(buf, n, "--%s", o->long_name);
    else
        snprintf(buf, n, "-%c", o->short_name);
    return buf;
}

int opt_status(int rc)
{
    return rc > 0 ? EXIT_OK : rc < 0 ? EXIT_USAGE : EXIT_OK;
}

static bool is_option(const struct opt *o)
{
    return o->type != OPT_T_GROUP && o->type != OPT_T_END;
}

static bool takes_arg(const struct opt *o)
{
    return o->argh != NULL && !o->words;
}

/* A table that names a letter or a long name twice would take one option for another: the
 * usage test runs every command's --help, so a clash cannot reach a release. */
static bool table_ok(const struct opt_parser *p, const struct opt *opts)
{
    for (const struct opt *a = opts; a->type != OPT_T_END; a++)
        for (const struct opt *b = a + 1; is_option(a) && b->type != OPT_T_END; b++) {
            if (!is_option(b))
                continue;
            const char *names_a[2] = {a->long_name, a->alias};
            const char *names_b[2] = {b->long_name, b->alias};
            bool clash = a->short_name && a->short_name == b->short_name;
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    clash |= names_a[i] && names_b[j] && strcmp(names_a[i], names_b[j]) == 0;
            if (clash) {
                char n1[64], n2[64];
                cli_error(p->cmd, "internal error: options %s and %s share a name",
                          opt_name(a, n1, sizeof n1), opt_name(b, n2, sizeof n2));
                return false;
            }
        }
    return true;
}

static const char *format_help(long mask, char *buf, size_t n)
{
    static const char *const names[] = {"text (default)", "tsv", "json", "csv", "markdown"};
    int total = 0, k = 0;
    for (int i = 0; i < 5; i++)
        total += (mask >> i) & 1;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < 5; i++) {
        if (!((mask >> i) & 1))
            continue;
        k++;
        const char *sep = k == 1 ? "" : k == total ? " or " : ", ";
        used += snprintf(buf + used, used < n ? n - used : 0, "%s%s", sep, names[i]);
    }
    return buf;
}

static void help_line(FILE *f, const struct opt *o)
{
    char head[128], fmt[96];
    int len = snprintf(head, sizeof head, "%s%s%s%s%s%s%s", o->short_name ? "  -" : "      ",
                       o->short_name ? (char[2]){(char)o->short_name, 0} : "",
                       o->short_name && o->long_name ? ", " : "", o->long_name ? "--" : "",
                       o->long_name ? o->long_name : "", o->argh ? " " : "",
                       o->argh ? o->argh : "");
    const char *text = o->type == OPT_T_FORMAT && !o->help ? format_help(o->min, fmt, sizeof fmt)
                                                           : o->help;
    if (len + 1 <= OPT_HELP_COL)
        fprintf(f, "%-*s", OPT_HELP_COL, head);
    else
        fprintf(f, "%s\n%*s", head, OPT_HELP_COL, "");
    for (const char *s = text; *s;) {
        size_t n = strcspn(s, "\n");
        fprintf(f, "%.*s\n", (int)n, s);
        s += n;
        if (*s == '\n' && *++s)
            fprintf(f, "%*s", OPT_HELP_COL, "");
    }
}

void opt_help(FILE *f, const struct opt *opts)
{
    for (const struct opt *o = opts; o->type != OPT_T_END; o++) {
        if (o->type == OPT_T_GROUP)
            fprintf(f, "%s\n", o->help);
        else if (o->help || o->type == OPT_T_FORMAT)
            help_line(f, o);
    }
}

static void print_help(const struct opt_parser *p)
{
    cli_print_usage(stdout, p->usage);
    if (p->about)
        printf("\n%s\n", p->about);
    printf("\n");
    opt_help(stdout, p->opts);
    if (p->after)
        printf("%s\n", p->after);
}

/* One option's value into its place: 0, 1 after --help, or -1 after the error. */
static int take(const struct opt_parser *p, const struct opt *o, const char *arg)
{
    char name[64];
    opt_name(o, name, sizeof name);
    long v;
    bool ok = true;
    switch (o->type) {
    case OPT_T_HELP:
        print_help(p);
        return 1;
    case OPT_T_BOOL: *(bool *)o->value = true; break;
    case OPT_T_LONG:
        ok = cli_parse_count(p->cmd, p->usage, name, arg, o->min, o->max, o->value);
        break;
    case OPT_T_INT:
        if ((ok = cli_parse_count(p->cmd, p->usage, name, arg, o->min, o->max, &v)))
            *(int *)o->value = (int)v;
        break;
    case OPT_T_SECONDS: ok = cli_parse_seconds(p->cmd, p->usage, name, arg, o->value); break;
    case OPT_T_STRING: *(const char **)o->value = arg; break;
    case OPT_T_LIST: ((const char **)o->value)[(*(int *)o->count)++] = arg; break;
    case OPT_T_FORMAT: ok = cli_parse_format(p->cmd, p->usage, arg, (int)o->min, o->value); break;
    case OPT_T_CALLBACK: ok = o->cb(o, arg, p) == 0; break;
    default: break;
    }
    if (!ok)
        return -1;
    if (o->given)
        *o->given = true;
    return 0;
}

int opt_parse(struct opt_parser *p, const struct opt *opts)
{
    p->opts = opts;
    if (!table_ok(p, opts))
        return -1;
    int n = 0;
    for (const struct opt *o = opts; o->type != OPT_T_END; o++)
        n++;
    /* Every option once, an alias a second time; the letters with ':' after those that take
     * an argument. */
    struct option *lo = calloc(2 * (size_t)n + 1, sizeof *lo);
    char *so = calloc(2 * (size_t)n + 2, 1);
    int rc = -1;
    if (!lo || !so) {
        cli_error(p->cmd, "out of memory");
        goto done;
    }
    int nl = 0, ns = 0;
    if (p->in_order)
        so[ns++] = '+';
    for (int i = 0; i < n; i++) {
        const struct opt *o = &opts[i];
        if (!is_option(o))
            continue;
        int val = o->short_name ? o->short_name : OPT_VAL_BASE + i;
        int has = takes_arg(o) ? required_argument : no_argument;
        if (o->long_name)
            lo[nl++] = (struct option){o->long_name, has, NULL, val};
        if (o->alias)
            lo[nl++] = (struct option){o->alias, has, NULL, val};
        if (o->short_name) {
            so[ns++] = (char)o->short_name;
            if (takes_arg(o))
                so[ns++] = ':';
        }
    }
    optind = 1;
    int c;
    rc = 0;
    while (rc == 0 && (c = getopt_long(p->argc, p->argv, so, lo, NULL)) != -1) {
        const struct opt *o = NULL;
        if (c >= OPT_VAL_BASE && c < OPT_VAL_BASE + n)
            o = &opts[c - OPT_VAL_BASE];
        for (int i = 0; !o && c != '?' && i < n; i++)
            if (is_option(&opts[i]) && opts[i].short_name == c)
                o = &opts[i];
        if (!o) {   /* getopt said what was wrong */
            cli_print_usage(stderr, p->usage);
            fprintf(stderr, "Try 'tare %s --help' for the options.\n", p->cmd);
            rc = -1;
            break;
        }
        rc = take(p, o, optarg);
    }
done:
    free(lo);
    free(so);
    return rc;
}
