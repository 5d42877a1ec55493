# bench_bisect.sh: tare bisect against the same search by git bisect run with
# `tare count --fail-above`, on the test suite's 40-commit repository (tests/cli/bisect_repo.sh),
# side by side in one `tare wall` session (interleaved). git bisect run needs a threshold, so
# its side counts good and bad first, as a user must, and puts the limit halfway.
set -eu
: "${TARE:=build/tare}" "${BUILD:=build}"
runs=${RUNS:-3}
abs_tare=$(cd "$(dirname "$TARE")" && pwd)/$(basename "$TARE")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/cli/bisect_repo.sh
make_repo "$tmp/repo" > /dev/null
build='cc -O1 -o prog prog.c'

cat > "$tmp/tare-side.sh" <<EOF
cd "$tmp/repo" && echo x >> "$tmp/tare.runs"
"$abs_tare" bisect --good c1 --bad c40 --build '$build' --format json -- ./prog > "$tmp/tare.json"
EOF
cat > "$tmp/git-side.sh" <<EOF
cd "$tmp/repo" && echo x >> "$tmp/git.runs"
count() { git checkout -q "\$1" && $build && "$abs_tare" count --format tsv -- ./prog | \
awk -F'\t' 'NR == 2 { print \$3 }'; }
good=\$(count c1); bad=\$(count c40)
git checkout -q master
git bisect start c40 c1 > /dev/null
git bisect run sh -c '$build || exit 125; echo b >> "$tmp/git.builds"; \
"$abs_tare" count --fail-above '\$(( (good + bad) / 2 ))' -- ./prog > /dev/null 2>&1' \
> "$tmp/git.log" 2>&1
git bisect reset -q > /dev/null 2>&1 || git bisect reset > /dev/null 2>&1
EOF
echo "find commit 23 of 40 on instructions ($runs runs each, interleaved, after a warm-up)"
"$TARE" wall --runs "$runs" --format tsv --name tare-bisect --name git-bisect-run \
    "bash $tmp/tare-side.sh" "bash $tmp/git-side.sh" > "$tmp/wall.tsv"
awk -F'\t' 'NR > 1 { m[$1] = $4; printf "  %-15s median %.2f s\n", $1, $4 }
            END { printf "  ratio tare bisect / git bisect run: %.3f\n", m["tare-bisect"] / m["git-bisect-run"] }' "$tmp/wall.tsv"
tare_builds=$(/usr/bin/python3 -c "import json; print(json.load(open('$tmp/tare.json'))['builds'])")
tare_culprit=$(/usr/bin/python3 -c \
    "import json; print(json.load(open('$tmp/tare.json'))['culprit']['subject'])")
git_runs=$(wc -l < "$tmp/git.runs")
git_counts=$(( $(wc -l < "$tmp/git.builds") / git_runs + 2 ))
git_culprit=$(sed -n 's/^\([0-9a-f]*\) is the first bad commit.*/\1/p' "$tmp/git.log")
echo "  tare bisect: $tare_builds builds and counts, culprit '$tare_culprit'"
echo "  git bisect run: $git_counts builds and counts (2 to choose the limit), culprit" \
     "'$(git -C "$tmp/repo" log -1 --format=%s "$git_culprit")'"
