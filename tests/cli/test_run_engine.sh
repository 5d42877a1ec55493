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
    "$(printf 'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\tvalgrind_args\tl1i_misses\tl1d_misses\tlli_misses\tlld_misses\test_cycles')" \
    "count.tsv header with the cache simulation (and the suite's valgrind options)"
expect_eq "$(tsv_field "$(cat "$S/h0/count.tsv")" 2 valgrind_args)" "$D1 $LL" \
    "count.tsv: the valgrind options, one cell"
for k in instructions engine l1i_misses l1d_misses lli_misses lld_misses est_cycles; do
    expect_eq "$(tsv_field "$(cat "$S/h0/count.tsv")" 2 $k)" "$(tsv_field "$out" 2 $k)" \
        "count.tsv's $k is the table's"
done
run_tare run --count --history "$S/h1" --commit c1 "$S/nocache.ini"
expect_match "$out" "instructions and allocations from one callgrind run" "text: the engine named"
expect_no_match "$out" "misses" "text without cache-sim: no misses"
expect_eq "$(head -n 1 "$S/h1/count.tsv")" \
    "$(printf 'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\tvalgrind_args')" \
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

# History: two commits, the second walking a larger array (8 MiB, larger than the 1 MiB LL,
# against 512 KiB, which fits). history check alarms on the misses; a cachegrind row is a
# series of its own (walk@cachegrind), never compared with callgrind's. Rows taken with
# valgrind options are named with them (the series "walk [OPTIONS]").
W="walk [$D1 $LL]"; WR="walk \\[$D1 $LL\\]"
mkdir -p "$S/one"
touch "$S/one/walk.txt"
walk_suite() {   # walk_suite KIB: the suite walking KIB KiB 4 times
    printf '[suite]\ncommand = %s %s 4\nbenchmarks = one/*.txt\ncache-sim = yes\n' "$F/walk" "$1" \
        > "$S/walk.ini"
    printf 'valgrind-arg = %s\nvalgrind-arg = %s\n' "$D1" "$LL" >> "$S/walk.ini"
}
H=$S/hist
walk_suite 512
run_tare run --count --history "$H" --commit c1 "$S/walk.ini"
expect_rc 0 "c1: 512 KiB, callgrind"
walk_suite 8192
run_tare run --count --engine cachegrind --history "$H" --commit c2 "$S/walk.ini"
expect_rc 0 "c2: 8 MiB, cachegrind"
run_tare history check --format json "$H/count.tsv"
expect_rc 2 "callgrind at c1 and cachegrind at c2: nothing compared (exit 2), no regression"
expect_match "$err" "checked nothing at commit c2" "says nothing could be compared"
expect_match "$out" '^\{"regressions": \[\]' "no regression across engines"
expect_match "$out" "\"benchmark\": \"walk@cachegrind \\[$D1 $LL\\]\", \"metric\": \"lld_misses\", \"why\": \"no earlier value to compare with\"" \
    "the cachegrind row is a series of its own"
run_tare run --count --history "$H" --commit c3 "$S/walk.ini"
expect_rc 0 "c3: 8 MiB, callgrind"
run_tare run --count --engine cachegrind --history "$H" --commit c3 "$S/walk.ini"
expect_rc 0 "c3: 8 MiB, cachegrind"
expect_eq "$(cut -f2,3,9 "$H/count.tsv" | tail -n +2 | tr '\t\n' ',,')" \
    "c1,walk,callgrind,c2,walk,cachegrind,c3,walk,callgrind,c3,walk,cachegrind," \
    "count.tsv: the rows' commits, series and engines"
CT=$(cat "$H/count.tsv")
s_lld=$(tsv_field "$CT" 1 lld_misses); b_lld=$(tsv_field "$CT" 3 lld_misses)
check "512 KiB fits the LL: fewer LL misses than 2 a line ($s_lld < 2 x 8192)" \
    test "$s_lld" -lt 16384
check "8 MiB does not: an LL miss a line each pass ($b_lld >= 4 x 131072)" \
    test "$b_lld" -ge 524288
