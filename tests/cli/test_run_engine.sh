# tare run's count pass with count's engine options: --cache-sim, --engine, --valgrind-arg and
# the suite keys cache-sim, engine, valgrind-arg. The fixture 'walk KIB PASSES' reads one byte
# of every 64-byte line; the simulated caches are fixed (D1 32 KiB, LL 1 MiB) so the answers do
# not depend on this machine's.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
S=$TMP/suite
mkdir -p "$S/passes"
touch "$S/passes/2.txt" "$S/passes/4.txt"
D1=--D1=32768,8,64
LL=--LL=1048576,16,64

# json_field JSON I NAME: series I's field NAME (0 is the first), as JSON.
json_field() { /usr/bin/python3 -c '
import json, sys
print(json.dumps(json.load(sys.stdin)["series"][int(sys.argv[1])].get(sys.argv[2], "absent")))' \
    "$2" "$3" <<<"$1"; }

# A suite over 2 MiB, 2 and 4 passes, its count pass simulating the caches from its keys.
cat > "$S/cache.ini" <<EOF
[suite]
command = $F/walk 2048 {name}
benchmarks = passes/*.txt
count = yes
cache-sim = yes
valgrind-arg = $D1
valgrind-arg = $LL
EOF
run_tare run --count --format json "$S/cache.ini"
expect_rc 0 "a suite with cache-sim = yes"
expect_eq "$(json_field "$out" 0 benchmark)" '"2"' "series in order: 2 passes"
expect_eq "$(json_field "$out" 0 engine)" '"callgrind"' "the engine in the JSON"
expect_eq "$(json_field "$out" 0 valgrind_args)" "[\"$D1\", \"$LL\"]" \
    "the suite's valgrind options recorded in the JSON"
for k in l1i_misses l1d_misses lli_misses lld_misses est_cycles; do
    expect_match "$(json_field "$out" 1 $k)" '^[0-9]+$' "cache-sim = yes: $k counted"
done
# The known answer: callgrind run directly, its summary's DLmr + DLmw. The start-up's misses
# move with the environment's size, so the answer is the difference between 4 and 2 passes
# over 2 MiB (each pass an LL miss a line: 2 MiB / 64 = 32768 lines).
vg_lld() {
    valgrind --tool=callgrind --cache-sim=yes "$D1" "$LL" --callgrind-out-file="$TMP/cg" \
        "$@" >/dev/null 2>&1
    local events summary
    events=$(sed -n 's/^events: //p' "$TMP/cg"); summary=$(sed -n 's/^summary: //p' "$TMP/cg")
    paste <(tr ' ' '\n' <<<"$events") <(tr ' ' '\n' <<<"$summary") | awk \
        '$1=="DLmr"||$1=="DLmw"{s+=$2} END{print s}'
}
vg_diff=$(( $(vg_lld "$F/walk" 2048 4) - $(vg_lld "$F/walk" 2048 2) ))
lld2=$(json_field "$out" 0 lld_misses); lld4=$(json_field "$out" 1 lld_misses)
expect_eq "$((lld4 - lld2))" "$vg_diff" \
    "LLd misses: 2 passes more cost callgrind's own DLmr + DLmw difference ($vg_diff)"
check "an LL miss a line each pass ($vg_diff >= 2 x 32768)" test "$vg_diff" -ge 65536
ir=$(json_field "$out" 1 instructions)
l1=$(( $(json_field "$out" 1 l1i_misses) + $(json_field "$out" 1 l1d_misses) ))
ll=$(( $(json_field "$out" 1 lli_misses) + lld4 ))
expect_eq "$(json_field "$out" 1 est_cycles)" $((ir + 10 * l1 + 100 * ll)) \
    "est_cycles = Ir + 10 x L1 + 100 x LL"

# The option turns the simulation on for a suite without the key; without either, no misses.
sed '/^cache-sim/d' "$S/cache.ini" > "$S/nocache.ini"
run_tare run --count --format json "$S/nocache.ini"
expect_rc 0 "a suite without cache-sim"
expect_eq "$(json_field "$out" 0 lld_misses)" '"absent"' "no cache-sim: no misses in the JSON"
no_sim_ir=$(json_field "$out" 1 instructions)
expect_eq "$no_sim_ir" "$ir" "the simulation does not change the instructions"
run_tare run --count --cache-sim --format json "$S/nocache.ini"
expect_eq "$(json_field "$out" 1 lld_misses)" "$lld4" "--cache-sim: the same misses as the key"

# --valgrind-arg replaces the suite's keys: a 64 MiB LL holds the whole 2 MiB, so 2 passes
# more miss LL no more often (the LL misses are the first touch of each line, in both).
run_tare run --count --format json --valgrind-arg "$D1" --valgrind-arg=--LL=67108864,16,64 \
    "$S/cache.ini"
expect_rc 0 "--valgrind-arg"
expect_eq "$(json_field "$out" 0 valgrind_args)" "[\"$D1\", \"--LL=67108864,16,64\"]" \
    "--valgrind-arg wins over the suite's keys, recorded"
expect_eq "$(( $(json_field "$out" 1 lld_misses) - $(json_field "$out" 0 lld_misses) ))" 0 \
    "an LL that holds the array: no more LL misses for 2 more passes"

# --engine cachegrind: the engine recorded; it wins over the suite's engine = callgrind; the
# suite's engine = cachegrind alone is taken.
printf 'engine = callgrind\n' >> "$S/cache.ini"
run_tare run --count --engine cachegrind --format json "$S/cache.ini"
expect_rc 0 "--engine cachegrind"
expect_eq "$(json_field "$out" 0 engine)" '"cachegrind"' "--engine wins over the suite's engine"
expect_match "$(json_field "$out" 1 lld_misses)" '^[0-9]+$' "cachegrind simulates the caches too"
expect_eq "$(( $(json_field "$out" 1 lld_misses) - $(json_field "$out" 0 lld_misses) ))" \
    "$vg_diff" "cachegrind's LLd misses: the same 2 passes' difference as callgrind's"
sed 's/^engine = callgrind/engine = cachegrind/' "$S/cache.ini" > "$S/cg.ini"
run_tare run --count --format json "$S/cg.ini"
expect_eq "$(json_field "$out" 0 engine)" '"cachegrind"' "the suite's engine = cachegrind"
run_tare run --count --engine callgrind --format json "$S/cg.ini"
expect_eq "$(json_field "$out" 0 engine)" '"callgrind"' "--engine callgrind over the suite's key"

# The table, the TSV and count.tsv: the engine always, the cache columns with cache-sim.
run_tare run --count --format tsv --history "$S/h0" --commit c1 "$S/cache.ini"
expect_rc 0 "--format tsv --history"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'benchmark\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\tl1i_misses\tl1d_misses\tlli_misses\tlld_misses\test_cycles\tstatus')" \
    "TSV header: the engine, then the cache columns"
expect_eq "$(tsv_field "$out" 2 lld_misses)" "$lld4" "TSV: the same misses as the JSON"
expect_eq "$(tsv_field "$out" 2 engine)" callgrind "TSV: the engine"
expect_eq "$(head -n 1 "$S/h0/count.tsv")" \
    "$(printf 'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\tl1i_misses\tl1d_misses\tlli_misses\tlld_misses\test_cycles')" \
    "count.tsv header with the cache simulation"
for k in instructions engine l1i_misses l1d_misses lli_misses lld_misses est_cycles; do
    expect_eq "$(tsv_field "$(cat "$S/h0/count.tsv")" 2 $k)" "$(tsv_field "$out" 2 $k)" \
        "count.tsv's $k is the table's"
done
run_tare run --count --history "$S/h1" --commit c1 "$S/nocache.ini"
expect_match "$out" "instructions and allocations from one callgrind run" "text: the engine named"
expect_no_match "$out" "misses" "text without cache-sim: no misses"
expect_eq "$(head -n 1 "$S/h1/count.tsv")" \
    "$(printf 'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine')" \
    "count.tsv header without the cache simulation: the engine all the same"
run_tare run --count --engine cachegrind "$S/cache.ini"
expect_match "$out" "instructions from one cachegrind run, allocations, bytes and peak heap" \
    "text: cachegrind named, allocations from the allocator"
expect_match "$out" "misses from cachegrind's cache simulation" "text: whose simulation"
expect_match "$out" "a model, not a measurement" "text: the cycles are a model"
expect_match "$out" "LLd misses +est\. cycles +status" "text: the cache columns"
expect_match "$out" "valgrind options added .*: $D1 $LL" "text: the valgrind options said"
# CI files carry the cache metrics.
run_tare run --count --export-bmf "$S/bmf.json" "$S/cache.ini"
expect_rc 0 "--export-bmf"
expect_eq "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["4"]["lld-misses"]["value"])' "$S/bmf.json")" \
    "$lld4" "BMF: the LLd misses of the 4 passes"

# Bad keys and options: refused before anything runs, exit 2, the line named.
bad() {   # bad DESC KEY-LINE REGEX
    printf '[suite]\ncommand = %s 1\nbenchmarks = passes/*.txt\n%s\n' "$F/walk" "$2" > "$S/bad.ini"
    run_tare run --count "$S/bad.ini"
    expect_rc 2 "$1: exit 2"
    expect_match "$err" "$3" "$1: message"
}
bad "engine = memcheck" "engine = memcheck" \
    "^tare run: '$S/bad.ini' line 4: engine = 'memcheck': want callgrind or cachegrind$"
bad "cache-sim = maybe" "cache-sim = maybe" \
    "^tare run: '$S/bad.ini' line 4: cache-sim = 'maybe': want yes or no$"
bad "valgrind-arg = --tool=memcheck" "valgrind-arg = --tool=memcheck" \
    "^tare run: '$S/bad.ini' line 4: valgrind-arg: '--tool=memcheck': tare sets --tool=\.\.\. itself"
bad "valgrind-arg = D1" "valgrind-arg = D1" \
    "line 4: valgrind-arg: takes a valgrind option \('--NAME=VALUE'\), not 'D1'$"
bad "engine twice" "$(printf 'engine = callgrind\nengine = cachegrind')" "line 5: .*engine"
run_tare run --count --engine memcheck "$S/cache.ini"
expect_rc 2 "--engine memcheck"
expect_match "$err" "^tare run: --engine takes callgrind or cachegrind, not 'memcheck'$" \
    "--engine memcheck: message"
run_tare run --count --valgrind-arg=--log-file=x "$S/cache.ini"
expect_rc 2 "--valgrind-arg --log-file"
expect_match "$err" "^tare run: --valgrind-arg '--log-file=x': tare sets --log-file=" \
    "--valgrind-arg --log-file: message"

done_testing
