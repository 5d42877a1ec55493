# tare history check and noise say what they could not check, and never "no regressions"
# for a history they did not test.
. "$(dirname "$0")/lib.sh"

# wall FILE N STEP_AT FACTOR [SPIKE_AT]: N commits of one benchmark's median_s, a fixed
# wobble of up to 1% (7i mod 5, so the same on every awk), times FACTOR from commit
# STEP_AT on (1-based), and 1.3 times at SPIKE_AT alone.
wall() {
    awk -v n="$2" -v at="$3" -v f="$4" -v spike="${5:-0}" 'BEGIN {
        print "date\tcommit\tbenchmark\tmedian_s"
        for (i = 1; i <= n; i++) {
            v = (1 + 0.005 * ((7 * i) % 5 - 2)) * (i >= at ? f : 1) * (i == spike ? 1.3 : 1)
            printf "2026-01-01T%02d:%02d:00Z\tc%d\tb\t%.6f\n", int(i / 60), i % 60, i, v
        }
    }' > "$1"
}

# ---- a wall-clock series too short for a step test: said, exit 2 ----
wall "$TMP/w12.tsv" 12 10 1.5
run_tare history check "$TMP/w12.tsv"
expect_rc 2 "12 points with a 50% step: nothing could be checked"
expect_match "$out" "^checked 0 metrics of 1 series at commit c12 " "says it checked no metric"
expect_match "$out" "^b +median_s +too few points: 12 of the 16 a step test needs$" \
    "names the series, the metric and why"
expect_no_match "$out" "no regressions" "never says no regressions"
expect_match "$err" "^tare history: checked nothing at commit c12: " "and on stderr"
run_tare history check --format json "$TMP/w12.tsv"
expect_rc 2 "json too"
expect_eq "$out" '{"regressions": [], "improvements": [], "failed": [], "checked": 0, "not_checked": [{"benchmark": "b", "metric": "median_s", "why": "too few points: 12 of the 16 a step test needs"}], "unknown_columns": []}' \
    "json names what was not checked"
# The figure follows --persist: 13 points before the step and the step's own.
run_tare history check --persist 5 "$TMP/w12.tsv"
expect_match "$out" "too few points: 12 of the 18 a step test needs" "13 + --persist"

# ---- 20 points: the same step is found ----
wall "$TMP/w20.tsv" 20 18 1.5
run_tare history check "$TMP/w20.tsv"
expect_rc 3 "20 points with a 50% step at the 18th: a regression"
expect_match "$out" "^checked 1 metric of 1 series at commit c20 " "one metric checked"
expect_match "$out" "^b +median_s +[0-9.]+ +[0-9.]+ +\+[45][0-9]\.[0-9]% +[0-9.]+% +c18$" \
    "the step, from c18"
expect_no_match "$out" "not checked" "nothing left unchecked"
# 16 points is the least: the step at the 14th is tested and found.
wall "$TMP/w16.tsv" 16 14 1.5
run_tare history check "$TMP/w16.tsv"
expect_rc 3 "16 points: tested"
wall "$TMP/w15.tsv" 15 13 1.5
run_tare history check "$TMP/w15.tsv"
expect_rc 2 "15 points: not tested"
expect_match "$out" "too few points: 15 of the 16" "15 of 16"

# ---- --persist 1: a step at the newest commit rings, though an outlier came before ----
wall "$TMP/p1.tsv" 20 20 1.3 16
run_tare history check --persist 1 "$TMP/p1.tsv"
expect_rc 3 "--persist 1: a 30% step at the newest commit"
expect_match "$out" "^b +median_s .* \+[23][0-9]\.[0-9]% .* c20$" "the step at c20"
# The outlier alone (no step after it) is not hidden either: at c16 it is a one-point step.
run_tare history check --persist 1 --commit c16 "$TMP/p1.tsv"
expect_rc 3 "--persist 1 at the outlier's commit"
run_tare history check "$TMP/p1.tsv"
expect_rc 0 "--persist 3: one point past the fence is pending, not a regression"
expect_match "$out" "^pending" "pending"

# ---- a column tare does not know: listed, exit 2 ----
printf 'date\tcommit\tbenchmark\tmean\tstddev\n' > "$TMP/m.tsv"
for i in $(seq 1 20); do printf '2026-01-01T00:%02d:00Z\tc%d\tb\t%d.5\t0.1\n' $i $i $i; done >> \
    "$TMP/m.tsv"
run_tare history check "$TMP/m.tsv"
expect_rc 2 "only unknown metric columns: checked nothing"
expect_match "$out" "^not checked: columns tare does not read: mean, stddev \('$TMP/m.tsv'\)$" \
    "lists them"
