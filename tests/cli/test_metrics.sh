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

done_testing
