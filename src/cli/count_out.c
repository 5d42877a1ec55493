/* count_out.c: the deterministic pass's progress line, table cells and JSON numbers. */
#include "cli/count_out.h"

#include <string.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "core/proc.h"

void count_progress_print(void *ctx, const struct count_job *job, bool finished, int done,
                          int total)
{
    struct count_progress *p = ctx;
    if (!p->on)
        return;
    fprintf(stderr, "\r\033[Kcount: %d/%d done; %s %s  %.1f s", done, total,
            finished ? "finished" : "running", job->name, proc_now() - p->t0);
    fflush(stderr);
}

const char *count_cell(char *buf, uint64_t v, bool human)
{
    if (v == COUNT_NA)
        return "NA";
    if (human)
        return fmt_count(buf, (double)v);
    snprintf(buf, FMT_BUF_MIN, "%llu", (unsigned long long)v);
    return buf;
}

void count_json(FILE *f, uint64_t v)
{
    if (v == COUNT_NA)
        fputs("null", f);
    else
        fprintf(f, "%llu", (unsigned long long)v);
}

void count_region_name(char *buf, size_t size, const struct count_opts *o)
{
    if (o->marks) {
        snprintf(buf, size, "marks");
        return;
    }
    size_t len = (size_t)snprintf(buf, size, "toggle-collect=");
    for (int i = 0; i < o->ntoggle && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", o->toggle[i]);
}

void count_region_json(FILE *f, const struct count_job *j, const char *region)
{
    fputs(", \"region\": ", f);
    json_str(f, region);
    fputs(", \"region_instructions\": ", f);
    count_json(f, j->region_instructions);
    fputs(", \"region_allocations\": ", f);
    count_json(f, j->region_allocations);
    if (j->region_why[0]) {
        fputs(", \"region_error\": ", f);
        json_str(f, j->region_why);
    }
}

int count_header(const char **h, const char *const *all, int n, bool region)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (region || i < n - 3 || i == n - 1)
            h[k++] = all[i];
    return k;
}

bool count_vg_arg_ok(const char *cmd, const char *usage, const char *arg)
{
    static const char *const taken[] = {"--tool=", "--callgrind-out-file=",
                                        "--cachegrind-out-file=", "--log-file=", "--log-fd="};
    if (strncmp(arg, "--", 2) != 0 || !arg[2]) {
        cli_usage_error(cmd, usage, "--valgrind-arg takes a valgrind option ('--NAME=VALUE'), "
                        "not '%s'", arg);
        return false;
    }
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
        if (strncmp(arg, taken[i], strlen(taken[i])) == 0) {
            cli_usage_error(cmd, usage, "--valgrind-arg '%s': tare sets %s... itself, and reads "
                            "what it gives", arg, taken[i]);
            return false;
        }
    return true;
}

void count_vg_args_json(FILE *f, const struct count_opts *o)
{
    if (!o->nvg_args)
        return;
    fputs(", \"valgrind_args\": [", f);
    for (int i = 0; i < o->nvg_args; i++) {
        fputs(i ? ", " : "", f);
        json_str(f, o->vg_args[i]);
    }
    fputs("]", f);
}

void count_vg_args_text(FILE *f, const struct count_opts *o)
{
    fputs("valgrind options added (counts under other options are not comparable):", f);
    for (int i = 0; i < o->nvg_args; i++)
        fprintf(f, " %s", o->vg_args[i]);
    fputs("\n", f);
}
