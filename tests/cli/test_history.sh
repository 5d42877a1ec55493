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
              for r in $(seq 1 20); do
                  printf 'c%d-%d-%d\tbench-%d\t%d\n' $p $b $r $p $((p * 1000 + r))
              done
            } | "$TARE" history append "$R" || exit 1
        done
    ) &
done
wait
expect_eq "$(($(wc -l < "$R") - 1))" 4000 "8 concurrent appenders x 500 rows"
expect_eq \
    "$(awk -F'\t' 'NR > 1 && (NF != 3 || $1 !~ /^c[1-8]-[0-9]+-[0-9]+$/ || $2 != "bench-" substr($1, 2, 1)) ' "$R" | wc -l)" \
    0 \
    "every concurrently appended row intact"
expect_eq "$(awk -F'\t' 'NR > 1 { print $1 }' "$R" | sort -u | wc -l)" 4000 "no row lost or doubled"

# Malformed files: file and line in the message, exit 2.
printf 'commit\tbenchmark\tratio\nc1\tb\t1\nc2\tb\t1\t9\n' > "$TMP/m.tsv"
run_tare history check "$TMP/m.tsv"
expect_rc 2 "check of a malformed file"
expect_eq "$err" "tare history: '$TMP/m.tsv' line 3: 4 fields, the header has 3" \
    "malformed row message"
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
rang=0 seeds=$(repeats 5 1)
for seed in $(seq 1 "$seeds"); do
    for sd in 0.02 0.10; do
        series "$TMP/n.tsv" 999 1 $sd $seed
        # A check after every commit, as CI would run it: prefix files of 20..120 rows.
        for n in $(seq 20 120); do
            head -n $((n + 1)) "$TMP/n.tsv" > "$TMP/p.tsv"
            "$TARE" history check "$TMP/p.tsv" > /dev/null 2>&1 || rang=$((rang + 1))
        done
    done
done
expect_eq "$rang" 0 "noise (2% and 10%, $seeds seeds, $((seeds * 202)) checks) never rings"

series "$TMP/s.tsv" 100 1.3 0.03 42
head -n 101 "$TMP/s.tsv" > "$TMP/s1.tsv"
run_tare history check "$TMP/s1.tsv"
expect_rc 0 "one commit past a step: not yet persistent, no alarm"
expect_match "$out" "pending" "but reported as pending"
head -n 103 "$TMP/s.tsv" > "$TMP/s3.tsv"
run_tare history check "$TMP/s3.tsv"
expect_rc 3 "the third commit past the step confirms it"
expect_match "$out" "^regressions:" "text report has regressions"
run_tare history check --format json "$TMP/s3.tsv"
expect_match "$out" \
    '^\{"regressions": \[\{"benchmark": "bench", "metric": "median_s", "before": [0-9.]+, "after": [0-9.]+, "change": 0\.[2-3][0-9]*, "commit": "c100"\}\], "improvements": \[\], "failed": \[\], "checked": 2, "not_checked": \[\], "unknown_columns": \[\]\}$' \
    "json regression names the step's commit"
run_tare history check --commit c102 --format json "$TMP/s.tsv"
expect_rc 3 "--commit checks that commit"
run_tare history check "$TMP/s.tsv"
expect_rc 0 "a step reported at its confirming commit is not reported again 18 commits on"
run_tare history check --commit c50 --format json "$TMP/s.tsv"
expect_eq "$out" \
    '{"regressions": [], "improvements": [], "failed": [], "checked": 2, "not_checked": [], "unknown_columns": []}' \
    "--commit before the step: nothing"
run_tare history check --commit c999 "$TMP/s.tsv"
expect_rc 2 "--commit not in the history"

# A step down is an improvement, with exit 0.
series "$TMP/i.tsv" 100 0.7 0.03 7
head -n 103 "$TMP/i.tsv" > "$TMP/i3.tsv"
run_tare history check --format json "$TMP/i3.tsv"
expect_rc 0 "an improvement is not a regression"
expect_match "$out" \
    '"improvements": \[\{"benchmark": "bench", "metric": "median_s".*"commit": "c100"\}\]' \
    "improvement reported"

