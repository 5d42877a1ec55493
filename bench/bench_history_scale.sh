#!/usr/bin/env bash
# bench/bench_history_scale.sh: how the history readers grow with the history. Synthetic
# histories of 50 series (ratio and instructions) at ROWS rows each (1,000 to 1,000,000 by
# default: 20 to 20,000 commits), and on each: `tare history check`, `check --commit` (a
# commit in the middle), `noise`, `merge` of two shards, `tare trend` and an append that
# widens the file (a column it lacks), beside one awk pass
# over the file (the floor: reading the TSV once). Prints each command's median wall time,
# CPU time (user + system: steadier on a shared machine) and peak RSS over RUNS runs, its CPU
# time over the awk pass's, and its CPU time and memory per row, so growth shows.
set -eu
: "${TARE:=build/tare}"
ROWS=${ROWS:-1000 10000 100000 500000 1000000}
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME CMD...: median elapsed seconds, CPU seconds and max RSS (KiB) of RUNS runs.
measure() {
    local name=$1; shift
    : > "$tmp/runs"
    for r in $(seq 1 "$RUNS"); do
        /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" > /dev/null 2>&1 || {
            rc=$?; [ "$name" = check-commit ] && [ $rc = 1 ] || { echo "$name failed ($rc)" >&2; \
                exit 1; }; }
        awk '{ print $1, $2 + $3, $4 }' "$tmp/t" >> "$tmp/runs"
    done
    local mid=$(((RUNS + 1) / 2)) k out=$name
    for k in 1 2 3; do
        out="$out $(cut -d' ' -f$k "$tmp/runs" | sort -g | sed -n ${mid}p)"
    done
    echo "$out"
}

printf '%9s %8s  %-13s %8s %8s %11s %8s %9s %9s\n' rows commits command wall cpu peak_rss x_awk \
    µs/row bytes/row
printf 'commit\tbenchmark\tinstructions\tengine\tl1d_misses\nnew\tbench-00\t5\tcallgrind\t7\n' \
    > "$tmp/rows.tsv"
for rows in $ROWS; do
    commits=$((rows / 50))
    h=$tmp/h.tsv
    awk -v nc="$commits" 'BEGIN { srand(7); print "date\tcommit\tbenchmark\tratio\tinstructions"
        for (k = 0; k < nc; k++)
            for (b = 0; b < 50; b++)
                printf "2026-%02d-%02dT%02d:%02d:00Z\t%08x%032d\tbench-%02d\t%.4f\t%d\n", 1 + int(k / 40320),
                    1 + int(k / 1440) % 28, int(k / 60) % 24, k % 60, (k * 40503) % 65536 * 65536, k,
                    b, 1 + 0.02 * (rand() - 0.5), 1000000 + b * 1000 + (k % 5) }' > "$h"
    awk -F'\t' 'NR == 1 || $3 ~ /[02468]$/' "$h" > "$tmp/even.tsv"
    awk -F'\t' 'NR == 1 || $3 ~ /[13579]$/' "$h" > "$tmp/odd.tsv"
    mid=$(awk -F'\t' -v r=$((rows / 2 + 1)) 'NR == r { print $2 }' "$h")
    {
        measure awk-pass awk -F'\t' '{ s += $5 } END { print s }' "$h"
        measure check "$TARE" history check "$h"
        measure check-commit "$TARE" history check --commit "$mid" "$h"
        measure noise "$TARE" history noise "$h"
        measure merge "$TARE" history merge "$tmp/even.tsv" "$tmp/odd.tsv" -o "$tmp/m.tsv"
        measure trend "$TARE" trend "$h" -o "$tmp/t.html"
        # A row with columns the file lacks (engine, a miss count): the file checked whole and
        # written again, widened (on a fresh copy each run; the copy's time included).
        measure widen sh -c 'cp "$1" "$2" && "$3" history append "$2" < "$4"' sh "$h" \
            "$tmp/w.tsv" "$TARE" "$tmp/rows.tsv"
    } > "$tmp/r"
    awk -v rows="$rows" -v nc="$commits" '
        NR == 1 { a = $3 }
        { printf "%9d %8d  %-13s %7.2fs %7.2fs %7.1f MiB %8.2f %9.2f %9.0f\n", rows, nc, $1, $2, $3,
            $4 / 1024, (a > 0 ? $3 / a : 0), $3 * 1e6 / rows, $4 * 1024 / rows }' "$tmp/r"
done
echo "file size at the last size: $(stat -c %s "$tmp/h.tsv") bytes"
