# examples/ci/: the recipe's steps (steps.sh, which the GitHub Actions and GitLab CI files
# call) run here as a CI matrix would: 3 shard jobs at once on the bundled example suite, the
# merge job, then publish to a git branch. The merged rows must equal an unsharded run's
# (same keys and run counts; the same counts, which are deterministic), the branch must hold
# them, the summary and the trend page must be written.
. "$(dirname "$0")/lib.sh"
command -v valgrind > /dev/null || { echo "skip: no valgrind"; done_testing; exit; }
command -v git > /dev/null || { echo "skip: no git"; done_testing; exit; }
ROOT=${TARE_ROOT:-$PWD}
STEPS=$ROOT/examples/ci/steps.sh
# the example programs, built as the Makefile builds them, and the suite pointed at them
mkdir -p "$TMP/ex"
for p in fib sort wordfreq yardstick; do
    cc -std=gnu11 -O2 -g -o "$TMP/ex/$p" "$ROOT/examples/$p.c" -lm || exit 1
done
# both CI files parse as YAML (Debian's python3-yaml, where installed) and run the three steps
for y in github-actions.yml gitlab-ci.yml; do
    if /usr/bin/python3 -c 'import yaml' 2> /dev/null; then
        check "$y parses as YAML" /usr/bin/python3 -c \
            'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' \
            "$ROOT/examples/ci/$y"
    fi
    for step in 'shard ' 'merge' 'publish'; do
        check "$y runs steps.sh $step" grep -q "examples/ci/steps.sh $step" "$ROOT/examples/ci/$y"
    done
done
R=$TMP/repo
mkdir -p "$R" && cd "$R" || exit 1
git init -q . && git config user.email t@example.com && git config user.name t
echo x > f && git add f && git commit -qm init
sed -e "s|\.\./build/examples/|$TMP/ex/|g" \
    -e \
        "s|^benchmarks = .*|benchmarks = $ROOT/examples/fib.c $ROOT/examples/sort.c $ROOT/examples/wordfreq.c|" \
    "$ROOT/examples/suite.ini" > suite.ini
export TARE SUITE=$R/suite.ini COMMIT=c1 TARE_RUN_OPTS="--runs 1" BRANCH=bench-data

# the matrix: 3 shard jobs at once (OUT names of one length: the environment is the same
# size in every job, so the counts of the programs' start-up code are too)
for k in 1 2 3; do
    OUT=$TMP/oa "$STEPS" shard "$k" 3 > "$TMP/shard$k.log" 2>&1 &
done
wait
for k in 1 2 3; do
    check "shard $k ran: $(tail -3 "$TMP/shard$k.log")" test -s "$TMP/oa/shard-$k/wall.tsv"
done
OUT=$TMP/oa "$STEPS" merge
expect_eq "$?" 0 "merge job"
OUT=$TMP/ob "$STEPS" shard 1 1 > "$TMP/full.log" 2>&1
expect_eq "$?" 0 "the unsharded run"
keys() { awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["commit"], $c["benchmark"], $c["runs"] }' "$1" | sort; }
expect_eq "$(keys "$TMP/oa/wall.tsv")" "$(keys "$TMP/ob/shard-1/wall.tsv")" \
    "merged wall rows: the unsharded run's series, commit and runs"
expect_eq "$(keys "$TMP/oa/wall.tsv" | wc -l)" 6 "3 benchmarks x 2 lanes"
counts() { awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["commit"], $c["benchmark"], $c["instructions"], $c["allocations"], $c["bytes"],
      $c["peak_bytes"], $c["toolchain"] }' "$1" | sort; }
expect_eq "$(counts "$TMP/oa/count.tsv")" "$(counts "$TMP/ob/shard-1/count.tsv")" \
    "merged count rows equal the unsharded run's, count for count"
expect_eq "$(head -1 "$TMP/oa/wall.tsv")" "$(head -1 "$TMP/ob/shard-1/wall.tsv")" "same columns"
check "each shard wrote its JUnit file" test -s "$TMP/oa/shard-2/junit.xml"

# the publish job: rows on the branch, the summary, the trend page
OUT=$TMP/oa "$STEPS" publish > "$TMP/publish.log" 2>&1
expect_eq "$?" 0 "publish on a young history: 0 (nothing checkable yet is not a failure)"
expect_eq "$(git show bench-data:wall.tsv)" "$(cat "$TMP/oa/wall.tsv")" \
    "the branch holds the merged wall rows"
expect_eq "$(git show bench-data:count.tsv | tail -n +2 | sort)" \
    "$(tail -n +2 "$TMP/oa/count.tsv" | sort)" \
    "and the count rows"
expect_eq "$(git rev-list --count bench-data)" 2 "one commit per file"
expect_match "$(head -1 "$TMP/oa/summary.md")" '^### tare: ' "the summary block"
check "the trend page" grep -q '<svg\|<html' "$TMP/oa/trend.html"
expect_empty "$(git status --porcelain=v1 | grep -v '^?? suite.ini$')" "the checkout untouched"

# a budget in the suite: the shard job that runs fib fails with 3 and the figures
printf '\n[bench fib]\nmax_instructions = 1000\n' >> suite.ini
OUT=$TMP/oc COMMIT=c2 "$STEPS" shard 1 3 > "$TMP/budget.log" 2>&1
expect_eq "$?" 3 "a shard over its budget: the job fails with 3"
expect_match "$(cat "$TMP/budget.log")" \
    "'fib\+base' over budget: instructions [0-9,]+ > max_instructions 1,000 " \
    "with the exact figures"
cd / && done_testing