# Deterministic counts: a fixed threshold against the previous commit.
det() {   # det FILE LAST_VALUE
    { printf 'date\tcommit\tbenchmark\tinstructions\tallocations\ttoolchain\n'
      printf '2026-01-01T00:00:00Z\tc1\tb\t1000000\t500\tgcc\n'
      printf '2026-01-02T00:00:00Z\tc2\tb\t%s\t500\tgcc\n' "$2"; } > "$1"
}
det "$TMP/d.tsv" 1030000
run_tare history check --format json "$TMP/d.tsv"
expect_rc 3 "instructions +3% rings at the default 2%"
expect_eq "$out" \
    '{"regressions": [{"benchmark": "b", "metric": "instructions", "before": 1000000, "after": 1030000, "change": 0.03, "commit": "c2"}], "improvements": [], "failed": [], "checked": 2, "not_checked": [], "unknown_columns": []}' \
    "deterministic regression in json"
run_tare history check --det-threshold 5 "$TMP/d.tsv"
expect_rc 0 "under --det-threshold 5"
det "$TMP/d.tsv" 1010000
run_tare history check "$TMP/d.tsv"
expect_rc 0 "instructions +1% is under 2%"

# ---- noise ----
run_tare history noise --format tsv "$EXCERPT"
expect_rc 0 "noise on the mutsu excerpt"
expect_eq "$(head -1 <<<"$out")" \
    "$(printf 'benchmark\tmetric\tchanges\tmedian_change\tp90_change')" "noise columns"
