# tare ab --count (the deterministic pass beside the wall clock) and --counters.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES

# jget JSON FIELD: a scalar of tare ab's JSON whose name occurs once.
jget() { tr -d '\n' <<<"$1" | sed -n "s/.*\"$2\": \(\"[^\"]*\"\|[^,}]*\).*/\1/p" | tr -d '"'; }
# cget JSON SIDE FIELD: a field of "count": {"a": {...}, "b": {...}, "ratio": {...}}.
cget() {
    tr -d '\n' <<<"$1" | sed -n 's/.*"count": {\(.*\)/\1/p' |
        sed -n "s/.*\"$2\": {\([^}]*\)}.*/\1/p" | sed -n \
            "s/.*\"$3\": \(\"[^\"]*\"\|[^,}]*\).*/\1/p" | tr -d '"'
}
awk_ok() { local e=$1; shift; awk "$@" "BEGIN { exit !($e) }"; }
valid_json() {
    if [ -x /usr/bin/python3 ]; then /usr/bin/python3 -m json.tool >/dev/null <<<"$1"; else true; fi
}

if ! command -v valgrind >/dev/null; then
    not_ok "valgrind is needed for --count (scripts/install-deps check)"
    done_testing
    exit
fi

# ---- --count: instructions scale with busy's argument ----
# busy N runs I(N) = c + N * k instructions (k per million iterations, c start-up, the
# same for any two-digit N: atol's cost depends on the number of digits). A third
# measurement, busy 10, pins k: I(40) - I(20) must be exactly 2 * (I(20) - I(10)), and
# the ratio B/A exactly 1 + 20k / I(20), with no slack at all.
run_tare count -f tsv -- "$F/busy" 10
expect_rc 0 "count busy 10"
i10=$(tsv_field "$out" 1 instructions)
run_tare ab --pairs 6 --count --format=json "$F/busy 20" "$F/busy 40"
expect_rc 0 "ab --count busy 20 vs 40"
check "json parses" valid_json "$out"
ia=$(cget "$out" a instructions); ib=$(cget "$out" b instructions)
expect_eq "$(cget "$out" a status)" ok "A counted"
expect_eq "$(cget "$out" b status)" ok "B counted"
check "busy 40 minus busy 20 ($ib - $ia) is exactly twice busy 20 minus busy 10 ($ia - $i10)" \
    test $((ib - ia)) -eq $((2 * (ia - i10)))
r=$(cget "$out" ratio instructions)
check "the instruction ratio $r is B over A ($ib / $ia)" awk_ok \
    'r - b / a < 1e-8 && b / a - r < 1e-8' -v r="$r" -v a="$ia" -v b="$ib"
check "and it is 1 + 2 (I(20) - I(10)) / I(20), to 1e-8" \
    awk_ok 'r - (1 + 2 * (a - z) / a) < 1e-8 && (1 + 2 * (a - z) / a) - r < 1e-8' -v r="$r" -v \
        a="$ia" -v z="$i10"
# The pass is tare count's: the same numbers as tare count on the same command.
run_tare count -f tsv -- "$F/busy" 20
expect_eq "$(tsv_field "$out" 1 instructions)" "$ia" "A's instructions equal tare count's"

run_tare ab --pairs 6 --count "$F/busy 20" "$F/busy 40"
expect_rc 0 "text"
expect_match "$out" "^counts \(deterministic" "counts table"
expect_match "$out" "^instructions +[0-9,]+ +[0-9,]+ +\+99\.[0-9]% +0\.00% +0\.00%$" \
    "instructions row with its change and each side's spread"
expect_match "$out" \
    "^counts: B does more work: instructions \+99\.[0-9]% \(each side's runs vary by 0\.00% at most\)$" \
    "busy 40 does more work"
expect_match "$out" "^peak heap " "peak heap row"

