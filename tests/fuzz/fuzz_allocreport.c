/* fuzz_allocreport.c: the reader of libtare-alloc reports must never crash, leak or accept
 * a scope line without its report; what it accepts sums, or is refused for a sum past 2^64. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/allocreport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct alloc_report r;
    struct err e;
    if (allocreport_parse((const char *)data, size, &r, &e) == 0) {
        struct alloc_totals t;
        for (size_t i = 0; i < r.nprocs; i++) {
            if (r.procs[i].pid <= 0 || !r.procs[i].exe)
                abort();
            for (size_t k = 0; k < r.procs[i].nscopes; k++)
                if (!r.procs[i].scopes[k].label)
                    abort();
        }
        if (allocreport_sum(&r, -1, &t, &e) == 0) {
            if (t.nprocs != r.nprocs)
                abort();
            allocreport_totals_free(&t);
        }
        if (r.nprocs && allocreport_sum(&r, r.procs[0].ppid, &t, &e) == 0) {
            if (t.nprocs == 0)
                abort();
            allocreport_totals_free(&t);
        }
        allocreport_free(&r);
    }
    return 0;
}
