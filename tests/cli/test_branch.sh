# History on a git branch: `history append BRANCH:PATH`, `history check`/`report` reading
# BRANCH:PATH, `run --history-branch`: commits through git plumbing, the working tree and the
# index untouched; two writers at once keep every row and every commit.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
command -v git > /dev/null || { echo "skip: no git"; done_testing; exit; }
R=$TMP/repo
mkdir -p "$R" && cd "$R" || exit 1
git init -q . && git config user.email t@example.com && git config user.name t
echo one > tracked && git add tracked && git commit -qm init
# a dirty tree and a staged change that nothing may touch
echo staged >> tracked && git add tracked && echo unstaged >> tracked && echo new > untracked
before_status=$(git status --porcelain=v1 | sort)
before_index=$(sha1sum .git/index | cut -d' ' -f1)
before_head=$(git rev-parse HEAD)

rows() {   # rows COMMIT VALUE
    printf 'date\tcommit\tbenchmark\tinstructions\n2026-01-01T00:00:00Z\t%s\tb\t%s\n' "$1" "$2"
}
rows c1 1000000 | "$TARE" history append bench-data:hist/count.tsv
expect_eq "$?" 0 "append to a new branch"
rows c2 1100000 | "$TARE" history append bench-data:hist/count.tsv
expect_eq "$(git rev-list --count bench-data)" 2 "two appends, two commits"
expect_eq "$(git show bench-data:hist/count.tsv | cut -f2,4 | tr '\t\n' ': ')" \
    "commit:instructions c1:1000000 c2:1100000 " "the rows, under one header"
run_tare history check bench-data:hist/count.tsv
expect_rc 3 "check reads BRANCH:PATH: the +10% is a regression"
expect_match "$out" "^b +instructions +1,000,000 +1,100,000 +\+10.0%" "with its figures"
run_tare report bench-data:hist/count.tsv
expect_rc 3 "report reads BRANCH:PATH too"
run_tare history check nosuch:hist/count.tsv
expect_rc 2 "no such branch: 2"
expect_match "$err" "cannot read 'nosuch:hist/count.tsv' from git" "said"
tip=$(git rev-parse bench-data)
printf 'date\tcommit\tbenchmark\tinstructions\nx\tc3\tb\t-5\n' > "$TMP/bad.tsv"
run_tare history append bench-data:hist/count.tsv < "$TMP/bad.tsv"
expect_rc 2 "a bad row: 2"
expect_eq "$(git rev-parse bench-data)" "$tip" "and the branch is where it was"

# Two writers at once, 15 appends each: every row and every commit kept.
writer() {
    for i in $(seq 1 15); do
        rows "$1$i" "$i" | "$TARE" history append bench-data:hist/count.tsv || echo "fail $1$i"
    done
}
writer wa > "$TMP/wa.log" 2>&1 &
writer wb > "$TMP/wb.log" 2>&1 &
wait
expect_empty "$(cat "$TMP/wa.log" "$TMP/wb.log")" "no append failed"
expect_eq "$(git rev-list --count bench-data)" 32 "32 commits: 2 + 15 + 15"
got=$(git show bench-data:hist/count.tsv | awk -F'\t' 'NR > 1 { print $2 }' | sort | tr '\n' ' ')
want=$( { echo c1; echo c2; for i in $(seq 1 15); do echo "wa$i"; echo "wb$i"; done; } | sort | \
    tr '\n' ' ')
expect_eq "$got" "$want" "every row once, none lost"
expect_eq "$(git show bench-data:hist/count.tsv | grep -c '^date')" 1 "one header"
# each commit added exactly one row to the file
ok_commits=0
for c in $(git rev-list bench-data); do
    n=$(git diff --numstat "$c^" "$c" -- hist/count.tsv 2>/dev/null | cut -f1)
    [ -z "$n" ] && n=$(git show "$c:hist/count.tsv" | wc -l | awk '{ print $1 - 1 }')
    [ "$n" = 1 ] && ok_commits=$((ok_commits + 1))
done
expect_eq "$ok_commits" 32 "each commit adds its one row"

# run --history-branch BRANCH:DIR: the rows in one commit
mkdir -p "$TMP/s/benchmarks" && touch "$TMP/s/benchmarks/0.001.txt"
printf '[suite]\ncommand = %s {name}\nbenchmarks = benchmarks/*.txt\nruns = 2\n' "$F/sleeper" \
    > "$TMP/s/suite.ini"
run_tare run --history-branch perf:data --commit c9 --format tsv "$TMP/s/suite.ini"
expect_rc 0 "run --history-branch"
expect_eq "$(git log --format=%s perf)" "tare run: rows of c9" "one commit, named for the rows"
expect_eq "$(git show perf:data/wall.tsv | awk -F'\t' 'NR == 2 { print $2, $3, $8 }')" \
    "c9 0.001 2" \
    "its wall row on the branch"
run_tare run --history-branch 'bad..name' --commit c9 "$TMP/s/suite.ini"
expect_rc 2 "a bad branch name: 2"

# nothing else moved
expect_eq "$(git status --porcelain=v1 | sort)" "$before_status" "the working tree as it was"
expect_eq "$(sha1sum .git/index | cut -d' ' -f1)" "$before_index" "the index as it was"
expect_eq "$(git rev-parse HEAD)" "$before_head" "HEAD as it was"
expect_eq "$(git branch --show-current)" "$(git symbolic-ref --short HEAD)" "still on its branch"
cd / && done_testing