# ---- allocmix: 143 allocations by its definition, on both sides ----
run_tare ab --pairs 6 --count --format=json "$F/allocmix" "$F/allocmix"
expect_rc 0 "ab --count allocmix"
expect_eq "$(cget "$out" a allocations)" 143 "A: 143 allocations (by allocmix's definition)"
expect_eq "$(cget "$out" b allocations)" 143 "B: 143 allocations"
# 51136 bytes requested by its definition (tests/cli/test_count.sh derives it).
expect_eq "$(cget "$out" a bytes)" 51136 "A: bytes of allocmix"
expect_eq "$(cget "$out" ratio allocations)" 1 "no change in allocations"
expect_eq "$(cget "$out" ratio instructions)" 1 "the same program: no change in instructions"
# A/A is called different now and then by design (a 95% interval), and on a loaded machine;
# then the note must say the clock moved while the counts did not.
if [ "$(jget "$out" verdict)" = same ]; then
    expect_eq "$(jget "$out" note)" null "counts that agree with a same verdict: no note"
else
    expect_match "$(jget "$out" note)" "^the wall clock moved but the counts did not" \
        "an A/A run called different: the note says the counts did not move"
fi

# ---- counts that vary run to run: a change is one only past each side's own spread ----
# jitter N SPREAD STATE spins N thousand iterations plus 0 or SPREAD thousand, by the parity
# of a run counter kept in STATE (counted under valgrind only), so any two callgrind passes
# of one side show its whole spread, as two runs of an interpreter that seeds its hash from
# the clock do. Two tare count passes give the two values a side of jitter 1000 50 takes.
fresh() { printf '0\n' > "$TMP/$1"; echo "$TMP/$1"; }
s=$(fresh s0)
run_tare count -f tsv -- "$F/jitter" 1000 50 "$s"; v0=$(tsv_field "$out" 1 instructions)
run_tare count -f tsv -- "$F/jitter" 1000 50 "$s"; v1=$(tsv_field "$out" 1 instructions)
check "jitter's two values differ ($v0, $v1)" test "$v1" -gt "$v0"
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count --format=json "$F/jitter 1000 50 $sa" "$F/jitter 1020 50 $sb"
expect_rc 0 "ab --count, a change smaller than the spread"
check "json parses" valid_json "$out"
expect_eq "$(jget "$out" runs)" 2 "two passes of each side by default"
expect_eq "$(cget "$out" a instructions)" \
    "$(awk -v a="$v0" -v b="$v1" 'BEGIN { printf "%.0f", (a + b) / 2 }')" \
    "A's instructions: the median of its two passes, ($v0 + $v1) / 2"
sp=$(cget "$out" a instructions_spread)
check "A's spread $sp is (max - min) / median of its passes" \
    awk_ok 's - (b - a) / ((a + b) / 2) < 1e-8 && (b - a) / ((a + b) / 2) - s < 1e-8' -v s="$sp" \
        -v a="$v0" -v b="$v1"
r=$(cget "$out" ratio instructions)
check "the change ($r) is more than tare's 0.01% but less than A's spread ($sp)" \
    awk_ok 'r - 1 > 0.0001 && r - 1 < s' -v r="$r" -v s="$sp"
expect_eq "$(cget "$out" change instructions)" none "instructions: no change"
expect_eq "$(jget "$out" work)" same "the counts show no change"
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count "$F/jitter 1000 50 $sa" "$F/jitter 1020 50 $sb"
expect_match "$out" \
    "^counts: no change the counts can show \(this program's counts vary by [0-9.]+% run to run\)$" \
    "text: no change the counts can show, with the spread"
expect_no_match "$out" "more work" "never more work"
# A change larger than the spread: 1100 against 1000 thousand iterations, about +9.5%.
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count --format=json "$F/jitter 1000 50 $sa" "$F/jitter 1100 50 $sb"
r=$(cget "$out" ratio instructions); sp=$(cget "$out" b instructions_spread)
check "the change ($r) is more than B's spread ($sp)" awk_ok 'r - 1 > s' -v r="$r" -v s="$sp"
expect_eq "$(cget "$out" change instructions)" more "instructions: more"
expect_eq "$(jget "$out" work)" more "B does more work"
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count "$F/jitter 1100 50 $sa" "$F/jitter 1000 50 $sb"
expect_match "$out" \
    "^counts: B does less work: instructions -[0-9.]+% \(each side's runs vary by [0-9.]+% at most\)$" \
    "the other way: less work"
