/* fuzz_cpulist.c: the sysfs CPU list parser must never crash or read past its input, and a
 * list it accepts must name only CPUs below CTR_MAX_CPUS, each of them in the text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    uint64_t bits[CTR_MAX_CPUS / 64];
    struct err e;
    if (ctr_parse_cpulist(s, bits, &e) == 0) {
        /* Accepted: only digits, '-', ',' and one final newline. */
        for (size_t i = 0; s[i]; i++)
            if (!strchr("0123456789-,", s[i]) && !(s[i] == '\n' && s[i + 1] == '\0'))
                abort();
    }
    free(s);
    return 0;
}
