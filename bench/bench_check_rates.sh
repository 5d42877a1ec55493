#!/usr/bin/env bash
# bench/bench_check_rates.sh: the false-alarm and miss rates of `tare history check`'s
# wall-clock test on synthetic series (bench/check_rates.c), for the default learning window
# and persistence and two neighbours. Not timing: rates, deterministic.
set -eu
BUILD=${BUILD:-build}
cc -std=gnu11 -O2 -Isrc -o "$BUILD/check_rates" bench/check_rates.c "$BUILD/libtare-core.a" \
    -lm -linih
for args in "60 3" "30 3" "60 4"; do "$BUILD/check_rates" $args; done