# A/A: one program on both sides (each with its own run counter): no change at all.
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count --format=json "$F/jitter 1000 50 $sa" "$F/jitter 1000 50 $sb"
expect_eq "$(cget "$out" ratio instructions)" 1 "A/A: the same medians"
expect_eq "$(jget "$out" work)" same "A/A: no change"
# Three passes: counters 0, 1, 2 give v0, v1, v0; the median is v0.
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count --count-runs 3 --format=json "$F/jitter 1000 50 $sa" \
    "$F/jitter 1000 50 $sb"
expect_eq "$(jget "$out" runs)" 3 "--count-runs 3"
expect_eq "$(cget "$out" a instructions)" "$v0" "the median of three passes is the middle one"
run_tare ab --count-runs 3 "$F/busy 1" "$F/busy 1"
expect_rc 2 "--count-runs without --count"
expect_match "$err" "count-runs only applies with --count" "said why"
run_tare ab --count --count-runs 1 "$F/busy 1" "$F/busy 1"
expect_rc 2 "--count-runs 1: a spread needs two"

# ---- seed section 6: say when wall clock does not move while counts do ----
# A 99% threshold makes the wall-clock verdict same; the instructions moved by 5%.
run_tare ab --pairs 6 --count --threshold 99 "$F/busy 20" "$F/busy 21"
expect_rc 0 "same wall clock, counts moved"
expect_match "$out" "^same: " "verdict same"
expect_match "$out" \
    "^wall clock does not move while the counts do \(instructions \+4\.99%, allocations \+0\.00%\): B does more work" \
    "says the clock did not move"
# The other way: four times the sleep is slower, and sleeping runs the same instructions.
run_tare ab --pairs 8 --count --format=json "$F/sleeper 0.02" "$F/sleeper 0.08"
expect_eq "$(jget "$out" verdict)" slower "sleeper: slower"
expect_match "$(jget "$out" note)" "the wall clock moved but the counts did not" \
    "the counts did not move"
check "sleeping twice as long: instructions within 0.01%" \
    awk_ok 'r > 0.9999 && r < 1.0001' -v r="$(cget "$out" ratio instructions)"

# ---- failure: NA with the reason, the wall clock still reported, exit 1 ----
TARE_VALGRIND=/bin/false run_tare ab --pairs 6 --count --format=json "$F/busy 2" "$F/busy 3"
expect_rc 1 "counting failed"
check "json still parses" valid_json "$out"
expect_eq "$(cget "$out" a instructions)" null "A's instructions null"
expect_eq "$(cget "$out" b status)" failed "B failed"
expect_match "$(cget "$out" b error)" "under callgrind: exited with status 1" \
    "the reason in the JSON"
expect_eq "$(cget "$out" ratio instructions)" null "no ratio"
expect_match "$out" '"pairs": 6, "warmup": 1, "ratio": [0-9.]+,' \
    "the wall-clock ratio is still there"
expect_match "$err" \
    "tare ab: counting A '[^']*busy 2' failed \(pass 1 of 2\): under callgrind: exited with status 1" \
    "the reason on stderr"
TARE_VALGRIND=/bin/false run_tare ab --pairs 6 --count "$F/busy 2" "$F/busy 3"
expect_match "$out" "^instructions +NA +NA +NA +NA +NA$" "text: NA"
# Valgrind kills a program with SIGILL for an instruction it cannot decode, and says so
# some twenty lines before its stderr ends: that line is kept above the last ones.
if [ "$(uname -m)" = x86_64 ]; then
    run_tare ab --pairs 6 --count "$F/vgill" "$F/busy 1"
    expect_rc 1 "a side killed by valgrind's SIGILL"
    expect_match "$err" \
        "counting A '[^']*vgill' failed \(pass 1 of 2\): under callgrind: killed by signal 4" \
        "the signal"
    expect_match "$err" "^  \| vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0xFD 0x48" \
        "valgrind's cause line kept"
    expect_match "$err" "^  \| \.\.\.$" "the lines left out are marked"
    expect_match "$err" "^  \| ==[0-9]+== I   refs: " "and the last lines still there"
