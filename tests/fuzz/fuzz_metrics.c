/* fuzz_metrics.c: the counter-line parser (the default pattern, TARE_METRICS_OUT's NAME VALUE
 * lines, a --metrics-pattern) must never crash, leak or loop; every counter it takes has a
 * valid name, the stream gives the same counters however the bytes are cut into chunks, and a
 * bad line's message holds no control character nor byte that is not UTF-8. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/esc.h"
#include "core/util/metrics.h"

/* The data fed in one piece, then in pieces of `step` bytes; the two runs must agree. */
static void both_ways(const struct metrics_spec *s, bool pair, const uint8_t *data, size_t size,
                      size_t step)
{
    struct metrics_run a = {0}, b = {0};
    struct metrics_feed f;
    metrics_feed_init(&f, s, pair, &a);
    metrics_feed(&f, (const char *)data, size);
    metrics_feed_end(&f);
    metrics_feed_init(&f, s, pair, &b);
    for (size_t i = 0; i < size; i += step)
        metrics_feed(&f, (const char *)data + i, size - i < step ? size - i : step);
    metrics_feed_end(&f);
    if (a.n != b.n || strcmp(a.bad, b.bad) != 0)
        abort();
    if (!esc_text_plain(a.bad))   /* a line in a message is shown by esc.h's rule */
        abort();
    for (int i = 0; i < a.n; i++) {
        if (strcmp(a.kv[i].name, b.kv[i].name) != 0 || a.kv[i].value != b.kv[i].value)
            abort();
        if (!metrics_name_valid(a.kv[i].name, strlen(a.kv[i].name)))
            abort();
    }
    struct metrics ms = {0};
    struct err e;
    if (metrics_add_run(&ms, &a, &e) == 0 && metrics_add_run(&ms, &b, &e) == 0) {
        metrics_finish(&ms);
        for (int i = 0; i < ms.n; i++)
            if (ms.m[i].varied || ms.m[i].min > ms.m[i].max)
                abort();
    }
    metrics_free(&ms);
    metrics_run_free(&a);
    metrics_run_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct metrics_spec re;
    static int ready;
    struct err e;
    if (!ready)
        ready = metrics_spec_init(&re, "stderr", "^\\[([a-z_.]+)\\] *([0-9a-z]*)$", &e) == 0
                    ? 1 : -1;
    size_t step = size ? (size_t)data[0] % 7 + 1 : 1;
    both_ways(NULL, false, data, size, step);
    both_ways(NULL, true, data, size, step);
    if (ready > 0)
        both_ways(&re, false, data, size, step);
    return 0;
}
