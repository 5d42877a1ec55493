# tare run: a suite file (INI) of benchmarks x lanes with a reference, into history rows.
. "$(dirname "$0")/lib.sh"

S=$TMP/suite
mkdir -p "$S/benchmarks"
# Benchmarks are named for how long the sleeper fixture sleeps on them ({name}).
touch "$S/benchmarks/0.02.txt" "$S/benchmarks/0.2.txt" "$S/benchmarks/0.001.txt"
cat > "$S/suite.ini" <<EOF
; a suite: every benchmark in both lanes, the reference alongside
[suite]
command = $FIXTURES/sleeper {name}
benchmarks = benchmarks/*.txt
reference = $FIXTURES/sleeper 0.01
runs = 3

[lane base]
env = TARE_TEST_EXIT=0

[lane jit]
env = TARE_TEST_EXIT=0 JIT=on
EOF

run_tare run --format tsv "$S/suite.ini"
expect_rc 0 "a suite runs"
expect_eq "$(head -1 <<<"$out")" \
    "$(printf 'benchmark\tlane\truns\tmedian_s\tmin_s\tref_median_s\tratio\tstatus')" "tsv columns"
expect_eq "$(tail -n +2 <<<"$out" | cut -f1 | tr '\n' ' ')" \
    "0.001+base 0.001+jit 0.02+base 0.02+jit 0.2+base 0.2+jit " \
    "benchmarks (sorted) x lanes, named bench+lane"
# Sleep-based bounds only: a 0.2 s sleep takes at least 0.2 s; the reference at least 0.01 s.
slow=$(awk -F'\t' '$1 == "0.2+jit" { print $4 }' <<<"$out")
ref=$(awk -F'\t' '$1 == "0.2+jit" { print $6 }' <<<"$out")
ratio=$(awk -F'\t' '$1 == "0.2+jit" { print $7 }' <<<"$out")
check "0.2 s benchmark median >= 0.2 s ($slow)" awk -v v="$slow" 'BEGIN { exit !(v >= 0.2) }'
check "reference median >= 0.01 s ($ref)" awk -v v="$ref" 'BEGIN { exit !(v >= 0.01) }'
check "ratio is median over the reference's ($ratio)" awk -v a="$slow" -v b="$ref" -v r="$ratio" \
    'BEGIN { exit !((a / b - r) ^ 2 < 1e-12 * r * r) }'
expect_eq "$(awk -F'\t' 'NR > 1 { print $3 }' <<<"$out" | sort -u)" 3 "runs = 3 from the suite"
run_tare run --runs 2 --format json "$S/suite.ini"
expect_match "$out" '"benchmark": "0.2\+base", "lane": "base", "runs": 2, "median_s": ' \
    "--runs overrides; json"

# Lanes' environments reach the program: printenv1 exits with $TARE_TEST_EXIT.
cat > "$S/lanes.ini" <<EOF
[suite]
command = $FIXTURES/printenv1
benchmarks = benchmarks/0.2.txt
runs = 2
[lane good]
env = TARE_TEST_EXIT=0
[lane bad]
env = TARE_TEST_EXIT=3
EOF
run_tare run --format tsv "$S/lanes.ini"
expect_rc 1 "a failing lane: exit 1"
expect_eq "$(awk -F'\t' '$1 == "0.2+good" { print $8 }' <<<"$out")" ok "the good lane is ok"
expect_eq "$(awk -F'\t' '$1 == "0.2+bad" { print $4 "," $8 }' <<<"$out")" "NA,failed" \
    "the failed lane is NA, never 0"
expect_match "$err" "'0\.2\+bad' failed: exited with status 3" "failure reason"

# A plain [lane] is the series named after the benchmark (the seed's JIT-off rows).
cat > "$S/plain.ini" <<EOF
[suite]
command = $FIXTURES/printenv1
benchmarks = benchmarks/0.2.txt
runs = 1
[lane]
env =
[lane jit]
env = TARE_TEST_EXIT=0
EOF
run_tare run --format tsv "$S/plain.ini"
expect_eq "$(tail -n +2 <<<"$out" | cut -f1,2 | tr '\t\n' ',,')" "0.2,-,0.2+jit,jit," \
    "plain lane and a named one"

# --history: rows appended with exactly the issue's columns; commit from --commit or git.
run_tare run --history "$S/hist" --commit 0123abcd "$S/suite.ini"
expect_rc 0 "run into history"
H=$S/hist/wall.tsv
expect_eq "$(head -1 "$H")" \
    "$(printf 'date\tcommit\tbenchmark\tmedian_s\tmin_s\tref_median_s\tratio\truns\trunner\treference')" \
    "wall.tsv columns"
expect_eq "$(($(wc -l < "$H") - 1))" 6 "one row per series"
expect_eq "$(awk -F'\t' 'NR > 1 { print $2 }' "$H" | sort -u)" 0123abcd "--commit"
expect_match "$(tsv_field "$(cat "$H")" 1 date)" \
    '^20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z$' "date in UTC ISO 8601"
runner=$(tsv_field "$(cat "$H")" 1 runner)
expect_match "$runner" "^$(nproc)c $(uname -m)" "runner: core count and machine"
expect_no_match "$runner" "$(hostname)" "runner has no host name"
expect_no_match "$runner" "$(id -un)" "runner has no user name"
expect_eq "$(tsv_field "$(cat "$H")" 1 reference)" "$FIXTURES/sleeper 0.01" "reference column"
run_tare history check "$H"
expect_rc 2 "the history reads back; one commit is too few to test"
expect_match "$out" "too few points: 1 of the 16 a step test needs" "and check says so"

# --count alone runs the count pass only, and says that the reference is not run.
run_tare run --count --format tsv "$S/suite.ini"
expect_rc 0 "--count alone on a suite with a reference"
expect_no_match "$(head -1 <<<"$out")" "ref_median_s" "no wall pass, no reference"
expect_eq "$err" \
    "tare run: note: --count alone: no wall-clock pass, so no run of the suite's reference '$FIXTURES/sleeper 0.01' (add --wall for it)" \
    "says in one line what it skipped"

if command -v git > /dev/null; then
    (cd "$S" && git init -q . && git add suite.ini && git -c user.email=t@t -c user.name=t commit \
        -qm t) > /dev/null 2>&1
    run_tare run --history "$S/hist2" "$S/suite.ini"
    expect_eq "$(tsv_field "$(cat "$S/hist2/wall.tsv")" 1 commit)" "$(git -C "$S" rev-parse HEAD)" \
        "commit from git rev-parse HEAD"
fi

# Shards: disjoint, together every benchmark; merged histories are the whole.
run_tare run --shard 1/2 --history "$S/s1" --commit c1 --format tsv "$S/suite.ini"
a=$(tail -n +2 <<<"$out" | cut -f1)
run_tare run --shard 2/2 --history "$S/s2" --commit c1 --format tsv "$S/suite.ini"
b=$(tail -n +2 <<<"$out" | cut -f1)
expect_eq "$(printf '%s\n%s\n' "$a" "$b" | sort | tr '\n' ' ')" \
    "0.001+base 0.001+jit 0.02+base 0.02+jit 0.2+base 0.2+jit " \
    "shards together cover the suite"
expect_empty "$(printf '%s\n%s\n' "$a" "$b" | sort | uniq -d)" "shards are disjoint"
run_tare history merge "$S/s1/wall.tsv" "$S/s2/wall.tsv" -o "$S/merged.tsv"
expect_eq "$(($(wc -l < "$S/merged.tsv") - 1))" 6 "merged shards"

# Bad suites: the file and line, exit 2.
bad() {   # bad DESC REGEX: the suite in $S/bad.ini must be refused with a message matching REGEX
    run_tare run "$S/bad.ini"
    expect_rc 2 "$1"
    expect_match "$err" "$2" "$1: message"
}
printf '[suite]\ncommand = x\nbenchmarks = benchmarks/*.txt\nfoo = 1\n' > "$S/bad.ini"
bad "unknown key" "^tare run: '$S/bad.ini' line 4: unknown key 'foo' in \[suite\]$"
printf '[suite]\ncommand = x\n' > "$S/bad.ini"
bad "no benchmarks" "\[suite\] needs benchmarks = PATTERN"
printf '[suite]\ncommand = x\nbenchmarks = nothing/*.none\n' > "$S/bad.ini"
bad "no match" "matches no file"
printf '[suite]\ncommand = x\nbenchmarks = benchmarks/*.txt\nruns = 0\n' > "$S/bad.ini"
bad "runs 0" "line 4: runs = '0'"
printf '[suite]\ncommand = x | y\nbenchmarks = benchmarks/*.txt\n' > "$S/bad.ini"
bad "shell syntax" "shell syntax '\|'"
printf '[suite]\ncommand = x\nbenchmarks = benchmarks/*.txt\n[lane a b]\nenv = X=1\n' > "$S/bad.ini"
bad "bad lane name" "line 4: bad lane name 'a b'"   # the [lane a b] line itself
printf '[suite]\ncommand = x\nbenchmarks = benchmarks/*.txt\n[lane a]\nenv = 1X=1\n' > "$S/bad.ini"
bad "bad lane variable" "bad variable '1X=1' in \[lane a\]"
printf '[suite\ncommand = x\n' > "$S/bad.ini"
bad "not INI" "line 1: not INI"
printf '[other]\nx = 1\n' > "$S/bad.ini"
bad "unknown section" "unknown section \[other\]"
run_tare run "$S/none.ini"
expect_rc 2 "missing suite"
run_tare run --shard 3/2 "$S/suite.ini"
expect_rc 2 "bad --shard"
cat > "$S/missing.ini" <<EOF
[suite]
command = /nonexistent/interp {bench}
benchmarks = benchmarks/0.2.txt
EOF
run_tare run "$S/missing.ini"
expect_rc 2 "a command that cannot start"

# The deterministic pass: --count, beside the wall results, into count.tsv. envwork spins
# $TARE_WORK thousand times: counts are exact, and a lane with more work counts more.
C=$TMP/count
mkdir -p "$C/benchmarks"
touch "$C/benchmarks/w.txt"
suite_at() {   # suite_at WORK: the count suite, its base lane doing WORK thousand iterations
    cat > "$C/suite.ini" <<EOF
[suite]
command = $FIXTURES/envwork {bench}
benchmarks = benchmarks/*.txt
runs = 2
count = yes
[lane base]
env = TARE_WORK=$1
[lane more]
env = TARE_WORK=2000
EOF
}
suite_at 1000
run_tare run --wall --count -j 2 --format tsv --history "$C/h" --commit c1 "$C/suite.ini"
expect_rc 0 "--wall --count"
expect_eq "$(head -1 <<<"$out")" \
    "$(printf 'benchmark\tlane\truns\tmedian_s\tmin_s\tref_median_s\tratio\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\tstatus')" \
    "tsv columns: the wall results, then the counts"
i1=$(tsv_field "$out" 1 instructions)
i2=$(tsv_field "$out" 2 instructions)
check "instructions counted ($i1)" test "$i1" -gt 1000000
check "the lane with twice the work counts more ($i1 < $i2)" test "$i1" -lt "$i2"
expect_eq "$(tsv_field "$out" 1 allocations)" 0 "envwork allocates nothing: 0 allocations, counted"
expect_eq "$(tsv_field "$out" 1 runs)" 2 "the wall pass ran too"
want_tc=""
if cc --version 2>/dev/null | head -1 | grep -qi gcc; then \
    want_tc="gcc $(cc -dumpfullversion 2>/dev/null || cc -dumpversion)"; fi
tc=$(tsv_field "$out" 1 toolchain)
if [ -n "$want_tc" ]; then expect_eq "$tc" "$want_tc" "toolchain from the program's .comment"; \
    else expect_match "$tc" '^(gcc|clang) [0-9]' "toolchain"; fi
CH=$C/h/count.tsv
expect_eq "$(head -1 "$CH")" \
    "$(printf 'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine')" \
    "count.tsv columns"
expect_eq "$(tsv_field "$(cat "$CH")" 1 instructions)" "$i1" "count.tsv has the table's counts"
expect_eq "$(tsv_field "$(cat "$CH")" 1 toolchain)" "$tc" "count.tsv toolchain"
expect_eq "$(tsv_field "$(cat "$CH")" 1 date)" "$(tsv_field "$(cat "$C/h/wall.tsv")" 1 date)" \
    "one date for wall and count rows"
expect_eq "$(tsv_field "$(cat "$CH")" 2 commit)" c1 "count rows' commit"
expect_eq "$(($(wc -l < "$CH") - 1))" 2 "one count row per series"
# The suite's count = yes turns the pass on without flags; --wall alone turns it off.
run_tare run --format tsv "$C/suite.ini"
expect_match "$(head -1 <<<"$out")" 'ratio	instructions	' "count = yes: both passes"
run_tare run --wall --format tsv "$C/suite.ini"
expect_no_match "$(head -1 <<<"$out")" 'instructions' "--wall alone: no count pass"
run_tare run --count --format json "$C/suite.ini"
expect_match "$out" \
    '"benchmark": "w\+base", "lane": "base", "instructions": [0-9]+, "allocations": 0, ' \
    "--count alone; json"
expect_no_match "$out" '"median_s"' "--count alone: no wall pass"
expect_match "$err" "^tare run: note: --count alone: no wall-clock pass \(add --wall for it\)$" \
    "--count alone: says the wall pass is skipped"
run_tare run --wall --count --format tsv "$C/suite.ini"
expect_no_match "$err" "note" "--wall --count: nothing skipped, nothing said"
run_tare run --wall --format tsv "$C/suite.ini"
expect_match "$err" \
    "^tare run: note: --wall alone: no count pass, though the suite says count = yes" \
    "--wall alone with count = yes: says the count pass is skipped"
# A second commit doing 10% more work: history check alarms on instructions (2% fixed
# threshold), from count.tsv beside wall.tsv; trend draws the instructions.
suite_at 1100
run_tare run --history "$C/h" --commit c2 --format tsv "$C/suite.ini"
expect_rc 0 "second commit"
run_tare history check --format json "$C/h/wall.tsv" "$CH"
expect_rc 3 "a 10% instruction regression: check exits 3"
expect_match "$out" \
    '^\{"regressions": \[\{"benchmark": "w\+base", "metric": "instructions", "before": '"$i1"', "after": [0-9]+, "change": 0\.0[89][0-9]*, "commit": "c2"\}' \
    "the regression: w+base instructions, about +10%, at c2"
expect_no_match "$(sed 's/"not_checked".*//' <<<"$out")" 'w\+more' \
    "the unchanged lane does not alarm"
