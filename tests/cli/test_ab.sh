# tare ab: paired interleaved A/B, its verdicts, its JSON, and git mode with its cleanup.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES

# jget JSON FIELD: a top-level scalar of tare ab's JSON (those names occur once).
jget() { tr -d '\n' <<<"$1" | sed -n "s/.*\"$2\": \(\"[^\"]*\"\|[^,}]*\).*/\1/p" | tr -d '"'; }
# awk_ok EXPR VAR=VALUE...: true when the awk expression holds.
awk_ok() { local e=$1; shift; awk "$@" "BEGIN { exit !($e) }"; }
valid_json() {
    if [ -x /usr/bin/python3 ]; then /usr/bin/python3 -m json.tool >/dev/null <<<"$1"; else true; fi
}

# ---- usage ----
run_tare ab "$F/busy 1"
expect_rc 2 "one command"
expect_match "$err" "want two commands" "one command: message"
run_tare ab --max-pairs 10 "$F/busy 1" "$F/busy 1"
expect_rc 2 "--max-pairs without --until-decided"
run_tare ab --until-decided --pairs 30 --max-pairs 10 "$F/busy 1" "$F/busy 2"
expect_rc 2 "--max-pairs under --pairs"
run_tare ab --threshold abc "$F/busy 1" "$F/busy 2"
expect_rc 2 "bad --threshold"
expect_match "$err" "bad value 'abc' for --threshold" "bad --threshold: message"
run_tare ab --base HEAD "$F/busy 1" "$F/busy 2"
expect_rc 2 "--base without a command after --"
run_tare ab --format tsv "$F/busy 1" "$F/busy 2"
expect_rc 2 "tsv is not a format of tare ab"
run_tare ab --no-such-option "$F/busy 1" "$F/busy 2"
expect_rc 2 "unknown option"

# ---- sleep-based: the ratio is known from the program's own definition ----
# Four times the sleep: a loaded machine adds milliseconds of wake-up delay to either
# side, so the ratio is generous, but the verdict cannot be anything but slower.
run_tare ab --pairs 12 --format=json "$F/sleeper 0.02" "$F/sleeper 0.08"
expect_rc 0 "sleeper 0.02 vs 0.08"
check "json parses" valid_json "$out"
expect_eq "$(jget "$out" pairs)" 12 "pairs"
expect_eq "$(jget "$out" verdict)" slower "twice the sleep is slower"
r=$(jget "$out" ratio); lo=$(jget "$out" ci_low); hi=$(jget "$out" ci_high)
# 80 ms against 20 ms plus start-up and wake-up delays: at most 4, and well over 1.
check "ratio $r between 2 and 4.1" awk_ok 'r > 2 && r < 4.1' -v r="$r"
check "interval $lo..$hi holds the estimate" awk_ok 'lo <= r && r <= hi && lo > 1' -v r="$r" -v \
    lo="$lo" -v hi="$hi"
expect_match "$out" \
    '"a": \{"name": "[^"]*sleeper 0.02", "command": "[^"]*sleeper 0.02", "median_s": 0\.0[0-9]' \
    "a's command and median"
expect_match "$out" '"b": \{"name": "[^"]*sleeper 0.08"' "b is the second command"
expect_match "$out" '"confidence": 0\.9[0-9]*' "confidence reported"
expect_eq "$(jget "$out" method)" hodges-lehmann "method"
expect_eq "$(jget "$out" base)" null "no base without git mode"
n_ratios=$(tr -d '\n' <<<"$out" | sed -n 's/.*"pair_ratios": \[\([^]]*\)\].*/\1/p' | awk -F, \
    '{ print NF }')
expect_eq "$n_ratios" 12 "one ratio per pair"

run_tare ab --pairs 12 --fail-if-slower "$F/sleeper 0.02" "$F/sleeper 0.08"
expect_rc 3 "--fail-if-slower when slower: 3, a regression"
expect_match "$out" '^slower: B takes [0-9.]+% longer than A' "text verdict slower"
run_tare ab --pairs 12 --fail-if-slower --name slow --name fast "$F/sleeper 0.08" "$F/sleeper 0.02"
expect_rc 0 "--fail-if-slower when faster"
expect_match "$out" '^faster: B takes [0-9.]+% less time than A' "text verdict faster"
expect_match "$out" '^A  slow ' "--name names A"
expect_match "$out" '^B  fast ' "--name names B"

