#!/usr/bin/env bash
# bench/bench_cg.sh: `tare cg top` against callgrind_annotate and `wc -l` on one large real
# callgrind profile (gcc's cc1 compiling a generated file, --dump-instr=yes), side by side in
# one run, as ratios; and tare's peak RSS against the file's size. Run from the repo root with
# $TARE set. The profile is made once by bench/cg_profile.sh (about half a minute) and cached.
set -eu
TARE=${TARE:-build/tare}
BUILD=${BUILD:-build}
runs=${CG_BENCH_RUNS:-21}

command -v callgrind_annotate >/dev/null || { echo \
    "bench_cg: needs callgrind_annotate (Debian: valgrind)" >&2; exit 1; }
prof=$(bench/cg_profile.sh)
bytes=$(stat -c %s "$prof")
lines=$(wc -l < "$prof")
cat "$prof" > /dev/null   # in the page cache for every tool alike

calc() { awk "BEGIN { print $1 }"; }
# field NAME COLUMN TSV: a column of one series of `tare wall --format=tsv`
field() {
    awk -F'\t' -v name="$1" -v col="$2" \
        'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $1 == name { print $c }' <<<"$3"
}
# json_num KEY N JSON: the Nth number under KEY in the JSON of `tare ab` or `tare cg info`
json_num() { grep -o "\"$1\": [0-9.e+-]*" <<<"$3" | sed -n "$2p" | awk '{ print $2 }'; }

# tare (default threads, then one thread) and wc -l, runs interleaved, timed by tare wall
# (posix_spawn and wait4: no shell between the clock and the command)
w=$("$TARE" wall --runs "$runs" -w 2 --format=tsv --reference "wc -l $prof" --name tare \
    --name tare-j1 \
    "$TARE cg top $prof" "$TARE cg top -j 1 $prof")
t_tare=$(field tare median_s "$w"); r_tare=$(field tare ratio "$w")
t_tare1=$(field tare-j1 median_s "$w"); r_tare1=$(field tare-j1 ratio "$w")
t_wc=$(field tare ref_median_s "$w")
rss_kb=$(field tare max_rss_kb "$w")
# the same ratio from pairs (wc -l, then tare, then tare, then wc -l, ...), with its 95%
# interval: the host's noise shows in it, where a ratio of medians hides it
ab=$("$TARE" ab --pairs "$runs" -w 1 --format=json "wc -l $prof" "$TARE cg top $prof")
r_ab=$(json_num ratio 1 "$ab"); lo_ab=$(json_num ci_low 1 "$ab"); hi_ab=$(json_num ci_high 1 "$ab")
wc_ab=$(json_num median_s 1 "$ab"); tare_ab=$(json_num median_s 2 "$ab")
# streaming: the profile written over and over into one file of that many parts
# (CG_BENCH_COPIES, 80 by default: 2.2 GB; 0: not at all), read by tare and by wc -l; tare's
# peak RSS must not grow with the file, and its total must be the copies' sum
copies=${CG_BENCH_COPIES:-80}
if [ "$copies" -gt 0 ]; then
    big=$(dirname "$prof")/cc1-x$copies.callgrind.out
    trap 'rm -f "$big"' EXIT
    for ((i = 0; i < copies; i++)); do cat "$prof"; done > "$big"
    big_bytes=$(stat -c %s "$big")
    sw=$("$TARE" wall --runs 3 -w 1 --format=tsv --reference "wc -l $big" --name tare \
        "$TARE cg top $big")
    t_big=$(field tare median_s "$sw"); r_big=$(field tare ratio "$sw"); rss_big=$(field tare \
        max_rss_kb "$sw")
    one=$(json_num Ir 1 "$("$TARE" cg info --format=json "$prof")")
    all=$(json_num Ir 1 "$("$TARE" cg info --format=json "$big")")
    [ "$all" = "$(awk -v a="$one" -v n="$copies" 'BEGIN { printf "%.0f", a * n }')" ] ||
        { echo "bench_cg: the $copies copies' total is $all Ir, not $copies x $one" >&2; exit 1; }
    rm -f "$big"
fi
# callgrind_annotate once (after a warm-up run), beside tare
a=$("$TARE" wall --runs 1 -w 1 --format=tsv --reference "$TARE cg top $prof" --name annotate \
    "callgrind_annotate $prof")
t_ann=$(field annotate median_s "$a"); r_ann=$(field annotate ratio "$a")

printf 'profile: %s (%d bytes, %d lines)\n' "$prof" "$bytes" "$lines"
printf '%-22s %10s %14s\n' tool "median s" "ratio"
printf '%-22s %10.4f %13.1fx wc -l\n' "tare cg top" "$t_tare" "$r_tare"
printf '%-22s %10.4f %13.1fx wc -l\n' "tare cg top -j 1" "$t_tare1" "$r_tare1"
printf '%-22s %10.4f %14s\n' "wc -l" "$t_wc" "1"
if [ -n "$lo_ab" ] && [ -n "$hi_ab" ]; then
    interval=$(printf '95%% interval %.2f-%.2f' "$lo_ab" "$hi_ab")
else
    interval="too few pairs for a 95% interval: 6 at least"
fi
printf '%-22s %10s %13.2fx wc -l, paired (%s; medians %.1f and %.1f ms)\n' \
    "tare cg top" "" "$r_ab" "$interval" "$(calc "$tare_ab * 1000")" "$(calc "$wc_ab * 1000")"
printf '%-22s %10.4f %13.1fx tare cg top\n' callgrind_annotate "$t_ann" "$r_ann"
cpus=$(nproc); threads=$cpus; [ "$threads" -gt 8 ] && threads=8
printf 'threads: %d CPUs, so tare cg top read with %d (one per CPU, at most 8)\n' "$cpus" "$threads"
printf 'tare peak RSS: %d KiB = %.2f x the file size\n' "$rss_kb" \
    "$(calc "$rss_kb * 1024 / $bytes")"
if [ "$copies" -gt 0 ]; then
    printf \
        'streaming: the profile %d times over (%d parts, %.2f GB): tare cg top %.3f s, %.2fx wc -l;\n' \
        \
        "$copies" "$copies" "$(calc "$big_bytes / 1e9")" "$t_big" "$r_big"
    printf \
        '           peak RSS %d KiB = %.4f x the file size (%d KiB for the profile once); totals %dx right\n' \
        \
        "$rss_big" "$(calc "$rss_big * 1024 / $big_bytes")" "$rss_kb" "$copies"
fi
printf \
    'runs: tare, tare -j 1 and wc -l %d each, interleaved (median); then %d pairs of wc -l and tare\n' \
    "$runs" "$runs"
printf '      (tare ab: Hodges-Lehmann ratio of the pairs); callgrind_annotate 1\n'
