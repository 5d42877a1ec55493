# Parameters in tare count and the growth exponent: cost ~ n^k fitted on log-log over a
# numeric parameter, on a fixture whose counts grow as n, n log2 n and n^2.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
PY=/usr/bin/python3
jf() { $PY -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$2" <<<"$1"; }

# The exponent n log2 n shows over 1000, 1500, 2000: the least-squares slope of
# log(n log2 n) on log n, computed here by Python, not by tare.
nlogn=$($PY -c '
import math
xs = [1000, 1500, 2000]
X = [math.log(x) for x in xs]; Y = [math.log(x * math.log2(x)) for x in xs]
mx = sum(X) / 3; my = sum(Y) / 3
print(sum((a - mx) * (b - my) for a, b in zip(X, Y)) / sum((a - mx) ** 2 for a in X))')
check "n log2 n over 1000..2000 grows faster than n ($nlogn)" \
    $PY -c "import sys; sys.exit(not 1.1 < $nlogn < 1.2)"

run_tare count --format json --parameter-list kind linear,nlogn,square \
    --parameter-scan n 1000 2000 --parameter-step-size 500 "$F/growth {kind} {n}"
expect_rc 0 "count over kind and n"
expect_eq "$(jf "$out" 'len(d["series"]), [s["name"] for s in d["series"]][:4]')" \
    "(9, ['growth kind=linear n=1000', 'growth kind=linear n=1500', 'growth kind=linear n=2000', 'growth kind=nlogn n=1000'])" \
    "one series per combination, named by its values"
expect_eq \
    "$(jf "$out" '[(g["series"], g["parameter"], g["values"], g["from"], g["to"]) for g in d["growth"]]')" \
    "[('growth kind=linear', 'n', 3, '1000', '2000'), ('growth kind=nlogn', 'n', 3, '1000', '2000'), ('growth kind=square', 'n', 3, '1000', '2000')]" \
    "one fit per kind over the numeric parameter, none over the list of words"
# exp KIND METRIC: the fitted exponent.
exp() { jf "$out" \
    "[g for g in d['growth'] if g['series'] == 'growth kind=$1'][0]['$2']['exponent']"; }
near() {   # near GOT WANT TOL DESC
    check "$4: $1 within $3 of $2" $PY -c "import sys; sys.exit(not abs($1 - $2) <= $3)"
}
near "$(exp linear instructions)" 1 0.02 "instructions of n"
near "$(exp nlogn instructions)" "$nlogn" 0.02 "instructions of n log2 n"
near "$(exp square instructions)" 2 0.02 "instructions of n^2"
# Allocations are exactly n in every kind, bytes exactly 64 n or n^2: exact exponents.
for k in linear nlogn square; do
    near "$(exp $k allocations)" 1 1e-9 "allocations of $k"
done
near "$(exp linear bytes)" 1 1e-9 "bytes of 64 n"
near "$(exp square bytes)" 2 1e-9 "bytes of n^2"
check "fits are near perfect (R^2 above 0.999)" $PY -c "
import json, sys; d = json.loads(sys.argv[1])
sys.exit(not all(g[m]['r2'] > 0.999 for g in d['growth'] for m in ('instructions', 'allocations', 'bytes')))" "$out"

# The text says it as a fact, one line per count.
run_tare count --parameter-scan n 1000 2000 --parameter-step-size 500 "$F/growth square {n}"
expect_rc 0 "text"
expect_match "$out" \
    "^growth of 'growth' over n from 1000 to 2000 \(3 values; least squares on log-log\):$" \
    "the growth heading"
expect_match "$out" "^  instructions grow as n\^2\.0[0-2] \(fit R\^2 [01]\.[0-9]{6}\)$" \
    "instructions line"
expect_match "$out" "^  bytes grow as n\^2\.00 \(fit R\^2 1\.000000\)$" "bytes line"

# TSV: the series table, a blank line, then the growth table.
run_tare count --format tsv --parameter-scan n 1000 2000 --parameter-step-size 500 \
    "$F/growth linear {n}"
expect_eq "$(awk 'NF == 0 { blank = NR } END { print blank }' <<<"$out")" 5 \
    "a blank line after 3 series"
expect_eq "$(sed -n 6p <<<"$out")" "series	parameter	values	from	to	metric	exponent	r2" \
    "growth header"
expect_match "$(sed -n 8p <<<"$out")" "^growth	n	3	1000	2000	allocations	1	1$" "allocations row"

# A series that fails at one value (its hook does) gets no fit, and says where.
run_tare count --format json --parameter-list n 10,20,30 --prepare "test {n} != 20" \
    "$F/growth linear {n}"
expect_rc 1 "a failing value"
expect_eq "$(jf "$out" 'd["growth"][0]["instructions"]')" \
    "{'exponent': None, 'r2': None, 'why': 'the series failed at n=20'}" "no fit, and why"
# Two values, or words, make no fit.
run_tare count --format json --parameter-list n 10,20 "$F/growth linear {n}"
expect_eq "$(jf "$out" 'd["growth"]')" "[]" "two values: no fit"
run_tare count --format json --parameter-list kind linear,nlogn,square "$F/growth {kind} 10"
expect_eq "$(jf "$out" 'len(d["series"]), d["growth"]')" "(3, [])" "words: no fit"

done_testing