# Too few pairs for a 95% interval: said so, never a verdict.
run_tare ab --pairs 3 --format=json "$F/sleeper 0.01" "$F/sleeper 0.04"
expect_rc 0 "three pairs"
expect_eq "$(jget "$out" verdict)" same "three pairs cannot decide"
expect_eq "$(jget "$out" ci_low)" null "three pairs: no interval"
run_tare ab --pairs 3 "$F/sleeper 0.01" "$F/sleeper 0.04"
expect_match "$out" 'too few for a 95% interval' "three pairs: text says why"

# ---- --until-decided ----
run_tare ab --until-decided --pairs 10 --format=json "$F/sleeper 0.02" "$F/sleeper 0.08"
expect_eq "$(jget "$out" stopped)" decided "four times the sleep is decided"
expect_eq "$(jget "$out" verdict)" slower "until-decided: slower"
expect_eq "$(jget "$out" planned_looks)" 6 "looks planned at 10, 20, 40, 80, 160, 200"
check "each look's interval is a 1 - 0.05/6 one" awk_ok 'c >= 1 - 0.05 / 6' -v \
    c="$(jget "$out" confidence)"
# At six pairs, seven looks leave no interval (P(T+ = 0) = 1/64 > 0.05/7/2): a second look.
run_tare ab --until-decided --pairs 6 --format=json "$F/sleeper 0.02" "$F/sleeper 0.08"
looks=$(jget "$out" looks)
check "six pairs cannot decide at 99.3%: $looks looks" test "$looks" -ge 2
expect_eq "$(jget "$out" pairs)" $((6 << (looks - 1))) "looks come at doubling pairs"
# Identical sleeps with a 50% threshold: the interval lies inside it at once.
run_tare ab --until-decided --pairs 6 --threshold 50% --format=json "$F/sleeper 0.02" \
    "$F/sleeper 0.02"
expect_eq "$(jget "$out" verdict)" same "A/A sleep is same"
expect_eq "$(jget "$out" stopped)" decided "A/A within 50% is decided"
# Pairs of two 30 ms sleeps cannot reach the first look (20 pairs) in 0.3 s: --max-time
# stops at 5 pairs or fewer, too few for any interval, so nothing can be decided.
run_tare ab --until-decided --pairs 20 --max-time 0.3 --format=json "$F/sleeper 0.03" \
    "$F/sleeper 0.03"
expect_eq "$(jget "$out" stopped)" max-time "stopped by --max-time"
check "at most 5 pairs in 0.3 s" awk_ok 'n >= 1 && n <= 5' -v n="$(jget "$out" pairs)"
expect_eq "$(jget "$out" verdict)" same "no verdict at --max-time without an interval"

# ---- failures ----
run_tare ab --pairs 6 "$F/sleeper 0.01" "$F/exit3"
expect_rc 1 "B fails"
expect_match "$err" "tare ab: B '[^']*exit3' failed: exited with status 3 in the warm-up" \
    "failure message"
expect_match "$err" '\| exit3: something went wrong on purpose' "failure shows B's stderr"
expect_empty "$out" "no result on failure"
run_tare ab --pairs 6 -w 0 "$F/crash" "$F/sleeper 0.01"
expect_rc 1 "A crashes"
expect_match "$err" "A '[^']*crash' failed: killed by signal 11" "crash message"
run_tare ab --pairs 6 -t 0.3 "$F/sleeper 0.01" "$F/sleeper 5"
expect_rc 1 "B times out"
expect_match "$err" "B '[^']*sleeper 5' failed: timed out" "timeout message"
run_tare ab --pairs 6 "$F/no-such-program" "$F/sleeper 0.01"
expect_rc 2 "A not found"
expect_match "$err" "command not found" "not found message"

# ---- CPU-bound: busy N spins N million iterations ----
# The same program twice: same. A 95% interval excludes the truth 5% of the time by
# design, and a loaded machine's bursts correlate neighbouring pairs, so one A/A run may
# rightly be unlucky: the check takes up to two independent runs (both unlucky: well under
# 1% for a correct tool; a biased one fails both). A 5% threshold keeps drift out.
aa_ok=0
for try in 1 2; do
    run_tare ab --pairs 30 --threshold 5 --format=json "$F/busy 30" "$F/busy 30"
    expect_rc 0 "A/A busy"
    v=$(jget "$out" verdict); lo=$(jget "$out" ci_low); hi=$(jget "$out" ci_high)
    if [ "$v" = same ] && awk_ok 'lo < 1.05 && hi > 0.95' -v lo="$lo" -v hi="$hi"; then
        aa_ok=1
        break
    fi
    echo "# A/A try $try: $v, interval $lo..$hi"
done
expect_eq "$aa_ok" 1 "the same program twice is same, its interval around 1 (in one of two runs)"