# The median |relative change| of bench-fib's median_s, worked out here with awk and sort.
want=$(awk -F'\t' \
    'NR > 1 && $3 == "bench-fib" { if (p != "") { d = $4 / p - 1; print (d < 0 ? -d : d) } p = $4 }' \
    "$EXCERPT" |
       sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
got=$(awk -F'\t' '$1 == "bench-fib" && $2 == "median_s" { print $4 }' <<<"$out")
check "noise median matches awk ($got vs $want)" awk -v a="$got" -v b="$want" \
    'BEGIN { exit !((a - b) ^ 2 < 1e-12) }'
expect_eq "$(awk -F'\t' '$1 == "bench-fib" && $2 == "median_s" { print $3 }' <<<"$out")" \
    "$(($(awk -F'\t' '$3 == "bench-fib"' "$EXCERPT" | wc -l) - 1))" "noise change count"

run_tare history noise --format tsv <(cat "$EXCERPT")
expect_eq "$out" "$("$TARE" history noise --format tsv "$EXCERPT")" \
    "a history read from a pipe (locking does not need a file)"

# ---- merge ----
{ head -1 "$EXCERPT"; awk -F'\t' 'NR > 1 && $3 == "bench-fib"' "$EXCERPT"; } > "$TMP/shard1.tsv"
{ head -1 "$EXCERPT"; awk -F'\t' 'NR > 1 && $3 != "bench-fib"' "$EXCERPT"; } > "$TMP/shard2.tsv"
run_tare history merge "$TMP/shard1.tsv" "$TMP/shard2.tsv" "$TMP/shard1.tsv" -o "$TMP/merged.tsv"
expect_rc 0 "merge of shards"
expect_eq "$(head -1 "$TMP/merged.tsv")" \
    "$(printf 'date\tcommit\tbenchmark\tmedian_s\tmin_s\tref_median_s\tratio\truns\trunner\treference')" \
    "merge writes tare's column names"
expect_eq "$(tail -n +2 "$TMP/merged.tsv" | sort | md5sum)" \
    "$(tail -n +2 "$EXCERPT" | sort | md5sum)" \
    "merged rows are the original rows, a shard given twice counted once"
expect_eq "$(tail -n +2 "$TMP/merged.tsv" | cut -f2 | uniq | wc -l)" \
    "$(tail -n +2 "$EXCERPT" | cut -f2 | sort -u | wc -l)" "merged rows grouped in commit order"
run_tare history merge "$TMP/shard1.tsv"
expect_rc 2 "merge without -o"

# ---- one lock protocol for every writer: 16 appenders and merges onto an input, interleaved ----
# merge -o onto one of its inputs once lost rows appended meanwhile (136 of 300 survived).
L=$TMP/locked.tsv
printf 'commit\tbenchmark\tinstructions\nc0\tb\t1\n' > "$L"
printf 'commit\tbenchmark\tinstructions\n' > "$TMP/shard.tsv"
for r in $(seq 1 10); do printf 's%d\tb\t%d\n' $r $r >> "$TMP/shard.tsv"; done
for p in $(seq 1 16); do
    ( for r in $(seq 1 20); do
          printf 'commit\tbenchmark\tinstructions\nw%d-%d\tb\t%d\n' $p $r $r |
              "$TARE" history append "$L" ||
              echo "append $p $r failed"
      done ) > "$TMP/w$p.log" 2>&1 &
done
( for m in $(seq 1 15); do "$TARE" history merge "$L" -o "$L" || echo "merge $m failed"; done ) > \
    "$TMP/m1.log" 2>&1 &
( for m in $(seq 1 15); do "$TARE" history merge "$TMP/shard.tsv" "$L" -o "$L" || echo \
    "merge $m failed"; done ) > "$TMP/m2.log" 2>&1 &
wait
expect_empty "$(cat "$TMP"/w*.log "$TMP"/m?.log)" "16 appenders and 30 merges all succeed"
expect_eq "$(awk -F'\t' 'NR > 1 && $1 ~ /^w/' "$L" | sort -u | wc -l)" 320 \
    "no appended row lost by the merges"
expect_eq "$(tail -n +2 "$L" | wc -l)" 331 "every row once: 320 appended, 10 merged in, the first"
expect_eq \
    "$(awk -F'\t' 'NF != 3 || (NR > 1 && $1 !~ /^(c0|s[0-9]+|w[0-9]+-[0-9]+)$/)' "$L" | wc -l)" 0 \
    "every row intact"
expect_eq "$(ls "$TMP" | grep -c 'tmp\.')" 0 "no temporary file left"

# Rows with columns the file lacks (a suite that turned --cache-sim on): the file is widened,
# older rows NA in the new columns, while appenders queue on it and find the new file.
W=$TMP/widen.tsv
printf 'commit\tbenchmark\tinstructions\nc0\tb\t1\n' > "$W"
for p in $(seq 1 8); do
    ( for r in $(seq 1 20); do
          printf 'commit\tbenchmark\tinstructions\nw%d-%d\tb\t%d\n' $p $r $r |
              "$TARE" history append "$W" || echo "append $p $r failed"
      done ) > "$TMP/y$p.log" 2>&1 &
done
for col in allocations engine l1d_misses est_cycles; do
    ( for r in $(seq 1 5); do
          printf 'commit\tbenchmark\t%s\n%s-%d\tb\t%d\n' $col $col $r $r |
              "$TARE" history append "$W" || echo "append $col $r failed"
      done ) > "$TMP/y$col.log" 2>&1 &
done
wait
expect_empty "$(cat "$TMP"/y*.log)" "8 appenders and 4 widening appenders all succeed"
expect_eq "$(head -n 1 "$W" | tr '\t' '\n' | sort | tr '\n' ' ')" \
    "allocations benchmark commit engine est_cycles instructions l1d_misses " \
    "the header gained each new column once"
expect_eq "$(tail -n +2 "$W" | cut -f1 | sort -u | wc -l)" 181 \
    "every row once: 160 plain, 20 with a new column, the first"
expect_eq "$(awk -F'\t' 'NF != 7' "$W" | wc -l)" 0 "every row has every column"
expect_eq "$(awk -F'\t' 'NR > 1 && $1 == "c0" { print $3, $4 }' "$W")" "1 NA" \
    "the first row keeps its count, NA in the new columns"
run_tare history noise "$W"
expect_rc 0 "the widened file reads back"
expect_eq "$(ls -A "$TMP" | grep -c '\.widen\.[0-9]')" 0 "no temporary file left by widening"
run_tare history append "$W" < <(printf 'commit\tbenchmark\tinstrutions\nc1\tb\t1\n')
expect_rc 2 "a column tare does not know is refused"
expect_match "$err" "column 'instrutions' is not in '$W', nor one tare knows" "and named"

# Two merges that read each other's output, with appenders on both: the locks are taken in one
# order, so they cannot wait on each other (a deadlock would hang here, hence the guard).
printf 'commit\tbenchmark\tinstructions\n' > "$TMP/A.tsv"
printf 'commit\tbenchmark\tinstructions\n' > "$TMP/B.tsv"
for f in A B; do for p in 1 2 3 4; do
    ( for r in $(seq 1 10); do
          printf 'commit\tbenchmark\tinstructions\n%s%d-%d\tb\t%d\n' $f $p $r $r |
              "$TARE" history append "$TMP/$f.tsv" ||
              echo "append failed"
      done ) > "$TMP/x$f$p.log" 2>&1 &
done; done
( for m in $(seq 1 10); do timeout 300 "$TARE" history merge "$TMP/A.tsv" "$TMP/B.tsv" -o \
    "$TMP/A.tsv" || echo "merge failed: $?"; done ) > "$TMP/xa.log" 2>&1 &
( for m in $(seq 1 10); do timeout 300 "$TARE" history merge "$TMP/B.tsv" "$TMP/A.tsv" -o \
    "$TMP/B.tsv" || echo "merge failed: $?"; done ) > "$TMP/xb.log" 2>&1 &
wait
expect_empty "$(cat "$TMP"/x*.log)" "crossed merges and appenders all succeed, none waits forever"
expect_eq "$(awk -F'\t' '$1 ~ /^A/' "$TMP/A.tsv" | sort -u | wc -l)" 40 \
    "crossed merges: every row appended to A is in A"
expect_eq "$(awk -F'\t' '$1 ~ /^B/' "$TMP/B.tsv" | sort -u | wc -l)" 40 \
    "crossed merges: every row appended to B is in B"

# ---- interrupted: append and merge exit 130 (SIGINT) or 143 (SIGTERM), leave no temporary file,
# and leave the history as it was or as the merge made it, never partial ----
# interrupt SIG WHEN CMD...: runs tare CMD..., sends SIG once it waits on a lock held here
# (WHEN=lock, on the file named by $LOCKED) or once its temporary file exists (WHEN=tmp, the
# file $TMPOF.tmp.PID), and prints its exit status as Python sees it (-N: killed by signal N).
interrupt() {
    /usr/bin/python3 - "$@" <<'PY'
import fcntl, os, signal, subprocess, sys, time
sig, when, cmd = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3:]
held = None
if when == "lock":
    held = open(os.environ["LOCKED"], "rb")
    fcntl.flock(held, fcntl.LOCK_EX)
p = subprocess.Popen(cmd, stdin=subprocess.PIPE)
p.stdin.write(b"commit\tbenchmark\tinstructions\nc9\tb\t9\n")
p.stdin.close()
def waiting():   # a blocked flock of this process in /proc/locks
    with open("/proc/locks") as f:
        return any("->" in l and (" %d " % p.pid) in l for l in f)
tmp = "%s.tmp.%d" % (os.environ.get("TMPOF", ""), p.pid)
while p.poll() is None and not (waiting() if when == "lock" else os.path.exists(tmp)):
    time.sleep(0.001)
p.send_signal(sig)
print(p.wait())
PY
}
I=$TMP/int.tsv
# Newest commit first, so the merge (commit order) writes a different file.
make_int() {
    awk 'BEGIN { print "date\tcommit\tbenchmark\tinstructions"
        for (k = 60000; k > 0; k--) for (b = 0; b < 4; b++)
            printf "2026-01-01T%02d:%02d:%02dZ\tc%06d\tb%d\t%d\n", k / 3600, k / 60 % 60, k % 60, k, b, k }' > "$I"
}
make_int
old=$(md5sum < "$I")
"$TARE" history merge "$I" -o "$TMP/int-new.tsv"
new=$(md5sum < "$TMP/int-new.tsv")
check "the merge rewrites the file (old and new differ)" test "$old" != "$new"
export LOCKED=$I TMPOF=$I
expect_eq "$(interrupt SIGTERM lock "$TARE" history merge "$I" -o "$I")" 143 \
    "merge waiting on the lock: SIGTERM exits 143"
