/* xml.c: the streaming XML writer (see xml.h). */
#include "core/util/xml.h"

#include <inttypes.h>

#include "core/util/esc.h"

void xw_init(struct xw *w, FILE *f)
{
    *w = (struct xw){.f = f};
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", f);
}

/* XML 1.0's Char: tab, newline, return, U+0020-U+D7FF, U+E000-U+FFFD, U+10000 and up. */
static bool xml_char(uint32_t cp)
{
    return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
           (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000;
}

void xw_write_escaped(FILE *f, const char *s)
{
    while (*s) {
        uint32_t cp;
        int n = esc_utf8(s, &cp);
        char vis[8];
        if (n == 0) {
            esc_visible_byte(vis, (unsigned char)*s);
            fputs(vis, f);
            s++;
            continue;
        }
        switch (cp) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\t': fputs("&#9;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\r': fputs("&#13;", f); break;
        default:
            if (!xml_char(cp) || esc_is_control(cp)) {
                esc_visible_code(vis, cp);
                fputs(vis, f);
            } else {
                fwrite(s, 1, (size_t)n, f);
            }
        }
        s += n;
    }
}

static void indent(struct xw *w)
{
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

void xw_begin(struct xw *w, const char *name)
{
    if (w->depth == XW_MAX_DEPTH || w->text) {
        w->bad = true;
        return;
    }
    if (w->open)
        fputc('>', w->f);
    indent(w);
    fprintf(w->f, "<%s", name);
    w->names[w->depth++] = name;
    w->open = true;
    w->text = false;
}

void xw_attr(struct xw *w, const char *name, const char *value)
{
    if (!w->open) {
        w->bad = true;
        return;
    }
    fprintf(w->f, " %s=\"", name);
    xw_write_escaped(w->f, value ? value : "");
    fputc('"', w->f);
}

void xw_attr_u64(struct xw *w, const char *name, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    xw_attr(w, name, buf);
}

void xw_text(struct xw *w, const char *s)
{
    if (w->depth == 0) {
        w->bad = true;
        return;
    }
    if (w->open)
        fputc('>', w->f);
    w->open = false;
    w->text = true;
    xw_write_escaped(w->f, s);
}

void xw_end(struct xw *w)
{
    if (w->depth == 0) {
        w->bad = true;
        return;
    }
    const char *name = w->names[--w->depth];
    if (w->open) {
        fputs("/>", w->f);
    } else {
        if (!w->text)
            indent(w);
        fprintf(w->f, "</%s>", name);
    }
    w->open = false;
    w->text = false;
}

int xw_done(struct xw *w, struct err *e)
{
    fputc('\n', w->f);
    if (w->bad || w->depth != 0)
        return err_set(e, ERR_SYSTEM, "XML writer misused (%d element%s open)", w->depth,
                       w->depth == 1 ? "" : "s");
    return 0;
}