expect_match "$out" \
    '"not_checked": \[\{"benchmark": "w\+base", "metric": "median_s", "why": "too few points: 2 of the 16 a step test needs"\}' \
    "two commits are too few for the wall clock, and check says so"
run_tare trend "$C/h/wall.tsv" "$CH" -o "$C/trend.html"
expect_rc 0 "trend over wall.tsv and count.tsv"
check "the trend page offers instructions" grep -q '"instructions"' "$C/trend.html"
# A count that fails is NA in every count column, never 0, and the run exits 1.
cat > "$C/fail.ini" <<EOF
[suite]
command = $FIXTURES/printenv1
benchmarks = benchmarks/*.txt
[lane bad]
env = TARE_TEST_EXIT=3
EOF
run_tare run --count --format tsv --history "$C/hf" --commit c1 "$C/fail.ini"
expect_rc 1 "a failing count: exit 1"
expect_eq "$(awk -F'\t' 'NR == 2 { print $3 "," $4 "," $5 "," $6 "," $9 }' <<<"$out")" \
    "NA,NA,NA,NA,failed" "failed count: NA"
expect_match "$err" "'w\+bad' count failed: " "count failure reason"
expect_eq "$(tail -n 1 "$C/hf/count.tsv" | cut -f3-7)" "$(printf 'w+bad\tNA\tNA\tNA\tNA')" \
    "failed count row: NA"
check "no wall.tsv without the wall pass" test ! -e "$C/hf/wall.tsv"
# A script's toolchain cannot be known: NA.
printf '#!/bin/sh\nexit 0\n' > "$C/script.sh"
chmod +x "$C/script.sh"
printf '[suite]\ncommand = ./script.sh {bench}\nbenchmarks = benchmarks/*.txt\n' > "$C/script.ini"
run_tare run --count --format tsv "$C/script.ini"
expect_rc 0 "a script suite counts"
expect_eq "$(tsv_field "$out" 1 toolchain)" NA "a script's toolchain: NA"
printf '[suite]\ncommand = x\nbenchmarks = benchmarks/*.txt\ncount = maybe\n' > "$C/bad.ini"
run_tare run "$C/bad.ini"
expect_rc 2 "count = maybe"
expect_match "$err" "line 4: count = 'maybe': want yes or no" "count = maybe: message"
run_tare run --jobs 0 "$C/suite.ini"
expect_rc 2 "--jobs 0"
# A program valgrind cannot run: its stderr quoted as tare count quotes it, valgrind's cause
# line (some twenty lines before the end) kept above the last lines, not its banner.
if [ "$(uname -m)" = x86_64 ]; then
    printf '[suite]\ncommand = %s/vgill\nbenchmarks = benchmarks/*.txt\n' "$FIXTURES" > \
        "$C/vgill.ini"
    run_tare run --count "$C/vgill.ini"
    expect_rc 1 "a program valgrind kills: exit 1"
    expect_match "$err" "'w' count failed: .*killed by signal 4.*; its stderr ended with:$" \
        "the failure, then its stderr"
    expect_match "$err" "^  \| vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0xFD 0x48" \
        "valgrind's cause line kept"
    expect_no_match "$err" "Copyright|Callgrind, a call-graph" "not valgrind's banner"
    expect_match "$err" "^  \| ==[0-9]+== I   refs: " "and the last lines"
fi

# Without valgrind, --count fails before anything is measured or any file is made.
TARE_VALGRIND=/nonexistent/valgrind run_tare run --wall --count --history "$C/nv" --commit c1 \
    "$C/suite.ini"
expect_rc 1 "--count without valgrind: exit 1"
expect_match "$err" "TARE_VALGRIND is '/nonexistent/valgrind'" "--count without valgrind: why"
check "--count without valgrind: no history made" test ! -e "$C/nv"
done_testing
