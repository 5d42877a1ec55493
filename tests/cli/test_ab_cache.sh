# tare ab --count --cache-sim: simulated misses of each side and the verdict on them, on the
# fixture 'walk' under fixed simulated caches (D1 32 KiB, LL 1 MiB), so the answers do not
# depend on this machine's caches.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
caches=(--valgrind-arg=--D1=32768,8,64 --valgrind-arg=--LL=1048576,16,64)

# cget JSON SIDE FIELD: a field of "count": {"a": {...}, "b": {...}, "ratio": {...}}.
cget() {
    tr -d '\n' <<<"$1" | sed -n 's/.*"count": {\(.*\)/\1/p' |
        sed -n "s/.*\"$2\": {\([^}]*\)}.*/\1/p" | sed -n \
            "s/.*\"$3\": \(\"[^\"]*\"\|[^,}]*\).*/\1/p" | tr -d '"'
}
# kget JSON FIELD: a scalar of the "count" object itself, as JSON writes it, strings bare.
kget() {
    /usr/bin/python3 -c 'import json, sys
v = json.loads(sys.argv[1])["count"][sys.argv[2]]
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}
# jtop JSON FIELD: a top-level scalar of tare ab's JSON.
jtop() {
    /usr/bin/python3 -c 'import json, sys
print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"
}
valid_json() { /usr/bin/python3 -m json.tool >/dev/null <<<"$1"; }
# within GOT WANT: |GOT - WANT| at most 1% of WANT.
within() { awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w / 100) }'; }

if ! command -v valgrind >/dev/null; then
    not_ok "valgrind is needed for --count (scripts/install-deps check)"
    done_testing
    exit
fi

# ---- the same instructions, other memory: walk 4096 4 STRIDE ----
# Both sides fill 4 MiB, then read 65536 bytes a pass, 4 passes: the same loop, so the same
# instructions (asserted below, not assumed). STRIDE 64 reads every line of the 4 MiB, which
# does not fit the 1 MiB LL: every read of every pass misses D1 and LL (4 x 65536). STRIDE 08
# reads 8 bytes of each of the first 8192 lines (512 KiB): LL only on the first pass (8192;
# the fill evicted them), D1 once a line a pass (4 x 8192). The fill's misses are alike.
lines=8192; reads=65536
want_lld=$((4 * reads - lines)); want_l1d=$((4 * reads - 4 * lines))
run_tare ab --pairs 6 --count --cache-sim "${caches[@]}" --format=json \
    "$F/walk 4096 4 08" "$F/walk 4096 4 64"
expect_rc 0 "ab --count --cache-sim, stride 8 against 64"
check "json parses" valid_json "$out"
ia=$(cget "$out" a instructions); ib=$(cget "$out" b instructions)
check "A and B ran instructions ($ia)" test -n "$ia"
expect_eq "$ib" "$ia" "the same instructions on both sides (from the output)"
expect_eq "$(cget "$out" change instructions)" none "instructions: no change"
expect_eq "$(kget "$out" work)" same "the work counts show no change"
expect_eq "$(kget "$out" cache_sim)" true "cache_sim recorded"
expect_match "$out" '"valgrind_args": \["--D1=32768,8,64", "--LL=1048576,16,64"\]' \
    "the valgrind options recorded"
d_lld=$(( $(cget "$out" b lld_misses) - $(cget "$out" a lld_misses) ))
d_l1d=$(( $(cget "$out" b l1d_misses) - $(cget "$out" a l1d_misses) ))
check "LL data misses: B - A = $d_lld, 4 x $reads - $lines = $want_lld by the sizes (1%)" \
    within "$d_lld" "$want_lld"
check "L1 data misses: B - A = $d_l1d, 4 x ($reads - $lines) = $want_l1d by the sizes (1%)" \
    within "$d_l1d" "$want_l1d"
for k in a b; do
    m=0
    for f in l1i_misses l1d_misses lli_misses lld_misses; do m=$((m + $(cget "$out" $k $f))); done
    expect_eq "$(cget "$out" $k misses)" "$m" "$k: misses is the sum of the four"
    for f in instructions misses est_cycles; do
        expect_eq "$(cget "$out" $k ${f}_spread)" 0 "$k: $f the same in both passes"
    done
    l1=$(( $(cget "$out" $k l1i_misses) + $(cget "$out" $k l1d_misses) ))
    ll=$(( $(cget "$out" $k lli_misses) + $(cget "$out" $k lld_misses) ))
    expect_eq "$(cget "$out" $k est_cycles)" $(( $(cget "$out" $k instructions) + 10 * l1 +
        100 * ll )) "$k: est_cycles = Ir + 10 x L1 + 100 x LL misses"