expect_eq "$(interrupt SIGINT lock "$TARE" history merge "$I" -o "$I")" 130 \
    "merge waiting on the lock: SIGINT exits 130"
expect_eq "$(interrupt SIGTERM lock "$TARE" history append "$I")" 143 \
    "append waiting on the lock: SIGTERM exits 143"
expect_eq "$(interrupt SIGINT lock "$TARE" history append "$I")" 130 \
    "append waiting on the lock: SIGINT exits 130"
expect_eq "$(md5sum < "$I")" "$old" "interrupted while waiting: nothing written"
# Interrupted while it writes its temporary file (240,000 rows): the file is gone and OUT is the
# old file. A merge that finished first (exit 0) must have left the new one.
for trial in 1 2 3 4 5 6; do
    sig=SIGTERM want=143
    [ $((trial % 2)) = 0 ] && sig=SIGINT want=130
    rc=$(interrupt $sig tmp "$TARE" history merge "$I" -o "$I")
    now=$(md5sum < "$I")
    if [ "$rc" = "$want" ] && [ "$now" = "$old" ]; then ok
    elif [ "$rc" = 0 ] && [ "$now" = "$new" ]; then ok
    else not_ok "merge interrupted mid-write by $sig: exit $rc, file $( [ "$now" = "$old" ] && echo old || { [ "$now" = "$new" ] && echo new || echo partial; })"
    fi
    [ "$now" = "$old" ] || make_int
    expect_eq "$(ls "$TMP" | grep -c 'int.tsv.tmp')" 0 \
        "no temporary file left after $sig (trial $trial)"
