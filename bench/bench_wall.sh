# bench_wall.sh: tare wall against hyperfine -N, side by side in one run.
# 1. Per-run overhead on /bin/true: each tool's median for `true`, interleaved in rounds.
# 2. Agreement on a ~50 ms command: each tool's median within the other's spread.
set -eu
: "${TARE:=build/tare}" "${BUILD:=build}"
command -v hyperfine >/dev/null || { echo \
    "bench_wall: hyperfine is not installed (Debian package hyperfine)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-500}
rounds=${ROUNDS:-5}
true_bin=$(command -v true)

echo "overhead: median of $runs runs of $true_bin, $rounds rounds, tools alternating"
for r in $(seq "$rounds"); do
    "$TARE" wall --runs "$runs" -w 10 -f tsv -- "$true_bin" | awk -F'\t' 'NR == 2 { print $4 }' \
        >> "$tmp/tare"
    hyperfine -N -w 10 -r "$runs" --export-json "$tmp/h.json" "$true_bin" >/dev/null 2>&1
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' \
        "$tmp/h.json" >> "$tmp/hf"
done
python3 - "$tmp/tare" "$tmp/hf" <<'PY'
import statistics, sys
t = [float(x) for x in open(sys.argv[1])]
h = [float(x) for x in open(sys.argv[2])]
ratios = [a / b for a, b in zip(t, h)]
print(f"  tare wall median of medians: {statistics.median(t)*1e6:8.1f} us   (rounds: {' '.join(f'{x*1e6:.0f}' for x in t)})")
print(f"  hyperfine -N median of medians: {statistics.median(h)*1e6:5.1f} us   (rounds: {' '.join(f'{x*1e6:.0f}' for x in h)})")
print(f"  ratio tare / hyperfine per round: {' '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}")
PY

busy=$BUILD/fixtures/busy
[ -x "$busy" ] || { echo "bench_wall: $busy missing: run make check or make $busy first"; exit 1; }
n=${BUSY_N:-125}
echo "agreement: $busy $n (about 50 ms), 20 runs each, tools alternating"
for r in 1 2 3; do
    "$TARE" wall --runs 20 -f json -- "$busy" "$n" > "$tmp/t.json"
    hyperfine -N -w 1 -r 20 --export-json "$tmp/h.json" "$busy $n" >/dev/null 2>&1
    python3 - "$tmp/t.json" "$tmp/h.json" <<'PY'
import json, statistics, sys
t = json.load(open(sys.argv[1]))["series"][0]
h = json.load(open(sys.argv[2]))["results"][0]
tm, hm = t["median_s"], h["median"]
tsd, hsd = statistics.stdev(t["times"]), h["stddev"]
ok = abs(tm - hm) <= max(tsd, hsd)
print(f"  tare {tm*1e3:.2f} ms (sd {tsd*1e3:.2f})  hyperfine {hm*1e3:.2f} ms (sd {hsd*1e3:.2f})  "
      f"ratio {tm/hm:.3f}  {'within' if ok else 'OUTSIDE'} each other's spread")
PY
done