done
ma=$(cget "$out" a misses); mb=$(cget "$out" b misses)
r=$(cget "$out" ratio misses)
check "the misses' ratio $r is B over A ($mb / $ma)" \
    awk -v r="$r" -v a="$ma" -v b="$mb" 'BEGIN { exit !(r - b / a < 1e-8 && b / a - r < 1e-8) }'
expect_eq "$(cget "$out" change misses)" more "misses: more"
expect_eq "$(cget "$out" change lld_misses)" more "LL data misses: more"
expect_eq "$(kget "$out" caches)" more "the caches' word: more"
expect_match "$(kget "$out" caches_line)" \
    "^simulated caches: instructions flat, simulated misses \+" "the line in the JSON"
misses_pct=$(awk -v r="$r" \
    'BEGIN { p = (r - 1) * 100; printf (p < 10 ? "%+.2f%%" : "%+.1f%%"), p }')

run_tare ab --pairs 6 --count --cache-sim "${caches[@]}" "$F/walk 4096 4 08" "$F/walk 4096 4 64"
expect_rc 0 "text"
ia_text=$(sed ':a; s/\B[0-9]\{3\}\>/,&/; ta' <<<"$ia")
expect_match "$out" "^instructions +$ia_text +$ia_text +\+0\.00% +0\.00% +0\.00%$" \
    "instructions row: $ia_text on both sides, no change"
expect_match "$out" "^LL data misses +[0-9,]+ +[0-9,]+ +\+[0-9.]+% +0\.00% +0\.00%$" \
    "an LL data misses row with its change and spreads"
for row in "L1 instr misses" "L1 data misses" "LL instr misses" "all misses" "est. cycles"; do
    expect_match "$out" "^$row +[0-9,]+ +[0-9,]+ " "row: $row"
done
expect_match "$out" "^valgrind options added .*: --D1=32768,8,64 --LL=1048576,16,64$" \
    "the valgrind options above the table"
expect_match "$out" "est\. cycles = Ir \+ 10 x L1 misses \+ 100 x LL misses, a model" \
    "the model stated above the table"
expect_match "$out" \
    "^simulated caches: instructions flat, simulated misses \\$misses_pct \(.*L1 data \+[0-9.]+%.*LL data \+[0-9.]+%\); est\. cycles \+[0-9.]+% \(a model, not a measurement\)$" \
    "instructions flat, simulated misses $misses_pct (as the JSON's ratio)"
expect_no_match "$out" "^counts: B does" "no more or less work claimed"

# The other way round: fewer misses.
run_tare ab --pairs 6 --count --cache-sim "${caches[@]}" --format=json \
    "$F/walk 4096 4 64" "$F/walk 4096 4 08"
expect_eq "$(cget "$out" b instructions)" "$(cget "$out" a instructions)" \
    "reversed: the same instructions"
expect_eq "$(kget "$out" caches)" less "reversed: less"
expect_match "$(kget "$out" caches_line)" \
    "^simulated caches: instructions flat, simulated misses -[0-9.]+% \(.*LL data -[0-9.]+%\); est\. cycles -" \
    "reversed: misses and est. cycles down"

# ---- both move: two more passes over the 4 MiB (every read misses D1 and LL) ----
run_tare ab --pairs 6 --count --cache-sim "${caches[@]}" --format=json \
    "$F/walk 4096 4 64" "$F/walk 4096 6 64"
expect_rc 0 "4 passes against 6"
expect_eq "$(cget "$out" change instructions)" more "instructions: more"
d_lld=$(( $(cget "$out" b lld_misses) - $(cget "$out" a lld_misses) ))
check "LL data misses: B - A = $d_lld, 2 x $reads by the sizes (1%)" within "$d_lld" $((2 * reads))
expect_eq "$(kget "$out" caches)" more "misses: more"
expect_match "$(kget "$out" caches_line)" \
    "^simulated caches: instructions \+[0-9.]+%, simulated misses \+[0-9.]+% \(" "both said"

# ---- instructions move, misses do not: busy's loop touches no memory ----
# (busy 2 and 4, not 20 and 40: as true of 12 million iterations as of 120, under the cache
# simulation in a third of the time)
run_tare ab --pairs 6 --count --cache-sim "${caches[@]}" --format=json "$F/busy 2" "$F/busy 4"
expect_rc 0 "busy 2 against 4"
expect_eq "$(cget "$out" change instructions)" more "busy: instructions more"
expect_eq "$(cget "$out" b misses)" "$(cget "$out" a misses)" "busy: the same misses"
expect_eq "$(kget "$out" caches)" same "busy: misses the same"
expect_match "$(kget "$out" caches_line)" \
    "^simulated caches: instructions \+[0-9.]+%, simulated misses flat; est\. cycles \+" \
    "misses flat, said briefly"

