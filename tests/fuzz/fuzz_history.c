/* fuzz_history.c: the history reader must never crash, leak or loop on any input; what it
 * accepts must gather into series and survive the regression test at every point. */
#include <stdint.h>
#include <stdlib.h>

#include "core/history/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hist_table t;
    struct err e;
    if (hist_parse("fuzz", (const char *)data, size, &t, &e) < 0)
        return 0;
    struct hist_db db;
    hist_db_init(&db);
    if (hist_db_add(&db, &t, &e) == 0) {
        hist_db_finish(&db);
        struct hist_check_opts o = {
            .det_threshold = 0.02, .persist = 3, .window = 10, .noise_n = 60};
        for (size_t s = 0; s < db.nseries; s++) {
            if (db.series[s].n > 0 && db.series[s].commit[db.series[s].n - 1] >= db.ncommits)
                abort();
            size_t n = db.series[s].n;
            for (int m = 0; m < HM_COUNT; m++) {
                if (n > 256) {
                    /* A long history (thousands of commits): the whole-series scan, linear,
                     * where a check at every point would be quadratic and starve the fuzzer. */
                    struct hist_step *st = malloc(n * sizeof *st);
                    if (!st)
                        abort();
                    hist_scan(&db.series[s], m, &o, st);
                    for (size_t i = 0; i < n; i++)
                        if (st[i].found && st[i].at > i)
                            abort();
                    free(st);
                    continue;
                }
                for (size_t i = 0; i < n; i++) {
                    struct hist_step st;
                    hist_check_point(&db.series[s], m, i, &o, &st);
                    if (st.found && st.at > i)
                        abort();
                }
            }
        }
    }
    hist_db_free(&db);
    hist_table_free(&t);
    return 0;
}
