#!/usr/bin/env bash
# bench/bench_stat.sh: what counting costs the measured command. Times the same command with
# `tare wall` (posix_spawn, no counters) and `tare wall --counters` (fork, gate, counters
# attached with enable_on_exec), rounds alternated so drift hits both, and prints the ratio
# of medians per round. perf stat, the natural anchor, needs hardware counters this machine
# may not have; the software counters are what is opened here.
set -eu
: "${TARE:?set TARE to the tare binary}"
BUILD=${BUILD:-build}
rounds=${ROUNDS:-5}
runs=${RUNS:-15}
for cmd in "$BUILD/fixtures/touchmem 64" "$BUILD/fixtures/busy 20" "/bin/true"; do
    ratios=
    for r in $(seq "$rounds"); do
        plain=$("$TARE" wall --runs "$runs" -f tsv "$cmd" 2>/dev/null | awk -F'\t' \
            'NR == 2 { print $4 }')
        ctr=$("$TARE" wall --counters --runs "$runs" -f tsv "$cmd" 2>/dev/null | awk -F'\t' \
            'NR == 2 { print $4 }')
        ratios="$ratios $(awk -v a="$ctr" -v b="$plain" 'BEGIN { printf "%.3f", a / b }')"
    done
    sorted=$(tr ' ' '\n' <<<"$ratios" | grep . | sort -n)
    median=$(awk \
        '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' \
        <<<"$sorted")
    printf '%-28s wall --counters / wall, median of %d rounds of %d runs: %s  (rounds:%s)\n' \
        "$cmd" "$rounds" "$runs" "$median" "$ratios"
done
