# The program's own counters (the seed's MUTSU_VM_STATS) as tracked metrics: the fixture
# vmstats N counts 3N locals_pulls, N/10 env_flushes, N dispatches and 7 clone_env.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES

# --- count: TARE_METRICS_OUT (<tare/scope.h>'s TARE_METRIC), exact values in every format.
run_tare count --format tsv "$F/vmstats 1000 env" "$F/vmstats 2000 env" "$F/vmstats 100 none"
expect_rc 0 "count with counters through TARE_METRICS_OUT"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\tmetric.locals_pulls\tmetric.env_flushes\tmetric.dispatches\tmetric.clone_env\tmetrics_varied\tstatus')" \
    "count TSV: the counters as metric.NAME columns before status"
for row in 1 2; do
    n=$((row * 1000))
    expect_eq "$(tsv_field "$out" $row metric.locals_pulls)" $((3 * n)) "locals_pulls of $n"
    expect_eq "$(tsv_field "$out" $row metric.env_flushes)" $((n / 10)) "env_flushes of $n"
    expect_eq "$(tsv_field "$out" $row metric.dispatches)" $n "dispatches of $n"
    expect_eq "$(tsv_field "$out" $row metric.clone_env)" 7 "clone_env of $n"
    expect_eq "$(tsv_field "$out" $row metrics_varied)" - "no counter varied ($n)"
done
# A program that reports nothing: NA, never 0.
expect_eq "$(tsv_field "$out" 3 metric.locals_pulls)" NA "no counters: NA"
expect_eq "$(tsv_field "$out" 3 metrics_varied)" NA "no counters: metrics_varied NA"
run_tare count "$F/vmstats 1000 env" "$F/vmstats 100 none"
expect_match "$out" 'vmstats 1000 env +locals_pulls +3,000 +same in both runs' \
    "count text: a counter"
expect_match "$out" 'vmstats 100 none +- +NA +no counters found' "count text: none found is NA"
run_tare count --format json "$F/vmstats 1000 env"
expect_match "$out" '"metrics": \{"from": null, "runs": 2, "counters": \[\{"name": "locals_pulls", "value": 3000, "min": 3000, "max": 3000, "runs": 2, "deterministic": true\}' \
    "count JSON: a counter, exact"
# A program that never reports counters changes nothing in count's outputs.
run_tare count --format tsv "$F/vmstats 100 none"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\tstatus')" \
    "no counters, not asked: the TSV as before"

# --- --metrics-from: stderr (turned on by a lane's VM_STATS=1), stdout with a pattern, a file.
run_tare count --format tsv --metrics-from stderr -l stats:VM_STATS=1 -l plain: \
    "$F/vmstats 2000"
expect_rc 0 "count --metrics-from stderr"
expect_eq "$(tsv_field "$out" 1 metric.locals_pulls),$(tsv_field "$out" 1 metric.env_flushes),$(tsv_field "$out" 1 metric.dispatches),$(tsv_field "$out" 1 metric.clone_env)" \
    6000,200,2000,7 "stderr: every counter, exact (dispatches=2000 is NAME=INTEGER)"
expect_eq "$(tsv_field "$out" 2 metric.locals_pulls)" NA "the lane without VM_STATS: NA"
expect_match "$err" "note: 'vmstats\+plain': no counters found on stderr: they are NA" \
    "none found though asked: said, never 0"
run_tare count --format json --metrics-from stderr "$F/vmstats 10"
expect_match "$out" '"metrics": \{"from": "stderr", "runs": 0, "counters": null, "error": "no counters found", "where": "on stderr"\}' \
    "JSON: none found is null with the reason"
run_tare count --format tsv --metrics-from stdout --metrics-pattern '^([a-z_]+): ([0-9]+)$' \
    -l s:VM_STATS=1 "$F/vmstats 1000 stdout"
expect_eq "$(tsv_field "$out" 1 metric.locals_pulls)" 3000 "stdout with a pattern"
expect_no_match "$(head -n 1 <<<"$out")" 'metric\.dispatches' \
    "the pattern decides: dispatches=1000 is not its line"
echo "steps: 99" > "$TMP/stats.txt"
run_tare count --format tsv --metrics-from "$TMP/stats.txt" \
    "sh -c 'echo steps: 5 >> $TMP/stats.txt'"
