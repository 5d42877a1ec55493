# bench_backfill.sh: tare run --revisions (-j 2) against the hand-written loop it replaces (a
# worktree, a build, tare run --history --commit, for each commit), backfilling 20 commits of
# the test suite's repository (tests/cli/backfill_repo.sh) with the count pass, side by side
# in one `tare wall` session (interleaved). Both must write the same counts.
set -eu
: "${TARE:=build/tare}"
runs=${RUNS:-3}
abs_tare=$(cd "$(dirname "$TARE")" && pwd)/$(basename "$TARE")
tmp=$(mktemp -d); trap 'git -C "$tmp/repo" worktree prune 2> /dev/null; rm -rf "$tmp"' EXIT
. tests/cli/backfill_repo.sh
make_backfill_repo "$tmp/repo" "$tmp/builds.log" > /dev/null

# (the loop's worktree has a path as long as tare's, $TMPDIR/tare-ab-XXXXXX/base: a command
# runs with PWD its directory, and the size of the environment moves a count, tare-count(1);
# a path 2 characters shorter counted 14 instructions more here)
cat > "$tmp/tare-side.sh" <<SIDE
rm -rf "$tmp/ht"
"$abs_tare" run --revisions c20..c40 --count -j 2 --history "$tmp/ht" "$tmp/repo/suite.ini" \
    > /dev/null 2>&1
SIDE
cat > "$tmp/loop-side.sh" <<SIDE
rm -rf "$tmp/hl"
for sha in \$(git -C "$tmp/repo" rev-list --first-parent --reverse c20..c40); do
    wt=\$(mktemp -d "\${TMPDIR:-/tmp}/tare-ab-XXXXXX")/base
    git -C "$tmp/repo" worktree add -q --detach "\$wt" "\$sha"
    (cd "\$wt" && cc -O1 -o prog prog.c) &&
        "$abs_tare" run --count --history "$tmp/hl" --commit "\$sha" "\$wt/suite.ini" \
            > /dev/null 2>&1
    git -C "$tmp/repo" worktree remove --force "\$wt"
    rmdir "\${wt%/base}"
done
SIDE
echo "backfill 20 commits, count pass ($runs runs each, interleaved, after a warm-up)"
"$TARE" wall --runs "$runs" --format tsv --name tare-revisions-j2 --name hand-loop \
    "bash $tmp/tare-side.sh" "bash $tmp/loop-side.sh" > "$tmp/wall.tsv"
awk -F'\t' 'NR > 1 { m[$1] = $4; printf "  %-18s median %.2f s\n", $1, $4 }
    END { printf "  ratio tare run --revisions -j 2 / the loop: %.3f\n",
          m["tare-revisions-j2"] / m["hand-loop"] }' "$tmp/wall.tsv"
counts() { awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["commit"], $c["benchmark"], $c["instructions"] }' "$1" | sort; }
if [ "$(counts "$tmp/ht/count.tsv")" = "$(counts "$tmp/hl/count.tsv")" ]; then
    echo "  the same 20 commits' instructions, count for count"
else
    echo "  the counts differ (< tare run --revisions, > the loop):"
    diff <(counts "$tmp/ht/count.tsv") <(counts "$tmp/hl/count.tsv") | sed 's/^/    /'
    exit 1
fi
