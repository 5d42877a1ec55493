/* fuzz_ehframe.c: libtare-alloc.so reads each object's .eh_frame in the measured process
 * (src/preload/ehframe.c, compiled in here): no input may make it read outside the section or
 * loop; the kinds it counts are at most the FDEs it read. */
#include <stdint.h>
#include <stdlib.h>

#include "preload/ehframe.c"

static void range(void *ctx, uint64_t lo, uint64_t hi)
{
    (void)lo;
    (void)hi;
    (*(unsigned *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ehf_counts c;
    unsigned n = 0;
    ehf_scan(data, size, 0x400000, &c, range, &n);
    if (c.rbp + c.rsp > c.fdes || n != c.rsp)
        abort();
    return 0;
}
