# tare run --revisions: a backfill of a repository's commits, each built in a worktree, with
# known answers: 40 commits of a C program whose loop is 10% longer from commit 25 and whose
# build fails at commit 9. Backfilled in two halves out of date order (21-40, then 1-20):
# history check flags exactly commit 25's step; all 40 again with --skip-existing builds
# nothing; SIGINT leaves no worktree and no partial row.
. "$(dirname "$0")/lib.sh"
command -v git > /dev/null && command -v valgrind > /dev/null && command -v cc > /dev/null ||
    { not_ok "git, valgrind and cc are needed"; done_testing; exit; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t

. "$(dirname "$0")/backfill_repo.sh"
R=$TMP/repo
make_backfill_repo "$R" "$TMP/builds.log"
sha() { git -C "$R" rev-parse "$1"; }
mkdir -p "$TMP/tmpdir"
export TMPDIR=$TMP/tmpdir   # the worktrees go here: nothing may be left in it

# checks_at HIST: for every commit, what history check finds there: "k:rc" where it is not 0.
checks_at() {
    local k found=""
    for k in $(seq 1 40); do
        "$TARE" history check --commit "$(sha "c$k")" "$1" > /dev/null 2>&1
        case $? in 0|2) ;; *) found="$found $k:$?" ;; esac
    done
    echo "${found# }"
}

# ---- 21-40 first, then 1-20 (out of date order), two commits at once ----
run_tare run --revisions c20..c40 --count -j 2 --history "$TMP/b" "$R/suite.ini"
expect_rc 0 "21-40: every commit built"
expect_match "$out" "^20 of 20 commits measured in " "21-40 measured"
expect_match "$err" "\[20/20\] " "progress, commit by commit"
expect_match "$err" "\[1/20\] .* \([0-9.]+s\); about [0-9.ms]+ left$" "with the time left"
run_tare run --revisions c20 --count -j 2 --history "$TMP/b" "$R/suite.ini"
expect_rc 1 "1-20: a commit that does not build: exit 1"
expect_match "$out" "^20 of 20 commits measured" "then 1-20"
expect_match "$out" "^1 commit did not build \(rows NA, with the reason\):$" "said once, at the end"
expect_match "$out" "^  $(sha c9 | cut -c1-12) commit 9: no build: the build exited with status 1 \(stderr: prog\.c:3:.*error" \
    "the commit and the reason"
expect_eq "$(git -C "$R" worktree list | wc -l)" 1 "no worktree left"
expect_empty "$(ls -A "$TMPDIR")" "nothing left in TMPDIR"
B=$TMP/b/count.tsv
expect_eq "$(awk -F'\t' 'NR > 1 { print $2 }' "$B" | sort -u | wc -l)" 40 "rows of 40 commits"
check "the file holds commits 21-40 before 1-20" awk -F'\t' \
    'NR == 2 { split($11, w, "[ :]"); exit !(w[2] >= 21) }' "$B"
row9=$(grep "$(sha c9)" "$B")
expect_match "$row9" "	NA	NA	NA	NA	NA	callgrind	2026-11-01T00:09:00Z	commit 9: no build	the build exited with status 1" \
    "commit 9: NA, its date, subject and the reason"
expect_eq "$(checks_at "$B")" "9:1 25:3" \
    "history check: exactly commit 25's step and the failed build at 9, nothing at 20"
run_tare history check --commit "$(sha c9)" "$B"
expect_match "$out" "^one +instructions +the build exited with status 1" "check names the reason"
run_tare history check "$B"
expect_rc 0 "the newest is commit 40, not 20 (the last written)"
expect_match "$out" "at commit $(sha c40 | cut -c1-12) .*: commit 40: version 40$" "named"

# ---- all 40 in one command with --skip-existing: nothing built again ----
before=$(wc -l < "$TMP/builds.log")
run_tare run --revisions c40 --count --skip-existing --history "$TMP/b" "$R/suite.ini"
expect_rc 0 "--skip-existing: nothing to do"
expect_match "$out" "^0 of 40 commits measured .*, 40 already in the history \(--skip-existing\)" \
    "said"
expect_eq "$(wc -l < "$TMP/builds.log")" "$before" "no build ran"
run_tare run --revisions c40 --every 10 --count --history "$TMP/e" "$R/suite.ini"
expect_eq "$(awk -F'\t' 'NR > 1 { print $11 }' "$TMP/e/count.tsv" | tr '\n' ' ')" \
    "commit 10: version 10 commit 20: version 20 commit 30: version 30 commit 40: version 40 " \
    "--every 10: back from the newest"

# ---- SIGINT in the middle: no worktree, no partial row ----
"$TARE" run --revisions c10 --count -j 2 --build 'sleep 0.4; cc -O1 -o prog prog.c' \
    --history "$TMP/i" "$R/suite.ini" > "$TMP/i.out" 2> "$TMP/i.err" &
pid=$!
for _ in $(seq 1 300); do grep -q '\[1/10\]' "$TMP/i.err" 2> /dev/null && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
expect_rc 130 "SIGINT: 130"
expect_eq "$(git -C "$R" worktree list | wc -l)" 1 "SIGINT: no worktree left"
expect_empty "$(ls -A "$TMPDIR")" "SIGINT: nothing left in TMPDIR"
expect_eq "$(ls -A "$TMP/i" | tr '\n' ' ')" "count.tsv " "SIGINT: no temporary beside the rows"
n=$(awk -F'\t' 'NR > 1' "$TMP/i/count.tsv" | wc -l)
check "SIGINT: whole commits only ($n rows, fewer than 10)" test "$n" -ge 1 -a "$n" -lt 10
expect_empty "$(awk -F'\t' 'NR == 1 { n = NF } NR > 1 && NF != n' "$TMP/i/count.tsv")" \
    "SIGINT: every row whole"

# ---- bad input ----
run_tare run --revisions nosuchrev --count --history "$TMP/x" "$R/suite.ini"
expect_rc 2 "an unknown revision: 2"
run_tare run --revisions c40 --count "$R/suite.ini"
expect_rc 2 "no --history: 2"
run_tare run --every 2 --count "$R/suite.ini"
expect_rc 2 "--every without --revisions: 2"
done_testing
