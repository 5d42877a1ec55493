/* cg_graph.h: `tare cg folded`, `tare cg dot` and `tare cg page`: pictures of a profile
 * (cg_graph.c, cg_page.c), entered from cmd_cg.c with argv from the subcommand on. */
#ifndef TARE_CG_GRAPH_H
#define TARE_CG_GRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "core/profile/profile.h"

int cg_folded_main(int argc, char **argv);
int cg_dot_main(int argc, char **argv);
int cg_page_main(int argc, char **argv);

/* The page of cg page (and of alloc --format html) to f, whole: its head (title, style), its
 * markup with the switch labelled switch_label, write_data(f, arg)'s JSON in the data block
 * the script reads (cg_page.js), the script. Returns what write_data returns. */
int cg_page_html(FILE *f, const char *title, const char *switch_label,
                 int (*write_data)(FILE *f, void *arg), void *arg);

/* Reads and finishes the profile of files[0..n) with options o (every cg subcommand loads
 * through this); an exit status (EXIT_OK, or the error printed). */
int cg_graph_read(char **files, int n, const struct cg_read_opts *o, struct cg_profile **out);
/* cg_graph_read with only lines_for set. */
int cg_graph_load(char **files, int n, const char *lines_for, struct cg_profile **out);
/* Where p (read from files[0..n)) has --separate-callers contexts, the same files read again
 * with them kept apart (for cg_flame_opts ctx) in *ctx; else *ctx NULL. An exit status. */
int cg_graph_contexts(char **files, int n, const struct cg_profile *p, struct cg_profile **ctx);
/* The event named (NULL: the first), or -1 with the error printed (the events the profile has
 * listed). */
int cg_graph_event(const struct cg_profile *p, const char *name, const char *file);
/* A percentage option's value (0 to 100), or false with the usage error printed. */
bool cg_graph_percent(const char *opt, const char *arg, double *out);

#endif