done
unset LOCKED TMPOF
rm -f "$I" "$TMP/int-new.tsv"

# ---- a torn last row (a writer cut off mid-row): skipped with a warning, never read whole ----
T=$TMP/torn.tsv
printf \
    'date\tcommit\tbenchmark\tinstructions\n2026-01-01\tc1\tb\t1000000\n2026-01-02\tc2\tb\t1000000\n2026-01-03\tc3\tb\t1000' \
    > "$T"
warn="tare history: warning: '$T' line 4: no newline at its end: a row cut off mid-write, skipped
tare history: note: commits in date order: '$TMP' is in no git repository (--repo DIR orders them by its first-parent history)"
run_tare history check "$T"
expect_rc 0 "check of a file with a torn last row"
expect_eq "$err" "$warn" "check warns of the torn row, naming file and line"
expect_eq "$out" \
    "$(printf 'checked 1 metric of 1 series at commit c2 (2026-01-02)\nno regressions, no improvements')" \
    "check does not read the cut 1000 (of 1000000) as a -99.9% change"
run_tare history noise --format tsv "$T"
expect_eq "$err" "$warn" "noise warns of the torn row"
expect_eq "$(tsv_field "$out" 1 changes)" 1 "noise: the torn row is not a change"
run_tare trend "$T" -o "$TMP/torn.html"
expect_eq "$err" "${warn//tare history/tare trend}" "trend warns of the torn row"
cp "$T" "$TMP/torn-in.tsv"
run_tare history merge "$TMP/torn-in.tsv" -o "$TMP/torn-in.tsv"
expect_rc 0 "merge of a file with a torn row onto itself"
expect_eq "$err" \
    "tare history: warning: '$TMP/torn-in.tsv' line 4: no newline at its end: a row cut off mid-write, skipped" \
    "merge warns of the torn row"
expect_eq "$(cat "$TMP/torn-in.tsv")" "$(head -3 "$T")" \
    "merge does not rewrite the torn row as a whole one"
printf 'commit\tbenchmark\tinstructions\nc4\tb\t1000000\nc5\tb\t10' | "$TARE" history append \
    "$TMP/h-torn.tsv" 2> "$TMP/err"
expect_eq "$?:$(cat "$TMP/err")" \
    "2:tare history: '<stdin>' line 3: no newline at its end: a cut row (nothing written)" \
    "append refuses input cut off mid-row"
check "a refused append does not create the file" test ! -e "$TMP/h-torn.tsv"

# ---- values a history must never hold: refused on append, an error on reading ----
V=$TMP/values.tsv
printf \
    'date\tcommit\tbenchmark\tinstructions\tmedian_s\truns\n2026-01-01T00:00:00Z\tc1\tb\t300\t0.5\t7\n' \
    > "$V"
