# tare report: one Markdown block for a pull request. A golden file on a committed excerpt of
# the seed's real history (4 series, 82 commits up to d5dd8c11) whose poly-call step
# `history check` confirms; --summary appends; exit 0/2/3; failures named.
. "$(dirname "$0")/lib.sh"
EXCERPT=$TARE_ROOT/tests/fixtures/report-excerpt.tsv
GOLDEN=$TARE_ROOT/tests/fixtures/report-excerpt.md

run_tare report "$EXCERPT"
expect_rc 3 "the poly-call step: exit 3"
if [ "${UPDATE:-0}" = 1 ]; then printf '%s\n' "$out" > "$GOLDEN"; fi
if diff -u "$GOLDEN" <(printf '%s\n' "$out") > "$TMP/diff"; then ok; else
    not_ok "report differs from $GOLDEN (UPDATE=1 rewrites it):"; cat "$TMP/diff"; fi
# The moved rows are history check's regressions, figure for figure.
run_tare history check --format json "$EXCERPT"
want=$(/usr/bin/python3 -c '
import json, sys
for r in json.load(sys.stdin)["regressions"]:
    print("%s %s %+.1f%% %s" % (r["benchmark"], r["metric"], 100 * r["change"], r["commit"][:12]))' <<<"$out")
run_tare report "$EXCERPT"
got=$(awk -F' [|] ' '/^[|] \*\*slower\*\*/ { gsub(/[*`]/, "", $1); sub(/^[|] slower /, "", $1);
    gsub(/`/, "", $7); print $1, $2, $5, $7 }' <<<"$out")
expect_eq "$got" "$want" "the regressions table is history check's regressions"
expect_match "$out" '^<details><summary>All 4 metrics of 4 series</summary>$' \
    "every series collapsed"
expect_match "$out" '^</details>$' "and closed"

# --summary appends the same block, after what the file held.
printf 'an earlier step\n' > "$TMP/summary.md"
run_tare report --summary "$TMP/summary.md" "$EXCERPT"
expect_rc 3 "--summary: exit 3 still"
expect_eq "$(cat "$TMP/summary.md")" "$(printf 'an earlier step\n%s' "$out")" \
    "--summary appends the block"
expect_eq "$(tail -c 12 "$TMP/summary.md" | od -An -c | tr -d ' \n')" '</details>\n\n' \
    "a blank line after </details>: a block appended next is Markdown again"
run_tare report --summary "$TMP/no/such/dir.md" "$EXCERPT"
expect_rc 2 "--summary that cannot be written: 2"
expect_match "$err" "cannot append to '.*no/such/dir.md'" "and says so"

# Before the step: no regression, exit 0, verdict said.
run_tare report --commit c397b90b "$EXCERPT"
expect_rc 0 "at the commit before: 0"
expect_match "$out" '^### tare: no change past a threshold at `c397b90bdbec`$' \
    "verdict in the heading"
expect_no_match "$out" 'slower' "nothing moved"

# A count regression beside an unchanged wall clock, and a failure (NA) named.
{ printf 'date\tcommit\tbenchmark\tmedian_s\tinstructions\n'
  printf '2026-01-01T00:00:00Z\tc1\tb\t0.5\t1000000\n'
  printf '2026-01-02T00:00:00Z\tc2\tb\t0.5\t1100000\n'
  printf '2026-01-01T00:00:00Z\tc1\tgone\t0.5\t2000\n'
  printf '2026-01-02T00:00:00Z\tc2\tgone\tNA\tNA\n'; } > "$TMP/h.tsv"
run_tare report "$TMP/h.tsv"
expect_rc 3 "a count regression: 3"
expect_match "$out" \
    '^[|] \*\*slower\*\* `b` [|] instructions [|] 1,000,000 [|] 1,100,000 [|] \+10.0% [|] 2.0% [|] `c2` [|] \+10.0% [|] \+0.0% [|]$' \
    "the count moved, the clock beside it did not"
expect_match "$out" \
    '^\*\*Failed\*\* \(NA at this commit\): `gone` median_s; `gone` instructions;$' \
    "the failed series named"
expect_match "$out" '^\*before\*, \*after\*: a count.s value at the series. previous commit' \
    "the moved table says what its before is"
expect_match "$out" '^\*previous\*: the series. value at its previous commit' \
    "and the collapsed table its own"
# The counts beside the clock, in words, for each of the four cases (a 20-commit history with
# a small noise in the clock): s steps +20% in wall clock at c17 with 3% fewer instructions
# (less work but slower), m the mirror, a both up (they agree), n the clock alone (counts
# flat), f 3% fewer instructions at c20 with a flat clock.
awk 'BEGIN { OFS = "\t"; print "date", "commit", "benchmark", "median_s", "instructions"
    split("0 0.002 -0.001 0.001 -0.002", nz, " ")
    for (i = 1; i <= 20; i++) {
        d = sprintf("2026-01-%02dT00:00:00Z", i); z = nz[i % 5 + 1]; up = i >= 17
        print d, "c" i, "s", 0.5 * (up ? 1.2 : 1) + z, up ? 970000 : 1000000
        print d, "c" i, "m", 0.5 * (up ? 0.8 : 1) + z, up ? 1030000 : 1000000
        print d, "c" i, "a", 0.5 * (up ? 1.2 : 1) + z, up ? 1030000 : 1000000
        print d, "c" i, "n", 0.5 * (up ? 1.2 : 1) + z, 1000000
        print d, "c" i, "f", 0.5 + z, i == 20 ? 970000 : 1000000 } }' > "$TMP/r.tsv"
run_tare report --commit c19 "$TMP/r.tsv"
expect_rc 3 "the clock's steps at c19: 3"
reading() { grep -E "^- \`$1\`: " <<<"$out"; }
expect_eq "$(reading s)" "- \`s\`: the step from \`c17\` does less work (instructions -3.00%) but is slower: wall clock +19.8% (median_s, past its fence of 1.00%); look at cache behaviour: \`--cache-sim\`" \
    "fewer instructions, slower: said, with the hint"
expect_match "$(reading m)" \
    'the step from `c17` does more work \(instructions \+3.00%\) but is faster: wall clock -20.2%' \
    "the mirror"
expect_match "$(reading a)" '^- `a`: the counts and the clock agree: the step from `c17` does more work \(instructions \+3.00%\) and is slower' \
    "both up: they agree"
expect_match "$(reading n)" \
    '^- `n`: the wall clock moved but the counts did not \(instructions \+0.00%\)' \
    "the clock alone"
expect_eq "$(grep -c '^- `' <<<"$out")" 4 "one line a series that stepped, none for f"
run_tare report "$TMP/r.tsv"
expect_eq "$(grep -E '^- `' <<<"$out")" "- \`f\`: wall clock does not move while the counts do (instructions -3.00%): this commit does less work, which the wall clock does not show" \
    "f at c20: the counts moved, the clock did not"
run_tare report "$TMP/missing.tsv"
expect_rc 2 "no such file: 2"
printf 'date\tcommit\tbenchmark\tinstructions\n2026-01-01T00:00:00Z\tc1\tb\t5\n' > "$TMP/one.tsv"
run_tare report "$TMP/one.tsv"
expect_rc 2 "nothing could be checked: 2"
expect_match "$out" '^### tare: nothing checked at `c1`$' "and the heading says so"
run_tare report --persist 0 "$TMP/h.tsv"
expect_rc 2 "a bad option value: 2"

done_testing
