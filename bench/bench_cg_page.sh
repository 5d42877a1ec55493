#!/usr/bin/env bash
# bench/bench_cg_page.sh: `tare cg folded`, `tare cg dot` and `tare cg page` on the 27 MB cc1
# profile of bench/cg_profile.sh, side by side with `tare cg top` (the read alone: the floor)
# in one hyperfine run; prints the ratios, the page's size (the issue's bound: under 5 MB)
# and, where node and chromium are installed, the time the page's script takes to draw it.
set -eu
: "${TARE:=build/tare}" "${BUILD:=build}"
prof=$(bash bench/cg_profile.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v hyperfine > /dev/null || { echo "bench_cg_page: needs hyperfine" >&2; exit 1; }
hyperfine --warmup 1 --runs 5 --export-json "$tmp/h.json" -N \
    "$TARE cg top $prof" \
    "$TARE cg folded $prof" \
    "$TARE cg dot $prof" \
    "$TARE cg page $prof -o $tmp/cc1.html" > /dev/null
/usr/bin/python3 - "$tmp/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["median"]
for x in r:
    print(f"{x['command'].split()[2]:7s} median {x['median'] * 1000:8.1f} ms  {x['median'] / base:5.2f}x cg top")
PY
"$TARE" cg folded "$prof" > "$tmp/folded"
echo "folded: $(wc -l < "$tmp/folded") lines, $(wc -c < "$tmp/folded") bytes"
echo "page: $(wc -c < "$tmp/cc1.html") bytes (bound: 5,000,000)"
if command -v node > /dev/null && [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
    node tests/cli/cg_page_browser.js "$tmp/cc1.html" "" |
        /usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); print("page script:", d.get("script_ms"), "ms; errors:", d.get("errors"))'
fi
