# tare bisect end to end: a repository built here, whose steps are known by construction.
. "$(dirname "$0")/lib.sh"
command -v git > /dev/null || { echo "$TEST_NAME: git is not installed"; exit 1; }

. "$(dirname "$0")/bisect_repo.sh"
R=$TMP/repo
make_repo "$R"
cd "$R" || exit 1
BUILD_CMD='cc -O1 -o prog prog.c'
commit_of() { git rev-parse "$1"; }
# The most builds a bisection of the 39 commits after good may take: ceil(log2(40)) + 2.
MAX_BUILDS=8
worktrees() { git worktree list --porcelain | grep -c '^worktree '; }

# json EXPR: a Python expression over the JSON output j.
json() { /usr/bin/python3 -c "import json, sys; j = json.load(sys.stdin); print($1)" <<<"$out"; }

# Instructions: commit 23 made the loop 5% longer; later commits add 2% allocations (31).
run_tare bisect --good c1 --bad c40 --build "$BUILD_CMD" --format json -- ./prog
expect_rc 0 "bisect on instructions"
expect_eq "$(json 'j["culprit"]["commit"]')" "$(commit_of c23)" \
    "instructions: the culprit is commit 23"
expect_eq "$(json 'j["culprit"]["subject"]')" "commit 23: the loop 5% longer" "its subject"
expect_eq "$(json 'j["culprit"]["before_commit"]')" "$(commit_of c22)" "from its parent"
expect_eq "$(json 'j["culprit"]["author_date"]')" "2026-11-01T00:23:00+00:00" "its author date"
builds=$(json 'j["builds"]')
check "instructions: $builds builds, at most $MAX_BUILDS" test "$builds" -le "$MAX_BUILDS"
expect_eq "$(json 'len(j["probes"])')" "$builds" "a probe per build"
expect_eq "$(json 'j["metric"]')" instructions "the metric"
expect_eq "$(worktrees)" 1 "no worktree left after a bisection"

# The culprit's step is what tare count says of the two commits, built here. The counts
# themselves move by a few instructions with the directory's path (the environment's size
# differs between the worktree and here), so the step is compared, to the instruction.
mkdir -p "$TMP/c22" "$TMP/c23"
git show c22:prog.c > "$TMP/c22/prog.c" && git show c23:prog.c > "$TMP/c23/prog.c"
(cd "$TMP/c22" && $BUILD_CMD) && (cd "$TMP/c23" && $BUILD_CMD)
before=$(json 'j["culprit"]["before"]'); after=$(json 'j["culprit"]["after"]')
c22=$(cd "$TMP/c22" && "$TARE" count --format tsv -- ./prog | awk -F'\t' 'NR == 2 { print $3 }')
c23=$(cd "$TMP/c23" && "$TARE" count --format tsv -- ./prog | awk -F'\t' 'NR == 2 { print $3 }')
expect_eq "$((after - before))" "$((c23 - c22))" "the step: commit 23's instructions less 22's"
check "before and after are counts ($before, $after)" test "$before" -gt 0 -a "$after" -gt "$before"

# Allocations: commit 31, and commit 23 (no allocation more) is not it.
run_tare bisect --good c1 --bad c40 --build "$BUILD_CMD" --metric allocations --format json \
    -- ./prog
expect_rc 0 "bisect on allocations"
expect_eq "$(json 'j["culprit"]["commit"]')" "$(commit_of c31)" \
    "allocations: the culprit is commit 31"
expect_eq "$(json 'j["culprit"]["after"] - j["culprit"]["before"]')" 100 \
    "100 allocations more (2% of 5000)"
builds=$(json 'j["builds"]')
check "allocations: $builds builds, at most $MAX_BUILDS" test "$builds" -le "$MAX_BUILDS"