run_tare history check --format json "$H/count.tsv"
expect_rc 3 "the larger array: history check alarms (exit 3)"
for k in l1d_misses lld_misses est_cycles; do
    before=$(tsv_field "$CT" 1 $k); after=$(tsv_field "$CT" 3 $k)
    expect_match "$out" "\{\"benchmark\": \"$WR\", \"metric\": \"$k\", \"before\": $before, \"after\": $after, \"change\": [0-9.]+, \"commit\": \"c3\"\}" \
        "walk's $k: $before at c1 to $after at c3"
done
expect_no_match "$(sed 's/"not_checked".*//' <<<"$out")" 'walk@cachegrind' \
    "cachegrind's series: c2 and c3 alike, no alarm"
# A run without the cache simulation appends to the file that has its columns: NA there.
walk_suite 512
sed '/^cache-sim/d' "$S/walk.ini" > "$S/walk-nc.ini"
run_tare run --count --history "$H" --commit c4 "$S/walk-nc.ini"
expect_rc 0 "a run without cache-sim appends to a count.tsv with the cache columns"
expect_eq "$(tail -n 1 "$H/count.tsv" | cut -f9-15)" \
    "$(printf 'callgrind\t%s %s\tNA\tNA\tNA\tNA\tNA' "$D1" "$LL")" "its cache columns NA, never 0"
# Other valgrind options (an LL of 64 MiB): another series, its misses never compared with
# those under a 1 MiB LL (a tenth of them here: no alarm, and no improvement either).
walk_suite 8192
sed "s/^valgrind-arg = --LL=.*/valgrind-arg = --LL=67108864,16,64/" "$S/walk.ini" > "$S/big-ll.ini"
run_tare run --count --history "$H" --commit c5 "$S/big-ll.ini"
expect_rc 0 "c5: 8 MiB under a 64 MiB LL"
run_tare history check --format json --commit c5 "$H/count.tsv"
expect_no_match "$out" '"improvements": \[\{' "other cache options: no improvement claimed"
expect_match "$out" \
    "\"benchmark\": \"walk \\[$D1 --LL=67108864,16,64\\]\", \"metric\": \"lld_misses\", \"why\": \"no earlier value" \
    "a series of their own, named with the options"

# A count.tsv from before the engine column (today's rows less it: the old header exactly),
# then a run with the cache simulation: the file widens, its old rows NA in the new columns,
# and history check reads both, the old rows as callgrind's.
H=$S/old
walk_host() {   # walk_host KIB [cache-sim]: walk_suite without valgrind options
    printf '[suite]\ncommand = %s %s 4\nbenchmarks = one/*.txt\n%s\n' "$F/walk" "$1" "${2:-}" \
        > "$S/walk-host.ini"
}
walk_host 512
run_tare run --count --history "$H" --commit c1 "$S/walk-host.ini"
expect_rc 0 "c1 without the cache simulation"
cut -f1-8 "$H/count.tsv" > "$H/cut.tsv" && mv "$H/cut.tsv" "$H/count.tsv"
expect_eq "$(head -n 1 "$H/count.tsv")" \
    "$(printf 'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain')" \
    "the old count.tsv header"
old_ir=$(tsv_field "$(cat "$H/count.tsv")" 1 instructions)
walk_host 8192 "cache-sim = yes"
run_tare run --count --history "$H" --commit c2 "$S/walk-host.ini"
expect_rc 0 "a run with --cache-sim appends to the old count.tsv"
expect_eq "$(head -n 1 "$H/count.tsv")" \
    "$(printf 'date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\tengine\tl1i_misses\tl1d_misses\tlli_misses\tlld_misses\test_cycles')" \
    "the header widened by the engine and the cache columns"
CT=$(cat "$H/count.tsv")
old_row=$(tsv_field "$CT" 1 instructions),$(tsv_field "$CT" 1 engine)
old_row=$old_row,$(tsv_field "$CT" 1 lld_misses)
expect_eq "$old_row" "$old_ir,NA,NA" "the old row kept, NA in the new columns"
expect_eq "$(tsv_field "$CT" 2 engine)" callgrind "the new row's engine"
new_ir=$(tsv_field "$CT" 2 instructions)
run_tare history check --format json "$H/count.tsv"
expect_rc 3 "history check reads both rows: the larger walk alarms"
want="\"metric\": \"instructions\", \"before\": $old_ir, \"after\": $new_ir, \"change\": "
expect_match "$out" "\{\"benchmark\": \"walk\", $want[0-9.]+, \"commit\": \"c2\"\}" \
    "the old row (no engine: callgrind's) compared with the new callgrind row"