# 20% more work: slower, and the interval holds the true ratio. The truth is the ratio
# of instructions, I(N) = I(0) + N * (I(1) - I(0)) counted by callgrind (deterministic),
# which is the ratio of CPU work; start-up the instructions miss is under 1% of a run.
instr() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$F/busy" "$1" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
if command -v valgrind >/dev/null; then
    i0=$(instr 0); i1=$(instr 1)
    truth=$(awk -v a="$i0" -v b="$i1" \
        'BEGIN { printf "%.6f", (a + 60 * (b - a)) / (a + 50 * (b - a)) }')
    check "instruction ratio $truth is near 1.2" awk_ok 't > 1.19 && t < 1.21' -v t="$truth"
    # Until decided: on a loaded machine one run of 40 pairs has been seen too noisy
    # to tell 20% (the interval held 1); more pairs, each look at 1 - 0.05/K, decide.
    run_tare ab --pairs 20 --until-decided --max-pairs 320 --format=json "$F/busy 50" "$F/busy 60"
    expect_rc 0 "busy 50 vs 60"
    lo=$(jget "$out" ci_low); hi=$(jget "$out" ci_high); r=$(jget "$out" ratio)
    expect_eq "$(jget "$out" verdict)" slower \
        "20% more work is slower (B/A $r, $lo..$hi, $(jget "$out" pairs) pairs)"
    # The interval is 95%; 5% more either side keeps a loaded 2-core box from flaking,
    # and still fails for a swapped ratio (0.83) or an interval that is off or too narrow.
    check "interval $lo..$hi holds the true ratio $truth" \
        awk_ok 'lo * 0.95 <= t && t <= hi * 1.05' -v t="$truth" -v lo="$lo" -v hi="$hi"
    # (No check on the estimate alone: stopping at the first deciding look makes it as
    # noisy as the interval says, and on this machine it has been 1.53 within 1.2-1.9.)
else
    not_ok "valgrind is needed to count the true ratio (scripts/install-deps check)"
fi

# ---- git mode ----
git_repo() {   # a repository whose second commit does 1.5x the work of the first
    local d=$1
    mkdir -p "$d/sub"
    cp "$TARE_ROOT/tests/fixtures/busy.c" "$d/sub/prog.c"
    (cd "$d" && git init -q && git add sub/prog.c &&
        git -c user.name=t -c user.email=t@example.com commit -qm one &&
        sed -i 's/\* 1000000L/* 1500000L/' sub/prog.c &&
        git -c user.name=t -c user.email=t@example.com commit -qam 'two: more work')
}
export TMPDIR=$TMP/tmpdir
mkdir -p "$TMPDIR"
leftovers() { ls "$TMPDIR" | grep -c '^tare-ab-' || true; }
worktrees() { git -C "$1" worktree list | wc -l; }

R=$TMP/repo
git_repo "$R"
echo scratch > "$R/sub/untracked.txt"
before_status=$(git -C "$R" status --porcelain)
# From a subdirectory: the build and the command run at the same place in each tree.
run_in() { local d=$1; shift; (cd "$d" && "$TARE" "$@") > "$TMP/out" 2> "$TMP/err"; rc=$?; \
    out=$(cat "$TMP/out"); err=$(cat "$TMP/err"); }
run_in "$R/sub" ab --base HEAD~1 --build 'cc -O1 -o prog prog.c' --pairs 20 --until-decided \
    --format=json -- ./prog 40
expect_rc 0 "git mode"
expect_eq "$(jget "$out" verdict)" slower \
    "the second commit's extra work is slower (B/A $(jget "$out" ratio))"
expect_eq "$(jget "$out" commit)" "$(git -C "$R" rev-parse HEAD~1)" "base commit in the JSON"
expect_eq "$(jget "$out" rev)" "HEAD~1" "base rev in the JSON"
# 1.5 times the loop; start-up pulls it a little under. Generous for a loaded machine.
r=$(jget "$out" ratio)
check "ratio $r near 1.5" awk_ok 'r > 1.25 && r < 1.75' -v r="$r"
expect_match "$out" '"b": \{"name": "working tree", "command": "./prog 40"' "B is the working tree"
expect_eq "$(worktrees "$R")" 1 "the worktree is gone"
expect_eq "$(leftovers)" 0 "no temporary directory left"
expect_empty "$(git -C "$R" stash list)" "nothing stashed"
expect_eq "$(git -C "$R" status --porcelain | grep -v '^?? sub/prog$')" "$before_status" \
    "the user's tree is as it was (but for the build output)"

