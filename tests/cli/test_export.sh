# --export-bmf, --export-gab, --export-junit: each file parsed back by Python's json and
# xml.etree (tests/cli/validate_export.py), field by field, and its values checked against
# tare's own --format json (wall's recomputed from the raw times).
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
PY=/usr/bin/python3
V=$(dirname "$0")/validate_export.py
X=(--export-bmf "$TMP/b.json" --export-gab "$TMP/g.json" --export-junit "$TMP/j.xml")

validate() {   # validate DESC KIND ARGS...: the validator prints what failed
    local desc=$1; shift
    local msg
    if msg=$("$PY" "$V" "$@" 2>&1); then ok; else not_ok "$desc: $msg"; fi
}

# ---- wall: a series, a crash (NA: left out, a failing case), a reference (ratio) ----
run_tare wall --runs 3 --warmup 0 --format json --name slow --name crash \
    --reference "$F/sleeper 0.005" "${X[@]}" "$F/sleeper 0.02" "$F/crash"
expect_rc 1 "wall with a crash: 1, the exports written all the same"
printf '%s\n' "$out" > "$TMP/wall.json"
validate "wall: exports agree with the times" wall "$TMP/wall.json" "$TMP/b.json" "$TMP/g.json" \
    "$TMP/j.xml"
expect_match "$err" "note: --export-bmf: 1 NA value left out of '.*b.json' \(the format has no NA" \
    "the NA left out is said"
expect_no_match "$(cat "$TMP/b.json")" '"crash"' "no crash entry in BMF, not a 0"
expect_match "$(cat "$TMP/j.xml")" \
    'failure type="measurement failed" message="killed by signal 11' \
    "the crash is a failing test case with its reason"
run_tare wall --runs 2 --warmup 0 --export-bmf "$TMP/nodir/b.json" "$F/sleeper 0.001"
expect_rc 2 "an export file that cannot be written: 2"
expect_match "$err" "cannot write '.*nodir/b.json'" "and says which"
check "no temporary left beside it" test -z "$(ls "$TMP" | grep '\.tmp\.')"

# ---- count: the counts, a failed count NA ----
if command -v valgrind > /dev/null; then
    run_tare count --format json --name mix --name crash "${X[@]}" "$F/allocmix" "$F/crash"
    expect_rc 1 "count with a crash: 1"
    printf '%s\n' "$out" > "$TMP/count.json"
    validate "count: exports agree with count's json" count "$TMP/count.json" "$TMP/b.json" \
        "$TMP/g.json" "$TMP/j.xml"
else
    echo "skip: count exports (no valgrind)"
fi

# ---- history check: a regression fails, the not-checked are skipped ----
{ printf 'date\tcommit\tbenchmark\tinstructions\tmedian_s\n'
  printf '2026-01-01T00:00:00Z\tc1\tb\t1000000\t0.5\n'
  printf '2026-01-02T00:00:00Z\tc2\tb\t1100000\t0.5\n'
  printf '2026-01-01T00:00:00Z\tc1\tq\t2000\t0.5\n'
  printf '2026-01-02T00:00:00Z\tc2\tq\t2000\t0.5\n'; } > "$TMP/h.tsv"
run_tare history check --format json "${X[@]}" "$TMP/h.tsv"
expect_rc 3 "history check with a regression: 3, with the exports"
printf '%s\n' "$out" > "$TMP/check.json"
validate "history check: failing = regressions, skipped = not checked" history \
    "$TMP/check.json" "$TMP/j.xml" "$TMP/b.json" "$TMP/g.json"
expect_match "$(cat "$TMP/j.xml")" \
    'message="regression: 1000000 -&gt; 1100000 \(\+10.0%, threshold 2.0%\) at commit c2"' \
    "the failure gives the exact figures"
# a series NA at the commit: a failed measurement, a failing case, exit 1
printf '2026-01-02T00:00:00Z\tc2\tgone\tNA\tNA\n2026-01-01T00:00:00Z\tc1\tgone\t5\t0.5\n' >> \
    "$TMP/h.tsv"
run_tare history check --format json "${X[@]}" "$TMP/h.tsv"
expect_rc 1 "history check with a failed measurement: 1"
printf '%s\n' "$out" > "$TMP/check.json"
validate "history check: failing = regressions and failed, skipped = not checked" history \
    "$TMP/check.json" "$TMP/j.xml" "$TMP/b.json" "$TMP/g.json"
expect_match "$(cat "$TMP/b.json")" '"instructions": \{"value": 1100000\}' \
    "BMF: the value at the commit"

# ---- ab: the ratio with its interval; a regression with --fail-if-slower ----
run_tare ab --pairs 8 --warmup 1 --format json --fail-if-slower --name fast --name slow "${X[@]}" \
    "$F/sleeper 0.02" "$F/sleeper 0.08"
expect_rc 3 "ab --fail-if-slower, slower: 3"
printf '%s\n' "$out" > "$TMP/ab.json"
validate "ab: ratio, interval and verdict" ab "$TMP/ab.json" "$TMP/b.json" "$TMP/g.json" \
    "$TMP/j.xml" 1
run_tare ab --pairs 4 --warmup 1 --name ok --name crash --export-junit "$TMP/j2.xml" \
    "$F/sleeper 0.01" "$F/crash"
expect_rc 1 "ab, B crashes: 1"
validate "ab failure: well-formed JUnit" junit "$TMP/j2.xml"
expect_match "$(cat "$TMP/j2.xml")" 'name="crash median_s">' "B's case" 
expect_match "$(cat "$TMP/j2.xml")" \
    'failure type="measurement failed" message="killed by signal 11' \
    "B's crash fails its case"

# ---- run: every series of a suite ----
mkdir -p "$TMP/s/benchmarks"
touch "$TMP/s/benchmarks/0.01.txt" "$TMP/s/benchmarks/0.02.txt"
cat > "$TMP/s/suite.ini" <<EOF
[suite]
command = $F/sleeper {name}
benchmarks = benchmarks/*.txt
reference = $F/sleeper 0.005
runs = 3
EOF
run_tare run --format json "${X[@]}" "$TMP/s/suite.ini"
expect_rc 0 "run with the exports"
printf '%s\n' "$out" > "$TMP/run.json"
"$PY" - "$TMP/run.json" "$TMP/b.json" > "$TMP/cmp" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))
for s in t["series"]:
    lat = d[s["benchmark"]]["latency"]["value"]
    if abs(lat - s["median_s"] * 1e9) > 1e-6 * lat:
        print("%s: latency %s, median %s" % (s["benchmark"], lat, s["median_s"]))
    if abs(d[s["benchmark"]]["ratio"]["value"] - s["ratio"]) > 1e-6 * s["ratio"]:
        print("%s: ratio" % s["benchmark"])
print(len(t["series"]), "series")
EOF
expect_eq "$(cat "$TMP/cmp")" "2 series" "run: BMF latency = run's median_s, ratio = run's ratio"
validate "run: well-formed JUnit" junit "$TMP/j.xml"

done_testing