expect_eq "$(tsv_field "$out" 1 metric.steps)" 5 "a file: emptied before each run, then read"
run_tare count --format tsv --metrics-from "$TMP/stats.txt" true
expect_eq "$(tsv_field "$out" 1 metrics_varied)" NA "a file left as it was by another run: NA"
run_tare count --metrics-from stderr --metrics-pattern '([a-z]+)' true
expect_rc 2 "a pattern without its two groups is bad usage"
expect_match "$err" "has 1 group: it needs two" "and says so"
run_tare count --metrics-pattern '(a)=(b)' true
expect_rc 2 "a pattern without --metrics-from is bad usage"
# A FIFO or a device is no file of counters: refused before any run, never waited on.
mkfifo "$TMP/fifo"
run_tare count --metrics-from "$TMP/fifo" true
expect_rc 2 "count --metrics-from a FIFO: refused, no hang"
expect_match "$err" "--metrics-from '.*/fifo': not a regular file" "and says so"
run_tare wall --runs 2 --metrics-from /dev/null true
expect_rc 2 "wall --metrics-from a device: refused"

# The clock: different in the two native runs: not deterministic, with both values.
run_tare count --format json --metrics-from stderr -l s:VM_STATS=1 "$F/vmstats 1000 clock"
expect_match "$out" '"name": "clock_ns", "value": [0-9.]+, "min": [0-9]+, "max": [0-9]+, "runs": 2, "deterministic": false' \
    "count JSON: the clock's counter is not deterministic"
expect_match "$out" '"name": "locals_pulls", "value": 3000, "min": 3000, "max": 3000, "runs": 2, "deterministic": true' \
    "and the others are"
run_tare count --metric clock_ns --fail-above 1 --metrics-from stderr -l s:VM_STATS=1 \
    "$F/vmstats 1000 clock"
expect_rc 125 "a varying counter is no count for --fail-above"
expect_match "$err" "its counter 'clock_ns' varied between runs" "and says why"

# The CI files carry the counters beside the counts (checked against the JSON, field by
# field: BMF, github-action-benchmark, JUnit); none found is a skipped JUnit case.
run_tare count --format json --metrics-from stderr -l s:VM_STATS=1 \
    --export-bmf "$TMP/b.json" --export-gab "$TMP/g.json" --export-junit "$TMP/j.xml" \
    -n clock -n quiet "$F/vmstats 1000 clock" "$F/vmstats 10 none"
printf '%s\n' "$out" > "$TMP/count.json"
if msg=$(/usr/bin/python3 "$(dirname "$0")/validate_export.py" count "$TMP/count.json" \
    "$TMP/b.json" "$TMP/g.json" "$TMP/j.xml" 2>&1); then ok; else not_ok "CI exports: $msg"; fi
expect_match "$(cat "$TMP/b.json")" \
    '"metric.locals-pulls": \{"value": 3000, "lower_value": 3000, "upper_value": 3000\}' \
    "BMF: the counter, its runs' range"
expect_match "$(tr -d '\n' < "$TMP/j.xml")" \
    'name="quiet\+s metrics"> *<skipped message="no counters found on stderr"' \
    "JUnit: none found, a skipped case saying so"

# --- ab --count: each counter judged, with its spread (3 count passes: 6 readings a side).
run_tare ab --count --count-runs 3 --metrics-from stderr --runs 6 \
    "env VM_STATS=1 $F/vmstats 1000 clock" "env VM_STATS=1 $F/vmstats 1000 clock 10"
expect_match "$out" 'locals_pulls +3,000 +3,300 +\+10\.0% +0\.00% +0\.00% +more' \
    "ab: a 10% step in one counter is more"
expect_match "$out" 'dispatches +1,000 +1,000 +\+0\.00% +0\.00% +0\.00% +same' \
    "ab: an unchanged counter is the same"
expect_match "$out" 'clock_ns .* (same|more|fewer) \(not deterministic: judged with its spread\)' \
    "ab: the clock judged with its spread"
# By default (2 count passes), a counter that varies where the counts do not (jitter: 100 ..
# 108) takes a third pass, 6 readings a side, and gets a verdict judged with its spread.
run_tare ab --count --metrics-from stderr --runs 6 --format json \
    "env VM_STATS=1 $F/vmstats 1000 jitter" "env VM_STATS=1 $F/vmstats 1000 jitter 10"
expect_match "$out" '"readings": "count", "runs_a": 6, "runs_b": 6' \
    "ab: a counter varies: a third count pass, 6 readings a side"
expect_match "$out" \
    '"name": "jitter"[^}]*"deterministic": false, "change": "same"' \
    "ab: and it is judged with its spread: the same"
expect_match "$out" '"name": "locals_pulls"[^}]*"deterministic": true, "change": "more"' \
    "ab: beside it, the 10% step in locals_pulls"
# One count pass a side (2 readings), as asked: a counter that varies has no verdict, one that
# does not has.
run_tare ab --count --count-runs 1 --metrics-from stderr --runs 6 \
    "env VM_STATS=1 $F/vmstats 1000 clock" "env VM_STATS=1 $F/vmstats 1000 clock 10"
expect_match "$out" \
    'clock_ns .* unknown: it varies: .* 6 readings a side at least \(--count-runs 3\)' \
    "ab: the clock in 2 readings a side: unknown, and what would judge it"