expect_match "$out" \
    '"benchmark": "walk", "metric": "lld_misses", "why": "no earlier value to compare with"' \
    "the misses: no earlier value in the old rows, and check says so"

# The trend page offers the cache metrics, with the series and judgements check gives.
run_tare trend "$S/hist/count.tsv" -o "$S/trend.html"
expect_rc 0 "trend over count.tsv with the cache columns"
trend_data() { /usr/bin/python3 -c '
import json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r"id=\"trend-data\">(.*?)</script>", page, re.S).group(1))
exec(sys.argv[2])' "$S/trend.html" "$1"; }
expect_eq "$(trend_data 'print(" ".join(d["metrics"]))')" \
    "instructions allocations bytes peak_bytes l1i_misses l1d_misses lli_misses lld_misses est_cycles" \
    "the trend page offers the cache metrics"
expect_eq "$(trend_data 'print(" | ".join(s["name"] for s in d["series"]))')" \
    "$W | walk@cachegrind [$D1 $LL] | walk [$D1 --LL=67108864,16,64]" \
    "the trend page: one series per engine and per valgrind options"
expect_eq "$(trend_data 'print(d["series"][0]["v"]["lld_misses"][:2])')" \
    "[$s_lld, $b_lld]" "the trend page: walk's LLd misses at c1 and c3"
expect_eq "$(trend_data 'print(d["series"][0]["steps"]["lld_misses"][0][:2])')" "[1, 1]" \
    "the trend page marks the step in the LLd misses at c3"
check "the trend page labels the cache metrics" grep -q 'lld_misses: "LLd misses"' "$S/trend.html"
# ... and in a real browser: switched to the LLd misses, every chart draws them, and walk's
# chip says the regression history check says, with its change.
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if command -v node > /dev/null && [ -x "$CHROMIUM" ]; then
    # The history as of c3 (the page judges the newest commit; c4 has no misses).
    awk -F'\t' 'NR == 1 || $2 ~ /^c[123]$/' "$S/hist/count.tsv" > "$S/upto-c3.tsv"
    run_tare trend "$S/upto-c3.tsv" -o "$S/trend-c3.html"
    res=$(timeout 90 node "$TARE_ROOT/tests/cli/trend_browser.js" "$S/trend-c3.html" "" \
        lld_misses)
    js() { node -e 'const o = JSON.parse(require("fs").readFileSync(0, "utf8"));
        console.log(JSON.stringify(eval(process.argv[1])))' "$1" <<<"$res"; }
    expect_eq "$(js o.errors)" "[]" "the browser: no console errors or exceptions ($res)"
    expect_eq "$(js o.metric_after)/$(js o.all_switched)" '"lld_misses"/true' \
        "the browser: every chart switched to the LLd misses"
    run_tare history check --format json "$S/upto-c3.tsv"
    change=$(/usr/bin/python3 -c 'import json, sys
r = [x for x in json.load(sys.stdin)["regressions"] if x["metric"] == "lld_misses"][0]
print("%+.1f%%" % (100 * r["change"]))' <<<"$out")
    expect_eq "$(js "o.chips['$W'][0][0]")" "\"regression $change past ±2.0%\"" \
        "the browser: walk's chip is history check's LLd regression ($change)"
else
    not_ok "the browser check needs node and chromium (scripts/install-deps check)"
fi

# The count pass's options without it are said to do nothing.
run_tare run --wall --runs 1 --cache-sim --format tsv "$S/nocache.ini"
expect_rc 0 "--wall --cache-sim"
expect_match "$err" "^tare run: note: --cache-sim, --engine, --valgrind-arg and --subtract are the count pass's: no count pass, so they do nothing \(add --count\)$" \
    "--wall --cache-sim: said to do nothing"
expect_no_match "$(head -n 1 <<<"$out")" "misses" "--wall --cache-sim: no misses"

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
