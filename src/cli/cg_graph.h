/* cg_graph.h: `tare cg folded`, `tare cg dot` and `tare cg page`: pictures of a profile
 * (cg_graph.c, cg_page.c), entered from cmd_cg.c with argv from the subcommand on. */
#ifndef TARE_CG_GRAPH_H
#define TARE_CG_GRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "core/profile.h"

int cg_folded_main(int argc, char **argv);
int cg_dot_main(int argc, char **argv);
int cg_page_main(int argc, char **argv);

/* Reads and finishes the profile of files[0..n) (lines_for as cg_read_opts); an exit status
 * (EXIT_OK, or the error printed). */
int cg_graph_load(char **files, int n, const char *lines_for, struct cg_profile **out);
/* The event named (NULL: the first), or -1 with the error printed. */
int cg_graph_event(const struct cg_profile *p, const char *name, const char *file);
/* A percentage option's value (0 to 100), or false with the usage error printed. */
bool cg_graph_percent(const char *opt, const char *arg, double *out);

#endif
