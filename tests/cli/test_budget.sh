# Per-benchmark budgets in a suite file ([bench NAME]: max_instructions, max_allocations, ...):
# a count over its budget fails the run with exit 3 and the exact figures; at the budget, 0.
# The budgets are set from the fixture's own counts, measured first by a run without them.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
command -v valgrind > /dev/null || { echo "skip: no valgrind"; done_testing; exit; }
S=$TMP/s
mkdir -p "$S/benchmarks" && touch "$S/benchmarks/w.txt"
suite() {   # suite MAX_INSTRUCTIONS MAX_ALLOCATIONS
    cat > "$S/suite.ini" <<EOI
[suite]
command = $F/allocmix
benchmarks = benchmarks/*.txt
runs = 1
count = yes

[bench w]
threshold = 1%
max_instructions = $1
max_allocations = $2
EOI
}
# the counts, from a run of the same suite without budgets (the same command in the same place)
suite 0 0
sed -i '/^\[bench w\]/,$d' "$S/suite.ini"
run_tare run --format tsv "$S/suite.ini"
ins=$(tsv_field "$out" 1 instructions)
allocs=$(tsv_field "$out" 1 allocations)
check "allocmix counted ($ins instructions, $allocs allocations)" test "${ins:-0}" -gt 0
suite "$ins" "$allocs"
run_tare run --format tsv "$S/suite.ini"
expect_rc 0 "counts at their budgets: 0"
expect_no_match "$err" "budget" "nothing said"
suite $((ins - 1)) "$allocs"
run_tare run --format tsv --export-junit "$TMP/j.xml" "$S/suite.ini"
expect_rc 3 "one instruction over: 3"
over=$(awk -v i="$ins" 'BEGIN { printf "%+.2f%%", 100 * (i / (i - 1) - 1) }')
expect_match "$err" \
    "^tare run: 'w' over budget: instructions [0-9,]+ > max_instructions [0-9,]+ \(\\$over\)$" \
    "the exact figures"
expect_eq \
    "$(sed -nE "s/.*instructions ([0-9,]+) > max_instructions ([0-9,]+).*/\1 \2/p" <<<"$err" | tr -d ,)" \
    "$ins $((ins - 1))" "the count and the budget, whole"
expect_match "$(cat "$TMP/j.xml")" 'name="w instructions">.*' "the JUnit case"
expect_match "$(grep -A1 'name="w instructions"' "$TMP/j.xml")" \
    'failure type="regression" message="over budget: instructions' \
    "fails as a regression"
suite "$ins" $((allocs - 1))
run_tare run --format tsv "$S/suite.ini"
expect_rc 3 "one allocation over: 3"
expect_match "$err" "over budget: allocations $allocs > max_allocations $((allocs - 1)) " \
    "allocations over, said"
run_tare run --wall --format tsv "$S/suite.ini"
expect_rc 0 "--wall alone: budgets not checked"
expect_match "$err" "note: the suite's budgets are not checked without the count pass" "and said"

# threshold = 1% of [bench w]: history check and report --suite use it for w's series only
{ printf 'date\tcommit\tbenchmark\tinstructions\n'
  printf '2026-01-01T00:00:00Z\tc1\tw+base\t1000000\n2026-01-02T00:00:00Z\tc2\tw+base\t1015000\n'
  printf '2026-01-01T00:00:00Z\tc1\tq\t1000000\n2026-01-02T00:00:00Z\tc2\tq\t1015000\n'; } > \
      "$TMP/h.tsv"
suite "$ins" "$allocs"
run_tare history check "$TMP/h.tsv"
expect_rc 0 "+1.5% under the default 2%: 0"
run_tare history check --suite "$S/suite.ini" "$TMP/h.tsv"
expect_rc 3 "+1.5% past w's threshold = 1%: 3"
expect_match "$out" "^w\+base +instructions +1,000,000 +1,015,000 +\+1.5% +1.0% +c2$" "w+base at 1%"
expect_no_match "$out" "^q " "q keeps the default 2%"
run_tare report --suite "$S/suite.ini" "$TMP/h.tsv"
expect_rc 3 "report --suite: 3"
expect_match "$out" \
    '`w\+base` [|] instructions [|] 1,000,000 [|] 1,015,000 [|] \+1.5% [|] 1.0% [|]' "report at 1%"
run_tare history check --suite "$TMP/nosuch.ini" "$TMP/h.tsv"
expect_rc 2 "--suite that cannot be read: 2"

# bad [bench] sections: exit 2 with file and line
printf '[suite]\ncommand = x\nbenchmarks = b\n[bench w]\nmax_instructions = lots\n' > "$TMP/b1.ini"
run_tare run "$TMP/b1.ini"
expect_rc 2 "a budget that is not a number: 2"
expect_match "$err" "line 5: bad max_instructions 'lots': want a whole number" "said with its line"
printf '[suite]\ncommand = x\nbenchmarks = b\n[bench w]\nmax_cycles = 5\n' > "$TMP/b2.ini"
run_tare run "$TMP/b2.ini"
expect_rc 2 "an unknown key: 2"
expect_match "$err" "line 5: unknown key 'max_cycles' in \[bench w\]" "named"
printf '[suite]\ncommand = x\nbenchmarks = b\n[bench w]\nthreshold = 0\n' > "$TMP/b3.ini"
run_tare run "$TMP/b3.ini"
expect_rc 2 "a zero threshold: 2"
printf '[suite]\ncommand = x\nbenchmarks = b\n[bench w]\n[bench w]\n' > "$TMP/b4.ini"
run_tare run "$TMP/b4.ini"
expect_rc 2 "a benchmark twice: 2"
expect_match "$err" "line 5: \[bench w\] again \(it began on line 4\)" "both lines"
done_testing
