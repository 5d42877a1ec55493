/* fuzz_toolchain.c: reading the compiler from an ELF .comment section must never crash or read
 * past the image; what it names is a short "NAME VERSION" of digits and dots. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/toolchain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly size bytes, so the sanitizer sees any read past the end. */
    unsigned char *b = malloc(size ? size : 1);
    if (!b)
        return 0;
    memcpy(b, data, size);
    char out[32];
    memset(out, 'x', sizeof out);
    int r = toolchain_from_elf(b, size, out, sizeof out);
    size_t len = strnlen(out, sizeof out);
    if (len == sizeof out || (r == 1) != (len > 0) || (r != 0 && r != 1))
        abort();
    if (r == 1) {
        const char *sp = strchr(out, ' ');
        if (!sp || sp[1] < '0' || sp[1] > '9' || strspn(sp + 1, "0123456789.") != strlen(sp + 1))
            abort();
    }
    free(b);
    return 0;
}
