# tare count --subtract CMD: a baseline counted in the same pass and taken off each series.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
tmp=$TMP   # (a trap of its own here once left lib.sh's $TMP behind)
collected() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" --toggle-collect=hot "$@" 2>&1 |
        sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p'
}

# The same program with a zero-work argument as the baseline leaves the loop's cost.
run_tare count --format tsv --subtract "$F/region 0" "$F/region 1000" "$F/region 2000"
expect_rc 0 "count with a baseline"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\tnet_instructions\tnet_allocations\tnet_bytes\tstatus')" \
    "TSV header with --subtract"
n1=$(tsv_field "$out" 1 net_instructions); n2=$(tsv_field "$out" 2 net_instructions)
t1=$(collected "$F/region" 1000); t2=$(collected "$F/region" 2000)
expect_eq "$((n2 - n1))" "$((t2 - t1))" \
    "net 2000 - net 1000 = callgrind's loop cost of 1000 iterations"
# hot(N) allocates 16 bytes every 100 iterations; main's 5 allocations are the baseline's too.
expect_eq "$(tsv_field "$out" 1 net_allocations)" 10 "net allocations of hot(1000)"
expect_eq "$(tsv_field "$out" 2 net_allocations)" 20 "net allocations of hot(2000)"
expect_eq "$(tsv_field "$out" 1 net_bytes)" 160 "net bytes of hot(1000)"
raw=$(tsv_field "$out" 1 instructions)
check "net is the raw less the start-up ($n1 < $raw)" test "$n1" -lt "$raw"
check "net is more than the region alone (the call and atol: $n1 >= $t1)" test "$n1" -ge "$t1"
# The baseline's counts, and raw = baseline + net, in the JSON.
run_tare count --format json --subtract "$F/region 0" -- "$F/region" 1000
expect_match "$out" '"subtract": "[^"]*region 0"' "JSON names the baseline command"
base=$(sed -nE 's/.*"baseline_instructions": ([0-9]+).*/\1/p' <<<"$out")
inst=$(sed -nE 's/.*"instructions": ([0-9]+), "allocations".*/\1/p' <<<"$out")
net=$(sed -nE 's/.*"net_instructions": ([0-9]+).*/\1/p' <<<"$out")
expect_eq "$((base + net))" "$inst" "raw = baseline + net"
# A baseline larger than the series: NA, never a negative or 0.
run_tare count --format tsv --subtract "$F/region 5000" -- "$F/region" 1000
expect_rc 0 "a larger baseline is not a failure"
expect_eq "$(tsv_field "$out" 1 net_instructions)" NA "net NA where the baseline is larger"
expect_eq "$(tsv_field "$out" 1 net_allocations)" NA "net allocations NA likewise"
check "raw still counted" test "$(tsv_field "$out" 1 instructions)" -gt 0
# Lanes: one baseline a lane, in that lane's environment (envwork does TARE_WORK thousand
# iterations: the baseline with TARE_WORK=1 is the series' own cost in lane one).
run_tare count --format tsv --lane one:TARE_WORK=1 --lane two:TARE_WORK=2 --subtract "$F/envwork" \
    -- "$F/envwork"
expect_eq "$(tsv_field "$out" 1 net_instructions)" 0 \
    "a lane's baseline runs in that lane (same command: net 0)"
expect_eq "$(tsv_field "$out" 2 net_instructions)" 0 "and in lane two"
# Lanes and parameters: series are lane-major within a command, so the baseline of a series
# in lane two is lane two's whatever the combination (once taken from the wrong lane: NA in
# one, a made-up net of the lanes' 1,000 iterations in the other). The parameter is in the
# hook only, so each series runs as its lane's baseline does: net exactly 0. (An argument
# more would move the start-up by a few instructions either way, with the stack's layout.)
# The baseline runs none of the hooks.
run_tare count --format tsv --lane one:TARE_WORK=1 --lane two:TARE_WORK=2 -L n 1,2 \
    --prepare "sh -c 'echo {n} \$TARE_SERIES >> $TMP/prepared'" --subtract "$F/envwork" \
    -- "$F/envwork"
expect_rc 0 "lanes, a parameter and a baseline"
expect_eq "$(cut -f1 <<<"$out" | tail -n +2 | tr '\n' ,)" \
    "envwork+one n=1,envwork+one n=2,envwork+two n=1,envwork+two n=2," "the series, lane-major"
for r in 1 2 3 4; do
    expect_eq "$(tsv_field "$out" $r net_instructions)" 0 "series $r less its own lane's baseline"
