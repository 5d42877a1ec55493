# The readers of a history (check, noise, report, trend) order its commits by the repository's
# first-parent history where there is one: the newest is the tip, not the last row written;
# commits the repository does not have are placed by date and said to be; without a
# repository, date order, said. Commit dates and subjects shown. At 10,000 commits too.
. "$(dirname "$0")/lib.sh"
command -v git > /dev/null || { not_ok "git is needed"; done_testing; exit; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t

# A repository of 6 commits, one a day; instructions step +10% at commit 4. The rows were
# written newest commit first (a backfill run backwards), so their run dates say the
# opposite of git.
R=$TMP/repo
git init -q "$R"
for i in 1 2 3 4 5 6; do
    echo "$i" > "$R/f"
    git -C "$R" add f
    GIT_COMMITTER_DATE="2026-11-0${i}T12:00:00Z" GIT_AUTHOR_DATE="2026-11-0${i}T12:00:00Z" \
        git -C "$R" commit -qm "commit $i: version $i"
done
mapfile -t C < <(git -C "$R" rev-list --reverse HEAD)
{ printf 'date\tcommit\tbenchmark\tinstructions\n'
  for i in 1 2 3 4 5 6; do
      printf '2026-12-%02dT00:00:00Z\t%s\tb\t%d\n' $((20 - i)) "${C[i - 1]}" \
          $((i >= 4 ? 1100000 : 1000000))
  done; } > "$R/count.tsv"

run_tare history check --commit "${C[3]}" "$R/count.tsv"
expect_rc 3 "in the repository: the step at commit 4 is found"
expect_match "$out" "^checked 1 metric of 1 series at commit ${C[3]:0:12} \(2026-11-04T12:00:00Z\): commit 4: version 4$" \
    "the commit named by its date and subject from git"
expect_match "$out" \
    "^b +instructions +1,000,000 +1,100,000 +\+10\.0% +2\.0% +${C[3]:0:12} +commit 4: version 4$" \
    "the step's subject beside it"
expect_empty "$err" "every commit known: nothing to say"
run_tare history check "$R/count.tsv"
expect_rc 0 "the newest is the tip (commit 6), not the last row written"
expect_match "$out" "at commit ${C[5]:0:12} " "checked at the tip"
run_tare report "$R/count.tsv"
expect_match "$out" "^\`${C[5]:0:12}\` commit 6: version 6, committed 2026-11-06T12:00:00Z$" \
    "report names the commit"
run_tare history noise --format tsv "$R/count.tsv"
expect_eq "$(tsv_field "$out" 1 changes)/$(tsv_field "$out" 1 median_change)" 5/0 \
    "noise between consecutive commits in git's order: one step in five changes"

# A commit the repository does not have: placed by date, and said.
cp "$R/count.tsv" "$R/more.tsv"
printf '2026-11-03T18:00:00Z\tfeedfacefeedfacefeedfacefeedfacefeedface\tb\t1000000\n' >> \
    "$R/more.tsv"
run_tare history check --commit "${C[3]}" "$R/more.tsv"
expect_rc 3 "the step still at commit 4"
expect_match "$err" "note: 1 of the history's 7 commits is not in the first-parent history of '$R' \(HEAD\): placed among the others by date" \
    "the unknown commit said"

# Without a repository: date order, said in one line, and here (rows written backwards)
# wrong; --repo DIR orders it.
mkdir "$TMP/plain"
cp "$R/count.tsv" "$TMP/plain/count.tsv"
run_tare history check "$TMP/plain/count.tsv"
expect_match "$err" "^tare history: note: commits in date order: '$TMP/plain' is in no git repository \(--repo DIR orders them by its first-parent history\)$" \
    "no repository: said"
expect_match "$out" "at commit ${C[0]:0:12} " "date order: the last row written is the newest"
run_tare history check --repo "$R" "$TMP/plain/count.tsv"
expect_rc 0 "--repo: the tip is the newest again"
expect_match "$out" "at commit ${C[5]:0:12} " "--repo: checked at the tip"
run_tare history check --repo "$TMP/plain" "$TMP/plain/count.tsv"
expect_rc 2 "--repo that is no repository"
expect_match "$err" "--repo '$TMP/plain': not a git working tree with a commit" "said"
run_tare trend --repo "$R" "$TMP/plain/count.tsv" -o "$TMP/t.html"
expect_rc 0 "trend --repo"
expect_match "$(cat "$TMP/t.html")" "\[\"${C[0]}\",\"2026-12-19T00:00:00Z\",\"2026-11-01T12:00:00Z\",\"commit 1: version 1\"\],\[\"${C[1]}\"" \
    "trend: commits in git's order with their dates and subjects"

# 10,000 commits (git fast-import), rows shuffled, all written at one date: git's order puts
# a 5% step planted at commit 9,000 where it is, and the tip last.
B=$TMP/big
git init -q "$B"
# (every commit after the first has the first one's tree; glibc's malloc, left to trim its
# heap, made fast-import take 40,000 brk calls and 20 s here: the pad keeps it at 0.4 s)
awk 'BEGIN { for (i = 1; i <= 10000; i++) {
    printf "commit refs/heads/main\ncommitter t <t@t> %d +0000\ndata %d\nc%d\n", 1700000000 + 60 * i,
        length("c" i), i
    if (i == 1) printf "M 644 inline f\ndata 2\n1\n"
    printf "\n" } }' |
    MALLOC_TOP_PAD_=67108864 MALLOC_TRIM_THRESHOLD_=134217728 git -C "$B" fast-import --quiet
git -C "$B" symbolic-ref HEAD refs/heads/main
git -C "$B" rev-list --reverse HEAD > "$TMP/hashes"
expect_eq "$(wc -l < "$TMP/hashes")" 10000 "10,000 commits"
{ printf 'date\tcommit\tbenchmark\tinstructions\n'
  awk '{ printf "2026-12-01T00:00:00Z\t%s\tb\t%d\n", $1, (NR >= 9000 ? 1050000 : 1000000) }' \
      "$TMP/hashes" | shuf --random-source=<(yes); } > "$B/count.tsv"
t0=$(date +%s%N)
run_tare history check --commit "$(sed -n 9000p "$TMP/hashes")" "$B/count.tsv"
t1=$(date +%s%N)
expect_rc 3 "10,000 commits: the step at commit 9,000"
expect_match "$out" "\+5\.0% +2\.0% +$(sed -n 9000p "$TMP/hashes" | cut -c1-12) +c9000$" \
    "found at its commit"
run_tare history check "$B/count.tsv"
expect_rc 0 "10,000 commits: the tip is the newest"
expect_match "$out" "at commit $(tail -1 "$TMP/hashes" | cut -c1-12) .*: c10000$" "the tip"
echo "# 10,000 commits loaded, ordered by git and checked in $(( (t1 - t0) / 1000000 )) ms"
done_testing
