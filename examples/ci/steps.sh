#!/usr/bin/env bash
# examples/ci/steps.sh: the steps of the benchmark CI recipe. github-actions.yml and
# gitlab-ci.yml beside it call these, and tests/cli/test_ci_recipe.sh runs them locally as a
# CI matrix would (N shard jobs, then the merge job), so the recipe stays tested.
#
#   steps.sh shard K N   run shard K of N of the suite into $OUT/shard-K/ (a matrix job)
#   steps.sh merge       join the shards' rows into $OUT/wall.tsv and $OUT/count.tsv
#   steps.sh publish     commit them to $BRANCH (one commit per file, git plumbing: the
#                        checkout is not touched), check and report this commit against the
#                        branch's history (summary appended to $GITHUB_STEP_SUMMARY when set,
#                        else $OUT/summary.md), write the trend page $OUT/trend.html;
#                        exits 3 when a regression was found (the page is written first)
#
# Settings (environment): TARE (default: tare on PATH), SUITE (examples/suite.ini), OUT
# (bench-out), BRANCH (bench-data), COMMIT (default: git rev-parse HEAD), TARE_RUN_OPTS
# (more options for tare run, e.g. --runs 3). Pushing the branch is the CI file's step.
set -euo pipefail
TARE=${TARE:-tare}
SUITE=${SUITE:-examples/suite.ini}
OUT=${OUT:-bench-out}
BRANCH=${BRANCH:-bench-data}
COMMIT=${COMMIT:-$(git rev-parse HEAD)}
read -r -a run_opts <<< "${TARE_RUN_OPTS:-}"

case ${1:-} in
shard)
    k=$2 n=$3
    rm -rf "$OUT/shard-$k"   # this run's rows only, whatever an earlier run left here
    mkdir -p "$OUT/shard-$k"
    # exit 1 (a measurement failed) fails the job; the rows still name it NA
    "$TARE" run --wall --count --shard "$k/$n" --commit "$COMMIT" --history "$OUT/shard-$k" \
        --export-junit "$OUT/shard-$k/junit.xml" "${run_opts[@]}" "$SUITE"
    ;;
merge)
    "$TARE" history merge "$OUT"/shard-*/wall.tsv -o "$OUT/wall.tsv"
    "$TARE" history merge "$OUT"/shard-*/count.tsv -o "$OUT/count.tsv"
    ;;
publish)
    "$TARE" history append "$BRANCH:wall.tsv" < "$OUT/wall.tsv"
    "$TARE" history append "$BRANCH:count.tsv" < "$OUT/count.tsv"
    summary=${GITHUB_STEP_SUMMARY:-$OUT/summary.md}
    rc=0
    "$TARE" report --suite "$SUITE" --commit "$COMMIT" --summary "$summary" \
        "$BRANCH:wall.tsv" "$BRANCH:count.tsv" > "$OUT/report.md" || rc=$?
    git show "$BRANCH:wall.tsv" > "$OUT/history-wall.tsv"
    git show "$BRANCH:count.tsv" > "$OUT/history-count.tsv"
    "$TARE" trend "$OUT/history-wall.tsv" "$OUT/history-count.tsv" -o "$OUT/trend.html"
    # 2: nothing could be checked yet (a young history has too few points): not a failure
    [ "$rc" -eq 2 ] && rc=0
    exit "$rc"
    ;;
*)
    sed -n '2,17p' "$0" >&2
    exit 2
    ;;
esac
