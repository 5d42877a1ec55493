/* test_words.c: the command-string splitter, against what a POSIX shell would do. */
#include <stdlib.h>

#include "core/util/words.h"
#include "unit.h"

/* Splits s and checks the words, joined with '|' for a compact comparison. */
static void split_is(const char *s, const char *want, char want_shell)
{
    char **argv = NULL, sh = 0;
    int argc = 0;
    struct err e = {0};
    int rc = words_split(s, &argv, &argc, &sh, &e);
    CHECK_INT(rc, 0);
    if (rc != 0) {
        printf("not ok - splitting <%s>: %s\n", s, e.msg);
        return;
    }
    char joined[512] = "";
    for (int i = 0; i < argc; i++) {
        if (i)
            strcat(joined, "|");
        strcat(joined, argv[i]);
    }
    CHECK_STR(joined, want);
    CHECK_INT(sh, want_shell);
    /* words_join must quote so that splitting again gives the same words. */
    char *back = words_join(argv);
    char **again = NULL;
    int argc2 = 0;
    CHECK(back && words_split(back, &again, &argc2, NULL, &e) == 0);
    CHECK_INT(argc2, argc);
    for (int i = 0; again && i < argc && i < argc2; i++)
        CHECK_STR(again[i], argv[i]);
    words_free(again);
    free(back);
    words_free(argv);
}

static void split_fails(const char *s, const char *msg_part)
{
    char **argv = NULL;
    struct err e = {0};
    CHECK_INT(words_split(s, &argv, NULL, NULL, &e), -1);
    CHECK_INT(e.kind, ERR_INPUT);
    CHECK(strstr(e.msg, msg_part) != NULL);
    CHECK(argv == NULL);
}

int main(void)
{
    split_is("grep -c x file", "grep|-c|x|file", 0);
    split_is("  a   b\t c\n", "a|b|c", 0);
    split_is("a 'b c' d", "a|b c|d", 0);
    split_is("a \"b c\" d", "a|b c|d", 0);
    split_is("a\\ b", "a b", 0);
    split_is("x'y'\"z\"", "xyz", 0);
    split_is("'' x", "|x", 0);
    split_is("\"\"", "", 0);
    split_is("\"a \\\"q\\\" \\\\ \\x\"", "a \"q\" \\ \\x", 0);
    split_is("'a \\ b'", "a \\ b", 0);
    split_is("'it'\\''s'", "it's", 0);
    split_is("a | b", "a|||b", '|');
    split_is("ls *.c", "ls|*.c", '*');
    split_is("echo $HOME", "echo|$HOME", '$');
    split_is("echo '$HOME'", "echo|$HOME", 0);
    split_is("echo \"$HOME\"", "echo|$HOME", '$');
    split_is("echo a\\|b", "echo|a|b", 0);
    split_is("a > b", "a|>|b", '>');
    split_fails("a 'b", "unterminated single quote");
    split_fails("a \"b", "unterminated double quote");
    split_fails("a \\", "trailing backslash");
    split_fails("   ", "empty command");
    split_fails("", "empty command");
    CHECK(words_is_env_name("JIT", 3));
    CHECK(words_is_env_name("_x1", 3));
    CHECK(words_is_env_name("A=1", 1));
    CHECK(!words_is_env_name("1X", 2));
    CHECK(!words_is_env_name("A-B", 3));
    CHECK(!words_is_env_name("", 0));
    return unit_done("test_words");
}
