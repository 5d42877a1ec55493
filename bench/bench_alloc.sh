# bench_alloc.sh: libtare-alloc against valgrind memcheck and heaptrack, side by side in one
# run, as ratios to the same program run natively (the reference, interleaved with each).
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
    command -v $t >/dev/null || { echo "bench_alloc: $t is not installed (Debian package $t)"; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-11}         # native and libtare-alloc: cheap, many runs
slow_runs=${SLOW_RUNS:-3}  # memcheck and heaptrack: tens of times slower
loop_n=${LOOP_N:-3000000}
json_n=${JSON_N:-30000}
script="import json; d = [{'id': i, 'name': 'item%d' % i, 'tags': ['a', 'b', str(i)], 'v': i * 0.5} for i in range($json_n)]; s = json.dumps(d); assert len(json.loads(s)) == $json_n"
export PYTHONMALLOC=malloc PYTHONHASHSEED=0

# ratio TSV NAME: the ratio column of the series NAME
ratio() { awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["name"] == n { printf "%s\t%s\t%s\n", $c["ratio"], $c["median_s"], $c["user_s"] }' "$1"; }

bench() {   # bench LABEL CMD...: prints one row per tool
    local label=$1; shift
    local cmd; cmd=$(printf '%q ' "$@")
    "$TARE" wall -n "$runs" -w 1 -f tsv --reference "$cmd" \
        --lane "tare-alloc:LD_PRELOAD=$lib,TARE_ALLOC_OUT=$tmp/report" --name tare -- "$@" > "$tmp/fast.tsv"
    "$TARE" wall -n "$slow_runs" -w 0 -f tsv --shell --reference "$cmd" \
        --name memcheck --name heaptrack \
        "valgrind -q --tool=memcheck $cmd" "heaptrack -o $tmp/ht $cmd >/dev/null" > "$tmp/slow.tsv"
    local native nu
    native=$(awk -F'\t' 'NR == 2 { print $11 }' "$tmp/fast.tsv")
    nu=$("$TARE" wall -n 3 -w 1 -f tsv -- "$@" | awk -F'\t' 'NR == 2 { print $8 }')
    printf '  %-22s %-14s native: median %.3f s, user %.3f s\n' "$label" "" "$native" "$nu"
    printf '  %-22s %-14s %8s %10s %10s\n' "" tool ratio "median s" "user s"
    for row in "tare+tare-alloc:fast:libtare-alloc" "memcheck:slow:memcheck" "heaptrack:slow:heaptrack"; do
        IFS=: read -r series file name <<<"$row"
        IFS=$'\t' read -r r m u <<<"$(ratio "$tmp/$file.tsv" "$series")"
        printf '  %-22s %-14s %7.3fx %10.3f %10.3f\n' "" "$name" "$r" "$m" "$u"
    done
    rm -f "$tmp/report"
    "$TARE" alloc -f json -- "$@" > "$tmp/counts.json"
    echo "  counts: $(cat "$tmp/counts.json")"
}

echo "ratios of medians to the native run (its runs interleaved with each tool's, same session);"
echo "native and libtare-alloc: $runs runs; memcheck and heaptrack: $slow_runs runs"
bench "malloc/free loop" "$loop" "$loop_n"
bench "python3 JSON" "$py" -S -c "$script"