done
check "the hooks ran for the series" grep -q "^1 envwork+two n=1$" "$TMP/prepared"
check "but not for the baselines" bash -c "! grep -q baseline '$TMP/prepared'"
run_tare count -L n 1,2 --subtract "$F/envwork {n}" -- "$F/envwork" "{n}"
expect_rc 2 "a parameter in the baseline is refused"
expect_match "$err" "parameters are not put in the baseline" "and says why"
# A failing baseline: the nets are NA and the exit status says a measurement failed.
run_tare count --format tsv --subtract "$F/exit3" -- "$F/region" 10
expect_rc 1 "a failing baseline is a failed measurement"
expect_eq "$(tsv_field "$out" 1 net_instructions)" NA "net NA when the baseline failed"
expect_match "$err" "'baseline' failed" "says the baseline failed"
# A baseline that cannot be run is bad input.
run_tare count --subtract "/nonexistent/base" -- "$F/region" 10
expect_rc 2 "a baseline that cannot run"
# Text: the nets beside the raw counts, and what they are.
run_tare count --subtract "$F/region 0" -- "$F/region" 1000
expect_match "$out" "net: the counts less those of the baseline" "text says what net is"
expect_match "$out" "net instr" "text column"

# CI files carry the net counts (BMF: net-instructions; NA left out, JUnit: skipped, why).
run_tare count --format tsv --subtract "$F/region 2000" --export-bmf "$TMP/net.json" \
    --export-junit "$TMP/net.xml" "$F/region 3000" "$F/region 1000"
expect_rc 0 "--subtract with CI exports"
bmf() { /usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1])).get(sys.argv[2], {}).get(sys.argv[3], {}).get("value", "absent"))' \
    "$TMP/net.json" "$1" "$2"; }
expect_eq "$(bmf "region 3000" net-instructions)" "$(tsv_field "$out" 1 net_instructions)" \
    "BMF: the net instructions"
expect_eq "$(bmf "region 3000" net-allocations)" "$(tsv_field "$out" 1 net_allocations)" \
    "BMF: the net allocations"
expect_eq "$(bmf "region 1000" net-instructions)" absent "BMF: an NA net left out, not 0"
check "JUnit: the NA net skipped, saying why" grep -q \
    "skipped message=\"NA: the baseline&apos;s count is the larger" "$TMP/net.xml"

# Real interpreters: the start-up is most of a short script's count, and --subtract takes it
# off. lua5.4 adding integers N and 2N times: the loop costs the same each iteration, so the
# raw counts differ by the loop's N iterations, and the net counts are those iterations and
# the script's own compile; without the baseline the start-up is most of raw(N).
for prog in lua5.4 /usr/bin/python3; do
    command -v "$prog" > /dev/null || not_ok "$prog is not installed (scripts/install-deps)"
done
lua_loop() { printf "lua5.4 -e 'local s = 0 for i = 1, %d do s = s + i end'" "$1"; }
run_tare count --format tsv --subtract "lua5.4 -e ''" "$(lua_loop 10000)" "$(lua_loop 20000)"
expect_rc 0 "lua5.4 with lua5.4 on an empty script as the baseline"
r1=$(tsv_field "$out" 1 instructions); r2=$(tsv_field "$out" 2 instructions)
n1=$(tsv_field "$out" 1 net_instructions); n2=$(tsv_field "$out" 2 net_instructions)
expect_eq "$((n2 - n1))" "$((r2 - r1))" "lua: the baseline taken off both alike"
check "lua: start-up is most of raw(N) (2 raw(N) - raw(2N) = $((2 * r1 - r2)) > raw(N) / 2)" \
    test $((2 * r1 - r2)) -gt $((r1 / 2))
check "lua: net(N) is the loop but for its compile (0 <= $((2 * n1 - n2)) < net(N) / 10)" \
    test $((2 * n1 - n2)) -ge 0 -a $((10 * (2 * n1 - n2))) -lt "$n1"
a1=$(tsv_field "$out" 1 allocations); na1=$(tsv_field "$out" 1 net_allocations)
check "lua: the start-up's allocations taken off ($na1 net of $a1, < 10%)" \
    test $((10 * na1)) -lt "$a1"
# python3: about 32 million instructions and 1,260 allocations of start-up, a few of the loop.
py_loop() { printf "/usr/bin/python3 -c 's = 0\nfor i in range(%d): s += i'" "$1"; }
run_tare count --format tsv --shell sh --subtract "/usr/bin/python3 -c pass" "$(py_loop 2000)"
expect_rc 0 "python3 with python3 -c pass as the baseline"
r1=$(tsv_field "$out" 1 instructions); n1=$(tsv_field "$out" 1 net_instructions)
a1=$(tsv_field "$out" 1 allocations); na1=$(tsv_field "$out" 1 net_allocations)
check "python3: net instructions a fraction of raw ($n1 of $r1, < 20%)" test $((5 * n1)) -lt "$r1"
check "python3: net allocations the loop's few ($na1 of $a1, < 1%)" test $((100 * na1)) -lt "$a1"

done_testing
