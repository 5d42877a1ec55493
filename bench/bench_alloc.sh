# bench_alloc.sh: libtare-alloc against valgrind memcheck and heaptrack, side by side in one
# run, as ratios to the same program run natively (interleaved with libtare-alloc's runs).
# 1. the worst case: a malloc/free loop (tests/fixtures/alloc_loop);
# 2. a real program that allocates a lot: python3 building, writing and parsing a large JSON
#    document, with PYTHONMALLOC=malloc so that every object goes through malloc.
# libtare-alloc runs as `tare alloc` runs it: preloaded, writing its report to a file.
set -eu
: "${TARE:=build/tare}" "${BUILD:=build}"
lib=${TARE_ALLOC_LIB:-$BUILD/libtare-alloc.so}
case $lib in /*) ;; *) lib=$PWD/$lib ;; esac
loop=$BUILD/fixtures/alloc_loop
[ -f "$lib" ] || { echo "bench_alloc: $lib missing: run make"; exit 1; }
[ -x "$loop" ] || { echo "bench_alloc: $loop missing: run make $loop"; exit 1; }
py=/usr/bin/python3
for t in valgrind heaptrack; do
    command -v $t >/dev/null || { echo "bench_alloc: $t is not installed (Debian package $t)"; \
        exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-21}         # native and libtare-alloc: cheap, many runs
slow_runs=${SLOW_RUNS:-3}  # memcheck and heaptrack: tens of times slower
loop_n=${LOOP_N:-3000000}
json_n=${JSON_N:-30000}
script="import json; d = [{'id': i, 'name': 'item%d' % i, 'tags': ['a', 'b', str(i)], 'v': i * 0.5} for i in range($json_n)]; s = json.dumps(d); assert len(json.loads(s)) == $json_n"
export PYTHONMALLOC=malloc PYTHONHASHSEED=0

# col TSV SERIES COLUMN: one cell of tare wall's TSV
col() { awk -F'\t' -v n="$2" -v k="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["name"] == n { print $c[k] }' "$1"; }

bench() {   # bench LABEL CMD...: one row per tool
    local label=$1; shift
    local cmd name; cmd=$(printf '%q ' "$@"); name=$(basename "$1")
    # native and libtare-alloc as two lanes of one series, their runs interleaved
    "$TARE" wall --runs "$runs" -w 1 -f tsv --lane native: \
        --lane "tare-alloc:LD_PRELOAD=$lib,TARE_ALLOC_OUT=$tmp/report" -- "$@" > "$tmp/fast.tsv"
    # memcheck and heaptrack, their runs interleaved; ratios against the native lane above
    "$TARE" wall --runs "$slow_runs" -w 0 -f tsv --shell sh --name memcheck --name heaptrack \
        "valgrind -q --tool=memcheck $cmd" "heaptrack -o $tmp/ht $cmd >/dev/null" > "$tmp/slow.tsv"
    local nm nu ns tm tu ts
    nm=$(col "$tmp/fast.tsv" "$name+native" median_s); nu=$(col "$tmp/fast.tsv" \
        "$name+native" user_s)
    ns=$(col "$tmp/fast.tsv" "$name+native" sys_s)
    tm=$(col "$tmp/fast.tsv" "$name+tare-alloc" median_s); tu=$(col "$tmp/fast.tsv" \
        "$name+tare-alloc" user_s)
    ts=$(col "$tmp/fast.tsv" "$name+tare-alloc" sys_s)
    awk -v l="$label" -v nm="$nm" -v nu="$nu" -v ns="$ns" -v tm="$tm" -v tu="$tu" -v \
        ts="$ts" 'BEGIN {
        printf "  %s: native median %.3f s (cpu %.3f s)\n", l, nm, nu + ns
        printf "    %-14s %12s %12s\n", "tool", "wall ratio", "cpu ratio"
        printf "    %-14s %11.3fx %11.3fx\n", "libtare-alloc", tm / nm, (tu + ts) / (nu + ns) }' 
    for t in memcheck heaptrack; do
        awk -v t=$t -v m="$(col "$tmp/slow.tsv" $t median_s)" -v \
            u="$(col "$tmp/slow.tsv" $t user_s)" \
            -v s="$(col "$tmp/slow.tsv" $t sys_s)" -v nm="$nm" -v nu="$nu" -v ns="$ns" \
            'BEGIN { printf "    %-14s %11.1fx %11.1fx\n", t, m / nm, (u + s) / (nu + ns) }'
    done
    rm -f "$tmp/report"
    "$TARE" alloc -f json -- "$@" > "$tmp/counts.json"
    echo "    counts: $(cat "$tmp/counts.json")"
}

echo "wall ratio: median wall time over the native median; cpu ratio: median user+sys over"
echo "native's (steadier on a loaded machine). native and libtare-alloc: $runs runs each,"
echo "interleaved; then memcheck and heaptrack: $slow_runs runs each, interleaved"
bench "malloc/free loop" "$loop" "$loop_n"
bench "python3 JSON" "$py" -S -c "$script"
