/* ab_out.h: how tare ab's result is shown (text, JSON, notes on stderr), for ab and bisect. */
#ifndef TARE_AB_OUT_H
#define TARE_AB_OUT_H

#include <stdbool.h>

#include "core/engine/ab.h"

/* The sides' times, the interval and the verdict; the counters' medians; the counts' table
 * and verdicts. */
void ab_print_text(const struct ab_result *r);
/* The same as one JSON object, as the next value of w (a document of its own, or a member
 * of another command's: bisect's confirm). */
struct jw;
void ab_print_json(struct jw *w, const struct ab_result *r);
/* On stderr, once each: why bytes and peak heap are NA (alloc_why, or "" / NULL), a side's
 * note, a side whose counting failed with its stderr's end; true when one failed. */
bool ab_report_counts(const struct ab_result *r, const char *alloc_why);
/* After ab_run failed: the end of the stderr of the build or the run that failed. */
void ab_report_failure(const struct ab_result *r);
/* ab_opts.progress on a terminal: the line on stderr, rewritten as ab_run goes. */
void ab_progress_print(void *ctx, const char *what, double seconds);

#endif
