/* count_out.c: the deterministic pass's progress line, table cells and JSON numbers. */
#include "cli/count_out.h"

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
