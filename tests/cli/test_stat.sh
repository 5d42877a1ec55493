# tare stat: counters through perf_event_open. This machine may have no hardware counters:
# the unsupported path is checked where it has none, the counting path with software events.
. "$(dirname "$0")/lib.sh"

has_core_pmu=no
for d in cpu cpu_core cpu_atom; do
    [ -r "/sys/bus/event_source/devices/$d/type" ] && has_core_pmu=yes
done
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
page=$(getconf PAGESIZE)
per_mib=$((1048576 / page))                  # page faults per MiB touched, without huge pages
thp_always=no
grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null && thp_always=yes

# The median of one event of one series from --format=tsv output.
median_of() {   # median_of TSV EVENT
    awk -F'\t' -v ev="$2" 'NR > 1 && $3 == ev { print $4 }' <<<"$1"
}

# --- hardware counters: where there are none, say exactly that, exit 1, print no numbers
run_tare stat --runs 1 --warmup 0 -- "$FIXTURES/busy" 1
if [ "$has_core_pmu" = no ]; then
    expect_rc 1 "stat without hardware counters"
    expect_empty "$out" "no numbers on stdout without hardware counters"
    expect_match "$err" "^tare stat: cannot count 'cycles', 'instructions'" "names the events"
    expect_match "$err" "this machine has no hardware counters" "says the machine has none"
    expect_match "$err" "perf_event_open: [A-Z]" "gives the errno"
    expect_match "$err" "perf_event_paranoid is $paranoid: " "names the paranoid setting"
    expect_match "$err" "use 'tare count'" "suggests tare count"
    expect_match "$err" "software events work here: tare stat --event task-clock,page-faults" \
        "offers the software events"
    run_tare stat --runs 1 -e instructions -f tsv -- "$FIXTURES/busy" 1
    expect_rc 1 "one hardware event asked for"
    expect_empty "$out" "no TSV rows, not even a header"
    expect_match "$err" "cannot count 'instructions': this machine has no hardware counters" \
        "instructions alone"
else
    expect_rc 0 "stat with hardware counters"
    expect_match "$out" "instructions" "instructions counted"
fi

# --- page faults scale with memory touched: 32 MiB more is per_mib*32 more faults
# (command strings are split into words and looked up in PATH)
PATH="$FIXTURES:$PATH" run_tare stat --runs 3 -e page-faults,task-clock -f tsv 'touchmem 8' \
    'touchmem 40' \
    --name small --name big
expect_rc 0 "software events"
expect_eq "$(head -n 1 <<<"$out")" "$(printf 'name\tlane\tevent\tmedian\tmin\tmax\truns\tstatus')" \
    "TSV header"
expect_eq "$(wc -l <<<"$out")" 5 "one row per series and event"
expect_eq "$(awk -F'\t' 'NR > 1 { print NF }' <<<"$out" | sort -u)" 8 "8 columns on every row"
expect_eq "$(awk -F'\t' 'NR > 1 { print $7 "/" $8 }' <<<"$out" | sort -u)" "3/ok" "3 runs, ok"
small=$(awk -F'\t' '$1 == "small" && $3 == "page-faults" { print $4 }' <<<"$out")
big=$(awk -F'\t' '$1 == "big" && $3 == "page-faults" { print $4 }' <<<"$out")
diff_per_mib=$(awk -v a="$small" -v b="$big" 'BEGIN { printf "%.1f", (b - a) / 32 }')
check "page faults grow with memory ($small -> $big)" awk -v d="$diff_per_mib" -v p="$per_mib" \
    'BEGIN { exit !(d >= 1 && d <= p * 1.02) }'
if [ "$thp_always" = no ]; then
    check "one fault per page: $diff_per_mib per MiB, want $per_mib" awk -v d="$diff_per_mib" \
        -v p="$per_mib" 'BEGIN { exit !(d >= p * 0.95) }'
fi
tc=$(awk -F'\t' '$1 == "big" && $3 == "task-clock" { print $4 }' <<<"$out")
check "task-clock is a positive number of ns ($tc)" awk -v t="$tc" 'BEGIN { exit !(t > 0) }'

