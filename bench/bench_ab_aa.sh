#!/usr/bin/env bash
# bench/bench_ab_aa.sh: why tare ab calls identical commands different, with data. Runs the
# same command on both sides (A/A): TRIALS fresh runs of 20 pairs as a user would run them
# (busy BUSY_N), and LONG runs of LONG_PAIRS pairs (busy LONG_N), then bench/ab_aa.py:
# the position effect (is the second run of a pair faster?), its serial dependence, and
# the A/A and +3% (shift model) rates of four ordering rules rebuilt from the same runs.
# Run from the repo root; TARE names the binary.
#   TRIALS (default 40), BUSY_N (100), LONG (2), LONG_PAIRS (400), LONG_N (30)
set -eu
TARE=${TARE:-build/tare}
BUILD=${BUILD:-build}
BUSY=$BUILD/fixtures/busy
TRIALS=${TRIALS:-40}
N=${BUSY_N:-100}
LONG=${LONG:-2}
LONG_PAIRS=${LONG_PAIRS:-400}
LONG_N=${LONG_N:-30}
command -v python3 >/dev/null || { echo "bench_ab_aa: needs python3" >&2; exit 1; }
[ -x "$BUSY" ] || { echo "bench_ab_aa: no $BUSY (make $BUSY)" >&2; exit 1; }
case $TARE in /*) ;; *) TARE=$PWD/$TARE ;; esac
BUSY=$(cd "$(dirname "$BUSY")" && pwd)/busy
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'bench_ab_aa: %d fresh A/A runs of 20 pairs (busy %s), %d runs of %d pairs (busy %s)\n' \
    "$TRIALS" "$N" "$LONG" "$LONG_PAIRS" "$LONG_N"
printf 'commit %s, %s, load %s\n' "$(git rev-parse --short HEAD 2>/dev/null || echo '?')" \
    "$(date -u +%FT%TZ)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
t0=$SECONDS
for i in $(seq "$TRIALS"); do
    "$TARE" ab --pairs 20 --format=json "$BUSY $N" "$BUSY $N" > "$tmp/fresh_$i.json"
done
for i in $(seq "$LONG"); do
    "$TARE" ab --pairs "$LONG_PAIRS" --format=json "$BUSY $LONG_N" "$BUSY $LONG_N" > \
        "$tmp/long_$i.json"
done
echo
echo "== fresh runs: tare ab's own verdicts"
python3 -c 'import json, sys
v = [json.load(open(f))["verdict"] for f in sys.argv[1:]]
print("same %d, slower %d, faster %d of %d" % (v.count("same"), v.count("slower"), v.count("faster"), len(v)))' \
    "$tmp"/fresh_*.json
echo
echo "== fresh runs, one window each"
python3 "$here/ab_aa.py" --step 20 "$tmp"/fresh_*.json
if [ "$LONG" -gt 0 ]; then
    echo
    echo "== long runs, 20-pair windows starting every 2 pairs"
    python3 "$here/ab_aa.py" --step 2 "$tmp"/long_*.json
fi
echo "($((SECONDS - t0)) s)"
