/* targets.h: the measuring commands' command line -> series (built by core/engine/series.h). */
#ifndef TARE_TARGETS_H
#define TARE_TARGETS_H

#include <stdbool.h>

#include "core/engine/series.h"

/* --shell SHELL (hyperfine's -S): "none" for no shell, "default" for /bin/sh, else a shell's
 * name or path with its arguments ("bash --norc"), its program found now; false (the error and
 * the usage printed) when it is not one. */
bool series_spec_set_shell(struct series_spec *spec, const char *cmd, const char *usage,
                           const char *arg);
/* --lane ARG: parsed and added; false (the error and the usage printed) when it is bad. */
bool series_spec_add_lane(struct series_spec *spec, const char *cmd, const char *usage,
                          const char *arg);

/*
 * After getopt_long(dd, argv, ...) with dd = find_dashdash(argc, argv): the commands are
 * what follows "--" or, without one, the strings from optind to dd. Builds their series.
 * Returns 0, or the exit status after printing the error (with the usage when it is bad usage).
 */
int series_from_args(const char *cmd, const char *usage, int argc, char **argv, int dd,
                      const struct series_spec *spec, struct series **out, int *nout);

/* Finds the first "--" in argv; returns its index or argc. */
int find_dashdash(int argc, char **argv);

#endif
