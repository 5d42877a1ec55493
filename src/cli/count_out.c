/* count_out.c: the deterministic pass's progress line, table cells and JSON numbers. */
#include "cli/count_out.h"

#include <string.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "core/util/json.h"
#include "core/util/proc.h"

void count_progress_print(void *ctx, const struct count_job *job, bool finished, int done,
                          int total)
{
    struct count_progress *p = ctx;
    if (!p->on)
        return;
    fprintf(stderr, "\r\033[Kcount: %d/%d done; %s %s  %.1f s", done, total,
            finished ? "finished" : "running", out_vis(job->name), proc_now() - p->t0);
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

void count_jw(struct jw *w, const char *key, uint64_t v)
{
    if (v == COUNT_NA)
        jw_knull(w, key);
    else
        jw_ku64(w, key, v);
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

void count_region_jw(struct jw *w, const struct count_job *j, const char *region)
{
    jw_kstring(w, "region", region);
    count_jw(w, "region_instructions", j->region_instructions);
    count_jw(w, "region_allocations", j->region_allocations);
    if (j->region_why[0])
        jw_kstring(w, "region_error", j->region_why);
}

int count_extra_header(const char **h, bool text, const struct count_view *v)
{
    const struct count_opts *o = v->co;
    static const char *const cache_tsv[] = {"l1i_misses", "l1d_misses", "lli_misses",
                                            "lld_misses", "est_cycles"};
    static const char *const cache_text[] = {"L1i misses", "L1d misses", "LLi misses",
                                             "LLd misses", "est. cycles"};
    int k = 0;
    if (v->region) {
        h[k++] = text ? "region instr" : "region_instructions";
        h[k++] = text ? "region allocs" : "region_allocations";
    }
    if (v->subtract) {
        h[k++] = text ? "net instr" : "net_instructions";
        h[k++] = text ? "net allocs" : "net_allocations";
        h[k++] = text ? "net bytes" : "net_bytes";
    }
    for (int i = 0; o->cache_sim && i < 5; i++)
        h[k++] = text ? cache_text[i] : cache_tsv[i];
    if (v->engine_column && !text)
        h[k++] = "engine";
    return k;
}

void count_extra_cells(struct table *tb, int *c, const struct count_job *j, bool text,
                       const struct count_view *v)
{
    char b[64];
    if (v->region) {
        table_set(tb, (*c)++, "%s", count_cell(b, j->region_instructions, text));
        table_set(tb, (*c)++, "%s", count_cell(b, j->region_allocations, text));
    }
    if (v->subtract) {
        table_set(tb, (*c)++, "%s", count_cell(b, j->net_instructions, text));
        table_set(tb, (*c)++, "%s", count_cell(b, j->net_allocations, text));
        table_set(tb, (*c)++, "%s", count_cell(b, j->net_bytes, text));
    }
    if (v->co->cache_sim) {
        const uint64_t m[] = {j->l1i_misses, j->l1d_misses, j->lli_misses, j->lld_misses,
                              j->est_cycles};
        for (int i = 0; i < 5; i++)
            table_set(tb, (*c)++, "%s", count_cell(b, m[i], text));
    }
    if (v->engine_column && !text)
        table_set(tb, (*c)++, "%s", count_engine_name(v->co->engine));
}

void count_extra_legend(FILE *f, const struct count_view *v)
{
    const struct count_opts *o = v->co;
    const char *region = v->region;
    if (o->nvg_args)
        count_vg_args_text(f, o);
    if (v->subtract)
        fprintf(f, "net: the counts less those of the baseline '%s', counted in the same pass\n"
                "(NA where the baseline's is the larger)\n", v->subtract);
    if (region)
        fprintf(f, "region (%s): instructions and allocations from a callgrind pass that "
                "collects\ninside it only (allocations from the calls made in it); bytes and "
                "peak heap are\nthe whole process's\n", region);
    if (o->cache_sim)
        fprintf(f, "misses from %s's cache simulation (of this machine's cache sizes, or the\n"
                "--I1/--D1/--LL given);\n"
                "est. cycles = Ir + 10 x L1 misses + 100 x LL misses, a model, not a "
                "measurement\n", count_engine_name(o->engine));
}

void count_cache_jw(struct jw *w, const struct count_job *j)
{
    static const char *const names[] = {"l1i_misses", "l1d_misses", "lli_misses", "lld_misses",
                                        "est_cycles"};
    const uint64_t v[] = {j->l1i_misses, j->l1d_misses, j->lli_misses, j->lld_misses,
                          j->est_cycles};
    for (int i = 0; i < 5; i++)
        count_jw(w, names[i], v[i]);
}

bool count_vg_arg_ok(const char *cmd, const char *usage, const char *arg)
{
    struct err e = {0};
    if (count_vg_arg_check(arg, &e) == 0)
        return true;
    cli_usage_error(cmd, usage, "--valgrind-arg %s", e.msg);
    return false;
}

void count_vg_args_jw(struct jw *w, const struct count_opts *o)
{
    if (!o->nvg_args)
        return;
    jw_karray(w, "valgrind_args");
    for (int i = 0; i < o->nvg_args; i++)
        jw_string(w, o->vg_args[i]);
    jw_end(w);
}

void count_vg_args_text(FILE *f, const struct count_opts *o)
{
    fputs("valgrind options added (counts under other options are not comparable):", f);
    for (int i = 0; i < o->nvg_args; i++)
        fprintf(f, " %s", o->vg_args[i]);
    fputs("\n", f);
}

void count_net_jw(struct jw *w, const struct count_job *j, const char *subtract)
{
    static const char *const names[] = {"baseline_instructions", "baseline_allocations",
                                        "baseline_bytes", "net_instructions", "net_allocations",
                                        "net_bytes"};
    const uint64_t v[] = {j->base_instructions, j->base_allocations, j->base_bytes,
                          j->net_instructions, j->net_allocations, j->net_bytes};
    jw_kstring(w, "subtract", subtract);
    for (int i = 0; i < 6; i++)
        count_jw(w, names[i], v[i]);
}

bool count_parse_engine(const char *cmd, const char *usage, const char *arg,
                        enum count_engine *engine)
{
    if (count_engine_parse(arg, engine) == 0)
        return true;
    cli_usage_error(cmd, usage, "--engine takes callgrind or cachegrind, not '%s'", arg);
    return false;
}

bool count_engine_ok(const char *cmd, const char *usage, const struct count_opts *o)
{
    const char *needs = o->keep_dir ? "--keep-profile" : o->ntoggle ? "--toggle-collect"
                        : o->marks ? "--region marks" : NULL;
    if (o->engine != COUNT_CACHEGRIND || !needs)
        return true;
    cli_usage_error(cmd, usage, "%s needs --engine callgrind (cachegrind has no call graph)",
                    needs);
    return false;
}

int count_opt_engine(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    return count_parse_engine(p->cmd, p->usage, arg, o->value) ? 0 : -1;
}

int count_opt_vg_arg(const struct opt *o, const char *arg, const struct opt_parser *p)
{
    if (!count_vg_arg_ok(p->cmd, p->usage, arg))
        return -1;
    ((const char **)o->value)[(*(int *)o->count)++] = arg;
    return 0;
}
