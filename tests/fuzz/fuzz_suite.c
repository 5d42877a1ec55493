/* fuzz_suite.c: a suite file's checks (on libinih's parse) must never crash, leak or loop;
 * what they accept must give argvs for its commands. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/suite.h"
#include "core/words.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    struct suite su;
    struct err e;
    if (suite_parse("fuzz", s, ".", &su, &e) == 0) {
        if (!su.command || !su.patterns || !su.patterns[0] || su.runs < 1)
            abort();
        struct suite_bench b = {"name", "dir/name.txt"};
        char **argv;
        if (suite_argv(su.command, &b, &argv, &e) == 0)
            words_free(argv);
        if (su.reference && suite_argv(su.reference, &b, &argv, &e) == 0)
            words_free(argv);
        suite_free(&su);
    }
    free(s);
    return 0;
}
