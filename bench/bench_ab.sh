#!/usr/bin/env bash
# bench/bench_ab.sh: tare ab (20 pairs, interleaved A B, B A, ...) against hyperfine's
# sequential runs of the same commands (20 each, all of A then all of B) judged by a Welch
# t-test, side by side in one run: how often identical commands are called different
# (A/A false positives), how often a small real change is found, and the smallest change
# each could have detected. Run from the repo root; TARE names the binary.
#   TRIALS_AA (default 16), TRIALS (default 8), BUSY_N (default 100), CHANGES (default "3"),
#   KEEP_JSON=DIR keeps each A/A trial's tare ab JSON there (for bench/ab_aa.py)
set -eu
TARE=${TARE:-build/tare}
BUILD=${BUILD:-build}
BUSY=$BUILD/fixtures/busy
TRIALS_AA=${TRIALS_AA:-16}
TRIALS=${TRIALS:-8}
N=${BUSY_N:-100}          # busy N spins N million iterations: ~40 ms here
CHANGES=${CHANGES:-3}  # percent more work for B; integer millions, so N*(100+c)/100
PAIRS=20
for t in hyperfine python3; do
    command -v $t >/dev/null || { echo "bench_ab: needs $t (scripts/install-deps bench)" >&2; \
        exit 1; }
done
[ -x "$BUSY" ] || { echo "bench_ab: no $BUSY (make $BUSY)" >&2; exit 1; }
case $TARE in /*) ;; *) TARE=$PWD/$TARE ;; esac
BUSY=$(cd "$(dirname "$BUSY")" && pwd)/busy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The Welch test on hyperfine's export, and tare's JSON, reduced to one line each:
# "called direction resolution" (called: 1 if p < 0.05 / verdict not same).
cat > "$tmp/judge.py" <<'PY'
import json, math, sys

def betacf(a, b, x):
    # Continued fraction for the regularized incomplete beta (Lentz's method).
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > 1e-300 else 1e-300)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d; d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1 + aa / c if abs(1 + aa / c) > 1e-300 else 1e-300
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d; d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1 + aa / c if abs(1 + aa / c) > 1e-300 else 1e-300
        de = d * c
        h *= de
        if abs(de - 1) < 1e-12:
            break
    return h

def ibeta(a, b, x):
    if x <= 0: return 0.0
    if x >= 1: return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b

def t_two_sided_p(t, df):
    return ibeta(df / 2, 0.5, df / (df + t * t))

def t_crit(df, alpha=0.05):
    lo, hi = 0.0, 100.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_two_sided_p(mid, df) > alpha: lo = mid
        else: hi = mid
    return (lo + hi) / 2

kind, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
if kind == "hyperfine":
    a, b = d["results"][0]["times"], d["results"][1]["times"]
    na, nb = len(a), len(b)
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((x - ma) ** 2 for x in a) / (na - 1)
    vb = sum((x - mb) ** 2 for x in b) / (nb - 1)
    se = math.sqrt(va / na + vb / nb)
    t = (mb - ma) / se
    df = (va / na + vb / nb) ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    p = t_two_sided_p(abs(t), df)
    called = 1 if p < 0.05 else 0
    direction = "slower" if mb > ma else "faster"
    print(called, direction if called else "same", t_crit(df) * se / ma, mb / ma)
else:
    called = 0 if d["verdict"] == "same" else 1
    print(called, d["verdict"], d["detectable"] if d["detectable"] is not None else "inf",
          d["ratio"])
PY

one_trial() {   # one_trial B_ARG ORDER: prints "tare: ..." and "hyperfine: ..." lines
    local b=$1 order=$2
    run_tare() {
        "$TARE" ab --pairs $PAIRS --format=json "$BUSY $N" "$BUSY $b" > "$tmp/tare.json"
        if [ -n "${KEEP_JSON:-}" ] && [ "$b" = "$N" ]; then
            mkdir -p "$KEEP_JSON"
            cp "$tmp/tare.json" "$KEEP_JSON/aa_$(date +%s%N).json"
        fi
        echo "tare $(python3 "$tmp/judge.py" tare "$tmp/tare.json")"
    }
    run_hf() {
        hyperfine -N --style none --warmup 1 --runs $PAIRS --export-json "$tmp/hf.json" \
            "$BUSY $N" "$BUSY $b" > /dev/null 2>&1
        echo "hyperfine $(python3 "$tmp/judge.py" hyperfine "$tmp/hf.json")"
    }
    # Take turns going first, so neither method always gets the quieter moment.
    if [ "$order" -eq 0 ]; then run_tare; run_hf; else run_hf; run_tare; fi
}

printf \
    'bench_ab: busy %s vs busy N*(1+c), %d pairs (tare ab) vs %d+%d sequential runs (hyperfine -N, Welch t-test, p < 0.05)\n' \
    \
    "$N" $PAIRS $PAIRS $PAIRS
printf 'commit %s, %s, load %s\n' "$(git rev-parse --short HEAD 2>/dev/null || echo '?')" \
    "$(date -u +%FT%TZ)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-10s %7s %9s %12s %18s\n' change method trials called "called right" \
    "median resolution"
t0=$SECONDS
for c in 0 $CHANGES; do
    b=$((N * (100 + c) / 100))
    trials=$([ "$c" -eq 0 ] && echo "$TRIALS_AA" || echo "$TRIALS")
    : > "$tmp/res"
    for i in $(seq "$trials"); do
        one_trial "$b" $((i % 2)) >> "$tmp/res"
    done
    want=$([ "$c" -eq 0 ] && echo same || echo slower)
    for m in tare hyperfine; do
        awk -v m=$m -v c="$c" -v want=$want '
            $1 == m { n++; called += $2; right += ($3 == want); res[n] = $4 }
            END {
                # median resolution
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (res[j] < res[i]) { t = res[i]; res[i] = res[j]; res[j] = t }
                med = n % 2 ? res[(n + 1) / 2] : (res[n / 2] + res[n / 2 + 1]) / 2
                label = c == 0 ? "A/A" : "+" c "%"
                printf "%-8s %-10s %7d %8.0f%% %11.0f%% %17.1f%%\n", label, m, n, 100 * called / n, 100 * right / n, 100 * med
            }' "$tmp/res"
    done
done
echo "(called: tare said faster/slower, Welch p < 0.05; called right: tare's verdict, or Welch's direction, is the truth;"
echo " resolution: tare's 'detectable', Welch's t_crit * standard error over A's mean; $((SECONDS - t0)) s)"
