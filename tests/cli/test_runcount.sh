# The run count by time: --min-runs, --max-runs and --min-time in tare wall and stat.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
PY=/usr/bin/python3
LOG=$TMP/runs.log
# jf JSON EXPR: a Python expression over the parsed JSON `d`.
jf() { $PY -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$2" <<<"$1"; }

# The default stays 7 runs after 1 warm-up, and says it stopped on the count.
run_tare wall --format json true
expect_rc 0 "wall, default count"
expect_eq "$(jf "$out" 'd["runs"], d["warmup"], d["runs_stopped"], d["min_time_s"]')" \
    "(7, 1, 'runs', None)" "7 runs after 1 warm-up, stopped on the count"

# --min-runs alone raises the count, --max-runs alone lowers it.
run_tare wall --min-runs 9 --warmup 0 --format tsv true
expect_eq "$(tsv_field "$out" 1 runs)" 9 "--min-runs 9 makes 9 runs"
run_tare wall --max-runs 2 --format json true
expect_eq "$(jf "$out" 'd["runs"], d["series"][0]["runs"], len(d["series"][0]["times"])')" \
    "(2, 2, 2)" "--max-runs 2 makes 2 runs"

# A time budget: at least --min-runs, and on until the runs took --min-time. It did not stop
# before its last run, so the runs before that one took less than the budget; a --conclude
# hook sees every run (warm-up included).
: > "$LOG"
run_tare wall --min-time 0.3 --min-runs 2 --warmup 1 --format json \
    --conclude "sh -c 'echo \$TARE_ITERATION >> $LOG'" -- "$F/sleeper" 0.04
expect_rc 0 "wall --min-time"
n=$(jf "$out" 'd["runs"]')
expect_eq "$(jf "$out" 'd["runs_stopped"], d["min_time_s"]')" "('min-time', 0.3)" \
    "stopped by the time, and says so"
check "at least --min-runs 2 ($n)" test "$n" -ge 2
expect_eq "$(jf "$out" 'len(d["series"][0]["times"])')" "$n" "one time per run"
expect_eq "$(jf "$out" 'sum(d["series"][0]["times"][:-1]) < 0.3')" True \
    "the runs before the last took less than the budget"
expect_eq "$(tr '\n' ' ' < "$LOG")" "-1 $(seq -s ' ' 1 "$n") " "the hooks saw every run"
run_tare wall --min-time 0.2 --warmup 0 -- "$F/sleeper" 0.04
expect_match "$out" "^[0-9]+ runs each \(--min-time 200 ms reached\) after 0 warm-up runs" \
    "the text says why the runs stopped"

# The cap comes first when the time is out of reach.
run_tare wall --min-time 60 --min-runs 2 --max-runs 3 --warmup 0 --format json true
expect_eq "$(jf "$out" 'd["runs"], d["runs_stopped"]')" "(3, 'max-runs')" \
    "--max-runs ends a budget out of reach"
run_tare wall --min-time 60 --min-runs 2 --max-runs 3 --warmup 0 true
expect_match "$out" "^3 runs each \(--max-runs reached before --min-time 60.0 s\)" \
    "the text says the cap ended it"

# Bad combinations are usage errors.
run_tare wall --runs 3 --min-runs 2 true
expect_rc 2 "--runs with --min-runs"
expect_match "$err" "--runs fixes the count" "the error says why"
run_tare wall --min-runs 5 --max-runs 3 true
expect_rc 2 "--min-runs above --max-runs"
expect_match "$err" "--min-runs 5 is above --max-runs 3" "the error names both"
run_tare wall --min-time 0 true
expect_rc 2 "--min-time 0"
run_tare wall --min-runs 0 true
expect_rc 2 "--min-runs 0"

# tare stat takes them too (software counters exist everywhere).
run_tare stat --event task-clock --min-runs 3 --warmup 0 --format json true
expect_rc 0 "stat --min-runs"
expect_eq "$(jf "$out" 'd["runs"], d["runs_stopped"], d["series"][0]["counters"][0]["runs"]')" \
    "(3, 'runs', 3)" "stat makes 3 runs"
run_tare stat --event task-clock --min-time 60 --max-runs 2 --warmup 0 true
expect_match "$out" "^2 runs each \(--max-runs reached before --min-time 60.0 s\)" "stat's text"

done_testing
