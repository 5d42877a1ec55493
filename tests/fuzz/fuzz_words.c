/* fuzz_words.c: the command-string word splitter must never crash, leak or loop; a string
 * it splits must join back into one that splits to the same words. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/words.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    char **argv = NULL, shell_char = 0;
    int argc = 0;
    struct err e;
    if (words_split(s, &argv, &argc, &shell_char, &e) == 0) {
        char *joined = words_join(argv);
        char **again = NULL;
        int argc2 = 0;
        if (joined && words_split(joined, &again, &argc2, NULL, &e) == 0) {
            if (argc2 != argc)
                abort();
            for (int i = 0; i < argc; i++)
                if (strcmp(argv[i], again[i]) != 0)
                    abort();
            words_free(again);
        }
        free(joined);
        words_free(argv);
    }
    free(s);
    return 0;
}
