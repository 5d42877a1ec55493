/* test_json.c: the JSON writer, the XML writer and the text and Markdown escapes (esc.h),
 * against outputs written out by hand from RFC 8259, XML 1.0 and the UTF-8 definition. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>

#include "core/util/esc.h"
#include "core/util/json.h"
#include "core/util/xml.h"
#include "unit.h"

static char *buf;
static size_t len;

static FILE *mem(void)
{
    free(buf);
    buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    return f;
}

static const char *json_of(const char *s, bool html)
{
    FILE *f = mem();
    jw_write_string(f, s, html);
    fclose(f);
    return buf;
}

static const char *text_of(const char *s)
{
    FILE *f = mem();
    esc_text(f, s);
    fclose(f);
    return buf;
}

static const char *md_code_of(const char *s, bool table)
{
    FILE *f = mem();
    esc_md_code(f, s, table);
    fclose(f);
    return buf;
}

static const char *xml_of(const char *s)
{
    FILE *f = mem();
    xw_write_escaped(f, s);
    fclose(f);
    return buf;
}

static void utf8(void)
{
    uint32_t cp = 0;
    CHECK_INT(esc_utf8("A", &cp), 1);
    CHECK_INT(cp, 'A');
    CHECK_INT(esc_utf8("\xc3\xa9", &cp), 2);   /* é */
    CHECK_INT(cp, 0xe9);
    CHECK_INT(esc_utf8("\xe2\x82\xac", &cp), 3);   /* € */
    CHECK_INT(cp, 0x20ac);
    CHECK_INT(esc_utf8("\xf0\x9f\x98\x80", &cp), 4);   /* U+1F600 */
    CHECK_INT(cp, 0x1f600);
    CHECK_INT(esc_utf8("\xff", &cp), 0);
    CHECK_INT(esc_utf8("\x80", &cp), 0);             /* a stray continuation */
    CHECK_INT(esc_utf8("\xc0\xaf", &cp), 0);         /* overlong '/' */
    CHECK_INT(esc_utf8("\xe0\x80\xaf", &cp), 0);     /* overlong, three bytes */
    CHECK_INT(esc_utf8("\xed\xa0\x80", &cp), 0);     /* a surrogate, U+D800 */
    CHECK_INT(esc_utf8("\xf4\x90\x80\x80", &cp), 0); /* past U+10FFFF */
    CHECK_INT(esc_utf8("\xe2\x82", &cp), 0);         /* cut by the end */
    CHECK(esc_is_control(0x1b) && esc_is_control(0x7f) && esc_is_control(0x85));
    CHECK(!esc_is_control(' ') && !esc_is_control(0xa0) && !esc_is_control(0xe9));
}

static void strings(void)
{
    CHECK_STR(json_of("plain", false), "\"plain\"");
    CHECK_STR(json_of("q\"b\\n\nt\tr\r", false), "\"q\\\"b\\\\n\\nt\\tr\\r\"");
    CHECK_STR(json_of("\x1b[2J\x7f", false), "\"\\u001b[2J\\u007f\"");
    CHECK_STR(json_of("\xc2\x85", false), "\"\\u0085\"");   /* C1 NEL */
    CHECK_STR(json_of("caf\xc3\xa9", false), "\"caf\xc3\xa9\"");
    CHECK_STR(json_of("a\xff" "b\xc3", false), "\"a\\\\xffb\\\\xc3\"");
    CHECK_STR(json_of("</script>&", false), "\"</script>&\"");
    CHECK_STR(json_of("</script>&\xe2\x80\xa8", true), "\"\\u003c/script\\u003e\\u0026\\u2028\"");

    CHECK_STR(text_of("ok \xc3\xa9"), "ok \xc3\xa9");
    CHECK_STR(text_of("\x1b]0;title\x07x\xff\n"), "\\x1b]0;title\\x07x\\xff\\x0a");
    CHECK_STR(text_of("\xc2\x9b" "31m"), "\\u009b31m");
    CHECK(esc_text_plain("caf\xc3\xa9 | <b>"));
    CHECK(!esc_text_plain("a\tb"));
    char *d = esc_text_dup("a\x1b" "b\xfe");
    CHECK_STR(d, "a\\x1bb\\xfe");
    free(d);

    CHECK_STR(xml_of("a<b>&\"'\t\n\r"), "a&lt;b&gt;&amp;&quot;&apos;&#9;&#10;&#13;");
    CHECK_STR(xml_of("\x01\xff\xef\xbf\xbe" "z"), "\\x01\\xff\\ufffez");   /* not XML Chars */
}