expect_no_match "$out" "no regressions" "never says no regressions"
expect_match "$err" "checked nothing at commit c20: no metric tare knows in the history" "says why"
run_tare history check --format json "$TMP/m.tsv"
expect_match "$out" \
    '"checked": 0, "not_checked": \[\], "unknown_columns": \["mean", "stddev"\]\}$' \
    "json lists them"
run_tare history noise "$TMP/m.tsv"
expect_rc 2 "noise of unknown columns"
expect_empty "$out" "no empty table"
expect_match "$err" "not computed: columns tare does not read: mean, stddev" "noise lists them"
expect_match "$err" "no noise figures: no metric tare knows" "noise says why"
# Beside a known column, the unknown one is still named, and the known one checked.
printf 'date\tcommit\tbenchmark\tinstructions\tmean\n' > "$TMP/mk.tsv"
printf '2026-01-01T00:01:00Z\tc1\tb\t1000\t1\n2026-01-01T00:02:00Z\tc2\tb\t1000\t2\n' >> \
    "$TMP/mk.tsv"
run_tare history check "$TMP/mk.tsv"
expect_rc 0 "a known metric checked"
expect_match "$out" "^not checked: column tare does not read: mean" "the unknown one named"
expect_match "$out" "^no regressions, no improvements$" "the known one checked"

# ---- noise: a series with one point ----
head -2 "$TMP/w12.tsv" > "$TMP/one.tsv"
run_tare history noise "$TMP/one.tsv"
expect_rc 2 "noise of one point"
expect_match "$err" "not computed: 'b' median_s: one point, and a change needs two" "says why"

# ---- deterministic counts: the first commit, a 0, integers printed whole ----
printf 'date\tcommit\tbenchmark\tinstructions\tallocations\n2026-01-01T00:00:00Z\tc1\tb\t1000000000\t0\n' > "$TMP/d.tsv"
run_tare history check "$TMP/d.tsv"
expect_rc 2 "one commit: nothing to compare with"
expect_match "$out" "^b +instructions +no earlier value to compare with$" \
    "instructions: no earlier value"
printf '2026-01-02T00:00:00Z\tc2\tb\t1114270000\t5\n' >> "$TMP/d.tsv"
run_tare history check "$TMP/d.tsv"
expect_rc 3 "instructions +11%"
expect_match "$out" "^b +instructions +1,000,000,000 +1,114,270,000 +\+11\.4% +2\.0% +c2$" \
    "counts printed whole, with separators"
expect_match "$out" "^b +allocations +the earlier value is 0: a change from 0 has no ratio$" \
    "allocations from 0: not checked, and said"
run_tare history check --format json "$TMP/d.tsv"
expect_match "$out" '"before": 1000000000, "after": 1114270000,' "json: whole numbers"

# ---- NA at the newest commit: a failed measurement, exit 1 and a failing JUnit case, even
# beside a regression ----
cp "$TMP/d.tsv" "$TMP/na.tsv"
printf '2026-01-01T00:00:00Z\tc1\tq\t700\t1\n2026-01-02T00:00:00Z\tc2\tq\tNA\t1\n' >> \
    "$TMP/na.tsv"
run_tare history check --export-junit "$TMP/na.xml" "$TMP/na.tsv"
expect_rc 1 "NA at the newest commit: exit 1"
expect_match "$out" "^measurement failed:$" "a list of its own"
expect_match "$out" "^q +instructions +no value at this commit \(NA\)$" "names it"
expect_match "$out" "^b +instructions .* \+11\.4% " "the regression beside it still shown"
expect_match "$err" "measurement failed at commit c2: 1 metric NA" "said on stderr"
expect_eq "$(grep -c '<failure type="measurement failed"' "$TMP/na.xml")" 1 \
    "one failing JUnit case for the NA"
expect_match "$(grep -A1 'name="q instructions"' "$TMP/na.xml")" \
    'message="measurement failed: no value at this commit \(NA\)"' "the case says why"
run_tare history check --format json "$TMP/na.tsv"
expect_match "$out" '"failed": \[\{"benchmark": "q", "metric": "instructions", "why": "no value at this commit \(NA\)"\}\], "checked": 2,' \
    "json: failed, apart from not_checked"
# ... and the commit before it, where q was measured: no failure
run_tare history check --commit c1 "$TMP/na.tsv"
expect_rc 2 "c1: nothing earlier, nothing failed"

# ---- a CSV given as history: the hint ----
printf 'command,mean,stddev,median,user,system,min,max\n./a,1.0,0.1,1.0,0.9,0.1,0.9,1.1\n' > \
    "$TMP/h.csv"
run_tare history check "$TMP/h.csv"
expect_rc 2 "CSV"
expect_match "$err" \
    "no 'commit' column: not a history file \(this looks like CSV: a history file is TSV" \
    "the CSV hint"
done_testing
