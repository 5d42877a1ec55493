# Exit statuses, one meaning each: 0 ok, 1 a measurement failed, 2 bad usage or input,
# 3 a regression was found. Each command that can give a status is made to give it here.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES

# ---- tare help names all four ----
run_tare help
expect_match "$out" \
    "Exit status: 0 ok, 1 a measurement failed, 2 bad usage or input, 3 a regression" \
    "tare help names 3 for a regression"

# ---- history check: 0, 2, 3 (it measures nothing, so never 1) ----
det() {   # det FILE LAST_INSTRUCTIONS
    { printf 'date\tcommit\tbenchmark\tinstructions\n'
      printf '2026-01-01T00:00:00Z\tc1\tb\t1000000\n'
      printf '2026-01-02T00:00:00Z\tc2\tb\t%s\n' "$2"; } > "$1"
}
det "$TMP/same.tsv" 1000000
run_tare history check "$TMP/same.tsv"
expect_rc 0 "history check, no change: 0"
det "$TMP/up.tsv" 1100000
run_tare history check "$TMP/up.tsv"
expect_rc 3 "history check, instructions +10%: 3"
expect_match "$out" "^regressions:" "and it says so"
det "$TMP/down.tsv" 900000
run_tare history check "$TMP/down.tsv"
expect_rc 0 "history check, an improvement: 0"
det "$TMP/bad.tsv" -5
run_tare history check "$TMP/bad.tsv"
expect_rc 2 "history check, a bad value: 2"
run_tare history check "$TMP/missing.tsv"
expect_rc 2 "history check, no such file: 2"
run_tare history check --det-threshold nope "$TMP/up.tsv"
expect_rc 2 "history check, a bad option value: 2"
printf 'date\tcommit\tbenchmark\tinstructions\n2026-01-01T00:00:00Z\tc1\tb\t5\n' > "$TMP/one.tsv"
run_tare history check "$TMP/one.tsv"
expect_rc 2 "history check that could test nothing: 2, not 0"

# ---- ab --fail-if-slower: 0, 1, 2, 3 ----
run_tare ab --pairs 8 --warmup 1 --fail-if-slower "$F/sleeper 0.02" "$F/sleeper 0.08"
expect_rc 3 "ab --fail-if-slower, B four times slower: 3"
expect_eq "$(grep -c slower <<<"$out")" 1 "the verdict is printed all the same"
run_tare ab --pairs 8 --warmup 1 "$F/sleeper 0.02" "$F/sleeper 0.08"
expect_rc 0 "ab without --fail-if-slower, B slower: 0"
run_tare ab --pairs 8 --warmup 1 --fail-if-slower "$F/sleeper 0.08" "$F/sleeper 0.02"
expect_rc 0 "ab --fail-if-slower, B faster: 0"
run_tare ab --pairs 4 --warmup 1 --fail-if-slower "$F/sleeper 0.02" "$F/crash"
expect_rc 1 "ab --fail-if-slower, B crashes: 1 (a failed measurement, not a regression)"
run_tare ab --pairs 0 --fail-if-slower "$F/sleeper 0.02" "$F/sleeper 0.08"
expect_rc 2 "ab, a bad --pairs: 2"
run_tare ab --fail-if-slower "$F/sleeper 0.02"
expect_rc 2 "ab, one command: 2"

# ---- wall: 0, 1, 2, never 3 ----
run_tare wall --runs 2 --warmup 0 "$F/sleeper 0.01"
expect_rc 0 "wall: 0"
run_tare wall --runs 2 --warmup 0 "$F/crash"
expect_rc 1 "wall, a crash: 1"
run_tare wall --no-such-option "$F/sleeper 0.01"
expect_rc 2 "wall, an unknown option: 2"

done_testing
