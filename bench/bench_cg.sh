#!/usr/bin/env bash
# bench/bench_cg.sh: `tare cg top` against callgrind_annotate and `wc -l` on one large real
# callgrind profile (gcc's cc1 compiling a generated file, --dump-instr=yes), side by side in
# one run, as ratios; and tare's peak RSS against the file's size. Run from the repo root with
# $TARE set. The profile is made once (about half a minute) and cached under build/bench/cg/.
set -eu
TARE=${TARE:-build/tare}
BUILD=${BUILD:-build}
dir=$BUILD/bench/cg
prof=$dir/cc1.callgrind.out
runs=${CG_BENCH_RUNS:-5}

for tool in valgrind callgrind_annotate gcc; do
    command -v "$tool" >/dev/null || { echo "bench_cg: needs $tool (Debian: valgrind, gcc)" >&2; exit 1; }
done
mkdir -p "$dir"
if [ ! -s "$prof" ]; then
    cc1=$(gcc -print-prog-name=cc1)
    bench/gen_cg_input.sh "$dir/input.c" 20
    echo "bench_cg: making the profile (callgrind on $cc1 -O2, once; cached in $prof)" >&2
    valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes --separate-callers=2 \
        --callgrind-out-file="$prof.tmp" "$cc1" -quiet -O2 "$dir/input.c" -o /dev/null \
        > /dev/null 2> "$dir/valgrind.log"
    mv "$prof.tmp" "$prof"
fi
bytes=$(stat -c %s "$prof")
lines=$(wc -l < "$prof")
cat "$prof" > /dev/null   # in the page cache for every tool alike

now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
# median_time N CMD...: the median wall time of N runs (output discarded)
median_time() {
    local n=$1; shift
    local ts=()
    for _ in $(seq "$n"); do
        local t0 t1
        t0=$(now); "$@" > /dev/null 2>&1; t1=$(now)
        ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    done
    printf '%s\n' "${ts[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

t_tare=$(median_time "$runs" "$TARE" cg top "$prof")
t_tare1=$(median_time "$runs" "$TARE" cg top -j 1 "$prof")
t_wc=$(median_time "$runs" wc -l "$prof")
t_ann=$(median_time 1 callgrind_annotate "$prof")
# peak RSS from wait4, through tare wall itself
rss_kb=$("$TARE" wall -n 1 -w 0 --format=tsv -- "$TARE" cg top "$prof" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "max_rss_kb") c = i; next } { print $c }')

printf 'profile: %s (%d bytes, %d lines)\n' "$prof" "$bytes" "$lines"
printf '%-22s %10s %12s\n' tool "median s" "tare is"
printf '%-22s %10.4f %12s\n' "tare cg top" "$t_tare" "1"
printf '%-22s %10.4f %11.1fx faster\n' callgrind_annotate "$t_ann" "$(calc "$t_ann / $t_tare")"
printf '%-22s %10.4f %11.1fx slower\n' "wc -l" "$t_wc" "$(calc "$t_tare / $t_wc")"
printf '%-22s %10.4f %11.1fx slower than wc -l\n' "tare cg top -j 1" "$t_tare1" "$(calc "$t_tare1 / $t_wc")"
threads=$(nproc); [ "$threads" -gt 8 ] && threads=8
printf 'threads: tare cg top read with %d (one per CPU it may use, at most 8)\n' "$threads"
printf 'tare peak RSS: %d KiB = %.2f x the file size\n' "$rss_kb" "$(calc "$rss_kb * 1024 / $bytes")"
printf 'runs: tare and wc %d each (median), callgrind_annotate 1\n' "$runs"
