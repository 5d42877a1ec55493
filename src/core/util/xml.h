/* xml.h: the one XML writer (JUnit), streaming to a FILE: elements, attributes, text. */
#ifndef TARE_XML_H
#define TARE_XML_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util/err.h"

#define XW_MAX_DEPTH 16

/*
 * Each element starts on its own line, indented two spaces a level; an element with text
 * keeps the text and its end tag on that line. Element and attribute names are the
 * caller's constants, written as they are; attribute values and text follow esc.h's rule:
 * & < > " ' as entities, tab, newline and return as character references, the other control
 * characters, U+FFFE/U+FFFF and bytes that are not UTF-8 as visible text (\x1b, \xff).
 */
struct xw {
    FILE *f;
    int depth;
    bool open;     /* the innermost start tag still takes attributes */
    bool text;     /* the innermost element holds text */
    bool bad;      /* misused: an attribute after content, an end too many, too deep */
    const char *names[XW_MAX_DEPTH];
};

/* Starts the document: the XML declaration (UTF-8). */
void xw_init(struct xw *w, FILE *f);
/* Opens element name inside the current one. */
void xw_begin(struct xw *w, const char *name);
/* An attribute of the element just opened. */
void xw_attr(struct xw *w, const char *name, const char *value);
void xw_attr_u64(struct xw *w, const char *name, uint64_t v);
/* Text inside the current element (after its attributes). */
void xw_text(struct xw *w, const char *s);
/* Closes the current element ("/>" when it is empty). */
void xw_end(struct xw *w);
/* Ends the document (a last newline); 0, or -1 with e set when an element is still open or
 * the writer was misused (ERR_SYSTEM: a bug of its caller). Write errors are the FILE's. */
int xw_done(struct xw *w, struct err *e);

/* s escaped as XML text or attribute value (the rule above). */
void xw_write_escaped(FILE *f, const char *s);

#endif
