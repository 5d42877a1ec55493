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
    "^counts: B does more work: instructions \+99\.[0-9]% \(across each side's 2 passes instructions vary by 0\.00% at most\)$" \
    "busy 40 does more work, with the instructions' own spread"
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

# ---- counts that vary run to run: a change is one only where the sides lie apart ----
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
# Two passes of each side by default; counts that vary take six (v0 v1 v0 v1 v0 v1 here).
expect_eq "$(jget "$out" runs)" 6 "counts that vary: six passes of each side"
expect_eq "$(jget "$out" varies)" true "said to vary"
expect_eq "$(cget "$out" a instructions)" \
    "$(awk -v a="$v0" -v b="$v1" 'BEGIN { printf "%.0f", (a + b) / 2 }')" \
    "A's instructions: the median of its six passes, ($v0 + $v1) / 2"
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
    "^counts: no change the counts can show \(instructions \+[0-9.]+%, allocations \+0\.00%; across each side's 6 passes instructions vary by [0-9.]+% at most, allocations by 0\.00%\)$" \
    "text: no change the counts can show, with each count's spread"
expect_match "$out" \
    "^counts \(deterministic: the median of 6 callgrind passes of each \(6, not 2: " \
    "text: why six passes"
expect_no_match "$out" "more work" "never more work"
# 1100 against 1000 thousand iterations: B's passes (1100, 1150) lie past A's (1000, 1050) by
# 50, no more than a side's range (50): no change. 1200 (about +19%) lies past by 150: more.
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 1 --warmup 0 --count --format=json "$F/jitter 1000 50 $sa" \
    "$F/jitter 1100 50 $sb"
expect_eq "$(cget "$out" change instructions)" none "apart by no more than the range: none"
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count --format=json "$F/jitter 1000 50 $sa" "$F/jitter 1200 50 $sb"
r=$(cget "$out" ratio instructions); sp=$(cget "$out" b instructions_spread)
check "the change ($r) is more than B's spread ($sp)" awk_ok 'r - 1 > s' -v r="$r" -v s="$sp"
expect_eq "$(cget "$out" change instructions)" more "instructions: more"
expect_eq "$(jget "$out" work)" more "B does more work"
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count "$F/jitter 1200 50 $sa" "$F/jitter 1000 50 $sb"
expect_match "$out" \
    "^counts: B does less work: instructions -[0-9.]+% \(across each side's 6 passes instructions vary by [0-9.]+% at most\)$" \
    "the other way: less work, with the instructions' spread"
# A/A: one program on both sides (each with its own run counter): no change at all.
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 6 --count --format=json "$F/jitter 1000 50 $sa" "$F/jitter 1000 50 $sb"
expect_eq "$(cget "$out" ratio instructions)" 1 "A/A: the same medians"
expect_eq "$(jget "$out" work)" same "A/A: no change"
# Seven passes, more than the six counts that vary take: seven (the median of an odd number
# of passes is held to its rule in tests/unit/test_ab.c).
sa=$(fresh sa); sb=$(fresh sb)
run_tare ab --pairs 1 --warmup 0 --count --count-runs 7 --format=json "$F/jitter 1000 50 $sa" \
    "$F/jitter 1000 50 $sb"
expect_eq "$(jget "$out" runs)" 7 "--count-runs 7"
expect_eq "$(jget "$out" work)" same "seven passes of A/A: no change"
# A program that does not vary keeps the passes asked for.
run_tare ab --pairs 1 --warmup 0 --count --count-runs 3 "$F/busy 1" "$F/busy 2"
expect_match "$out" "^counts \(deterministic: the median of 3 callgrind passes of each, in rounds" \
    "--count-runs 3 on busy: three passes"
expect_match "$out" \
    "^counts: B does more work: instructions \+[0-9.]+% \(across each side's 3 passes" \
    "busy: more work, from three passes"
run_tare ab --count-runs 3 "$F/busy 1" "$F/busy 1"
expect_rc 2 "--count-runs without --count"
expect_match "$err" "count-runs only applies with --count" "said why"
run_tare ab --count --count-runs 0 "$F/busy 1" "$F/busy 1"
expect_rc 2 "--count-runs 0"
# One pass: the spread cannot be known, so no verdict, however far apart the counts.
run_tare ab --pairs 1 --warmup 0 --count --count-runs 1 --format=json "$F/busy 1" "$F/busy 2"
expect_rc 0 "--count-runs 1"
expect_eq "$(jget "$out" work)" unknown "one pass: the work unknown"
expect_eq "$(cget "$out" change instructions)" unknown "one pass: the change unknown"
run_tare ab --pairs 1 --warmup 0 --count --count-runs 1 "$F/busy 1" "$F/busy 2"
expect_match "$out" \
    "^counts: no verdict \(instructions \+[0-9.]+%, allocations \+0\.00%\): one pass of each side cannot show how much this program's counts vary run to run \(--count-runs 2 or more\)$" \
    "one pass: said so instead of a verdict"
