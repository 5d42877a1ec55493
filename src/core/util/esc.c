/* esc.c: names made safe for text and Markdown, UTF-8 checked, numbers written (see esc.h). */
#include "core/util/esc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int esc_utf8(const char *str, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int n;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)   /* a NUL ends the string here too */
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;   /* overlong, past Unicode, or a surrogate */
    *cp = v;
    return n;
}

bool esc_is_control(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0);
}

void esc_visible_code(char *buf, uint32_t cp)
{
    if (cp < 0x80)
        snprintf(buf, 8, "\\x%02x", (unsigned)cp);
    else
        snprintf(buf, 8, "\\u%04x", (unsigned)(cp & 0xFFFF));
}

void esc_visible_byte(char *buf, unsigned char b)
{
    snprintf(buf, 8, "\\x%02x", b);
}

/* The next piece of s in text form: either n bytes as they are (*vis empty), or the visible
 * form of one control character, invalid byte or sep (an ASCII character also written
 * visibly; 0: none) in vis. Returns the bytes consumed. */
static int text_step(const char *s, char vis[8], char sep)
{
    uint32_t cp;
    int n = esc_utf8(s, &cp);
    if (n == 0) {
        esc_visible_byte(vis, (unsigned char)*s);
        return 1;
    }
    if (esc_is_control(cp) || (sep && cp == (unsigned char)sep))
        esc_visible_code(vis, cp);
    else
        vis[0] = '\0';
    return n;
}

void esc_text(FILE *f, const char *s)
{
    while (*s) {
        char vis[8];
        int n = text_step(s, vis, 0);
        if (vis[0])
            fputs(vis, f);
        else
            fwrite(s, 1, (size_t)n, f);
        s += n;
    }
}

bool esc_text_plain(const char *s)
{
    while (*s) {
        char vis[8];
        int n = text_step(s, vis, 0);
        if (vis[0])
            return false;
        s += n;
    }
    return true;
}

char *esc_text_dup(const char *s)
{
    return esc_text_dup_sep(s, 0);
}

char *esc_text_dup_sep(const char *s, char sep)
{
    size_t len = 0;
    for (const char *p = s; *p;) {
        char vis[8];
        int n = text_step(p, vis, sep);
        len += vis[0] ? strlen(vis) : (size_t)n;
        p += n;
    }
    char *out = malloc(len + 1), *o = out;
    if (!out)
        return NULL;
    while (*s) {
        char vis[8];
        int n = text_step(s, vis, sep);
        size_t k = vis[0] ? strlen(vis) : (size_t)n;
        memcpy(o, vis[0] ? vis : s, k);
        o += k;
        s += n;
    }
    *o = '\0';
    return out;
}

void esc_md_code(FILE *f, const char *s, bool in_table)
{
    if (!*s)
        return;
    size_t run = 0, longest = 0, len = strlen(s);
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    /* a space inside each end when s starts or ends with a backtick (the fence would
     * swallow it) or with a space at both ends (CommonMark strips one from each) */
    bool pad = s[0] == '`' || s[len - 1] == '`' || (s[0] == ' ' && s[len - 1] == ' ');
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
    if (pad)
        fputc(' ', f);
    while (*s) {
        char vis[8];
        int n = text_step(s, vis, 0);
        if (vis[0])
            fputs(vis, f);
        else if (in_table && *s == '|')
            fputs("\\|", f);
        else
            fwrite(s, 1, (size_t)n, f);
        s += n;
    }
    if (pad)
        fputc(' ', f);
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
}

void esc_md_text(FILE *f, const char *s)
{
    while (*s) {
        char vis[8];
        int n = text_step(s, vis, 0);
        if (vis[0]) {
            fputc('\\', f);   /* the visible form's backslash would escape what follows */
            fputs(vis, f);
        } else if (*s == '<') {
            fputs("&lt;", f);
        } else if (*s == '>') {
            fputs("&gt;", f);
        } else if (*s == '&') {
            fputs("&amp;", f);
        } else if (n == 1 && strchr("\\`*_[]|~", *s)) {
            fputc('\\', f);
            fputc(*s, f);
        } else {
            fwrite(s, 1, (size_t)n, f);
        }
        s += n;
    }
}

const char *esc_number(char *buf, double v)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, ESC_NUM_MAX, "NA");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(buf, ESC_NUM_MAX, "%.0f", v);
    else
        snprintf(buf, ESC_NUM_MAX, "%.9g", v);
    return buf;
}

void esc_csv_field(FILE *f, const char *s)
{
    char *v = esc_text_plain(s) ? NULL : esc_text_dup(s);
    const char *p = v ? v : s;
    if (!strpbrk(p, ",\"")) {
        fputs(p, f);
        free(v);
        return;
    }
    fputc('"', f);
    for (; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
    free(v);
}
