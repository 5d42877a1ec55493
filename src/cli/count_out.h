/* count_out.h: how the commands that run the deterministic pass (count, run) show it. */
#ifndef TARE_COUNT_OUT_H
#define TARE_COUNT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/opt.h"
#include "core/engine/count.h"

/* The count pass's options (opt.h callbacks) that count, run and ab share:
 * --engine ENGINE into an enum count_engine, --valgrind-arg ARG appended to the array value
 * (room for every argument) counted in the int count. */
opt_cb count_opt_engine, count_opt_vg_arg;

/* The progress line on a terminal; pass as count_opts.progress with a count_progress ctx. */
struct count_progress {
    bool on;
    double t0;
};
void count_progress_print(void *ctx, const struct count_job *job, bool finished, int done,
                          int total);

/* A count as a cell: NA when not measured (never 0); with thousands separators for people. */
const char *count_cell(char *buf, uint64_t v, bool human);
/* A count as a JSON member: null when not measured. */
struct jw;
void count_jw(struct jw *w, const char *key, uint64_t v);

/* The region's description for people and the JSON: "marks" or "toggle-collect=F,G". */
void count_region_name(char *buf, size_t size, const struct count_opts *o);
/* The region's JSON fields: region, region_instructions, region_allocations (null when NA),
 * region_error when it was never entered. */
void count_region_jw(struct jw *w, const struct count_job *j, const char *region);
/* What a table shows beyond the plain counts: the options, the region's name ("marks",
 * "toggle-collect=F"), the --subtract command; NULL where not asked. */
struct count_view {
    const struct count_opts *co;
    const char *region;
    const char *subtract;
    bool engine_column;   /* --engine given: an engine column in the TSV */
};
/* The columns after peak_bytes that the options ask for (the region's, the net counts,
 * --cache-sim's): their names into h (for people with text), how many; their cells, from
 * column *c on; and the lines above a text table that say what they are. */
struct table;
int count_extra_header(const char **h, bool text, const struct count_view *v);
void count_extra_cells(struct table *tb, int *c, const struct count_job *j, bool text,
                       const struct count_view *v);
void count_extra_legend(FILE *f, const struct count_view *v);
/* --subtract's JSON fields: subtract, baseline_* and net_* (null when NA). */
void count_net_jw(struct jw *w, const struct count_job *j, const char *subtract);
/* --cache-sim's JSON fields (null when NA). */
void count_cache_jw(struct jw *w, const struct count_job *j);

/* Whether ARG can be passed to valgrind: an option ("--..."), not one that tare sets and
 * reads back (the tool, the output file); says why on stderr when not. */
bool count_vg_arg_ok(const char *cmd, const char *usage, const char *arg);
/* The --valgrind-arg options: "valgrind_args": [...] in a series' JSON, nothing when none;
 * a line for people. */
void count_vg_args_jw(struct jw *w, const struct count_opts *o);
void count_vg_args_text(FILE *f, const struct count_opts *o);

/* --engine NAME into *engine; false (the error and the usage printed) when it is neither. */
bool count_parse_engine(const char *cmd, const char *usage, const char *arg,
                        enum count_engine *engine);
/* Whether the options go with the engine (cachegrind has no call graph: no --keep-profile
 * for tare cg, no region); says why on stderr when not. */
bool count_engine_ok(const char *cmd, const char *usage, const struct count_opts *o);

#endif
