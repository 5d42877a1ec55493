# tare count --cache-sim: simulated misses of the fixture 'walk' (one byte read a 64-byte
# line, PASSES times) under fixed simulated caches (D1 32 KiB, LL 1 MiB), so the answer does
# not depend on this machine's caches.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
caches=(--valgrind-arg=--D1=32768,8,64 --valgrind-arg=--LL=1048576,16,64)

run_tare count --format tsv --cache-sim "${caches[@]}" "$F/walk 512 8" "$F/walk 8192 8"
expect_rc 0 "count with the cache simulation"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\tl1i_misses\tl1d_misses\tlli_misses\tlld_misses\test_cycles\tstatus')" \
    "TSV header with --cache-sim"
small_lines=$((512 * 1024 / 64)); big_lines=$((8192 * 1024 / 64))
s_lld=$(tsv_field "$out" 1 lld_misses); b_lld=$(tsv_field "$out" 2 lld_misses)
s_l1d=$(tsv_field "$out" 1 l1d_misses)
# 512 KiB fits the 1 MiB LL: it misses LL on the first touch of each line only.
check "fits LL: at least one LL miss a line ($s_lld >= $small_lines)" test "$s_lld" -ge \
    "$small_lines"
check "fits LL: no LL miss on the 8 passes after ($s_lld < 2 x $small_lines)" test "$s_lld" -lt \
    $((2 * small_lines))
# ... but not the 32 KiB D1: every read of every pass misses D1.
check "larger than D1: a D1 miss per line per pass ($s_l1d >= 8 x $small_lines)" test "$s_l1d" -ge \
    $((8 * small_lines))
# 8 MiB does not fit LL: every line of every pass misses it.
check "larger than LL: an LL miss per line per pass ($b_lld >= 8 x $big_lines)" test "$b_lld" -ge \
    $((8 * big_lines))
check \
    "the larger array misses LL more per line read ($b_lld / $big_lines > $s_lld / $small_lines)" \
    test $((b_lld * small_lines)) -gt $((s_lld * big_lines))
# The cycles model, exactly as documented.
for r in 1 2; do
    ir=$(tsv_field "$out" $r instructions)
    l1=$(( $(tsv_field "$out" $r l1i_misses) + $(tsv_field "$out" $r l1d_misses) ))
    ll=$(( $(tsv_field "$out" $r lli_misses) + $(tsv_field "$out" $r lld_misses) ))
    expect_eq "$(tsv_field "$out" $r est_cycles)" $((ir + 10 * l1 + 100 * ll)) \
        "est_cycles = Ir + 10 x L1 + 100 x LL (row $r)"
done
with_sim=$(tsv_field "$out" 1 instructions)

# The simulation does not change the instructions.
run_tare count --format tsv "${caches[@]}" -- "$F/walk" 512 8
expect_eq "$(tsv_field "$out" 1 instructions)" "$with_sim" \
    "instructions the same without --cache-sim"
expect_no_match "$(head -n 1 <<<"$out")" "misses" "no cache columns without --cache-sim"

# callgrind's own figures, valgrind run directly: its summary line's DLmr + DLmw. The
# start-up's misses move with the environment's size (bash's $_ differs), so the known answer
# is the difference between 4 and 2 passes over 2 MiB, which start up alike.
tmp=$(mktemp -d)
vg_lld() {
    valgrind --tool=callgrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,16,64 \
        --callgrind-out-file="$tmp/cg" "$@" >/dev/null 2>&1
    local events summary
    events=$(sed -n 's/^events: //p' "$tmp/cg"); summary=$(sed -n 's/^summary: //p' "$tmp/cg")
    paste <(tr ' ' '\n' <<<"$events") <(tr ' ' '\n' <<<"$summary") | awk \
        '$1=="DLmr"||$1=="DLmw"{s+=$2} END{print s}'
}
vg_diff=$(( $(vg_lld "$F/walk" 2048 4) - $(vg_lld "$F/walk" 2048 2) ))
rm -rf "$tmp"
run_tare count --format tsv --cache-sim "${caches[@]}" "$F/walk 2048 4" "$F/walk 2048 2"
expect_eq "$(( $(tsv_field "$out" 1 lld_misses) - $(tsv_field "$out" 2 lld_misses) ))" "$vg_diff" \
    "LLd misses = callgrind's DLmr + DLmw (2 passes more: $vg_diff)"
check "2 more passes over 2 MiB: an LL miss a line each ($vg_diff >= 2 x 32768)" test \
    "$vg_diff" -ge 65536
run_tare count --format json --cache-sim "${caches[@]}" -- "$F/walk" 64 1
expect_match "$out" '"est_cycles": [0-9]+' "JSON has est_cycles"

# Text says it is a model.
run_tare count --cache-sim "${caches[@]}" -- "$F/walk" 64 1
expect_match "$out" "a model, not a measurement" "text calls the cycles a model"
expect_match "$out" "est. cycles" "text column"

# history check reads the cache columns as deterministic metrics (the 2% threshold): 31
# commits flat, then L1d and LLd misses +30% with instructions flat.
tmp=$(mktemp -d)
{ printf 'date\tcommit\tbenchmark\tinstructions\tl1i_misses\tl1d_misses\tlli_misses\tlld_misses\test_cycles\n'
  for i in $(seq 1 32); do
      d=1000; [ "$i" -eq 32 ] && d=1300
      printf '2026-01-%02dT%02d:00:00Z\tc%02d\tbench\t1000000\t50\t%d\t40\t%d\t%d\n' \
          $((1 + i / 24)) $((i % 24)) "$i" "$d" "$d" $((1000000 + 10 * (50 + d) + 100 * (40 + d)))
  done; } > "$tmp/count.tsv"
run_tare history check "$tmp/count.tsv"
expect_rc 3 "history check flags the misses (3: a regression)"
expect_match "$out" "checked 6 metrics of 1 series" "the cache columns are metrics"
expect_match "$out" "bench +l1d_misses +1,000 +1,300 +\+30.0% +2.0%" \
    "L1d misses at the deterministic threshold"
expect_match "$out" "bench +est_cycles .* \+3.0% +2.0%" "estimated cycles too"
expect_no_match "$out" "bench +instructions" "instructions flat: not flagged"
expect_no_match "$out" "does not read" "no column left unread"
rm -rf "$tmp"

done_testing
