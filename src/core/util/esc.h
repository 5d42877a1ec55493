/* esc.h: the one rule for names in every output (bytes that are not UTF-8, control
 * characters), the one number rule, and the escapes for text tables and Markdown. */
#ifndef TARE_ESC_H
#define TARE_ESC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Names are bytes. Every writer keeps a valid UTF-8 sequence as it is and writes a byte
 * that starts none (a stray continuation, an overlong form, a surrogate, past U+10FFFF, a
 * cut sequence) as the four characters \xNN (lowercase hex), the same in JSON, XML,
 * Markdown and text. Control characters (U+0000-U+001F, U+007F, U+0080-U+009F): JSON
 * escapes them (\n, \t, \u001b: lossless); XML keeps tab, newline and return as character
 * references and writes the others as \xNN (U+0080-U+009F as \u0085), since XML 1.0
 * cannot carry them; text and Markdown write every one visibly the same way.
 */

/* The length (1-4) of the valid UTF-8 sequence starting at s, its code point in *cp; 0
 * when the byte at s starts none (s is NUL-terminated; *s is not NUL). */
int esc_utf8(const char *s, uint32_t *cp);
/* True for C0 controls, DEL and the C1 controls U+0080-U+009F. */
bool esc_is_control(uint32_t cp);
/* The visible form of a control character into buf (at least 8 bytes): "\x1b" below
 * U+0080, "\u0085" above; of a byte that starts no UTF-8 sequence: "\xff". */
void esc_visible_code(char *buf, uint32_t cp);
void esc_visible_byte(char *buf, unsigned char b);

/* The text form of s: as it is, control characters and invalid bytes written visibly. */
void esc_text(FILE *f, const char *s);
/* The same into a new string (free it); NULL when out of memory. */
char *esc_text_dup(const char *s);
/* The same with sep (an ASCII character: a separator of the names written) also written
 * visibly ("\x3b" for ';'). */
char *esc_text_dup_sep(const char *s, char sep);
/* True when s has nothing esc_text would change. */
bool esc_text_plain(const char *s);

/*
 * s as one Markdown code span that renders as s's text form whatever s holds: fenced with
 * more backticks than its longest run, padded with a space where it starts or ends with a
 * backtick, and, in a table cell (in_table), every | written \| (GitHub's table rule, code
 * spans included). Nothing for an empty s.
 */
void esc_md_code(FILE *f, const char *s, bool in_table);
/* s as inline Markdown text outside a code span (a table cell, the middle of a line): what
 * starts inline markup (\ ` * _ [ ] ~ |) backslash-escaped (\| reads as | in a table and
 * out of one), < > & as entities (no HTML), control characters and invalid bytes visibly. */
void esc_md_text(FILE *f, const char *s);

/* One CSV field (RFC 4180) in its text form: as it is, or in double quotes (quotes doubled)
 * when it holds a comma or a quote. */
void esc_csv_field(FILE *f, const char *s);

/* Room for esc_number's text. */
#define ESC_NUM_MAX 32
/*
 * The number rule of every machine output: a whole number below 2^53 in magnitude is written
 * whole ("1234567890123"), any other to 9 significant digits (%.9g: "0.101351358",
 * "1.5e+300"). NaN and the infinities have no number form: "NA" here; JSON writes null.
 * Returns buf.
 */
const char *esc_number(char *buf, double v);

#endif
