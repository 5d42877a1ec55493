#!/usr/bin/env bash
# bench/bench_run.sh: tare run's count pass on the bundled example suite (examples/suite.ini:
# 3 benchmarks x 2 lanes) one job at a time (-j 1, as the seed's CI ran its deterministic
# pass) against all CPUs at once (-j N), alternating, ROUNDS rounds; and whether the counts
# of the two agree. Run from the repo root; TARE names the binary.
set -eu
TARE=${TARE:-build/tare}
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
N=$(nproc)
for p in fib sort wordfreq yardstick; do
    [ -x "$BUILD/examples/$p" ] || { echo \
        "bench_run: no $BUILD/examples/$p (make $BUILD/examples/$p)" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "bench_run: needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
echo "tare run --count on examples/suite.ini: -j 1 against -j $N, $ROUNDS rounds, alternating"
for r in $(seq "$ROUNDS"); do
    for j in 1 "$N"; do
        t0=$(now)
        "$TARE" run --count -j "$j" -f tsv examples/suite.ini > "$tmp/j$j.$r.tsv"
        t1=$(now)
        echo "$j $(echo "$t1 - $t0" | bc)" >> "$tmp/times"
    done
done
med() { sort -n | awk \
    '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m1=$(awk '$1 == 1 { print $2 }' "$tmp/times" | med)
mn=$(awk -v n="$N" '$1 == n { print $2 }' "$tmp/times" | med)
printf '%-10s %10s\n' jobs "median s"
printf '%-10s %10.2f\n' "-j 1" "$m1" "-j $N" "$mn"
echo "ratio -j $N / -j 1: $(echo "scale=3; $mn / $m1" | bc)"
# Counts do not depend on load: every round's instructions and allocations must agree.
if [ "$(cat "$tmp"/j*.tsv | cut -f1,3,4 | sort -u | wc -l)" -eq \
    "$(($(wc -l < "$tmp/j1.1.tsv")))" ]; then
    echo "counts identical across all $((2 * ROUNDS)) runs"
else
    echo "counts differ between runs:"; cat "$tmp"/j*.tsv | cut -f1,3,4 | sort | uniq -c
fi