expect_match "$out" 'locals_pulls +3,000 +3,300 +\+10\.0% +0\.00% +0\.00% +more' \
    "ab: a deterministic counter judged from 2 readings a side"
run_tare ab --count --metrics-from stderr --runs 6 --format json \
    "env VM_STATS=1 $F/vmstats 1000" "env VM_STATS=1 $F/vmstats 1000 stderr 10"
expect_match "$out" '"readings": "count", "runs_a": 4, "runs_b": 4' \
    "ab JSON: four readings a side from the count pass"
expect_match "$out" '\{"name": "locals_pulls", "a": 3000, "b": 3300, "ratio": 1.1, "spread_a": 0, "spread_b": 0, "min_a": 3000, "max_a": 3000, "min_b": 3300, "max_b": 3300, "deterministic": true, "change": "more"\}' \
    "ab JSON: the counter's verdict"

# --- wall: the counters of every measured run, once per series.
run_tare wall --runs 3 --format tsv "$F/vmstats 1000 env" "$F/vmstats 10 none"
expect_rc 0 "wall with counters"
expect_eq "$(tsv_field "$out" 1 metric.locals_pulls)" 3000 "wall TSV: locals_pulls"
expect_eq "$(tsv_field "$out" 1 metric.clone_env)" 7 "wall TSV: clone_env"
expect_eq "$(tsv_field "$out" 1 metrics_varied)" - "wall TSV: none varied"
expect_eq "$(tsv_field "$out" 2 metric.locals_pulls)" NA "wall TSV: none reported is NA"
run_tare wall --runs 3 "$F/vmstats 1000 env"
expect_match "$out" 'vmstats +locals_pulls +3,000 +same in all 3 runs' "wall text: a counter"
run_tare wall --runs 3 --metrics-from stderr --format tsv -l s:VM_STATS=1 "$F/vmstats 1000 clock"
expect_eq "$(tsv_field "$out" 1 metrics_varied)" clock_ns "wall: the clock's counter varied"
expect_eq "$(tsv_field "$out" 1 metric.env_flushes)" 100 "wall: the others exact"
run_tare wall --runs 3 --metrics-from stderr -l s:VM_STATS=1 "$F/vmstats 1000 clock"
expect_match "$out" 'clock_ns +[0-9,]+ +not deterministic: [0-9,]+ \.\. [0-9,]+ over 3 runs' \
    "wall text: not deterministic, with its range"
# --output pipe (hyperfine's): stdout read through a pipe, its counters from the pipe.
run_tare wall --runs 3 --output pipe --metrics-from stdout --format tsv \
    "env VM_STATS=1 $F/vmstats 1000 stdout"
expect_eq "$(tsv_field "$out" 1 metric.locals_pulls),$(tsv_field "$out" 1 metric.dispatches)" \
    3000,1000 "wall --output pipe --metrics-from stdout: the counters from the pipe"
run_tare wall --runs 2 --format json "$F/vmstats 1000 env"
expect_match "$out" '"name": "dispatches", "value": 1000, "min": 1000, "max": 1000, "runs": 2, "deterministic": true' \
    "wall JSON: a counter"

