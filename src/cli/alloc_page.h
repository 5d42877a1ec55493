/* alloc_page.h: tare alloc's stack table as the page of `tare cg page` (alloc_page.c). */
#ifndef TARE_ALLOC_PAGE_H
#define TARE_ALLOC_PAGE_H

#include <stdio.h>

#include "core/profile/allocstacks.h"
#include "core/util/err.h"

/* The page of after (compared with before, or NULL) to f: the flame graph of its exact
 * stacks with the measure switch, the functions, the calls. title and what (the command or
 * the table's file, shown under it; before_what: BEFORE's) are text. 0, or -1 with e set
 * (out of memory); write errors are f's. */
int alloc_page_write(FILE *f, const struct astk_table *after, const struct astk_table *before,
                     const char *title, const char *what, const char *before_what,
                     struct err *e);

#endif
