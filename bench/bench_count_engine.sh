# bench_count_engine.sh: tare count --engine cachegrind against --engine callgrind (today's
# pass), on 4 benchmarks (2 Python, 2 C), each pair side by side in one `tare wall` session
# (runs interleaved), then the 4 as one suite. Goal: cachegrind at most 0.7x of callgrind.
set -eu
: "${TARE:=build/tare}" "${BUILD:=build}"
ex=$BUILD/examples
for p in wordfreq sort; do
    [ -x "$ex/$p" ] || { echo "bench_count_engine: $ex/$p missing: run make demo first"; exit 1; }
done
py=/usr/bin/python3
[ -x "$py" ] || { echo "bench_count_engine: $py missing (Debian package python3)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-3}
abs_tare=$(cd "$(dirname "$TARE")" && pwd)/$(basename "$TARE")
cat > "$tmp/jsonwork.py" <<'PY'
import json
d = [{"k": i, "v": str(i) * 3, "l": [i, i + 1]} for i in range(20000)]
print(len(json.loads(json.dumps(d))))
PY
cat > "$tmp/loopwork.py" <<'PY'
s = 0
for i in range(300000):
    s += i * i % 7
print(s)
PY
names=(py-json py-loop c-wordfreq c-sort)
cmds=("$py $tmp/jsonwork.py" "$py $tmp/loopwork.py" "$ex/wordfreq" "$ex/sort 200000")

echo "tare count -j 1, --engine cachegrind vs --engine callgrind ($runs runs each, interleaved)"
printf '  %-12s %10s %10s %7s   %10s %10s %7s\n' benchmark callgrind cachegrind ratio \
    'cpu cg' 'cpu cach' ratio
for k in 0 1 2 3; do
    "$TARE" wall --runs "$runs" --warmup 0 --format tsv --name callgrind --name cachegrind \
        "$abs_tare count -j 1 --engine callgrind --format tsv -- ${cmds[$k]}" \
        "$abs_tare count -j 1 --engine cachegrind --format tsv -- ${cmds[$k]}" > "$tmp/w.tsv"
    # wall: median_s; CPU: user_s + sys_s (the median run's), less sensitive to other jobs.
    awk -F'\t' -v n="${names[$k]}" 'NR > 1 { m[$1] = $4; c[$1] = $8 + $9 }
        END { printf "  %-12s %9.2fs %9.2fs %7.3f   %9.2fs %9.2fs %7.3f\n", n, m["callgrind"],
              m["cachegrind"], m["cachegrind"] / m["callgrind"], c["callgrind"], c["cachegrind"],
              c["cachegrind"] / c["callgrind"] }' "$tmp/w.tsv"
done

echo "the 4 as one suite, -j 1 ($runs runs each, interleaved)"
suite="'${cmds[0]}' '${cmds[1]}' '${cmds[2]}' '${cmds[3]}'"
"$TARE" wall --runs "$runs" --warmup 0 --format tsv --name callgrind --name cachegrind --shell sh \
    "$abs_tare count -j 1 --engine callgrind $suite > /dev/null" \
    "$abs_tare count -j 1 --engine cachegrind $suite > /dev/null" > "$tmp/s.tsv"
awk -F'\t' 'NR > 1 { m[$1] = $4; c[$1] = $8 + $9; printf "  %-12s median %.2f s, cpu %.2f s\n", $1, $4, $8 + $9 }
    END { printf "  ratio cachegrind / callgrind: wall %.3f, cpu %.3f  (goal: at most 0.7)\n",
          m["cachegrind"] / m["callgrind"], c["cachegrind"] / c["callgrind"] }' "$tmp/s.tsv"
