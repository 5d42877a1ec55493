/* fuzz_eventlist.c: the --event list parser must never crash, and a list it accepts must
 * name only known events, each counter once. */
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
    struct ctr_set set;
    struct err e;
    /* A sysfs root with nothing in it: the parse alone, as on a machine without a core PMU. */
    struct ctr_config cfg = {.events = s, .sysfs_root = "/nonexistent-tare-fuzz", .pin_cpu = -1};
    if (ctr_set_init(&set, &cfg, &e) == 0) {
        if (set.n < 1 || set.n > CTR_MAX)
            abort();
        for (int i = 0; i < set.n; i++) {
            if (!ctr_event_find(set.c[i].label) || set.c[i].fd != -1)
                abort();
            for (int j = 0; j < i; j++)
                if (strcmp(set.c[i].label, set.c[j].label) == 0)
                    abort();
        }
    } else if (e.kind != ERR_INPUT) {
        abort();
    }
    free(s);
    return 0;
}
