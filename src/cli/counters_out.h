/* counters_out.h: how commands word and show counters: the unavailable message, values. */
#ifndef TARE_COUNTERS_OUT_H
#define TARE_COUNTERS_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/engine/counters.h"

/*
 * Says which counters of s cannot be counted here and why (grouped by reason, errno last),
 * what perf_event_paranoid is and means, and what to use instead. As errors ("tare CMD:
 * ..."), or as notes ("tare CMD: note: ...") when the command goes on without them.
 */
void counters_explain(const char *cmd, const struct ctr_set *s, bool as_note);

/* For a default event list: leaves out the kernel-side events (context switches) that the
 * permissions forbid, with a note for each, so the default works at perf_event_paranoid 2. */
void counters_drop_kernel_side(const char *cmd, struct ctr_set *s);

/*
 * For commands that count beside the times (wall --counters, ab --counters): opens the
 * counters tare stat counts by default on pin_cpu (-1: any); what this machine lacks is
 * said once, as a note, and shown as unavailable. -1 with e set when it cannot even try.
 */
int counters_open_beside(const char *cmd, struct ctr_set *s, int pin_cpu, struct err *e);

/* A counter's value for people: a time for the clocks, a count with separators otherwise. */
const char *counters_fmt(char *buf, const struct ctr_counter *c, double v);

/*
 * The median of each counter per series, a row per counter and a column per series, for
 * commands that show counters beside something else (tare wall --counters, tare ab
 * --counters). A counter this machine cannot count reads "unavailable", one that never ran
 * "NA"; a scaled (multiplexed) median is marked with a '*' and a footnote.
 */
void counters_print_medians(FILE *f, const struct ctr_set *s, int nseries, const char *const *names,
                            struct ctr_sample *const *samples, const int *nruns);

#endif
