# tare history: append (safe under concurrency), check (on series built here), noise, merge.
. "$(dirname "$0")/lib.sh"
EXCERPT=$TARE_ROOT/tests/fixtures/mutsu-excerpt.tsv
# The real history: $TARE_DATA, or ../shared/data beside the repository, when present.
MUTSU=${TARE_DATA:-$TARE_ROOT/../shared/data}/mutsu-bench-history.tsv

# ---- append ----
H=$TMP/wall.tsv
printf 'date\tcommit\tbenchmark\tmedian_s\tratio\n2026-01-01T00:00:00Z\tc1\tfib\t0.5\t1.5\n' |
    "$TARE" history append "$H"
expect_eq "$?" 0 "append to a new file"
printf 'commit\tbenchmark\tdate\nc2\tfib\t2026-01-02T00:00:00Z\n' | "$TARE" history append "$H"
expect_eq "$(sed -n 3p "$H")" "$(printf '2026-01-02T00:00:00Z\tc2\tfib\tNA\tNA')" \
    "columns matched by name, the missing written NA"
printf 'commit\tbenchmark\tmedian_s\nc3\tfib\tslow\n' > "$TMP/bad.tsv"
run_tare history append "$H" < "$TMP/bad.tsv"
expect_rc 2 "append of a malformed row"
expect_eq "$err" "tare history: '<stdin>' line 2: column 'median_s': not a number: 'slow'" \
    "append error names the line"
expect_eq "$(wc -l < "$H")" 3 "a refused append writes nothing"

# Eight appenders at once, 25 appends of 20 rows each: 4,000 whole rows.
R=$TMP/race.tsv
for p in 1 2 3 4 5 6 7 8; do
    (
        for b in $(seq 1 25); do
            { printf 'commit\tbenchmark\tinstructions\n'
              for r in $(seq 1 20); do printf 'c%d-%d-%d\tbench-%d\t%d\n' $p $b $r $p $((p * 1000 + r)); done
            } | "$TARE" history append "$R" || exit 1
        done
    ) &
done
wait
expect_eq "$(($(wc -l < "$R") - 1))" 4000 "8 concurrent appenders x 500 rows"
expect_eq "$(awk -F'\t' 'NR > 1 && (NF != 3 || $1 !~ /^c[1-8]-[0-9]+-[0-9]+$/ || $2 != "bench-" substr($1, 2, 1)) ' "$R" | wc -l)" 0 \
    "every concurrently appended row intact"
expect_eq "$(awk -F'\t' 'NR > 1 { print $1 }' "$R" | sort -u | wc -l)" 4000 "no row lost or doubled"

# Malformed files: file and line in the message, exit 2.
printf 'commit\tbenchmark\tratio\nc1\tb\t1\nc2\tb\t1\t9\n' > "$TMP/m.tsv"
run_tare history check "$TMP/m.tsv"
expect_rc 2 "check of a malformed file"
expect_eq "$err" "tare history: '$TMP/m.tsv' line 3: 4 fields, the header has 3" "malformed row message"
run_tare history noise "$TMP/none.tsv"
expect_rc 2 "a missing file"
expect_match "$err" "cannot open '$TMP/none.tsv': No such file" "missing file message"
run_tare history frobnicate x
expect_rc 2 "unknown subcommand"
run_tare history check --det-threshold x "$H"
expect_rc 2 "bad --det-threshold"

# ---- check on synthetic series ----
# series FILE STEP_AT STEP_FACTOR SD SEED: 120 commits of one benchmark's median_s, normal noise
# of relative sd SD (Box-Muller on awk's seeded rand), times STEP_FACTOR from commit STEP_AT on.
series() {
    awk -v at="$2" -v f="$3" -v sd="$4" -v seed="$5" 'BEGIN {
        srand(seed); pi = atan2(0, -1)
        print "date\tcommit\tbenchmark\tmedian_s\tinstructions"
        for (i = 1; i <= 120; i++) {
            z = sqrt(-2 * log(1 - rand())) * cos(2 * pi * rand())
            v = (i >= at ? f : 1) * (1 + sd * z)
            printf "2026-01-01T%02d:%02d:00Z\tc%d\tbench\t%.6f\t1000000\n", int(i / 60), i % 60, i, v
        }
    }' > "$1"
}
rang=0
for seed in 1 2 3 4 5; do
    for sd in 0.02 0.10; do
        series "$TMP/n.tsv" 999 1 $sd $seed
        # A check after every commit, as CI would run it: prefix files of 20..120 rows.
        for n in $(seq 20 120); do
            head -n $((n + 1)) "$TMP/n.tsv" > "$TMP/p.tsv"
            "$TARE" history check "$TMP/p.tsv" > /dev/null 2>&1 || rang=$((rang + 1))
        done
    done
done
expect_eq "$rang" 0 "noise (2% and 10%, 5 seeds, 1,010 checks) never rings"

