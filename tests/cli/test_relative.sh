# tare wall's relative speed: each series against the fastest (or the reference), the ratio
# of medians and a 95% interval from the Hodges-Lehmann shift of log times (Mann-Whitney),
# checked against an independent computation in Python.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
PY=/usr/bin/python3
D=$TMP/d
jf() { $PY -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$2" <<<"$1"; }

# Python's own: the exact null distribution of U by counting orderings (integers), the
# critical value, the sorted differences of log times, their median and the interval.
cat > "$TMP/hl.py" <<'PYEOF'
import functools, json, math, sys
d = json.load(sys.stdin)
base = d["reference"] or [s for s in d["series"] if s["name"] == d["relative_to"]][0]
@functools.lru_cache(maxsize=None)
def count(m, n, u):   # orderings of m x's and n y's with U = u
    if u < 0: return 0
    if m == 0 or n == 0: return 1 if u == 0 else 0
    return count(m - 1, n, u - n) + count(m, n - 1, u)
bad = 0
for s in d["series"] + [d["reference"]]:
    if s is None or s is base or s["status"] != "ok": continue
    x = [math.log(t) for t in base["times"]]; y = [math.log(t) for t in s["times"]]
    m, n = len(x), len(y)
    diffs = sorted(b - a for a in x for b in y)
    k = len(diffs)
    est = diffs[k // 2] if k % 2 else (diffs[k // 2 - 1] + diffs[k // 2]) / 2
    total = math.comb(m + n, m); c = -1; cum = 0
    for u in range(m * n + 1):
        cum += count(m, n, u)
        if cum / total > 0.025: break
        c = u
    r = s["relative"]
    med = lambda v: (sorted(v)[len(v) // 2] if len(v) % 2
                     else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2)
    want = [med(s["times"]) / med(base["times"]), math.exp(est)]
    got = [r["ratio"], r["hl_ratio"]]
    if c >= 0:
        want += [math.exp(diffs[c]), math.exp(diffs[k - 1 - c]),
                 1 - 2 * sum(count(m, n, u) for u in range(c + 1)) / total]
        got += [r["ci_low"], r["ci_high"], r["confidence"]]
    for g, w in zip(got, want):
        if g is None or abs(g - w) > 1e-6 * abs(w):
            bad += 1
            print(s["name"], "got", got, "want", want, file=sys.stderr)
print(bad)
PYEOF

# Clearly apart: sleeps of 0.01 s against 0.3 s; the slower one is 'slower', the fastest is
# the base, with no comparison of its own.
run_tare wall --format json --runs 7 --warmup 0 -- "$F/sleeper" 0.3
one=$out
run_tare wall --format json --runs 7 --warmup 0 --name quick --name slow "$F/sleeper 0.01" \
    "$F/sleeper 0.3"
expect_rc 0 "two sleeps"
expect_eq "$(jf "$out" 'd["relative_to"], d["series"][0]["relative"]')" "('quick', None)" \
    "the fastest is the base"
expect_eq "$(jf "$out" 'd["series"][1]["relative"]["verdict"]')" slower \
    "0.3 s is slower than 0.01 s"
expect_eq "$($PY "$TMP/hl.py" <<<"$out")" 0 "ratio, estimate and interval as Python computes them"
expect_eq "$(jf "$one" 'd["relative_to"]')" None "one series: nothing to compare"
run_tare wall --runs 7 --warmup 0 --name quick --name slow "$F/sleeper 0.01" "$F/sleeper 0.3"
expect_match "$out" "^relative to the fastest 'quick' \(ratio of medians; 95% interval" \
    "text heading"
expect_match "$out" "^  slow +[0-9.]+× slower \([0-9.]+× to [0-9.]+×\)$" "text verdict"
expect_match "$out" "use tare ab\)$" "points to tare ab"

# Overlapping by construction: both series sleep 0.01 s on odd runs and 0.3 s on even runs
# (the prepare hook says which), so the interval straddles 1 whatever the load.
alt="if [ \$((TARE_ITERATION % 2)) = 0 ]; then echo 0.3; else echo 0.01; fi > $D"
run_tare wall --shell sh --format json --runs 6 --warmup 0 --name a --name b --prepare "$alt" \
    "$F/sleeper \$(cat $D)" "$F/sleeper \$(cat $D) x"
expect_rc 0 "alternating sleeps"
expect_eq "$(jf "$out" '[s["relative"]["verdict"] for s in d["series"] if s["relative"]]')" \
    "['same']" "no difference when the runs overlap"
expect_eq "$($PY "$TMP/hl.py" <<<"$out")" 0 "as Python computes it"
run_tare wall --shell sh --runs 6 --warmup 0 --name a --name b --prepare "$alt" \
    "$F/sleeper \$(cat $D)" "$F/sleeper \$(cat $D) x"
expect_match "$out" "\): no difference the runs can show$" "the words for no difference"

# Against the reference: every series, the reference's own entry null.
run_tare wall --format json --runs 5 --warmup 0 --reference "$F/sleeper 0.01" "$F/sleeper 0.3"
expect_eq \
    "$(jf "$out" 'd["relative_to"], d["reference"]["relative"], d["series"][0]["relative"]["verdict"]')" \
    "('sleeper', None, 'slower')" "compared with the reference"
expect_eq "$($PY "$TMP/hl.py" <<<"$out")" 0 "reference: as Python computes it"

# Too few runs for any interval: said, never a verdict.
run_tare wall --runs 3 --warmup 0 "$F/sleeper 0.01" "$F/sleeper 0.3"
expect_match "$out" "× \(too few runs for an interval: 4 or more each\)$" "three runs each"
run_tare wall --format json --runs 3 --warmup 0 "$F/sleeper 0.01" "$F/sleeper 0.3"
expect_eq \
    "$(jf "$out" '[s["relative"]["verdict"] for s in d["series"] if s["relative"]], d["series"][1]["relative"]["ci_low"]')" \
    "(['same'], None)" "no interval, no verdict"

# A failed series is left out of the comparison.
run_tare wall --format json --runs 4 --warmup 0 "$F/sleeper 0.01" "$F/exit3" "$F/sleeper 0.02"
expect_rc 1 "a failed series"
expect_eq "$(jf "$out" '[s["relative"] is None for s in d["series"]]')" "[True, True, False]" \
    "the failed series and the base have none"

done_testing