static void markdown(void)
{
    CHECK_STR(md_code_of("name", true), "`name`");
    CHECK_STR(md_code_of("a|b", true), "`a\\|b`");
    CHECK_STR(md_code_of("a|b", false), "`a|b`");
    CHECK_STR(md_code_of("a`b", true), "``a`b``");
    CHECK_STR(md_code_of("`x", true), "`` `x ``");
    CHECK_STR(md_code_of(" x ", true), "`  x  `");   /* CommonMark strips one each side */
    CHECK_STR(md_code_of(" x ", false), "`  x  `");
    CHECK_STR(md_code_of("</details><img src=x>", true), "`</details><img src=x>`");
    CHECK_STR(md_code_of("a\nb\x1b", true), "`a\\x0ab\\x1b`");
    CHECK_STR(md_code_of("", true), "");
    FILE *f = mem();
    esc_md_text(f, "*a* | <img> & [l](u) 1.5");
    fclose(f);
    CHECK_STR(buf, "\\*a\\* \\| &lt;img&gt; &amp; \\[l\\](u) 1.5");
}

static void numbers(void)
{
    char b[ESC_NUM_MAX];
    CHECK_STR(esc_number(b, 0), "0");
    CHECK_STR(esc_number(b, 145317), "145317");
    CHECK_STR(esc_number(b, 1234567890123.0), "1234567890123");   /* %.9g would cut it */
    CHECK_STR(esc_number(b, -42), "-42");
    CHECK_STR(esc_number(b, 0.101351358), "0.101351358");
    CHECK_STR(esc_number(b, 1.0 / 3), "0.333333333");
    CHECK_STR(esc_number(b, 1e300), "1e+300");
    CHECK_STR(esc_number(b, NAN), "NA");
    CHECK_STR(esc_number(b, INFINITY), "NA");
}

static void writer(void)
{
    FILE *f = mem();
    struct jw w;
    struct err e = {0};
    jw_init(&w, f);
    jw_object_begin(&w);
    jw_kstring(&w, "name", "a\xff");
    jw_kstring(&w, "lane", NULL);
    jw_kdouble(&w, "median", 0.25);
    jw_kdouble(&w, "missing", NAN);
    jw_ku64(&w, "count", UINT64_MAX);
    jw_ki64(&w, "delta", -3);
    jw_kbool(&w, "ok", true);
    jw_key(&w, "rows");
    jw_array_begin_lines(&w, "\n  ", "\n");
    jw_object_begin(&w);
    jw_key(&w, "pct");
    jw_number_text(&w, "-4.55");
    jw_key(&w, "na");
    jw_number_text(&w, "NA");
    jw_key(&w, "bad");
    jw_number_text(&w, "1.");
    jw_end(&w);
    jw_array_begin(&w);
    jw_end(&w);
    jw_end(&w);
    jw_break(&w, "\n ");
    jw_karray(&w, "empty");
    jw_end(&w);
    jw_end(&w);
    CHECK_INT(jw_done(&w, &e), 0);
    fclose(f);
    CHECK_STR(buf, "{\"name\": \"a\\\\xff\", \"lane\": null, \"median\": 0.25, \"missing\": null, "
                   "\"count\": 18446744073709551615, \"delta\": -3, \"ok\": true, \"rows\": [\n"
                   "  {\"pct\": -4.55, \"na\": null, \"bad\": null},\n  []\n],\n \"empty\": []}");

    /* misuse is caught, not written as broken JSON silently */
    f = mem();
    jw_init(&w, f);
    jw_object_begin(&w);
    jw_string(&w, "a value with no key");
    CHECK_INT(jw_done(&w, &e), -1);
    jw_init(&w, f);
    jw_array_begin(&w);
    CHECK_INT(jw_done(&w, &e), -1);   /* left open */
    jw_init(&w, f);
    for (int i = 0; i < JW_MAX_DEPTH + 1; i++)
        jw_array_begin(&w);
    CHECK_INT(jw_done(&w, &e), -1);
    fclose(f);
}

static void xml(void)
{
    FILE *f = mem();
    struct xw w;
    struct err e = {0};
    xw_init(&w, f);
    xw_begin(&w, "suites");
    xw_attr(&w, "name", "a<\"b\">");
    xw_attr_u64(&w, "tests", 2);
    xw_begin(&w, "case");
    xw_begin(&w, "skipped");
    xw_attr(&w, "message", "no\n");
    xw_end(&w);
    xw_begin(&w, "out");
    xw_text(&w, "x = ");
    xw_text(&w, "1 & 2");
    xw_end(&w);
    xw_end(&w);
    xw_begin(&w, "empty");
    xw_end(&w);
    xw_end(&w);
    CHECK_INT(xw_done(&w, &e), 0);
    fclose(f);
    CHECK_STR(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<suites name=\"a&lt;&quot;b&quot;&gt;\" tests=\"2\">\n"
                   "  <case>\n"
                   "    <skipped message=\"no&#10;\"/>\n"
                   "    <out>x = 1 &amp; 2</out>\n"
                   "  </case>\n"
                   "  <empty/>\n"
                   "</suites>\n");
    f = mem();
    xw_init(&w, f);
    xw_begin(&w, "a");
    xw_text(&w, "t");
    xw_attr(&w, "late", "x");   /* an attribute after text: misuse */
    xw_end(&w);
    CHECK_INT(xw_done(&w, &e), -1);
    fclose(f);
}

int main(void)
{
    utf8();
    strings();
    markdown();
    numbers();
    writer();
    xml();
    free(buf);
    return unit_done("test_json");
}
