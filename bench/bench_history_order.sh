# bench_history_order.sh: what git's order costs a reader: `tare history check` of a history
# of 10,000 commits (one series, rows shuffled) inside the 10,000-commit repository that has
# them (git log --first-parent read and the commits put in its order) against the same file
# outside any repository (date order), side by side in one `tare wall` session.
set -eu
: "${TARE:=build/tare}"
runs=${RUNS:-10}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
git init -q "$tmp/repo"
awk 'BEGIN { for (i = 1; i <= 10000; i++) {
    printf "commit refs/heads/main\ncommitter t <t@t> %d +0000\ndata %d\nc%d\n", 1700000000 + 60 * i,
        length("c" i), i
    if (i == 1) printf "M 644 inline f\ndata 2\n1\n"
    printf "\n" } }' |
    MALLOC_TOP_PAD_=67108864 MALLOC_TRIM_THRESHOLD_=134217728 git -C "$tmp/repo" fast-import --quiet
git -C "$tmp/repo" symbolic-ref HEAD refs/heads/main
mkdir "$tmp/plain"
{ printf 'date\tcommit\tbenchmark\tinstructions\n'
  git -C "$tmp/repo" rev-list --reverse HEAD |
      awk '{ printf "2026-12-01T00:00:00Z\t%s\tb\t%d\n", $1, 1000000 + NR % 7 }' |
      shuf --random-source=<(yes); } > "$tmp/repo/count.tsv"
cp "$tmp/repo/count.tsv" "$tmp/plain/count.tsv"
echo "history check of 10,000 commits: in the repository (git's order) and outside it" \
     "($runs runs each, interleaved)"
"$TARE" wall --runs "$runs" --format tsv --name git-order --name date-order \
    "$TARE history check $tmp/repo/count.tsv" "$TARE history check $tmp/plain/count.tsv" \
    > "$tmp/wall.tsv"
awk -F'\t' 'NR > 1 { m[$1] = $4; printf "  %-11s median %.3f s\n", $1, $4 }
    END { printf "  git order costs %.3f s more (%.2fx)\n", m["git-order"] - m["date-order"],
          m["git-order"] / m["date-order"] }' "$tmp/wall.tsv"