expect_no_match "$out" "B does more work" "one pass: never more work"

# ---- seed section 6: the counts against the clock (tests/unit/test_ab.c holds the rule) ----
# The instructions moved by 5%; which way the clock moved is this machine's business, so the
# line is checked against the interval the JSON gives: flat (it holds 1), agreeing (above).
run_tare ab --pairs 6 --count --threshold 99 --format=json "$F/busy 20" "$F/busy 21"
expect_rc 0 "counts moved"
lo=$(jget "$out" ci_low); hi=$(jget "$out" ci_high); note=$(jget "$out" note)
if awk_ok 'lo <= 1 && hi >= 1' -v lo="$lo" -v hi="$hi"; then
    expect_eq "$(jget "$out" reading)" clock_flat "an interval ($lo .. $hi) holding 1: clock flat"
    expect_match "$note" \
        "^wall clock does not move while the counts do \(instructions \+4\.99%, allocations \+0\.00%\): B does more work" \
        "says the clock did not move"
elif awk_ok 'lo > 1' -v lo="$lo"; then
    expect_eq "$(jget "$out" reading)" agree "an interval ($lo .. $hi) above 1: they agree"
    expect_match "$note" \
        "^the counts and the clock agree: B does more work \(instructions \+4\.99%, allocations \+0\.00%\) and is slower: \+" \
        "says they agree, with the clock's change"
else
    expect_eq "$(jget "$out" reading)" opposite "an interval ($lo .. $hi) under 1: opposite"
    expect_match "$note" \
        "^B does more work \(instructions \+4\.99%, allocations \+0\.00%\) but is faster: -" \
        "says more work but faster"
fi
expect_eq "$(jget "$out" verdict)" same "a 99% threshold: the clock's own verdict same"
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
# A/A in git mode, through a shell: the same counts to the byte. Each side runs with PWD its
# own directory, by a path as long as the other's: before, A ran in the worktree with the
# user's PWD, so sh asked getcwd (4 KB allocated on A alone: bytes -70% B/A for the same code)
(cd "$R" && git checkout -q prog.c &&
    "$TARE" ab --build 'cc -O1 -o prog prog.c' --pairs 2 --count --format=json -- \
        sh -c './prog 20') > "$TMP/out" 2> "$TMP/err"
rc=$?; out=$(cat "$TMP/out"); err=$(cat "$TMP/err")
expect_rc 0 "git mode A/A through sh"
for f in instructions allocations bytes; do
    expect_eq "$(cget "$out" a $f)" "$(cget "$out" b $f)" "git mode A/A through sh: $f the same"
done
# what each run was given as PWD names the directory it runs in, and is as long on both sides
: > "$TMP/pwds"
mkdir -p "$TMP/abtmp"
(cd "$R" && TMPDIR=$TMP/abtmp "$TARE" ab --pairs 2 --count -- awk -v f="$TMP/pwds" 'BEGIN {
    "pwd -P" | getline real; p = ENVIRON["PWD"]
    ("cd \"" p "\" && pwd -P") | getline named; print length(p), (named == real), real >> f }') \
    > /dev/null 2>&1
check "git mode: runs recorded their PWD" test -s "$TMP/pwds"
expect_empty "$(awk '!$2' "$TMP/pwds")" "git mode: every run's PWD names its directory"
expect_eq "$(cut -d' ' -f1 "$TMP/pwds" | sort -u | wc -l)" 1 \
    "git mode: A's and B's PWD of one length ($(wc -l < "$TMP/pwds") runs)"
expect_eq "$(cut -d' ' -f3 "$TMP/pwds" | sort -u | wc -l)" 2 "git mode: A and B in two trees"
expect_eq "$(git -C "$R" worktree list | wc -l)" 1 "the worktree is gone"
expect_empty "$(ls -A "$TMP/abtmp")" "git mode: the temporary directory and its links are gone"
check "git mode: removing the link to the user's tree left the tree" test -f "$R/prog.c"

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
