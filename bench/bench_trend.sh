#!/usr/bin/env bash
# bench/bench_trend.sh: `tare trend`, `tare history check` and `tare history noise` on the seed's
# real history (27,202 rows), side by side in one hyperfine run with two anchors: one awk pass
# over the file (the floor: reading the TSV once) and a Python script computing the same noise
# figures (what the seed did by hand). Prints ratios, the page size and, where node and
# chromium are installed, the page's time to interactive in headless Chromium.
set -eu
: "${TARE:=build/tare}"
H=${HISTORY:-${TARE_DATA:-../shared/data}/mutsu-bench-history.tsv}
[ -r "$H" ] || { echo "bench_trend: no history at $H (set HISTORY)" >&2; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/noise.py" <<'PY'
import csv, sys, statistics
from collections import defaultdict
cols = {"mutsu_median_s": "median_s", "mutsu_min_s": "min_s", "ratio_mutsu_over_raku": "ratio",
        "raku_median_s": "ref_median_s"}
series = defaultdict(lambda: defaultdict(list))
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f, delimiter="\t"):
        for c, m in cols.items():
            if row.get(c) not in (None, "", "NA"):
                series[row["benchmark"]][m].append(float(row[c]))
for b, ms in series.items():
    for m, v in ms.items():
        ch = sorted(abs(v[i] / v[i - 1] - 1) for i in range(1, len(v)) if v[i - 1])
        if ch:
            print(b, m, len(ch), statistics.median(ch), statistics.quantiles(ch, n=10)[-1],
                  sep="\t")
PY

hyperfine -N -w 2 -r "${RUNS:-15}" --export-json "$tmp/h.json" \
    -n awk-pass "awk -F'\t' '{ s += \$4 } END { print s }' $H" \
    -n python-noise "python3 $tmp/noise.py $H" \
    -n tare-noise "$TARE history noise $H" \
    -n tare-check "$TARE history check $H" \
    -n tare-trend "$TARE trend $H -o $tmp/trend.html" > "$tmp/hyperfine.txt" 2>&1 || {
        cat "$tmp/hyperfine.txt"; exit 1; }

python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
a, p = r["awk-pass"], r["python-noise"]
# Wall medians move with the other jobs on a shared machine; user CPU time moves less.
print(f"{'command':14} {'median':>9} {'user':>9}  {'x awk (wall)':>12} {'x awk (user)':>12}  {'x python (user)':>15}")
for k, x in r.items():
    print(f"{k:14} {1e3 * x['median']:7.1f}ms {1e3 * x['user']:7.1f}ms  {x['median'] / a['median']:12.2f} "
          f"{x['user'] / a['user']:12.2f}  {x['user'] / p['user']:15.3f}")
PY
rows=$(($(wc -l < "$H") - 1))
echo "history rows: $rows"
echo "page size: $(stat -c %s "$tmp/trend.html") bytes"
if command -v node > /dev/null && [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
    res=$(timeout 90 node tests/cli/trend_browser.js "$tmp/trend.html" || true)
    node -e 'const o = JSON.parse(process.argv[1]); console.log("chromium: interactive " + o.interactive_ms +
        " ms after navigation (load event " + o.load_ms + " ms), " + o.charts + " charts, errors " + JSON.stringify(o.errors))' "$res"
fi