fi
# No valgrind at all: said before any run.
PATH=/nonexistent "$TARE" ab --pairs 6 --count "$F/busy 2" "$F/busy 3" > "$TMP/out" 2> "$TMP/err"
rc=$?; out=$(<"$TMP/out"); err=$(<"$TMP/err")
expect_rc 1 "no valgrind"
expect_match "$err" "valgrind is not installed \(Debian package 'valgrind'\)" "no valgrind message"
expect_empty "$out" "nothing measured"
# No counting allocator: bytes NA with a note, the rest counted, not a failure.
TARE_ALLOC_LIB=$TMP/none.so run_tare ab --pairs 6 --count --format=json "$F/allocmix" "$F/allocmix"
expect_rc 0 "no counting allocator: still counted"
expect_eq "$(cget "$out" a bytes)" null "bytes null without the library"
expect_eq "$(cget "$out" b allocations)" 143 "allocations still counted"
expect_match "$err" "tare ab: note: bytes and peak heap are NA: TARE_ALLOC_LIB" "said why"

# ---- git mode: the command counted in both trees ----
R=$TMP/repo
mkdir -p "$R"
cp "$TARE_ROOT/tests/fixtures/busy.c" "$R/prog.c"
(cd "$R" && git init -q && git add prog.c &&
    git -c user.name=t -c user.email=t@example.com commit -qm one &&
    sed -i 's/\* 1000000L/* 1500000L/' prog.c)
(cd "$R" && "$TARE" ab --build 'cc -O1 -o prog prog.c' --pairs 6 --count --format=json -- \
    ./prog 20) \
    > "$TMP/out" 2> "$TMP/err"
rc=$?; out=$(cat "$TMP/out"); err=$(cat "$TMP/err")
expect_rc 0 "git mode --count"
r=$(cget "$out" ratio instructions)
# The working tree's loop runs 1.5 times the iterations; start-up pulls the ratio under.
check "git mode: instructions B/A $r is just under 1.5" awk_ok 'r > 1.49 && r < 1.5' -v r="$r"
expect_eq "$(git -C "$R" worktree list | wc -l)" 1 "the worktree is gone"

# ---- --counters: software counters beside the times, hardware ones unavailable ----
has_core_pmu=no
for d in cpu cpu_core cpu_atom; do
    [ -r "/sys/bus/event_source/devices/$d/type" ] && has_core_pmu=yes
done
run_tare ab --pairs 6 --counters --format=json "$F/touchmem 8" "$F/touchmem 40"
expect_rc 0 "ab --counters"
check "json parses" valid_json "$out"
side() { tr -d '\n' <<<"$1" | sed -n \
    "s/.*\"$2\": {\"name\"\([^]]*\]\), \"counters\": {\([^}]*\)}.*/\2/p"; }
pf_a=$(side "$out" a | sed -n 's/.*"page-faults": \([0-9.e+]*\).*/\1/p')
pf_b=$(side "$out" b | sed -n 's/.*"page-faults": \([0-9.e+]*\).*/\1/p')
# touchmem N touches N MiB: 32 MiB more is 8192 more 4 KiB pages; allow huge pages and
# fault-around to take some, but not most.
check "page faults grow with memory ($pf_a -> $pf_b)" awk_ok 'b - a > 32 * 200' -v a="$pf_a" \
    -v b="$pf_b"
if [ "$has_core_pmu" = no ]; then
    expect_match "$(side "$out" a)" '"cycles": null' "cycles null, never 0"
    expect_match "$(side "$out" b)" '"instructions": null' "instructions null"
    expect_match "$err" \
        "^tare ab: note: cannot count 'cycles', 'instructions'.*no hardware counters.*perf_event_open: " \
        "the clear word"
    expect_eq "$(grep -c "cannot count" <<<"$err")" 1 "said once"
fi
run_tare ab --pairs 6 --counters "$F/touchmem 8" "$F/touchmem 8"
expect_rc 0 "text"
expect_match "$out" "^counters, user space only:" "counters table"
expect_match "$out" "^counter \(median\) +A +B$" "a column per side"
expect_match "$out" "^page-faults +[0-9,]+ +[0-9,]+$" "page faults in text"
if [ "$has_core_pmu" = no ]; then
    expect_match "$out" "^cycles +unavailable +unavailable$" "unavailable in text"
fi
# Without --counters or --count the JSON has neither.
run_tare ab --pairs 6 --format=json "$F/busy 1" "$F/busy 1"
expect_eq "$(grep -c '"counters"\|"count"' <<<"$out")" 0 "plain JSON unchanged"
done_testing
