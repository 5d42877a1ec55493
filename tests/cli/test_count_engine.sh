# tare count --engine cachegrind: instructions from cachegrind, allocations, bytes and peak
# heap from the native run under the counting allocator; checked against valgrind's figures.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
tmp=$TMP   # (a trap of its own here once left lib.sh's $TMP behind)

run_tare count --format tsv --engine cachegrind -- "$F/allocmix"
expect_rc 0 "count allocmix with cachegrind"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\tengine\tstatus')" \
    "TSV header with --engine"
expect_eq "$(tsv_field "$out" 1 engine)" cachegrind "the engine column"
# Allocations from the counting allocator: allocmix's 143 by its definition, and memcheck's.
memcheck=$(valgrind --tool=memcheck "$F/allocmix" 2>&1 | sed -nE \
    's/.*total heap usage: ([0-9,]+) allocs.*/\1/p' | tr -d ,)
expect_eq "$(tsv_field "$out" 1 allocations)" 143 "allocations of allocmix (by its definition)"
expect_eq "$(tsv_field "$out" 1 allocations)" "$memcheck" "allocations agree with memcheck"
expect_eq "$(tsv_field "$out" 1 bytes)" 51136 "bytes of allocmix"
# Instructions: cachegrind's own summary lines, valgrind run directly. The start-up's count
# moves with the environment's size (bash's $_ differs between the two), so the known answer is
# the difference between two runs of the fixture walk, which start up alike.
vg_ir() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/cg.out" "$@" \
        >/dev/null 2>&1
    sed -n 's/^summary: //p' "$tmp/cg.out"
}
vg=$(( $(vg_ir "$F/walk" 64 3) - $(vg_ir "$F/walk" 64 1) ))
run_tare count --format tsv --engine cachegrind "$F/walk 64 3" "$F/walk 64 1"
expect_eq "$(( $(tsv_field "$out" 1 instructions) - $(tsv_field "$out" 2 instructions) ))" "$vg" \
    "instructions = cachegrind's summary (walk 64 3 - walk 64 1: $vg)"
run_tare count --format tsv --engine cachegrind -- "$F/allocmix"
cachegrind_ir=$(tsv_field "$out" 1 instructions)

# The callgrind engine on the same program: the same allocations (its call edges), its own
# instructions (cachegrind counts a few more: a column of its own, never mixed).
run_tare count --format tsv --engine callgrind -- "$F/allocmix"
expect_eq "$(tsv_field "$out" 1 engine)" callgrind "engine column says callgrind"
expect_eq "$(tsv_field "$out" 1 allocations)" 143 "callgrind engine: the same allocations"
check \
    "the engines' instructions differ, so they are kept apart ($cachegrind_ir vs $(tsv_field "$out" 1 instructions))" \
    test "$cachegrind_ir" -ne "$(tsv_field "$out" 1 instructions)"

# A real interpreter: the engines agree on allocations to the call (fixed hash seed).
run_tare count --format tsv --lane :PYTHONHASHSEED=0 --engine cachegrind -- /usr/bin/python3 -c \
    'import json; json.dumps(list(range(100)))'
py_cg=$(tsv_field "$out" 1 allocations)
run_tare count --format tsv --lane :PYTHONHASHSEED=0 --engine callgrind -- /usr/bin/python3 -c \
    'import json; json.dumps(list(range(100)))'
expect_eq "$py_cg" "$(tsv_field "$out" 1 allocations)" \
    "python3: counting allocator = callgrind's call edges ($py_cg)"

# Stable to the instruction across two passes (--check-warm), and across two runs.
run_tare count --format json --engine cachegrind --check-warm -- "$F/busy" 2
expect_rc 0 "two cachegrind passes agree"
i1=$(sed -nE 's/.*"instructions": ([0-9]+).*/\1/p' <<<"$out")
i2=$(sed -nE 's/.*"instructions_pass2": ([0-9]+).*/\1/p' <<<"$out")
expect_eq "$i2" "$i1" "the second pass gives the same instructions"
expect_match "$out" '"allocations_pass2": null' "no second allocation count (they are native)"
expect_match "$out" '"engine": "cachegrind"' "JSON says the engine"
run_tare count --format tsv --engine cachegrind -- "$F/busy" 2
expect_eq "$(tsv_field "$out" 1 instructions)" "$i1" "the same instructions run to run"

# The default engine is said in the JSON too.
run_tare count --format json -- "$F/busy" 1
expect_match "$out" '"engine": "callgrind"' "JSON: the default engine"
run_tare count --format tsv -- "$F/busy" 1
expect_no_match "$(head -n 1 <<<"$out")" "engine" "no engine column unless --engine is given"

# A static binary: the counting allocator cannot see it, so allocations are NA too, said.
run_tare count --format tsv --engine cachegrind -- "$F/static_hello"
expect_eq "$(tsv_field "$out" 1 allocations)" NA "static: allocations NA with cachegrind"
check "static: instructions still counted" test "$(tsv_field "$out" 1 instructions)" -gt 0
expect_match "$err" "allocations, bytes and peak heap are NA" "says why"

# The cache simulation works with cachegrind too.
run_tare count --format tsv --engine cachegrind --cache-sim --valgrind-arg=--LL=1048576,16,64 -- \
    "$F/walk" 8192 2
check "cachegrind: LL misses of an 8 MiB walk ($(tsv_field "$out" 1 lld_misses))" test \
    "$(tsv_field "$out" 1 lld_misses)" -ge $((2 * 131072))

# What needs a call graph is refused with cachegrind.
for opt in "--keep-profile $tmp/k" "--toggle-collect main" "--region marks"; do
    run_tare count --engine cachegrind $opt -- "$F/busy" 1
    expect_rc 2 "cachegrind refuses $opt"
    expect_match "$err" "needs --engine callgrind" "why $opt is refused"
done
run_tare count --engine massif -- "$F/busy" 1
expect_rc 2 "unknown engine"
expect_match "$err" "--engine takes callgrind or cachegrind" "says which"

# history check never compares counts of different engines: 31 commits by callgrind, then
# one by cachegrind 5% higher. With the engine column the cachegrind row is a series of its
# own (bench@cachegrind, nothing before it to compare with); without it, a false +5% alarm.
{ printf \
    'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\n'
  for i in $(seq 1 32); do
      e=callgrind; v=1000000
      [ "$i" -eq 32 ] && e=cachegrind && v=1050000
      printf '2026-01-%02dT%02d:00:00Z\tc%02d\tbench\t%d\t10\t100\t100\tgcc\t%s\n' $((1 + i / 24)) \
          $((i % 24)) "$i" "$v" "$e"
  done; } > "$tmp/count.tsv"
run_tare history check "$tmp/count.tsv"
expect_no_match "$out" "regressions:" "no alarm across engines"
expect_match "$out" "bench@cachegrind +instructions +no earlier value to compare with" \
    "the other engine's rows are a series of their own"
expect_no_match "$out" "does not read: engine" "the engine column is read"
cut -f1-8 "$tmp/count.tsv" > "$tmp/mixed.tsv"
run_tare history check "$tmp/mixed.tsv"
expect_match "$out" "bench +instructions +1,000,000 +1,050,000" \
    "without the column the same rows raise the alarm (the test can fail)"

done_testing
