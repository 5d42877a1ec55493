#!/usr/bin/env bash
# bench/bench_metrics.sh: what reading a program's own counters costs.
# 1. The counter-line reader alone (bench/metrics_speed.c) against finding the same bytes'
#    newlines: how many MB/s of stderr it keeps up with, judged to a few percent.
# 2. The measured command: `tare wall` pipes a program's stderr either way (its tail for
#    errors); --metrics-from stderr also parses every line as it comes, while the program
#    runs. The same commands timed with and without it, rounds alternated (and which goes
#    first within a round), the ratio of medians per round: a program that prints 4 counters
#    (the fixture vmstats, the seed's use) and one that floods stderr with 300,000 lines no
#    counter is in (every line looked at). The anchor is the same tare without the option.
set -eu
: "${TARE:?set TARE to the tare binary}"
BUILD=${BUILD:-build}
rounds=${ROUNDS:-5}
runs=${RUNS:-15}
vm=$BUILD/fixtures/vmstats
[ -x "$vm" ] || { echo "bench_metrics: $vm missing: make $vm first"; exit 1; }
make -s "$BUILD/libtare-core.a" BUILD="$BUILD"
cc -std=gnu11 -O2 -Isrc -o "$BUILD/metrics_speed" bench/metrics_speed.c "$BUILD/libtare-core.a" \
    -lm -pthread
"$BUILD/metrics_speed" "${METRICS_PASSES:-15}"
echo "the measured command: wall --metrics-from stderr / wall"
median_of() { tr ' ' '\n' | grep . | sort -n | awk \
    '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for cmd in "env VM_STATS=1 $vm 2000000" "sh -c 'exec seq 300000 1>&2'"; do
    ratios=
    for r in $(seq "$rounds"); do
        # which goes first alternates too, so a load that rises within a round hits both
        for side in $( ((r % 2)) && echo "plain read" || echo "read plain"); do
            opt=()
            [ "$side" = read ] && opt=(--metrics-from stderr)
            m=$("$TARE" wall "${opt[@]}" --runs "$runs" -f tsv "$cmd" 2>/dev/null |
                awk -F'\t' 'NR == 2 { print $4 }')
            if [ "$side" = read ]; then read_=$m; else plain=$m; fi
        done
        ratios="$ratios $(awk -v a="$read_" -v b="$plain" 'BEGIN { printf "%.3f", a / b }')"
    done
    printf '%-40s wall --metrics-from stderr / wall, median of %d rounds of %d runs: %s  ' \
        "$cmd" "$rounds" "$runs" "$(median_of <<<"$ratios")"
    printf '(rounds:%s; last median without %.1f ms)\n' "$ratios" "$(awk -v b="$plain" \
        'BEGIN { print b * 1000 }')"
done