# Commit 12 does not build: in c1..c24 it is the middle, so it is probed, skipped and named,
# and the search goes on around it to 23.
run_tare bisect --good c1 --bad c24 --build "$BUILD_CMD" -- ./prog
expect_rc 0 "bisect around a commit that does not build"
expect_match "$out" "culprit: $(commit_of c23) commit 23: the loop 5% longer" "text: the culprit"
expect_match "$out" "skipped: the build exited with status 1" "text: why commit 12 was skipped"
expect_match "$out" "skipped: $(git rev-parse --short=12 c12) \(commit 12: does not build\)" \
    "text: the skipped commit named at the end"
expect_match "$out" \
    "instructions [0-9,]+ -> [0-9,]+ \(\+1\.[0-9]+%\) from its parent $(git rev-parse --short=12 c22)" \
    "text: before and after"
nb=$(sed -n 's/^\([0-9]*\) builds, 1 skipped, for 23 commits after good$/\1/p' <<<"$out")
check "text: builds counted, one skipped ($nb)" test -n "$nb"
check "around a skip: $nb builds, at most $MAX_BUILDS" test "${nb:-99}" -le "$MAX_BUILDS"
expect_eq "$(grep -c '^ *[0-9]\+  [0-9a-f]\{12\} ' <<<"$out")" "$nb" "text: a line per build"