series "$TMP/s.tsv" 100 1.3 0.03 42
head -n 101 "$TMP/s.tsv" > "$TMP/s1.tsv"
run_tare history check "$TMP/s1.tsv"
expect_rc 0 "one commit past a step: not yet persistent, no alarm"
expect_match "$out" "pending" "but reported as pending"
head -n 103 "$TMP/s.tsv" > "$TMP/s3.tsv"
run_tare history check "$TMP/s3.tsv"
expect_rc 1 "the third commit past the step confirms it"
expect_match "$out" "^regressions:" "text report has regressions"
run_tare history check --format json "$TMP/s3.tsv"
expect_match "$out" '^\{"regressions": \[\{"benchmark": "bench", "metric": "median_s", "before": [0-9.]+, "after": [0-9.]+, "change": 0\.[2-3][0-9]*, "commit": "c100"\}\], "improvements": \[\]\}$' \
    "json regression names the step's commit"
run_tare history check --commit c102 --format json "$TMP/s.tsv"
expect_rc 1 "--commit checks that commit"
run_tare history check "$TMP/s.tsv"
expect_rc 0 "a step reported at its confirming commit is not reported again 18 commits on"
run_tare history check --commit c50 --format json "$TMP/s.tsv"
expect_eq "$out" '{"regressions": [], "improvements": []}' "--commit before the step: nothing"
run_tare history check --commit c999 "$TMP/s.tsv"
expect_rc 2 "--commit not in the history"

# A step down is an improvement, with exit 0.
series "$TMP/i.tsv" 100 0.7 0.03 7
head -n 103 "$TMP/i.tsv" > "$TMP/i3.tsv"
run_tare history check --format json "$TMP/i3.tsv"
expect_rc 0 "an improvement is not a regression"
expect_match "$out" '"improvements": \[\{"benchmark": "bench", "metric": "median_s".*"commit": "c100"\}\]' \
    "improvement reported"

# Deterministic counts: a fixed threshold against the previous commit.
det() {   # det FILE LAST_VALUE
    { printf 'date\tcommit\tbenchmark\tinstructions\tallocations\ttoolchain\n'
      printf '2026-01-01T00:00:00Z\tc1\tb\t1000000\t500\tgcc\n'
      printf '2026-01-02T00:00:00Z\tc2\tb\t%s\t500\tgcc\n' "$2"; } > "$1"
}
det "$TMP/d.tsv" 1030000
run_tare history check --format json "$TMP/d.tsv"
expect_rc 1 "instructions +3% rings at the default 2%"
expect_eq "$out" '{"regressions": [{"benchmark": "b", "metric": "instructions", "before": 1000000, "after": 1030000, "change": 0.03, "commit": "c2"}], "improvements": []}' \
    "deterministic regression in json"
run_tare history check --det-threshold 5 "$TMP/d.tsv"
expect_rc 0 "under --det-threshold 5"
det "$TMP/d.tsv" 1010000
run_tare history check "$TMP/d.tsv"
expect_rc 0 "instructions +1% is under 2%"

# ---- noise ----
run_tare history noise --format tsv "$EXCERPT"
expect_rc 0 "noise on the mutsu excerpt"
expect_eq "$(head -1 <<<"$out")" "$(printf 'benchmark\tmetric\tchanges\tmedian_change\tp90_change')" "noise columns"
# The median |relative change| of bench-fib's median_s, worked out here with awk and sort.
want=$(awk -F'\t' 'NR > 1 && $3 == "bench-fib" { if (p != "") { d = $4 / p - 1; print (d < 0 ? -d : d) } p = $4 }' "$EXCERPT" |
       sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
got=$(awk -F'\t' '$1 == "bench-fib" && $2 == "median_s" { print $4 }' <<<"$out")
check "noise median matches awk ($got vs $want)" awk -v a="$got" -v b="$want" 'BEGIN { exit !((a - b) ^ 2 < 1e-12) }'
expect_eq "$(awk -F'\t' '$1 == "bench-fib" && $2 == "median_s" { print $3 }' <<<"$out")" \
    "$(($(awk -F'\t' '$3 == "bench-fib"' "$EXCERPT" | wc -l) - 1))" "noise change count"

# ---- merge ----
{ head -1 "$EXCERPT"; awk -F'\t' 'NR > 1 && $3 == "bench-fib"' "$EXCERPT"; } > "$TMP/shard1.tsv"
{ head -1 "$EXCERPT"; awk -F'\t' 'NR > 1 && $3 != "bench-fib"' "$EXCERPT"; } > "$TMP/shard2.tsv"
run_tare history merge "$TMP/shard1.tsv" "$TMP/shard2.tsv" "$TMP/shard1.tsv" -o "$TMP/merged.tsv"
expect_rc 0 "merge of shards"
expect_eq "$(head -1 "$TMP/merged.tsv")" \
    "$(printf 'date\tcommit\tbenchmark\tmedian_s\tmin_s\tref_median_s\tratio\truns\trunner\treference')" \
    "merge writes tare's column names"
expect_eq "$(tail -n +2 "$TMP/merged.tsv" | sort | md5sum)" "$(tail -n +2 "$EXCERPT" | sort | md5sum)" \
    "merged rows are the original rows, a shard given twice counted once"
expect_eq "$(tail -n +2 "$TMP/merged.tsv" | cut -f2 | uniq | wc -l)" \
    "$(tail -n +2 "$EXCERPT" | cut -f2 | sort -u | wc -l)" "merged rows grouped in commit order"
run_tare history merge "$TMP/shard1.tsv"
expect_rc 2 "merge without -o"

# ---- at scale: 10,000 commits x 50 series (500,000 rows), ten times the seed's history ----
# A table of 1,024 commit slots once hung every reader past 1,024 commits. Series bench-07's
# instructions step up by 50,000 at commit c09000; awk writes the rows and works out the answers.
BIG=$TMP/big.tsv
awk 'BEGIN { srand(3); print "date\tcommit\tbenchmark\tratio\tinstructions"
    for (k = 0; k < 10000; k++)
        for (b = 0; b < 50; b++)
            printf "2026-01-%02dT%02d:%02d:00Z\tc%05d\tbench-%02d\t%.4f\t%d\n", 1 + int(k / 1440),
                int(k / 60) % 24, k % 60, k, b, 1 + 0.02 * (rand() - 0.5),
                1000000 + b * 1000 + (b == 7 && k >= 9000 ? 50000 : 0) }' > "$BIG"
