# bench_count.sh: tare count against a bare callgrind run of the same program, and a suite
# with -j 2 against -j 1, each pair side by side in one `tare wall` session (interleaved).
set -eu
: "${TARE:=build/tare}" "${BUILD:=build}"
ex=$BUILD/examples
for p in wordfreq sort fib; do
    [ -x "$ex/$p" ] || { echo "bench_count: $ex/$p missing: run make demo first"; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-5}
abs_tare=$(cd "$(dirname "$TARE")" && pwd)/$(basename "$TARE")

echo "one command: tare count -j 1 vs bare valgrind --tool=callgrind ($runs runs each, interleaved)"
"$TARE" wall --runs "$runs" -f tsv --name tare-count --name callgrind \
    "$abs_tare count -j 1 -- $ex/wordfreq" \
    "valgrind --tool=callgrind --cache-sim=no --branch-sim=no --callgrind-out-file=$tmp/cg.out $ex/wordfreq" \
        \
    > "$tmp/one.tsv"
awk -F'\t' 'NR > 1 { m[$1] = $4; printf "  %-12s median %.3f s\n", $1, $4 }
            END { printf "  ratio tare count / callgrind: %.3f  (goal: at most 1.10)\n", m["tare-count"] / m["callgrind"] }' "$tmp/one.tsv"

echo "a suite of 4 commands: -j 2 vs -j 1 ($runs runs each, interleaved)"
suite="$ex/wordfreq '$ex/sort 200000' '$ex/fib 27' '$ex/wordfreq 100000'"
"$TARE" wall --runs "$runs" -f tsv --name j1 --name j2 --shell sh \
    "$abs_tare count -j 1 $suite > /dev/null" "$abs_tare count -j 2 $suite > /dev/null" > \
        "$tmp/suite.tsv"
awk -F'\t' 'NR > 1 { m[$1] = $4; printf "  %-12s median %.3f s\n", $1, $4 }
            END { printf "  ratio -j 2 / -j 1: %.3f  (ideal on 2 idle cores: 0.5)\n", m["j2"] / m["j1"] }' "$tmp/suite.tsv"