# --- run: the suite's keys, beside the lane's environment; count.tsv gets metric.NAME columns.
S=$TMP/suite
mkdir -p "$S/b"
touch "$S/b/1000.n" "$S/b/2000.n"
cat > "$S/suite.ini" <<EOF
[suite]
command = $F/vmstats {name}
benchmarks = b/*.n

[lane stats]
env = VM_STATS=1
metrics = stderr

[lane plain]
EOF
run_tare run --count --history "$S/h" --commit c1 "$S/suite.ini"
expect_rc 0 "run with a lane's metrics = stderr"
ct=$(cat "$S/h/count.tsv")
expect_match "$(head -n 1 <<<"$ct")" \
    "$(printf 'engine\tmetric.locals_pulls\tmetric.env_flushes\tmetric.dispatches\tmetric.clone_env\tmetrics_varied$')" \
    "count.tsv: the counters after tare's columns"
for row in 1 3; do
    n=$(((row + 1) / 2 * 1000))
    expect_eq "$(tsv_field "$ct" $row metric.locals_pulls)" $((3 * n)) "count.tsv locals_pulls ($n)"
    expect_eq "$(tsv_field "$ct" $row metric.env_flushes)" $((n / 10)) "count.tsv env_flushes ($n)"
    expect_eq "$(tsv_field "$ct" $row metrics_varied)" - "count.tsv: none varied ($n)"
done
expect_eq "$(tsv_field "$ct" 2 metric.locals_pulls)" NA "the plain lane prints none: NA"
expect_eq "$(tsv_field "$ct" 2 metrics_varied)" NA "the plain lane: metrics_varied NA"

# A counter that changes from run to run (the clock): marked, with its spread, judged
# against its noise in history, never a verdict from one run.
cat > "$S/clock.ini" <<EOF
[suite]
command = $F/vmstats {name} clock
benchmarks = b/1000.n
metrics = stderr

[lane stats]
env = VM_STATS=1
EOF
run_tare run --count --history "$S/hc" --commit c1 "$S/clock.ini"
ct=$(cat "$S/hc/count.tsv")
expect_eq "$(tsv_field "$ct" 1 metrics_varied)" clock_ns "the clock's counter marked varied"
expect_eq "$(tsv_field "$ct" 1 metric.locals_pulls)" 3000 "its other counters still exact"
run_tare run --count "$S/clock.ini"
expect_match "$out" \
    '1000\+stats +clock_ns +[0-9,]+ +not deterministic: [0-9,]+ \.\. [0-9,]+ over 2 runs' \
    "run text: the varied counter with its spread"

# --- history: a 10% step in one counter over 20 commits: flagged by check, nothing else.
# The rows are real ones (two passes, the step's before and after), one a commit.
run_tare count --format tsv "$F/vmstats 1000 env"
before=$(tail -n 1 <<<"$out")
run_tare count --format tsv "$F/vmstats 1000 env 10"
after=$(tail -n 1 <<<"$out")
expect_eq "$(tsv_field "$out" 1 metric.locals_pulls)" 3300 "the step's after: 10% more pulls"
{
    printf 'date\tcommit\t%s\n' "$(head -n 1 <<<"$out" | sed 's/^name/benchmark/')"
    for i in $(seq 1 20); do
        row=$before
        [ "$i" -ge 12 ] && row=$after
        printf '2026-02-%02dT00:00:00Z\tc%02d\t%s\n' "$i" "$i" "$row"
    done
} > "$TMP/h20.tsv"
run_tare history check --commit c12 "$TMP/h20.tsv"
expect_rc 3 "history check: the counter's step is a regression"
expect_match "$out" 'vmstats +metric\.locals_pulls +3,000 +3,300 +\+10\.0% +2\.0%' \
    "the step, its values and the count threshold"
expect_no_match "$out" 'metric\.(env_flushes|dispatches|clone_env)|instructions  ' \
    "nothing else flagged"
for c in c11 c13 c20; do
    run_tare history check --commit $c "$TMP/h20.tsv"
    expect_rc 0 "history check at $c: no step"
done
run_tare history check --format json --commit c12 "$TMP/h20.tsv"
expect_match "$out" \
    '"benchmark": "vmstats", "metric": "metric.locals_pulls", "before": 3000, "after": 3300' \
    "history check JSON names the counter"
run_tare history noise "$TMP/h20.tsv"
expect_match "$out" 'vmstats +metric\.locals_pulls +19 ' "history noise: the counter's changes"
run_tare trend -o "$TMP/t.html" "$TMP/h20.tsv"
expect_rc 0 "trend with counters"
check "trend: the counter in the metric switch" \
    grep -q '"metrics":\[[^]]*"metric.locals_pulls"' "$TMP/t.html"
run_tare report --commit c12 "$TMP/h20.tsv"
expect_match "$out" 'metric\.locals_pulls' "report names the counter"

# --- bisect --metric NAME: the commit that moved a counter, in a repository built here.
. "$(dirname "$0")/bisect_repo.sh"
R=$TMP/krepo
make_counter_repo "$R"
json() { /usr/bin/python3 -c "import json, sys; j = json.load(sys.stdin); print($1)" <<<"$out"; }
cd "$R" || exit 1
run_tare bisect --good k1 --bad k12 --build 'cc -O1 -o prog prog.c' --metric steps \
    --format json -- ./prog
expect_rc 0 "bisect --metric steps"
expect_eq "$(json 'j["culprit"]["commit"]')" "$(git rev-parse k7)" \
    "bisect --metric: the culprit is commit 7"
expect_eq "$(json 'j["culprit"]["before"]'),$(json 'j["culprit"]["after"]')" 1000,1100 \
    "the counter before and after, exact"
expect_eq "$(json 'j["metric"]')" steps "the metric named"
# The same counter printed on stderr, turned on in the command's environment.
run_tare bisect --good k1 --bad k12 --build 'cc -O1 -o prog prog.c' --metric steps \
    --metrics-from stderr --format json -- env VM_STATS=1 ./prog
expect_eq "$(json 'j["culprit"]["commit"]')" "$(git rev-parse k7)" \
    "bisect --metrics-from stderr: commit 7"
# calls never moved: no step to find.
run_tare bisect --good k1 --bad k12 --build 'cc -O1 -o prog prog.c' --metric metric.calls \
    -- ./prog
expect_match "$out" 'no step: no commit moved metric.calls by more than that \(good 50, bad 50' \
    "bisect on a counter that never moved: no step"
cd - > /dev/null || exit 1

done_testing
