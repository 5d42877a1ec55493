/* exe.h: what a command will run: its path from PATH, and whether the dynamic loader (and
 * so LD_PRELOAD) takes part in it. */
#ifndef TARE_EXE_H
#define TARE_EXE_H

#include <stddef.h>

#include "core/util/err.h"

/* The file execvp would run for name (a name with a '/' is taken as it is). */
int exe_find(const char *name, char *out, size_t n, struct err *e);

enum exe_link {
    EXE_DYNAMIC,     /* an ELF file with PT_INTERP: ld.so loads it, LD_PRELOAD applies */
    EXE_STATIC,      /* an ELF file without PT_INTERP: nothing is preloaded */
    EXE_OTHER,       /* not ELF (the kernel or the shell decides) */
};

/* Classifies path; a "#!" script is classified by its interpreter, whose path is then
 * copied to interp (or interp[0] is '\0'). */
int exe_link_kind(const char *path, enum exe_link *kind, char *interp, size_t n, struct err *e);

#endif
