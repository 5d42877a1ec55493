/* json.c: the streaming JSON writer (see json.h). */
#include "core/util/json.h"

#include <inttypes.h>
#include <string.h>

#include "core/util/esc.h"

void jw_init(struct jw *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

void jw_write_string(FILE *f, const char *s, bool html)
{
    fputc('"', f);
    while (*s) {
        uint32_t cp;
        int n = esc_utf8(s, &cp);
        if (n == 0) {
            fprintf(f, "\\\\x%02x", (unsigned char)*s);   /* the text \xNN */
            s++;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (esc_is_control(cp) || (html && (cp == '<' || cp == '>' || cp == '&' ||
                                                cp == 0x2028 || cp == 0x2029)))
                fprintf(f, "\\u%04x", (unsigned)cp);
            else
                fwrite(s, 1, (size_t)n, f);
        }
        s += n;
    }
    fputc('"', f);
}

/* The separator and whitespace before a member of the innermost level. */
static void member_sep(struct jw *w, struct jw_level *lv)
{
    if (!lv->empty)
        fputc(',', w->f);
    if (w->brk)
        fputs(w->brk, w->f);
    else if (lv->item)
        fputs(lv->item, w->f);
    else if (!lv->empty)
        fputc(' ', w->f);
    w->brk = NULL;
    lv->empty = false;
}

/* Before any value: an array member's separator, or the key that was written. */
static void before_value(struct jw *w)
{
    if (w->depth == 0)
        return;
    struct jw_level *lv = &w->lv[w->depth - 1];
    if (lv->array)
        member_sep(w, lv);
    else if (w->key_pending)
        w->key_pending = false;
    else
        w->bad = true;
}

static void begin(struct jw *w, bool array, const char *item, const char *close)
{
    before_value(w);
    if (w->depth == JW_MAX_DEPTH) {
        w->bad = true;
        return;
    }
    w->lv[w->depth++] = (struct jw_level){array, true, item, close};
    fputc(array ? '[' : '{', w->f);
}

void jw_object_begin(struct jw *w) { begin(w, false, NULL, NULL); }
void jw_array_begin(struct jw *w) { begin(w, true, NULL, NULL); }

void jw_object_begin_lines(struct jw *w, const char *item, const char *close)
{
    begin(w, false, item, close);
}

void jw_array_begin_lines(struct jw *w, const char *item, const char *close)
{
    begin(w, true, item, close);
}

void jw_end(struct jw *w)
{
    if (w->depth == 0 || w->key_pending) {
        w->bad = true;
        return;
    }
    struct jw_level *lv = &w->lv[--w->depth];
    if (!lv->empty && lv->close)
        fputs(lv->close, w->f);
    fputc(lv->array ? ']' : '}', w->f);
    w->brk = NULL;
}

void jw_break(struct jw *w, const char *ws)
{
    w->brk = ws;
}

void jw_key(struct jw *w, const char *key)
{
    if (w->depth == 0 || w->lv[w->depth - 1].array || w->key_pending) {
        w->bad = true;
        return;
    }
    member_sep(w, &w->lv[w->depth - 1]);
    jw_write_string(w->f, key, w->html);
    fputs(": ", w->f);
    w->key_pending = true;
}

void jw_string(struct jw *w, const char *s)
{
    if (!s) {
        jw_null(w);
        return;
    }
    before_value(w);
    jw_write_string(w->f, s, w->html);
}

void jw_double(struct jw *w, double v)
{
    char buf[ESC_NUM_MAX];
    before_value(w);
    esc_number(buf, v);
    fputs(strcmp(buf, "NA") == 0 ? "null" : buf, w->f);
}

void jw_u64(struct jw *w, uint64_t v)
{
    before_value(w);
    fprintf(w->f, "%" PRIu64, v);
}

void jw_i64(struct jw *w, int64_t v)
{
    before_value(w);
    fprintf(w->f, "%" PRId64, v);
}

void jw_bool(struct jw *w, bool v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w)
{
    before_value(w);
    fputs("null", w->f);
}

/* RFC 8259's number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool is_json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return false;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

void jw_number_text(struct jw *w, const char *s)
{
    before_value(w);
    fputs(s && is_json_number(s) ? s : "null", w->f);
}

void jw_kstring(struct jw *w, const char *key, const char *s) { jw_key(w, key); jw_string(w, s); }
void jw_kdouble(struct jw *w, const char *key, double v) { jw_key(w, key); jw_double(w, v); }
void jw_ku64(struct jw *w, const char *key, uint64_t v) { jw_key(w, key); jw_u64(w, v); }
void jw_ki64(struct jw *w, const char *key, int64_t v) { jw_key(w, key); jw_i64(w, v); }
void jw_kbool(struct jw *w, const char *key, bool v) { jw_key(w, key); jw_bool(w, v); }
void jw_knull(struct jw *w, const char *key) { jw_key(w, key); jw_null(w); }
void jw_kobject(struct jw *w, const char *key) { jw_key(w, key); jw_object_begin(w); }
void jw_karray(struct jw *w, const char *key) { jw_key(w, key); jw_array_begin(w); }

int jw_done(const struct jw *w, struct err *e)
{
    if (w->bad || w->depth != 0 || w->key_pending)
        return err_set(e, ERR_SYSTEM, "JSON writer misused (%d level%s open)", w->depth,
                       w->depth == 1 ? "" : "s");
    return 0;
}