# ---- the clock moves, the counts and the misses do not: four times the sleep ----
run_tare ab --pairs 8 --count --cache-sim "${caches[@]}" --format=json "$F/sleeper 0.02" \
    "$F/sleeper 0.08"
expect_eq "$(cget "$out" change misses)" none "sleeper: the same misses"
expect_eq "$(kget "$out" caches)" same "sleeper: caches the same"
expect_eq "$(jtop "$out" verdict)" slower "sleeper: slower (as in test_ab_count.sh)"
expect_match "$(kget "$out" note)" \
    "^the wall clock moved but the counts did not .*; nor did the simulated misses$" \
    "the note adds that the simulated misses did not move"

# ---- A/A: nothing moves ----
run_tare ab --pairs 6 --count --cache-sim "${caches[@]}" "$F/walk 1024 2 64" "$F/walk 1024 2 64"
expect_match "$out" \
    "^simulated caches: instructions flat, simulated misses flat; est\. cycles flat \(a model" \
    "A/A: all flat"

# ---- the cachegrind engine: the same verdict ----
run_tare ab --pairs 6 --count --cache-sim --engine cachegrind "${caches[@]}" --format=json \
    "$F/walk 4096 4 08" "$F/walk 4096 4 64"
expect_rc 0 "--engine cachegrind"
expect_eq "$(kget "$out" engine)" cachegrind "engine recorded"
expect_eq "$(cget "$out" b instructions)" "$(cget "$out" a instructions)" \
    "cachegrind: the same instructions on both sides"
d_lld=$(( $(cget "$out" b lld_misses) - $(cget "$out" a lld_misses) ))
check "cachegrind: LL data misses B - A = $d_lld, $want_lld by the sizes (1%)" \
    within "$d_lld" "$want_lld"
expect_eq "$(kget "$out" caches)" more "cachegrind: misses more"
run_tare ab --pairs 6 --count --engine cachegrind "$F/busy 2" "$F/busy 3"
expect_match "$out" "median of 2 cachegrind passes" "the text names the engine"

# ---- without --cache-sim: nothing about caches ----
run_tare ab --pairs 6 --count --format=json "$F/busy 2" "$F/busy 3"
expect_eq "$(kget "$out" caches)" null "caches null without --cache-sim"
expect_eq "$(kget "$out" cache_sim)" false "cache_sim false"
expect_no_match "$out" "l1d_misses" "no miss fields"
run_tare ab --pairs 6 --count "$F/busy 2" "$F/busy 3"
expect_no_match "$out" "simulated|misses" "no cache rows nor line in text"

# ---- not counted: NA, never a change ----
TARE_VALGRIND=/bin/false run_tare ab --pairs 6 --count --cache-sim --format=json \
    "$F/busy 2" "$F/busy 3"
expect_rc 1 "counting failed"
check "json still parses" valid_json "$out"
expect_eq "$(kget "$out" caches)" null "caches null when not counted"
expect_eq "$(cget "$out" a misses)" null "misses null"
TARE_VALGRIND=/bin/false run_tare ab --pairs 6 --count --cache-sim "$F/busy 2" "$F/busy 3"
expect_match "$out" "^simulated caches: NA \(a side's misses were not counted\)$" "text: NA"
expect_match "$out" "^all misses +NA +NA +NA +NA +NA$" "the misses row NA"

# ---- usage ----
for o in --cache-sim "--engine callgrind" "--valgrind-arg --LL=1048576,16,64"; do
    # shellcheck disable=SC2086
    run_tare ab $o "$F/busy 1" "$F/busy 1"
    expect_rc 2 "$o without --count"
    expect_match "$err" "${o%% *} only applies with --count" "$o: said why"
done
run_tare ab --count --engine memcheck "$F/busy 1" "$F/busy 1"
expect_rc 2 "--engine memcheck"
expect_match "$err" "--engine takes callgrind or cachegrind, not 'memcheck'" "said why"
run_tare ab --count --valgrind-arg=--tool=memcheck "$F/busy 1" "$F/busy 1"
expect_rc 2 "--valgrind-arg --tool"
expect_match "$err" "tare sets --tool=" "said why"

done_testing