# Uncommitted changes are B: take the extra work out again, compare against HEAD (default).
sed -i 's/\* 1500000L/* 1000000L/' "$R/sub/prog.c"
edited=$(cat "$R/sub/prog.c")
run_in "$R/sub" ab --build 'cc -O1 -o prog prog.c' --pairs 20 --until-decided --format=json \
    -- ./prog 40
expect_rc 0 "git mode against HEAD"
expect_eq "$(jget "$out" verdict)" faster \
    "the uncommitted change is faster (B/A $(jget "$out" ratio))"
expect_eq "$(jget "$out" rev)" "HEAD" "--base defaults to HEAD"
expect_eq "$(cat "$R/sub/prog.c")" "$edited" "the uncommitted edit is still there"
expect_eq "$(cat "$R/sub/untracked.txt")" scratch "the untracked file is still there"
expect_eq "$(worktrees "$R")" 1 "the worktree is gone again"

# Text output names the base with its commit.
run_in "$R/sub" ab --build 'cc -O1 -o prog prog.c' --pairs 6 -- ./prog 5
expect_match "$out" "^A  HEAD \\($(git -C "$R" rev-parse --short=10 HEAD)\\)" \
    "text names A by rev and commit"
expect_match "$out" '^B  working tree' "text names B the working tree"

# A failing build is reported as such, and cleaned up.
run_in "$R/sub" ab --build 'echo compiler says no >&2; exit 7' --pairs 6 -- ./prog 5
expect_rc 1 "failing build"
expect_match "$err" \
    "tare ab: build of 'HEAD' \([0-9a-f]+\) in its worktree failed: 'echo compiler says no >&2; exit 7' exited with status 7" \
    "build failure message"
expect_match "$err" '\| compiler says no' "build failure shows its stderr"
expect_eq "$(worktrees "$R")" 1 "worktree removed after a failed build"
expect_eq "$(leftovers)" 0 "no temporary directory after a failed build"

# A failing command in the base tree: cleaned up too.
run_in "$R/sub" ab --pairs 6 -- ./no-such-prog
expect_rc 2 "command missing in the trees"
expect_eq "$(worktrees "$R")" 1 "worktree removed after a failed command"

# A file the working tree has and the revision does not (untracked): A fails, and the hint
# says why, where the command itself only says it cannot open it.
run_in "$R/sub" ab --pairs 6 -- cat untracked.txt
expect_rc 1 "an untracked file: A fails"
expect_match "$err" "cat: untracked.txt: No such file" "the command's own message"
expect_match "$err" \
    "^tare ab: hint: 'untracked.txt' is in the working tree but not in 'HEAD' \(untracked, ignored or not committed there\), and A runs in a temporary worktree of 'HEAD'" \
    "the hint names the untracked file"
run_in "$R/sub" ab --pairs 6 -- cat no-such-file.txt
expect_no_match "$err" "hint" "no hint for a file that is in neither tree"
expect_eq "$(worktrees "$R")" 1 "worktree removed after the untracked file"

# A directory the base revision does not have.
mkdir -p "$R/newdir"
run_in "$R/newdir" ab --pairs 6 -- true
expect_rc 2 "current directory missing in the base"
expect_match "$err" "the current directory 'newdir/' does not exist in 'HEAD'" \
    "missing directory message"
expect_eq "$(worktrees "$R")" 1 "worktree removed after a missing directory"
rmdir "$R/newdir"

run_in "$R" ab --base no-such-rev -- true
expect_rc 2 "unknown revision"
expect_match "$err" "tare ab: unknown revision 'no-such-rev'" "unknown revision message"
mkdir -p "$TMP/norepo"
run_in "$TMP/norepo" ab -- true
expect_rc 2 "not a repository"
expect_match "$err" "not in a git working tree" "not a repository message"

# Ctrl-C (and SIGTERM) in the middle of measuring: exit 130 (143), the worktree removed.
for sig in INT TERM; do
    want=130; [ $sig = TERM ] && want=143
    (cd "$R/sub" && exec "$TARE" ab --build true --pairs 50 -- "$F/sleeper" 0.2) > "$TMP/out" 2> \
        "$TMP/err" &
    pid=$!
    for _ in $(seq 100); do
        [ "$(worktrees "$R")" -eq 2 ] && break
        sleep 0.1
    done
    expect_eq "$(worktrees "$R")" 2 "SIG$sig: the worktree exists while measuring"
    sleep 0.5
    kill -$sig $pid
    wait $pid
    rc=$?
    expect_rc $want "SIG$sig during measuring"
    expect_eq "$(worktrees "$R")" 1 "SIG$sig: the worktree is gone"
    expect_eq "$(leftovers)" 0 "SIG$sig: no temporary directory left"
done
done_testing
