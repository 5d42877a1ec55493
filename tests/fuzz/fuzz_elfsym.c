/* fuzz_elfsym.c: the ELF symbol reader must never read outside the file, crash or leak; what
 * it accepts is sorted, and every name it gives is one of the file's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct elfsym s;
    struct err e;
    /* an aligned copy, as a mapped file is */
    uint8_t *b = malloc(size ? size : 1);
    if (!b)
        return 0;
    memcpy(b, data, size);
    if (elfsym_parse(b, size, &s, &e) == 0) {
        for (size_t i = 0; i < s.nfns; i++) {
            if (i && s.fns[i - 1].lo >= s.fns[i].lo)
                abort();
            if (s.fns[i].name >= s.names_len || s.fns[i].hi <= s.fns[i].lo)
                abort();
            const char *n = elfsym_lookup(&s, s.fns[i].lo);
            if (!n || !memchr(b, n[0], size))
                abort();
        }
        for (size_t i = 0; i < s.nloads; i++)
            elfsym_vaddr(&s, s.loads[i].offset);
        elfsym_free(&s);
    }
    free(b);
    return 0;
}
