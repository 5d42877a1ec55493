/* hyperfine_export.h: hyperfine's --export-json, --export-csv and --export-markdown layouts,
 * written from the engine's series, so tools that read hyperfine's files read tare's. */
#ifndef TARE_HYPERFINE_EXPORT_H
#define TARE_HYPERFINE_EXPORT_H

#include "core/engine/harness.h"
#include "core/util/err.h"
#include "core/engine/session.h"

enum hf_format { HF_JSON, HF_CSV, HF_MARKDOWN, HF_ASCIIDOC, HF_ORGMODE };

/* How the markup tables (Markdown, AsciiDoc, org-mode) are laid out, set once from the
 * command line: -u/--time-unit's unit (auto: ms under a second, else s, by the first mean,
 * as hyperfine 1.15), --sort mean-time (rows by mean, not as given). */
enum hf_unit { HF_UNIT_AUTO, HF_UNIT_S, HF_UNIT_MS, HF_UNIT_US };
extern enum hf_unit hf_time_unit;
extern bool hf_sort_by_mean;

/* One result: a series and what hyperfine would call it. */
struct hf_result {
    const char *command;                 /* the "command" field and column */
    const struct session_series *s;      /* its runs; NA figures when it failed */
    const char *const *param_names;      /* hyperfine's "parameters" (parameter_VAR columns) */
    const char *const *param_values;
    int nparam;
};

/* Writes results r[0..n) to path in fmt, through a temporary beside it renamed at the end: the
 * file is whole or not there. Markdown's "Relative" column is against r[ref] (a --reference),
 * or the fastest mean when ref < 0. 0, or -1 with e set. */
int hf_export(const char *path, enum hf_format fmt, const struct hf_result *r, int n, int ref,
              struct err *e);

/* The export options of a command, each NULL when not given. */
struct hf_paths {
    const char *json, *csv, *markdown, *asciidoc, *orgmode;
};

/* Every export asked for, of the series s[0..ns) (each one's user pointer its struct series,
 * series k with h's combination k % ncombo) after the reference ref (or NULL), whose series
 * the markdown's Relative column is against. 0, or -1 with e set. */
int hf_export_series(const struct hf_paths *p, const struct harness *h,
                     const struct session_series *s, int ns, const struct session_series *ref,
                     struct err *e);

#endif
