# tare count's regions: --toggle-collect FUNC and the TARE_COUNT_START/STOP marks, against
# callgrind's own figures for the fixture 'region' (hot(N): N iterations, one allocation a 100).
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
tmp=$TMP   # (a trap of its own here once left lib.sh's $TMP behind)

# callgrind's own --toggle-collect figure: its "Collected" line, valgrind run directly.
collected() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$@" 2>&1 |
        sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p'
}
vg_hot_1000=$(collected --toggle-collect=hot "$F/region" 1000)
vg_hot_2000=$(collected --toggle-collect=hot "$F/region" 2000)
check "callgrind's toggle figure read ($vg_hot_1000)" test "${vg_hot_1000:-0}" -gt 10000

run_tare count --format tsv --toggle-collect hot "$F/region 1000" "$F/region 2000" "$F/region skip"
expect_rc 0 "count a toggle region"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\tregion_instructions\tregion_allocations\tstatus')" \
    "TSV header with a region"
expect_eq "$(tsv_field "$out" 1 region_instructions)" "$vg_hot_1000" \
    "region instructions = callgrind's --toggle-collect=hot (1000)"
expect_eq "$(tsv_field "$out" 2 region_instructions)" "$vg_hot_2000" \
    "region instructions = callgrind's --toggle-collect=hot (2000)"
# Allocations from the calls made inside the region: one every 100 iterations; the whole
# process adds main's 5.
expect_eq "$(tsv_field "$out" 1 region_allocations)" 10 "region allocations of hot(1000)"
expect_eq "$(tsv_field "$out" 2 region_allocations)" 20 "region allocations of hot(2000)"
expect_eq "$(tsv_field "$out" 1 allocations)" 15 "the whole process's allocations beside it"
whole=$(tsv_field "$out" 1 instructions)
check "the whole program is counted beside the region ($whole > $vg_hot_1000)" test "$whole" -gt \
    "$vg_hot_1000"
# Never entered: NA with the reason, never 0; the whole program still counted.
expect_eq "$(tsv_field "$out" 3 region_instructions)" NA "a never-entered region is NA"
expect_eq "$(tsv_field "$out" 3 region_allocations)" NA "its allocations are NA"
expect_eq "$(tsv_field "$out" 3 status)" ok "the series itself is ok"
expect_match "$err" "'region skip': region NA: the region was never entered" "never entered, said"
check "the skipped run's whole program counted" test "$(tsv_field "$out" 3 instructions)" -gt 0
# A function that does not exist is never entered either.
run_tare count --format json --toggle-collect no_such_function -- "$F/region" 1000
expect_rc 0 "count a region of a missing function"
expect_match "$out" \
    '"region_instructions": null, "region_allocations": null, "region_error": "the region was never entered"' \
    "JSON null and the reason"
expect_match "$out" '"region": "toggle-collect=no_such_function"' "JSON says which region"

# The marks: the same loop, so the same cost a 1000 iterations as the toggle; the marks add
# their own few instructions (the call and its argument), the same at any N.
run_tare count --format tsv --region marks "$F/region_marks 1000" "$F/region_marks 2000" \
    "$F/region 1000" "$F/region_marks skip"
expect_rc 0 "count a marks region"
m1=$(tsv_field "$out" 1 region_instructions); m2=$(tsv_field "$out" 2 region_instructions)
expect_eq "$((m2 - m1))" "$((vg_hot_2000 - vg_hot_1000))" "marks and toggle see the same loop cost"
expect_eq "$((m1 - vg_hot_1000))" "$((m2 - vg_hot_2000))" \
    "marks minus toggle is the same at 1000 and 2000"
check "marks add under 64 instructions to the toggle ($((m1 - vg_hot_1000)))" test \
    $((m1 - vg_hot_1000)) -ge 0 -a $((m1 - vg_hot_1000)) -lt 64
expect_eq "$(tsv_field "$out" 1 region_allocations)" 10 "marks region allocations"
# Built without TARE_COUNT_MARKS, the marks are nothing: never entered.
expect_eq "$(tsv_field "$out" 3 region_instructions)" NA "marks compiled out: NA"
expect_eq "$(tsv_field "$out" 4 region_instructions)" NA "marks never reached: NA"
# The marks do not cut the whole-program pass (they act only in the region's pass): the
# marks build counts about what the plain build does, far above the region alone.
check "whole program with marks built in is whole ($(tsv_field "$out" 1 instructions))" \
    test "$(tsv_field "$out" 1 instructions)" -gt $((m1 + 100000))

# Text shows the region beside the whole program and says what is whole-process.
run_tare count --toggle-collect hot -- "$F/region" 1000
expect_match "$out" "region \(toggle-collect=hot\)" "text names the region"
expect_match "$out" "bytes and peak heap are" "text says bytes are whole-process"
expect_match "$out" "region instr" "text has the region's column"
expect_no_match "$out" "region instr.*region instr" "once"

# Bad usage.
run_tare count --region everything -- "$F/region" 1
expect_rc 2 "--region takes marks only"
expect_match "$err" "--region takes 'marks'" "says so"
run_tare count --region marks --toggle-collect hot -- "$F/region" 1
expect_rc 2 "marks and toggle together refused"
# No region asked: the contract's columns unchanged.
run_tare count --format tsv -- "$F/region" 10
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\tstatus')" \
    "TSV header without a region"

done_testing
