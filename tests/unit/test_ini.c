/* test_ini.c: the INI reader of suite files: long lines, comments, continuations, duplicates. */
#include <stdlib.h>
#include <string.h>

#include "core/util/ini.h"
#include "unit.h"

static int parse(const char *text, struct ini *ini, struct err *e)
{
    return ini_parse("s.ini", text, strlen(text), NULL, ini, e);
}

static void expect_bad(const char *text, const char *want, int line)
{
    struct ini ini;
    struct err e = {0};
    int rc = parse(text, &ini, &e);
    if (rc != -1 || e.kind != ERR_INPUT || !strstr(e.msg, want))
        printf("  line %d: got %d '%s', want the error '%s'\n", line, rc, e.msg, want);
    CHECK(rc == -1 && e.kind == ERR_INPUT && strstr(e.msg, want) != NULL);
    if (rc == 0)
        ini_free(&ini);
}
#define BAD(text, want) expect_bad(text, want, __LINE__)

int main(void)
{
    struct ini ini;
    struct err e = {0};

    /* Sections and keys in order, values trimmed, comments and blank lines skipped */
    CHECK_INT(parse("; a comment\n# another\n[suite]\n  command = ./a {bench}  \n\nruns=3\n"
                    "[lane x]\nenv = A=1\n", &ini, &e), 0);
    CHECK_INT(ini.nsec, 2);
    CHECK_STR(ini.sec[0].name, "suite");
    CHECK_INT(ini.sec[0].line, 3);
    CHECK_INT(ini.sec[0].nkeys, 2);
    CHECK_STR(ini.sec[0].keys[0].key, "command");
    CHECK_STR(ini.sec[0].keys[0].value, "./a {bench}");
    CHECK_INT(ini.sec[0].keys[0].line, 4);
    CHECK_STR(ini.sec[0].keys[1].value, "3");
    CHECK_STR(ini.sec[1].name, "lane x");
    ini_free(&ini);

    /* ';' and '#' after the start of a line are part of the value (libinih cut 'a ;b c' to
     * 'a' silently) */
    CHECK_INT(parse("[s]\ncommand = prog a ;b c # d\n", &ini, &e), 0);
    CHECK_STR(ini.sec[0].keys[0].value, "prog a ;b c # d");
    ini_free(&ini);

    /* No line length limit (libinih refused 200 characters and more as "not INI") */
    {
        size_t n = 100000;
        char *text = malloc(n + 64);
        int at = sprintf(text, "[s]\nk = ");
        memset(text + at, 'x', n);
        strcpy(text + at + n, "\nlast = 1\n");
        CHECK_INT(parse(text, &ini, &e), 0);
        CHECK_INT(strlen(ini.sec[0].keys[0].value), n);
        CHECK_STR(ini.sec[0].keys[1].value, "1");
        CHECK_INT(ini.sec[0].keys[1].line, 3);
        ini_free(&ini);
        free(text);
    }

    /* Indented lines after a key continue it, joined by a space (libinih's replaced it); a
     * comment or blank line ends the key, and an indented key line then is a key */
    CHECK_INT(parse("[lane a]\nenv = A=1\n    B=2\n\tC=3\n\n  other = x\n", &ini, &e), 0);
    CHECK_STR(ini.sec[0].keys[0].value, "A=1 B=2 C=3");
    CHECK_STR(ini.sec[0].keys[1].key, "other");
    CHECK_INT(ini.sec[0].keys[1].line, 6);
    ini_free(&ini);
    CHECK_INT(parse("[s]\nk =\n  v\n", &ini, &e), 0);
    CHECK_STR(ini.sec[0].keys[0].value, "v");
    ini_free(&ini);

    /* A section with no keys is a section (a lane without env = was lost) */
    CHECK_INT(parse("[lane a]\n[lane b]\n", &ini, &e), 0);
    CHECK_INT(ini.nsec, 2);
    CHECK_INT(ini.sec[1].nkeys, 0);
    ini_free(&ini);

    /* CRLF line ends, a byte order mark, no newline at the end */
    CHECK_INT(parse("\xef\xbb\xbf[s]\r\nk = v\r\nj = w", &ini, &e), 0);
    CHECK_STR(ini.sec[0].name, "s");
    CHECK_STR(ini.sec[0].keys[0].value, "v");
    CHECK_STR(ini.sec[0].keys[1].value, "w");
    ini_free(&ini);

    /* Empty text: no sections */
    CHECK_INT(parse("", &ini, &e), 0);
    CHECK_INT(ini.nsec, 0);
    ini_free(&ini);

    /* Duplicates are refused, naming both lines (libinih merged them silently) */
    BAD("[suite]\nruns = 1\n[lane a]\n[suite]\n",
        "'s.ini' line 4: [suite] again (it began on line 1)");
    BAD("[s]\nk = 1\nj = 2\nk = 3\n", "'s.ini' line 4: 'k' given twice in [s] (first on line 2)");
    BAD("[ s ]\n[s]\n", "line 2: [s] again");
    /* and what is not INI */
    BAD("[s\nk = 1\n", "'s.ini' line 1: not INI");
    BAD("[s] x\n", "line 1: not INI");
    BAD("[a]b]\n", "line 1: not INI: a bracket inside the section name");
    BAD("[s]\njust words\n", "'s.ini' line 2: not INI (want [section] or key = value)");
    BAD("[s]\n = v\n", "line 2: not INI: no key before '='");
    BAD("k = v\n", "'s.ini' line 1: 'k' before any [section]");
    BAD("  indented = first\n", "line 1: 'indented' before any [section]");
    {
        static const char nul[] = "[s]\nk = a\0b\n";
        CHECK_INT(ini_parse("s.ini", nul, sizeof nul - 1, NULL, &ini, &e), -1);
        CHECK_STR(e.msg, "'s.ini' line 2: a NUL byte: not a text file");
    }
    /* Keys named repeatable may come many times (the suite's hooks), kept in order; others not */
    {
        static const char *const rep[] = {"prepare", NULL};
        const char *t = "[suite]\nprepare = a\nprepare = b\nruns = 1\n";
        CHECK_INT(ini_parse("s.ini", t, strlen(t), rep, &ini, &e), 0);
        CHECK_INT(ini.sec[0].nkeys, 3);
        CHECK_STR(ini.sec[0].keys[0].value, "a");
        CHECK_STR(ini.sec[0].keys[1].value, "b");
        ini_free(&ini);
        t = "[suite]\nprepare = a\nruns = 1\nruns = 2\n";
        CHECK_INT(ini_parse("s.ini", t, strlen(t), rep, &ini, &e), -1);
        CHECK(strstr(e.msg, "'runs' given twice") != NULL);
        t = "[suite]\nprepare = a\nprepare = b\n";
        CHECK_INT(ini_parse("s.ini", t, strlen(t), NULL, &ini, &e), -1);
    }
    return unit_done("test_ini");
}