# --- counters follow into child processes and threads (inherit)
for mode in process thread; do
    extra=; [ $mode = thread ] && extra=thread
    run_tare stat --runs 2 -e page-faults -f tsv -- "$FIXTURES/forktouch" 16 1 $extra
    one=$(median_of "$out" page-faults)
    run_tare stat --runs 2 -e page-faults -f tsv -- "$FIXTURES/forktouch" 16 4 $extra
    four=$(median_of "$out" page-faults)
    expect_rc 0 "forktouch 4 ${mode}es"
    want=$((3 * 16 * per_mib))
    if [ "$thp_always" = no ]; then
        check "3 more ${mode}es touching 16 MiB: $one -> $four, want +$want" awk -v a="$one" \
            -v b="$four" -v w="$want" 'BEGIN { exit !(b - a >= w * 0.95 && b - a <= w * 1.05) }'
    else
        check "more ${mode}es, more faults: $one -> $four" awk -v a="$one" -v b="$four" \
            'BEGIN { exit !(b > a) }'
    fi
done

# --- context switches happen in the kernel: counted whole, or refused in words (never 0)
run_tare stat --runs 2 -e context-switches -f tsv -- "$FIXTURES/naps" 40
if [ "$(id -u)" = 0 ] || { [ "$paranoid" != unknown ] && [ "$paranoid" -le 1 ]; }; then
    expect_rc 0 "context switches"
    cs=$(median_of "$out" context-switches)
    check "40 naps give at least 40 context switches ($cs)" awk -v c="$cs" \
        'BEGIN { exit !(c >= 40) }'
else
    expect_rc 1 "context switches without the permission"
    expect_match "$err" "cannot count 'context-switches': it happens in the kernel" "says why"
fi

# --- the default list leaves out what the permission forbids and fails only for hardware
run_tare stat --runs 1 -e task-clock --format json -- "$FIXTURES/busy" 1
expect_rc 0 "json"
expect_match "$out" '^\{"runs": 1, "warmup": 1, "kernel": false, "pmus": \[' "json head"
expect_match "$out" '"event": "task-clock", "unit": "ns", "median": [0-9]' "json counter"
expect_match "$out" '"status": "ok", "min_running": 1, "values": \[[0-9]' "json status and values"

# --- a failing command: NA, never a number, exit 1
run_tare stat --runs 2 -e page-faults -f tsv -- "$FIXTURES/exit3"
expect_rc 1 "command exiting 3"
expect_eq "$(tail -n 1 <<<"$out")" "$(printf 'exit3\t-\tpage-faults\tNA\tNA\tNA\t0\tfailed')" \
    "failed row"
expect_match "$err" "'exit3' failed: exited with status 3 in warm-up run 1" "failure reason"
run_tare stat --runs 2 -e page-faults -i -f tsv -- "$FIXTURES/exit3"
expect_rc 0 "--ignore-failure"
run_tare stat --runs 2 -e page-faults -f tsv -- "$FIXTURES/crash"
expect_rc 1 "crashing command"
expect_match "$out" "failed$" "crash row failed"
run_tare stat --runs 1 -w 0 -t 0.3 -e task-clock -f tsv -- "$FIXTURES/sleeper" 10
expect_rc 1 "timeout"
expect_match "$out" "timeout$" "timeout row"
run_tare stat -e task-clock -- tare-no-such-command
expect_rc 2 "missing command"
expect_match "$err" "command not found" "missing command message"

# --- bad usage
run_tare stat -e bogus -- "$FIXTURES/busy" 1
expect_rc 2 "unknown event"
expect_match "$err" "unknown event 'bogus' \(known: cycles, instructions" \
    "unknown event lists the known"
run_tare stat -e task-clock,task-clock -- "$FIXTURES/busy" 1
expect_rc 2 "event twice"
run_tare stat -e cpu_core/task-clock -- "$FIXTURES/busy" 1
expect_rc 2 "software event with a PMU"
run_tare stat -e task-clock
expect_rc 2 "no command"
run_tare stat --runs 0 -- "$FIXTURES/busy" 1
expect_rc 2 "zero runs"
run_tare stat --format csv -- "$FIXTURES/busy" 1
expect_rc 2 "csv is not offered"
run_tare stat --pin -1 -- "$FIXTURES/busy" 1
expect_rc 2 "bad pin"

# --- pinning reaches the child; text output for people
cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, /[-,]/); print a[1] }' /proc/self/status)
run_tare stat --runs 1 -e task-clock,page-faults --pin "$cpu" -- "$FIXTURES/busy" 1
expect_rc 0 "--pin"
expect_match "$out" "^1 run each after 1 warm-up run \(not counted\); medians; user space only" \
    "text head"
expect_match "$out" "busy +task-clock +[0-9.]+ [mµn]?s" "text task-clock as a time"
run_tare stat --list-events
expect_rc 0 "--list-events"
expect_match "$out" "context-switches +software" "event list"
expect_match "$out" "perf_event_paranoid: $paranoid" "list shows paranoid"
done_testing
