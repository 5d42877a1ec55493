/* metrics_out.h: how every command that reads a program's own counters shows them: a table
 * for people, metric.NAME columns and metrics_varied in TSV, a "metrics" object in JSON. */
#ifndef TARE_METRICS_OUT_H
#define TARE_METRICS_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/util/metrics.h"

struct jw;
struct table;

/* The series' counters for one output: each series' name and counters (NULL where the series
 * failed: its counters are NA, not "none found"), and the union of the names, first seen
 * first. */
struct metrics_view {
    const struct metrics_spec *spec;   /* --metrics-from, or NULL: TARE_METRICS_OUT only */
    int n;
    const char **series;
    const struct metrics **ms;
    const struct metrics_spec **specs; /* series i's own (a suite's per benchmark), or NULL */
    int nnames;
    const char **names;                /* into the series' counters */
    char **cols;                       /* "metric.NAME" */
};
/* Room for n series (-1 when out of memory); the caller sets series[i] and ms[i] (kept, not
 * copied), then metrics_view_names gathers the names (-1 when out of memory). */
int metrics_view_init(struct metrics_view *v, const struct metrics_spec *spec, int n);
int metrics_view_names(struct metrics_view *v);
/* Both for the jobs of a count pass: series named names[i], NA for a job that failed, each
 * job's metrics_from its own spec. */
struct count_job;
int metrics_view_count(struct metrics_view *v, const struct metrics_spec *spec,
                       const struct count_job *jobs, const char *const *names, int n);
void metrics_view_free(struct metrics_view *v);
/* Whether the output shows counters: --metrics-from was given, or some series reported any. */
bool metrics_view_shown(const struct metrics_view *v);

/* --metrics-from and --metrics-pattern (either may be NULL) into *s: EXIT_OK, or EXIT_USAGE
 * after saying why (a pattern without a source, one that does not compile). s is zeroed
 * first: metrics_spec_free it either way. */
int cli_metrics_spec(const char *cmd, const char *usage, const char *from, const char *pattern,
                     struct metrics_spec *s);

/* "on stderr", "on stdout", "in 'FILE'", or "through TARE_METRICS_OUT". */
const char *metrics_where(const struct metrics_spec *spec, char *buf, size_t n);

/* A history file's columns (tare run's count.tsv): "\tmetric.NAME" each, "\tmetrics_varied";
 * and series i's cells, "\tVALUE" each (NA where absent), "\tVARIED"; nothing when not
 * shown. */
void metrics_hist_header(FILE *f, const struct metrics_view *v);
void metrics_hist_cells(FILE *f, const struct metrics_view *v, int i);
/* TSV columns: metric.NAME for each name, then metrics_varied; how many (0 when not shown). */
int metrics_tsv_header(const struct metrics_view *v, const char **h);
/* Series i's cells from column *c on: each counter's value (the median where it varied; NA
 * where absent), then the names that varied, comma-separated ("-": none; NA: no counters). */
void metrics_tsv_cells(const struct metrics_view *v, int i, struct table *tb, int *c);
/* Series i's "metrics" member (nothing when not shown). */
void metrics_jw(const struct metrics_view *v, int i, struct jw *w);
/* The table for people, under a line that says where the counters come from and over how
 * many runs (runs_what: "the 2 native runs of tare count"); nothing when not shown. */
void metrics_text(FILE *f, const struct metrics_view *v, const char *runs_what);
/* tare ab: each side's counters (the count pass's native runs with --count, else the timed
 * runs') and their verdict (ab_metrics_judge): a table for people, a "metrics" member after
 * the last one of ab's JSON object; nothing when no counter was asked for or reported. */
struct ab_result;
void metrics_ab_print_text(const struct ab_result *r);
void metrics_ab_print_json(struct jw *w, const struct ab_result *r);
/* Notes on stderr: a series whose program reported no counters though --metrics-from was
 * given ("no counters found on stderr"), a line not taken. */
void metrics_notes(const char *cmd, const struct metrics_view *v);

#endif
