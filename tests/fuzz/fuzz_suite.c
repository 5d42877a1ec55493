/* fuzz_suite.c: a suite file's reader (ini.c) and checks must never crash, leak or loop; what
 * the reader accepts is sections of trimmed names and keys with one-line values, none twice,
 * and what the checks accept gives argvs for its commands. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/ini.h"
#include "core/engine/suite.h"
#include "core/util/words.h"

static void check_ini(const uint8_t *data, size_t size)
{
    struct ini ini;
    struct err e;
    if (ini_parse("fuzz", (const char *)data, size, NULL, &ini, &e) < 0)
        return;
    for (size_t i = 0; i < ini.nsec; i++) {
        const struct ini_section *s = &ini.sec[i];
        if (strpbrk(s->name, "[]\n") || s->line == 0)
            abort();
        for (size_t j = 0; j < i; j++)
            if (strcmp(ini.sec[j].name, s->name) == 0)
                abort();
        for (size_t k = 0; k < s->nkeys; k++) {
            const struct ini_key *key = &s->keys[k];
            if (!key->key[0] || strchr(key->key, '=') || strchr(key->key, '\n') ||
                strchr(key->value, '\n') || key->line < s->line)
                abort();
            for (size_t j = 0; j < k; j++)
                if (strcmp(s->keys[j].key, key->key) == 0)
                    abort();
        }
    }
    ini_free(&ini);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_ini(data, size);
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
        for (int i = 0; i < su.nlanes; i++)
            for (char **v = su.lanes[i].env; *v; v++)
                if (!strchr(*v, '=') || strpbrk(*v, " \t\n"))
                    abort();
        /* budgets: named, distinct, a threshold in [0, 10), UINT64_MAX never a budget */
        for (int i = 0; i < su.nbudgets; i++) {
            const struct budget *bu = &su.budgets[i];
            if (!bu->bench[0] || strchr(" \t", bu->bench[0]) || !(bu->threshold >= 0) ||
                bu->threshold >= 10 || budget_find(su.budgets, su.nbudgets, bu->bench) != bu ||
                budget_over(bu, BUDGET_INSTRUCTIONS, UINT64_MAX))
                abort();
        }
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
