# tare wall --counters: counter medians beside the times; 'unavailable' where the machine has none.
. "$(dirname "$0")/lib.sh"

has_core_pmu=no
for d in cpu cpu_core cpu_atom; do
    [ -r "/sys/bus/event_source/devices/$d/type" ] && has_core_pmu=yes
done
col() {   # col TSV ROW NAME
    tsv_field "$1" "$2" "$3"
}

# Without --counters the TSV contract is unchanged.
run_tare wall --runs 1 -f tsv -- "$FIXTURES/busy" 1
expect_rc 0 "wall plain"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\truns\tmedian_s\tmin_s\tmax_s\tmad_s\tuser_s\tsys_s\tmax_rss_kb\tref_median_s\tratio\tstatus')" \
    "plain header"

run_tare wall --counters --runs 3 -f tsv "$FIXTURES/touchmem 8" "$FIXTURES/touchmem 40" --name \
    small --name big
expect_rc 0 "wall --counters"
expect_eq "$(head -n 1 <<<"$out" | cut -f 1-13)" \
    "$(printf 'name\tlane\truns\tmedian_s\tmin_s\tmax_s\tmad_s\tuser_s\tsys_s\tmax_rss_kb\tref_median_s\tratio\tstatus')" \
    "the 13 columns first"
expect_match "$(head -n 1 <<<"$out")" \
    "	status	(cpu_core/|cpu_atom/)?cycles	.*	task-clock	page-faults	context-switches$" \
    "then one per counter"
pf_small=$(col "$out" 1 page-faults)
pf_big=$(col "$out" 2 page-faults)
check "page faults beside the times grow with memory ($pf_small -> $pf_big)" awk -v a="$pf_small" \
    -v b="$pf_big" 'BEGIN { exit !(b - a > 32 * 200) }'
expect_match "$(col "$out" 1 median_s)" '^[0-9.e-]+$' "the times are still there"
if [ "$has_core_pmu" = no ]; then
    expect_eq "$(col "$out" 1 cycles)" NA "cycles NA, never 0"
    expect_eq "$(col "$out" 1 instructions)" NA "instructions NA"
    expect_match "$err" \
        "^tare wall: note: cannot count 'cycles', 'instructions'.*no hardware counters.*perf_event_open: " \
        "the clear word"
    expect_match "$err" "tare wall: note: perf_event_paranoid is [0-9-]+: " "the setting"
fi

run_tare wall --counters --runs 2 -- "$FIXTURES/touchmem" 8
expect_rc 0 "text"
expect_match "$out" "^counters, user space only:" "counters table"
expect_match "$out" "page-faults +[0-9,]+$" "page faults in text"
if [ "$has_core_pmu" = no ]; then
    expect_match "$out" "^cycles +unavailable$" "unavailable in text"
fi

run_tare wall --counters --runs 2 -f json -- "$FIXTURES/touchmem" 8
expect_match "$out" '"counters": \{.*"page-faults": [0-9]+' "json counters"
if [ "$has_core_pmu" = no ]; then
    expect_match "$out" '"cycles": null' "json null where unavailable"
fi

# A failed series has NA counters too.
run_tare wall --counters --runs 2 -f tsv -- "$FIXTURES/exit3"
expect_rc 1 "failing command"
expect_eq "$(col "$out" 1 page-faults)" NA "failed: NA"
done_testing
