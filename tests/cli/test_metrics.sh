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

# --- wall: the counters of every measured run, once per series.
run_tare wall --runs 3 --format tsv "$F/vmstats 1000 env" "$F/vmstats 10 none"
expect_rc 0 "wall with counters"
expect_eq "$(tsv_field "$out" 1 metric.locals_pulls)" 3000 "wall TSV: locals_pulls"
expect_eq "$(tsv_field "$out" 1 metric.clone_env)" 7 "wall TSV: clone_env"
expect_eq "$(tsv_field "$out" 1 metrics_varied)" - "wall TSV: none varied"
expect_eq "$(tsv_field "$out" 2 metric.locals_pulls)" NA "wall TSV: none reported is NA"
run_tare wall --runs 3 "$F/vmstats 1000 env"
expect_match "$out" 'vmstats +locals_pulls +3,000 +same in all 3 runs' "wall text: a counter"
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
# calls never moved: no step to find.
run_tare bisect --good k1 --bad k12 --build 'cc -O1 -o prog prog.c' --metric metric.calls \
    -- ./prog
expect_match "$out" 'no step: no commit moved metric.calls by more than that \(good 50, bad 50' \
    "bisect on a counter that never moved: no step"
cd - > /dev/null || exit 1

done_testing