run_tare history check "$BIG"
expect_rc 0 "check of 10,000 commits x 50 series"
expect_eq "$(head -1 <<<"$out")" "checked 50 series at commit c09999 (2026-01-07T22:39:00Z)" \
    "check at scale: the newest commit, every series"
run_tare history check --commit c09000 --format json "$BIG"
expect_rc 1 "check --commit at scale finds the planted step"
want=$(awk 'BEGIN { printf "%.6g", 1057000 / 1007000 - 1 }')
expect_match "$out" "\"benchmark\": \"bench-07\", \"metric\": \"instructions\", \"before\": 1007000, \"after\": 1057000, \"change\": ${want}[0-9]*, \"commit\": \"c09000\"" \
    "check --commit at scale: bench-07 instructions at c09000"
run_tare history noise --format tsv "$BIG"
expect_rc 0 "noise at scale"
expect_eq "$(awk -F'\t' 'NR > 1 { n[$2]++; if ($3 != 9999) bad++ } END { print n["ratio"], n["instructions"], bad + 0 }' <<<"$out")" \
    "50 50 0" "noise at scale: 50 series x 2 metrics, 9,999 changes each"
awk -F'\t' 'NR == 1 || $3 ~ /[02468]$/' "$BIG" > "$TMP/big-even.tsv"
awk -F'\t' 'NR == 1 || $3 ~ /[13579]$/' "$BIG" > "$TMP/big-odd.tsv"
run_tare history merge "$TMP/big-odd.tsv" "$TMP/big-even.tsv" -o "$TMP/big-merged.tsv"
expect_rc 0 "merge at scale"
expect_eq "$(md5sum < "$TMP/big-merged.tsv")" \
    "$( { head -1 "$BIG"; tail -n +2 "$BIG" | sort -t "$(printf '\t')" -k2,2 -k3,3; } | md5sum)" \
    "merge at scale: every row, in commit order, within a commit by series"
run_tare trend "$BIG" -o "$TMP/big.html"
expect_rc 0 "trend at scale"
expect_eq "$(grep -o '\["c[0-9]\{5\}","2026-' "$TMP/big.html" | sort -u | wc -l)" 10000 "trend at scale: 10,000 commits on the page"
expect_eq "$(grep -o '{"name":"bench-[0-9]*"' "$TMP/big.html" | sort -u | wc -l)" 50 "trend at scale: 50 series on the page"
rm -f "$BIG" "$TMP"/big-*.tsv "$TMP/big.html"

# ---- the real mutsu history, when it is beside the repository ----
if [ -r "$MUTSU" ]; then
    run_tare history check --format json "$MUTSU"
    expect_rc 0 "mutsu history: newest commit has no confirmed regression"
    expect_match "$out" '^\{"regressions": \[.*\], "improvements": \[.*\]\}$' "mutsu check json"
    run_tare history noise --format tsv "$MUTSU"
    expect_eq "$(($(wc -l <<<"$out") - 1))" $((44 * 4)) "mutsu noise: 44 series x 4 metrics"
    # poly-call's ratio stepped up 25% at b0bee3c (0.44 -> 0.55): the check two commits on rings.
    run_tare history check --commit d5dd8c11 --format json "$MUTSU"
    expect_rc 1 "mutsu: the poly-call step is confirmed two commits later"
    expect_match "$out" '"benchmark": "poly-call", "metric": "ratio", "before": 0.44, "after": 0.55, "change": 0.25[0-9]*, "commit": "b0bee3c270c12137c3b5a2d57d2dca94389ad74c"' \
        "mutsu: poly-call ratio regression at b0bee3c"
fi
done_testing