cp "$V" "$TMP/values-before.tsv"
bad_value() {   # bad_value ROW MESSAGE DESC
    printf 'date\tcommit\tbenchmark\tinstructions\tmedian_s\truns\n%s\n' "$1" > "$TMP/in.tsv"
    run_tare history append "$V" < "$TMP/in.tsv"
    expect_rc 2 "append refuses $3"
    expect_eq "$err" "tare history: '<stdin>' line 2: $2" "append: $3 named with its line"
    cmp -s "$V" "$TMP/values-before.tsv" && ok || not_ok "append of $3 wrote something"
    cp "$TMP/in.tsv" "$TMP/read.tsv"
    run_tare history check "$TMP/read.tsv"
    expect_rc 2 "check refuses a file with $3"
    expect_eq "$err" "tare history: '$TMP/read.tsv' line 2: $2" "check: $3 named with file and line"
}
bad_value "$(printf '2026-01-02T00:00:00Z\tc2\tb\t-200\t0.5\t7')" \
    "column 'instructions': not a count (a whole number from 0 to 2^64-1): '-200'" \
        "a negative count"
bad_value "$(printf '2026-01-02T00:00:00Z\tc2\tb\t18446744073709551616\t0.5\t7')" \
    "column 'instructions': not a count (a whole number from 0 to 2^64-1): '18446744073709551616'" \
        "a count above 2^64-1"
bad_value "$(printf '2026-01-02T00:00:00Z\tc2\tb\t300\t-0.5\t7')" \
    "column 'median_s': negative (times and ratios are 0 or more): '-0.5'" "negative seconds"
bad_value "$(printf 'yesterday\tc2\tb\t300\t0.5\t7')" \
    "column 'date': not an ISO 8601 date (2026-07-12T06:07:21Z): 'yesterday'" \
        "'yesterday' as a date"
bad_value "$(printf '2026-01-02T00:00:00Z\tc2\tb\t300\t0.5\tseven')" \
    "column 'runs': not a count (a whole number, 0 or more): 'seven'" "runs=seven"
# From -200 to -300 instructions was once called a +50% regression; it is now an error.
printf 'commit\tbenchmark\tinstructions\nc1\tb\t-200\nc2\tb\t-300\n' > "$TMP/negs.tsv"
run_tare history check "$TMP/negs.tsv"
expect_rc 2 "negative counts are not judged"

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
expect_eq "$(head -1 <<<"$out")" \
    "checked 100 metrics of 50 series at commit c09999 (2026-01-07T22:39:00Z)" \
    "check at scale: the newest commit, every series"
run_tare history check --commit c09000 --format json "$BIG"
expect_rc 3 "check --commit at scale finds the planted step"
want=$(awk 'BEGIN { printf "%.6g", 1057000 / 1007000 - 1 }')
expect_match "$out" \
    "\"benchmark\": \"bench-07\", \"metric\": \"instructions\", \"before\": 1007000, \"after\": 1057000, \"change\": ${want}[0-9]*, \"commit\": \"c09000\"" \
    "check --commit at scale: bench-07 instructions at c09000"
run_tare history noise --format tsv "$BIG"
expect_rc 0 "noise at scale"
expect_eq \
    "$(awk -F'\t' 'NR > 1 { n[$2]++; if ($3 != 9999) bad++ } END { print n["ratio"], n["instructions"], bad + 0 }' <<<"$out")" \
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
expect_eq "$(grep -o '\["c[0-9]\{5\}","2026-' "$TMP/big.html" | sort -u | wc -l)" 10000 \
    "trend at scale: 10,000 commits on the page"
expect_eq "$(grep -o '{"name":"bench-[0-9]*"' "$TMP/big.html" | sort -u | wc -l)" 50 \
    "trend at scale: 50 series on the page"
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
    expect_rc 3 "mutsu: the poly-call step is confirmed two commits later"
    expect_match "$out" \
        '"benchmark": "poly-call", "metric": "ratio", "before": 0.44, "after": 0.55, "change": 0.25[0-9]*, "commit": "b0bee3c270c12137c3b5a2d57d2dca94389ad74c"' \
        "mutsu: poly-call ratio regression at b0bee3c"
fi
done_testing
