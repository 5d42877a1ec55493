# tare run's count pass with a baseline: the suite's subtract = CMD or --subtract CMD, counted
# in the same pass and taken off each series (net_instructions, net_allocations, net_bytes in
# the table, the JSON and count.tsv, which history check and the trend page read as metrics).
# The fixture 'region N' runs hot(N), which allocates 16 bytes every 100 iterations.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
S=$TMP/suite
mkdir -p "$S/iters"
touch "$S/iters/1000.txt" "$S/iters/2000.txt"
collected() {   # callgrind's own count of hot(N) and what it calls
    valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.%p" --toggle-collect=hot "$@" 2>&1 |
        sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p'
}
json_field() { /usr/bin/python3 -c '
import json, sys
print(json.dumps(json.load(sys.stdin)["series"][int(sys.argv[1])].get(sys.argv[2], "absent")))' \
    "$2" "$3" <<<"$1"; }

printf '[suite]\ncommand = %s {name}\nbenchmarks = iters/*.txt\nsubtract = %s 0\n' "$F/region" \
    "$F/region" > "$S/sub.ini"
run_tare run --count --format tsv --history "$S/h" --commit c1 "$S/sub.ini"
expect_rc 0 "a suite with subtract ="
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'benchmark\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\tnet_instructions\tnet_allocations\tnet_bytes\tstatus')" \
    "TSV header with the net counts"
n1=$(tsv_field "$out" 1 net_instructions); n2=$(tsv_field "$out" 2 net_instructions)
t1=$(collected "$F/region" 1000); t2=$(collected "$F/region" 2000)
expect_eq "$((n2 - n1))" "$((t2 - t1))" \
    "net 2000 - net 1000 = callgrind's cost of 1000 iterations of hot ($((t2 - t1)))"
check "net is more than hot(1000) alone (the call and atol: $n1 >= $t1)" test "$n1" -ge "$t1"
check "net is less than the raw count" test "$n1" -lt "$(tsv_field "$out" 1 instructions)"
expect_eq "$(tsv_field "$out" 1 net_allocations),$(tsv_field "$out" 1 net_bytes)" "10,160" \
    "net allocations and bytes of hot(1000): 10 of 16 bytes"
expect_eq "$(tsv_field "$out" 2 net_allocations),$(tsv_field "$out" 2 net_bytes)" "20,320" \
    "net allocations and bytes of hot(2000)"
CT=$(cat "$S/h/count.tsv")
expect_eq "$(head -n 1 <<<"$CT")" \
    "$(printf 'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\tnet_instructions\tnet_allocations\tnet_bytes')" \
    "count.tsv header with the net counts"
expect_eq "$(tsv_field "$CT" 2 net_instructions)" "$n2" "count.tsv has the table's net count"
run_tare run --count "$S/sub.ini"
expect_match "$out" "net: the counts less those of the baseline '$F/region 0'" "text: the legend"
expect_match "$out" "net instr +net allocs +net bytes +status" "text: the net columns"

# JSON: the baseline's counts, raw = baseline + net.
run_tare run --count --format json "$S/sub.ini"
expect_eq "$(json_field "$out" 0 subtract)" "\"$F/region 0\"" "JSON names the baseline"
base=$(json_field "$out" 0 baseline_instructions); net=$(json_field "$out" 0 net_instructions)
expect_eq "$((base + net))" "$(json_field "$out" 0 instructions)" "raw = baseline + net"

# --subtract wins over the key; a template naming the benchmark is a baseline a series:
# the series itself, so net 0 in every column.
run_tare run --count --format json --subtract "$F/region {name}" "$S/sub.ini"
expect_rc 0 "--subtract with {name}"
for r in 0 1; do
    expect_eq "$(json_field "$out" $r net_instructions),$(json_field "$out" $r net_allocations)" \
        "0,0" "a baseline a series: net 0 (series $r)"
done
# A baseline larger than the series: NA, never a negative or 0, and not a failure.
run_tare run --count --format tsv --subtract "$F/region 5000" "$S/sub.ini"
expect_rc 0 "a larger baseline"
expect_eq "$(tsv_field "$out" 1 net_instructions)" NA "net NA where the baseline is larger"
# Lanes: one baseline a lane, run in the lane's environment (envwork does TARE_WORK thousand
# iterations: the same command as the baseline, net 0 in each lane).
mkdir -p "$S/one"
touch "$S/one/w.txt"
printf '[suite]\ncommand = %s\nbenchmarks = one/*.txt\nsubtract = %s\n' "$F/envwork" \
    "$F/envwork" > "$S/lanes.ini"
printf '[lane a]\nenv = TARE_WORK=1\n[lane b]\nenv = TARE_WORK=3\n' >> "$S/lanes.ini"
run_tare run --count --format tsv "$S/lanes.ini"
expect_rc 0 "lanes and a baseline"
expect_eq "$(tsv_field "$out" 1 net_instructions),$(tsv_field "$out" 2 net_instructions)" "0,0" \
    "each lane's baseline runs in that lane"
check "the lanes differ all the same" test "$(tsv_field "$out" 1 instructions)" -lt \
    "$(tsv_field "$out" 2 instructions)"
# A baseline that fails: exit 1, said, and the net counts NA.
run_tare run --count --format tsv --subtract "$F/printenv1" "$S/sub.ini"
expect_rc 0 "printenv1 exits 0 without TARE_TEST_EXIT"
printf '[lane bad]\nenv = TARE_TEST_EXIT=3\n' >> "$S/sub.ini"
run_tare run --count --format tsv --subtract "$F/printenv1" "$S/sub.ini"
expect_rc 1 "a failing baseline: exit 1"
expect_match "$err" "'baseline\+bad' count failed: " "the failing baseline named"
expect_eq "$(tsv_field "$out" 1 net_instructions)" NA "its series' net: NA"
# Bad templates: refused before anything runs.
run_tare run --count --subtract "a | b" "$S/lanes.ini"
expect_rc 2 "--subtract with shell syntax"
expect_match "$err" "^tare run: subtract: command 'a \| b': shell syntax" "shell syntax: message"
printf '[suite]\ncommand = x\nbenchmarks = one/*.txt\nsubtract =\n' > "$S/bad.ini"
run_tare run --count "$S/bad.ini"
expect_rc 2 "subtract = (empty)"
expect_match "$err" "line 4: 'subtract' is empty" "empty subtract: message"

# A second commit where both series run hot(1100): series 1000 does 10% more work, and
# history check alarms on its net instructions; the trend page offers the net counts.
printf '[suite]\ncommand = %s {name}\nbenchmarks = iters/*.txt\nsubtract = %s 0\n' "$F/region" \
    "$F/region" > "$S/sub.ini"
sed -i "s|^command = .*|command = $F/region 1100|" "$S/sub.ini"
run_tare run --count --history "$S/h" --commit c2 "$S/sub.ini"
expect_rc 0 "c2: hot(1100) in both series"
run_tare history check --format json "$S/h/count.tsv"
expect_rc 3 "history check alarms"
want="\"metric\": \"net_instructions\", \"before\": $n1, \"after\": [0-9]+"
expect_match "$out" "\{\"benchmark\": \"1000\", $want" \
    "the net instructions of series 1000 (hot(1000) to hot(1100))"
run_tare trend "$S/h/count.tsv" -o "$S/trend.html"
expect_rc 0 "trend"
expect_match "$(grep -o '"metrics":\[[^]]*\]' "$S/trend.html")" \
    '"net_instructions","net_allocations","net_bytes"' "the trend page offers the net counts"
check "the trend page labels them" grep -q 'net_instructions: "net instructions"' "$S/trend.html"
done_testing