# --jobs: k-ary search, N probes built and counted at once, each in its own worktree. The same
# culprits, within the builds a k-ary search takes: 2 for the ends, then per round min(N, m)
# of the m commits still open, which leaves ceil((m - N) / (N + 1)) open.
kary_max() {
    local m=$(($1 - 2)) j=$2 b=2 p
    while [ "$m" -gt 0 ]; do
        p=$((m < j ? m : j)); b=$((b + p)); m=$(((m - p + j) / (j + 1)))
    done
    echo "$b"
}
expect_eq "$(kary_max 40 1)" "$MAX_BUILDS" "kary_max with 1 at a time is the binary search's bound"
for jobs in 2 3; do
    for m in instructions:c23 allocations:c31; do
        run_tare bisect --jobs "$jobs" --good c1 --bad c40 --build "$BUILD_CMD" --metric "${m%:*}" \
            --format json -- ./prog
        expect_rc 0 "--jobs $jobs on ${m%:*}"
        expect_eq "$(json 'j["culprit"]["commit"]')" "$(commit_of "${m#*:}")" \
            "--jobs $jobs, ${m%:*}: commit ${m#*:}, as one at a time"
        builds=$(json 'j["builds"]')
        check "--jobs $jobs, ${m%:*}: $builds builds, at most $(kary_max 40 "$jobs")" test \
            "$builds" -le "$(kary_max 40 "$jobs")"
        expect_eq "$(json 'len(set(p["commit"] for p in j["probes"]))')" "$builds" \
            "--jobs $jobs: no commit built twice"
        expect_eq "$(worktrees)" 1 "--jobs $jobs: no worktree left ($jobs were made)"
    done
done
run_tare bisect --jobs 2 --good c1 --bad c40 --build "$BUILD_CMD" -- ./prog
expect_match "$out" "on instructions, 2 at a time" "--jobs text: says so"
expect_match "$out" "culprit: $(commit_of c23) commit 23: the loop 5% longer" \
    "--jobs text: the culprit"

# --all-steps: both steps, in order, with their sizes.
run_tare bisect --good c1 --bad c40 --build "$BUILD_CMD" --all-steps --format json -- ./prog
expect_rc 0 "all steps"
expect_eq "$(json '" ".join(s["commit"] for s in j["steps"])')" \
    "$(commit_of c23) $(commit_of c31)" \
    "all steps: 23 and 31"
expect_eq "$(json 'j["steps"][0]["before"]'):$(json 'j["steps"][0]["after"]')" "$before:$after" \
    "all steps: commit 23's size, as the single search said"
small=$(json 'j["steps"][1]["after"] - j["steps"][1]["before"]')
big=$(json 'j["steps"][0]["after"] - j["steps"][0]["before"]')
check "all steps: 31's step ($small) is smaller than 23's ($big) and above 1% of good" \
    test "$small" -lt "$big" -a "$((small * 100))" -gt "$(json 'j["probes"][0]["value"]')"
check "all steps: fewer builds than commits ($(json 'j["builds"]'))" test \
    "$(json 'j["builds"]')" -lt 40

# --threshold as a percentage of good: 2.5% is more than commit 23's +1.97% of instructions
# and less than the +3.1% after commit 31, so on instructions it is 31 that crosses it.
run_tare bisect --good c20 --bad c40 --build "$BUILD_CMD" --threshold 2.5% --format json -- ./prog
expect_rc 0 "a threshold in percent"
expect_eq "$(json 'j["culprit"]["commit"]')" "$(commit_of c31)" "2.5% of good: commit 31 crosses it"
expect_eq "$(json 'round(j["threshold"] / j["probes"][0]["value"] * 100, 6)')" 2.5 \
    "the threshold is 2.5% of good"

# --confirm: tare ab of the culprit against its parent, each built in its own worktree; the
# clock's verdict is whatever this machine shows, the counts' is exact: more work.
run_tare bisect --good c20 --bad c26 --build "$BUILD_CMD" --confirm --format json -- ./prog
expect_rc 0 "--confirm"
expect_eq "$(json 'j["culprit"]["commit"]')" "$(commit_of c23)" "--confirm: the culprit"
expect_eq "$(json 'j["confirm"]["count"]["work"]')" more "--confirm: ab's counts say more work"
expect_eq "$(json 'j["confirm"]["count"]["change"]["allocations"]')" none \
    "--confirm: no allocation more"
expect_match "$(json 'j["confirm"]["verdict"]')" '^(faster|slower|same|undecided)$' \
    "--confirm: ab's verdict"
# The command runs as the search's probes run it (in the worktree, no shell in front), so the
# confirm table and the bisect table agree to the instruction for the same commit.
expect_eq "$(json 'j["confirm"]["a"]["command"]')" ./prog "--confirm: the command, no shell"
expect_eq "$(json 'j["confirm"]["count"]["a"]["instructions"]')" \
    "$(json 'j["culprit"]["before"]')" "--confirm: the parent's instructions, as bisect counted"
expect_eq "$(json 'j["confirm"]["count"]["b"]["instructions"]')" \
    "$(json 'j["culprit"]["after"]')" "--confirm: the culprit's instructions, as bisect counted"
expect_eq "$(worktrees)" 1 "no worktree left after --confirm (two were made)"

# --from-history: a history of counts taken every ten commits (by tare count, here), whose
# newest step history check finds is the range. At history check's 2% neither step counts
# (+1.97% instructions, +2.0% allocations less a startup allocation), and both say so.
H=$TMP/history.tsv
printf 'date\tcommit\tbenchmark\tinstructions\tallocations\n' > "$H"
mkdir -p "$TMP/hist"
for k in 1 10 20 30 40; do
    git show "c$k:prog.c" > "$TMP/hist/prog.c"
    counts=$(cd "$TMP/hist" && $BUILD_CMD && "$TARE" count --format tsv -- ./prog |
             awk -F'\t' 'NR == 2 { print $3 "\t" $4 }')
    printf '2026-11-01T00:%02d:00Z\t%s\tprog\t%s\n' "$k" "$(commit_of "c$k")" "$counts" >> "$H"
done
run_tare history check "$H"
expect_match "$out" "no regressions" "history check at 2%: no step"
run_tare bisect --from-history "$H" --build "$BUILD_CMD" -- ./prog
expect_rc 2 "--from-history at 2%: nothing to bisect"
expect_match "$err" "history check finds no step of a count to bisect" "says there is no step"
run_tare history check --det-threshold 1 "$H"
expect_match "$out" "allocations" "history check at 1%: the allocations step"
run_tare bisect --from-history "$H" --threshold 1% --build "$BUILD_CMD" --format json -- ./prog
expect_rc 0 "--from-history at 1%"
expect_match "$err" \
    "series 'prog', allocations \+2\.00% at $(git rev-parse --short=12 c40) \(after $(git rev-parse --short=12 c30)\)" \
    "--from-history: the newest step, named"
expect_eq "$(json 'j["metric"] + " " + j["good"] + " " + j["bad"]')" \
    "allocations $(commit_of c30) $(commit_of c40)" \
    "--from-history: its metric and range"
expect_eq "$(json 'j["culprit"]["commit"]')" "$(commit_of c31)" "--from-history: commit 31"
# On instructions the newest step is at c40 too: the added allocations cost +1.1% instructions.
run_tare bisect --from-history "$H" --threshold 1% --metric instructions --build "$BUILD_CMD" \
    --format json -- ./prog
expect_match "$err" "series 'prog', instructions \+1\.[0-9]+% at $(git rev-parse --short=12 c40)" \
    "--from-history --metric instructions: that metric's newest step"
expect_eq "$(json 'j["metric"] + " " + j["good"]')" "instructions $(commit_of c30)" \
    "--metric instructions: its range"
expect_eq "$(json 'j["culprit"]["commit"]')" "$(commit_of c31)" \
    "--from-history on instructions: commit 31's allocations"
run_tare bisect --from-history "$H" --good c1 -- ./prog
expect_rc 2 "--from-history with --good"
# A command that does not measure what the history did (another program, here the tests'
# sleeper): both ends measured first, then refused with both figures.
run_tare bisect --from-history "$H" --threshold 1% --build "$BUILD_CMD" -- \
    "$FIXTURES/sleeper" 0
expect_rc 2 "--from-history: a command that does not reproduce the step is refused"
expect_match "$err" "does not reproduce the step it bisects: allocations [0-9,]+ -> [0-9,]+ \(\+0\.00%\) here, 5,[0-9]{3} -> 5,[0-9]{3} \(\+2\.00%\) in '$H'" \
    "both figures said"
expect_no_match "$out" "culprit" "and nothing named"
expect_eq "$(worktrees)" 1 "no worktree left after the refusal"

# Nothing moved between 13 and 22 (the version number only): no step, said so.
run_tare bisect --good c13 --bad c22 --build "$BUILD_CMD" -- ./prog
expect_rc 0 "no step"
expect_match "$out" "no step: no commit moved instructions by more than that" "no step said"
expect_match "$out" "^2 builds, 0 skipped" "only the ends built"

# A good end that does not build: an error, exit 1, and the worktree is removed.
run_tare bisect --good c12 --bad c40 --build "$BUILD_CMD" --format json -- ./prog
expect_rc 1 "a good end that does not build"
expect_match "$err" "the good end cannot be measured" "says the good end failed"
expect_match "$err" \
    "skipped $(git rev-parse --short=12 c12) \(commit 12: does not build\): the build exited with status 1" \
    "json: why, on stderr"
expect_eq "$(worktrees)" 1 "no worktree left after an error"

# SIGINT (130) and SIGTERM (143) in the middle of the search: no worktree, nothing of tare's
# in $TMPDIR (the compiler, killed mid-build, may leave its own temporary file: tare's are
# tare-*).
mkdir -p "$TMP/tmpdir"
for sig in INT:130 TERM:143; do
    TMPDIR=$TMP/tmpdir "$TARE" bisect --good c1 --bad c40 --build "$BUILD_CMD" -- ./prog \
        > "$TMP/int.out" 2> "$TMP/int.err" &
    pid=$!
    for _ in $(seq 1 600); do   # until the third build has started (two probe lines printed)
        [ "$(grep -c '^ *[0-9]\+  [0-9a-f]\{12\} ' "$TMP/int.out")" -ge 2 ] && break
        sleep 0.1
    done
    check "SIG${sig%:*}: the search was under way" grep -q '^ *2  [0-9a-f]\{12\} ' "$TMP/int.out"
    kill -"${sig%:*}" "$pid"
    wait "$pid"
    rc=$?
    err=$(cat "$TMP/int.err")
    expect_rc "${sig#*:}" "SIG${sig%:*} mid-search"
    expect_match "$err" "interrupted" "SIG${sig%:*}: says interrupted"
    expect_eq "$(worktrees)" 1 "no worktree left after SIG${sig%:*}"
    expect_empty "$(ls -A "$TMP/tmpdir" | grep '^tare-')" \
        "none of tare's files left in \$TMPDIR after SIG${sig%:*}"
done

# --metric wall: tare ab at each probe against the good side's build. The step is large (a
# sleep 3 times as long) so that ab decides it on a loaded machine; what is asserted is the
# culprit and the undecided probe, never a time.
WR=$TMP/wall-repo
make_wall_repo "$WR" "$FIXTURES/sleeper"
wall_commit() { git -C "$WR" rev-parse "$1"; }
wall_worktrees() { git -C "$WR" worktree list --porcelain | grep -c '^worktree '; }
cd "$WR" || exit 1
run_tare bisect --metric wall --max-pairs 20 --good w1 --bad w12 --format json -- sh run.sh
expect_rc 0 "bisect --metric wall"
expect_eq "$(json 'j["culprit"]["commit"]')" "$(wall_commit w9)" "wall: the culprit is commit 9"
expect_eq "$(json 'j["culprit"]["verdict"]')" slower "wall: ab says the culprit is slower than good"
expect_eq "$(json 'j["culprit"]["before_commit"]')" "$(wall_commit w8)" "wall: from its parent"
# Commit 6 is the middle of the range, so it is probed first; ab cannot decide it in 20 pairs,
# and the search narrows around it as around a commit that does not build.
expect_eq \
    "$(json '[p["status"] for p in j["probes"] if p["commit"] == "'"$(wall_commit w6)"'"][0]')" \
    undecided "wall: commit 6 is undecided"
expect_match "$(json '[p["error"] for p in j["probes"] if p["status"] == "undecided"][0]')" \
    '^tare ab could not decide \(20 pairs, ' "wall: says ab could not decide, in how many pairs"
expect_match "$err" \
    "skipped $(git -C "$WR" rev-parse --short=12 w6) \(commit 6: sometimes fast, sometimes slow\): tare ab could not decide" \
    "wall json: the undecided probe named on stderr"
expect_eq "$(json 'j["skipped"]')" 1 "wall: one probe undecided"
expect_eq "$(json 'sorted(set(p["verdict"] for p in j["probes"] if p["status"] == "ok"))')" \
    "['good', 'same', 'slower']" "wall: every decided probe is good, same or slower"
expect_eq \
    "$(json 'all((p["verdict"] == "slower") == (p["commit"] in "'"$(git -C "$WR" rev-list w8..w12 | tr '\n' ' ')"'") for p in j["probes"] if p["status"] == "ok")')" \
    True "wall: slower exactly at the commits from 9 on"
expect_eq "$(wall_worktrees)" 1 "wall: no worktree left (two were made)"
# Text: the probes, then the culprit and the undecided commit named.
run_tare bisect --metric wall --max-pairs 20 --good w7 --bad w10 -- sh run.sh
expect_rc 0 "wall, text"
expect_match "$out" "culprit: $(wall_commit w9) commit 9: sleeps 3 times as long" \
    "wall text: the culprit"
expect_match "$out" "each probe: tare ab --until-decided against the good side's build" \
    "wall text: says how"
expect_match "$out" \
    "wall against good: [0-9.]+x same in [0-9]+ pairs at $(git -C "$WR" rev-parse --short=12 w8), [0-9.]+x slower in [0-9]+ pairs at $(git -C "$WR" rev-parse --short=12 w9)" \
    "wall text: ab's ratios before and after"
# SIGINT while ab runs a probe: 130, and neither worktree is left.
"$TARE" bisect --metric wall --good w1 --bad w12 -- sh run.sh > "$TMP/wint.out" 2> "$TMP/wint.err" &
pid=$!
for _ in $(seq 1 600); do   # until the bad end's ab has started (the good build printed)
    grep -q '^ *1  [0-9a-f]\{12\} ' "$TMP/wint.out" && break
    sleep 0.1
done
check "wall SIGINT: the search was under way" grep -q '^ *1  [0-9a-f]\{12\} ' "$TMP/wint.out"
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
expect_rc 130 "wall: SIGINT mid-probe"
expect_eq "$(wall_worktrees)" 1 "wall: no worktree left after SIGINT"
cd "$R" || exit 1

# SIGINT with --jobs 2, two probes under way: 130, no worktree of either.
"$TARE" bisect --jobs 2 --good c1 --bad c40 --build "$BUILD_CMD" -- ./prog > "$TMP/jint.out" 2> \
    "$TMP/jint.err" &
pid=$!
for _ in $(seq 1 600); do   # until the ends are in and the first round of two has started
    [ "$(grep -c '^ *[0-9]\+  [0-9a-f]\{12\} ' "$TMP/jint.out")" -ge 2 ] && break
    sleep 0.1
done
check "--jobs 2 SIGINT: the search was under way" grep -q '^ *2  [0-9a-f]\{12\} ' "$TMP/jint.out"
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
expect_rc 130 "--jobs 2: SIGINT mid-search"
expect_match "$(cat "$TMP/jint.err")" "interrupted" "--jobs 2 SIGINT: says interrupted"
expect_eq "$(worktrees)" 1 "--jobs 2: no worktree left after SIGINT"

# Bad usage and input: exit 2, no worktree made.
for bad in "--bad c40 -- ./prog" "--good c1 -- ./prog" "--good c1 --bad c40" \
           "--good c1 --bad c40 --metric walls -- ./prog" \
           "--good c1 --bad c40 --threshold x -- ./prog" \
           "--good c1 --bad c40 --metric wall --all-steps -- ./prog" \
           "--good c1 --bad c40 --metric wall --threshold 1000 -- ./prog" \
           "--good c1 --bad c40 --metric wall --threshold 100% -- ./prog" \
           "--good c1 --bad c40 --metric wall --max-pairs 19 -- ./prog" \
           "--good c1 --bad c40 --max-pairs 40 -- ./prog" \
           "--good c1 --bad c40 --jobs 0 -- ./prog" "--good c1 --bad c40 --jobs 17 -- ./prog" \
           "--good c1 --bad c40 --jobs 2 --all-steps -- ./prog" \
           "--good c1 --bad c40 --jobs 2 --metric wall -- ./prog" \
           "--good c1 --bad c40 ./prog"; do
    run_tare bisect $bad
    expect_rc 2 "bisect $bad"
done
run_tare bisect --good nosuchrev --bad c40 -- ./prog
expect_rc 2 "unknown good revision"
expect_match "$err" "unknown revision 'nosuchrev'" "names the revision"
run_tare bisect --good c40 --bad c1 -- ./prog
expect_rc 2 "good after bad"
expect_match "$err" "'c40' is not an ancestor of 'c1'" "says good is not an ancestor"
run_tare bisect --good c5 --bad c5 -- ./prog
expect_rc 2 "an empty range"
cd "$TMP" && run_tare bisect --good c1 --bad c40 -- ./prog
expect_rc 2 "outside a git repository"
expect_match "$err" "not in a git working tree" "says so"
expect_eq "$(git -C "$R" worktree list --porcelain | grep -c '^worktree ')" 1 \
    "no worktree left at all"
done_testing
