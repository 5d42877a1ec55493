# tare cg on real interpreters from Debian packages, profiled here: eval calls call, call calls
# eval, and a C library calls back into the interpreted program. Their inclusive costs are
# checked against the model's invariants, and their frame trees (flame graphs) against the
# command line's numbers (cgrun: every function's frames hold its self cost, its outermost
# frames its inclusive cost but where tare says it cannot tell), each interpreter at
# --separate-recs 1, 2 and 4 and with --separate-callers=8; the eval loop against its self
# cost and the total; callgrind_annotate is shown counting the recursion again. A Lua with
# its function names (a few lines of C linked against Debian's liblua5.4.a) shows the eval
# loop re-entered through C (table.sort's comparator) drawn exactly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cg_lib.sh"

for prog in /usr/bin/python3 perl lua5.4; do
    if ! command -v "$prog" > /dev/null; then
        not_ok "$prog is not installed (scripts/install-deps installs it)"
    fi
done
# frame_self SUMS NAME / frame_outer SUMS NAME: what the lines of `cg folded --threshold 0`
# ending in NAME (its frames' self), and those with NAME on the stack (its outermost frames),
# add up to: from the sums cgrun's frame check (cg_frame_invariants) kept of every function
# (a CPython profile's stacks are some hundreds of megabytes: read once, not once a question)
sums_col() { awk -F'\t' -v f="$2" -v c="$3" 'NF == 6 && $1 == f { print $c; n++ }
                                              END { if (!n) print "none" }' "$1"; }
frame_self() { sums_col "$1" "$2" 3; }
frame_outer() { sums_col "$1" "$2" 5; }
top_of() { "$TARE" cg top -n 0 --format=tsv "$1" | awk -F'\t' -v f="$2" -v c="$3" \
    'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } $1 == f { print $k; exit }'; }

# ---- CPython: a recursive function and a JSON round trip ----
cat > "$TMP/r.py" <<'PY'
import json
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
data = {"k%d" % i: [i, str(i), {"x": fib(i % 9)}] for i in range(60)}
assert json.loads(json.dumps(data)) == data
print(fib(14))
PY
cgrun "$TMP/py.out" -- /usr/bin/python3 "$TMP/r.py"
cp "$TMP/inv.sums" "$TMP/py.sums"   # (each function's sums over every frame: cg_lib.sh)
err=$(cat "$TMP/inv.err")           # (and what its `cg folded --threshold 0` said)
expect_eq "$(cat "$TMP/py.out.stdout")" 377 "python3 ran the script"
total=$("$TARE" cg info --format=json "$TMP/py.out" | sed -n \
    's/.*"totals": {"Ir": \([0-9]*\).*/\1/p')
expect_eq "$total" "$(cat "$TMP/py.out.collected")" "python3: total Ir = valgrind's Collected"
# the eval loop's frames hold its self cost (before: 0.00% of it on its frames, the rest left
# on the frames that re-entered it), and its outermost frames its inclusive cost or tare says
# they are an estimate
eval_self=$(top_of "$TMP/py.out" _PyEval_EvalFrameDefault self)
expect_eq "$(frame_self "$TMP/py.sums" _PyEval_EvalFrameDefault)" "$eval_self" \
    "python3: _PyEval_EvalFrameDefault's frames hold its self cost ($eval_self)"
eo=$(frame_outer "$TMP/py.sums" _PyEval_EvalFrameDefault)
ei=$(top_of "$TMP/py.out" _PyEval_EvalFrameDefault inclusive)
check "python3: its outermost frames hold its inclusive cost ($eo, $ei), or tare says some are an estimate" \
    test "$eo" = "$ei" -o -n "$(grep -o 'only an estimate' <<<"$err")"
# at the default threshold (small callees merged into "other") folded and the page still say
# which outermost frames are surely an estimate: those off by more than the merged frames can
# hide, each of them off in the whole tree too (their page tooltip says what they hold)
said0=$(sed -n 's/.*the outermost frames of \([0-9]*\) only an estimate.*/\1/p' <<<"$err")
awk -F'\t' 'NF == 6 { print $1 > "'"$TMP/py.named"'"; if ($4 != $5) print $1 }' \
    "$TMP/py.sums" | LC_ALL=C sort > "$TMP/py.off"
run_tare cg folded "$TMP/py.out"
said=$(sed -n 's/.*the outermost frames of at least \([0-9]*\) only an estimate.*/\1/p' <<<"$err")
check "python3, default threshold: folded says at least ${said:-no} functions' outermost frames are an estimate (of $said0 at --threshold 0)" \
    test "${said:-0}" -ge 1 -a "${said:-0}" -le "${said0:-0}"
run_tare cg page --threshold 0.001 "$TMP/py.out" -o "$TMP/py.html"
node -e 'const D = require(process.env.TARE_ROOT + "/tests/cli/page_data.js")(process.argv[1]);
    console.log("est " + D.est.join(" "));
    const once = (n) => D.f.filter((f) => f[0] === n).length === 1;
    const big = D.f.filter((f) => f[4] & 2 && once(f[0])).sort((a, b) => b[3][0] - a[3][0])[0];
    console.log(big[0]);
    for (const f of D.f) if (f[4] & 2) console.log(f[0]);' "$TMP/py.html" > "$TMP/py.flagged"
est=$(sed -n 1p "$TMP/py.flagged")
big=$(sed -n 2p "$TMP/py.flagged")
LC_ALL=C sort -o "$TMP/py.named" "$TMP/py.named"
flagged=$(tail -n +3 "$TMP/py.flagged" | LC_ALL=C sort | LC_ALL=C comm -12 - "$TMP/py.named")
check "python3 page: the note's count (${est#est }: self, inclusive, cut) is folded's ($said)" \
    test "$est" = "est 0 $said 1"
check "python3 page: $(wc -l <<<"$flagged") functions marked an estimate, each off in the tree" \
    test -n "$flagged" -a -z "$(LC_ALL=C comm -23 <(printf '%s\n' "$flagged") "$TMP/py.off")"
# the tooltip of the costliest of them says what its outermost frames hold: what the browser
# adds up from the frames the page draws
browser cg_page_browser.js   # (browse: lib.sh)
res=$(browse "$TMP/py.html" "" "$big" "$big")
drawn=$(json_path "$res" name_sums.outer | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
expect_match "$(json_path "$res" tooltip)" \
    "not under another of its frames hold $drawn \([0-9.]+%\), not its inclusive cost" \
    "python3 page: the tooltip of $big says what its outermost frames hold ($drawn)"
expect_eq "$(json_path "$res" striped.wrong)" 0 \
    "python3 page: the frames of those functions striped, and only those ($(json_path "$res" striped.n))"
check "python3 page: some frames striped" test "$(json_path "$res" striped.n)" -gt 0
for r in 1 4; do
    cgrun "$TMP/py-r$r.out" --separate-recs=$r -- /usr/bin/python3 "$TMP/r.py"
done
# with --separate-callers=8: the frames from the contexts keep the program's entry points as
# the roots (a context of a called function is never one, though calls into it come only
# from inside its recursion), hold the total, and the frame of the entry point is exact
cgrun "$TMP/py4.out" --separate-callers=8 -- /usr/bin/python3 "$TMP/r.py"
roots() { "$TARE" cg folded "$1" 2> /dev/null | awk \
    '{ sub(/ [0-9]+$/, ""); sub(/;.*/, ""); print }' | LC_ALL=C sort -u; }
expect_eq "$(roots "$TMP/py4.out")" "$(roots "$TMP/py.out")" \
    "python3 with contexts: the same root frames as without"
run_tare cg folded "$TMP/py4.out"
expect_eq "$(awk '{ s += $NF } END { print s }' <<<"$out")" \
    "$("$TARE" cg info --format=json "$TMP/py4.out" | sed -n 's/.*"totals": {"Ir": \([0-9]*\).*/\1/p')" \
    "python3 with contexts: the folded lines add up to the total"
pct=$(sed -n 's/.* contexts: \([0-9.]*\)% of the cost exact.*/\1/p' <<<"$err")
check "python3 with contexts: some of the cost on exact frames ($pct%)" awk -v p="${pct:-0}" \
    'BEGIN { exit !(p > 0) }'
run_tare cg top -n 0 --format=tsv --grep _PyEval_EvalFrameDefault "$TMP/py.out"
row=$(tsv_row "$out" function _PyEval_EvalFrameDefault)
self=$(tsv_field "$row" 1 self)
incl=$(tsv_field "$row" 1 inclusive)
check "python3: _PyEval_EvalFrameDefault has a self cost ($self)" test "${self:-0}" -gt 0
check "python3: its inclusive cost ($incl) is below the total ($total)" test "${incl:-0}" \
    -lt "$total"
check "python3: its inclusive cost ($incl) is at least its self cost ($self)" test "${incl:-0}" \
    -ge "${self:-1}"
expect_eq "$(tsv_field "$row" 1 inclusive_bound)" 0 \
    "python3: its inclusive cost is exact (the profile has marks)"
run_tare cg callers _PyEval_EvalFrameDefault --exact -n 0 --format=tsv "$TMP/py.out"
expect_eq "$(awk -F'\t' 'NR > 1 && $5 == "outer" { s += $4 } END { print s }' <<<"$out")" "$incl" \
    "python3: its outer callers add up to its inclusive cost"
rec=$(awk -F'\t' 'NR > 1 && $5 == "recursive" { s += $3 } END { print s + 0 }' <<<"$out")
check "python3: it is called recursively ($rec calls, shown apart)" test "$rec" -gt 0
# callgrind_annotate adds every call into its recursion levels ('2): above the whole program
ann=$(callgrind_annotate --inclusive=yes "$TMP/py.out" 2>/dev/null |
      awk '$0 ~ /:_PyEval_EvalFrameDefault(.[0-9]+)? / { gsub(",", "", $1); print $1; exit }')
check "callgrind_annotate --inclusive=yes gives it ${ann:-nothing} Ir, above the total $total" \
    test "${ann:-0}" -gt "$total"

# ---- perl: a recursive sub ----
printf \
    'sub fib { my $n = shift; return $n < 2 ? $n : fib($n - 1) + fib($n - 2); }\nprint fib(15), "\\n";\n' \
    > "$TMP/r.pl"
cgrun "$TMP/pl.out" -- perl "$TMP/r.pl"
expect_eq "$(cat "$TMP/pl.out.stdout")" 610 "perl ran the script"
total=$("$TARE" cg info --format=json "$TMP/pl.out" | sed -n \
    's/.*"totals": {"Ir": \([0-9]*\).*/\1/p')
run_tare cg top -n 0 --format=tsv --grep Perl_pp_entersub "$TMP/pl.out"
row=$(tsv_row "$out" function Perl_pp_entersub)
incl=$(tsv_field "$row" 1 inclusive)
check \
    "perl: Perl_pp_entersub (a sub's call, recursive with the sub) below the total ($incl < $total)" \
    test "${incl:-0}" -gt 0 -a "${incl:-0}" -lt "$total"
check "perl: and at least its self cost" test "${incl:-0}" -ge "$(tsv_field "$row" 1 self)"

# ---- lua5.4: a recursive function, and table.sort with a Lua comparator (C calling Lua) ----
cat > "$TMP/r.lua" <<'LUA'
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 400 do t[i] = (i * 7919) % 401 end
table.sort(t, function(a, b) return a < b end)
print(fib(15), t[1], t[400])
LUA
cgrun "$TMP/lua.out" -- lua5.4 "$TMP/r.lua"
expect_eq "$(cat "$TMP/lua.out.stdout")" "$(printf '610\t1\t400')" "lua5.4 ran the script"
total=$("$TARE" cg info --format=json "$TMP/lua.out" | sed -n \
    's/.*"totals": {"Ir": \([0-9]*\).*/\1/p')
run_tare cg top --inclusive -n 0 --format=tsv "$TMP/lua.out"
over=$(awk -F'\t' -v t="$total" 'NR > 1 && $4 > t' <<<"$out" | wc -l)
expect_eq "$over" 0 \
    "lua5.4 (stripped, functions named by address): no inclusive cost above the total"
incl=$(tsv_field "$(tsv_row "$out" function lua_pcallk)" 1 inclusive)
check "lua5.4: lua_pcallk (C calling back into Lua) below the total ($incl < $total)" \
    test "${incl:-0}" -gt 0 -a "${incl:-0}" -lt "$total"
# its allocator (realloc) is called through a PLT stub in ???: billed to the stub's callers
run_tare cg info --format=json "$TMP/lua.out"
check "lua5.4: PLT stubs folded ($(json_num "$out" stubs_folded))" test \
    "$(json_num "$out" stubs_folded)" -gt 0
run_tare cg callers realloc --exact -n 0 --format=tsv "$TMP/lua.out"
expect_eq "$(awk -F'\t' 'NR > 1 && $7 ~ /\?\?\?$/' <<<"$out" | wc -l)" 0 \
    "lua5.4: no stub among realloc's callers"
check "lua5.4: lua5.4's own code calls realloc" grep -q 'lua5\.4$' <<<"$out"
expect_eq "$(awk -F'\t' 'NR > 1 && $5 == "outer" { s += $3 } END { print s }' <<<"$out")" \
    "$(edge_line_cost "$TMP/lua.out" "*" realloc calls)" \
        "lua5.4: as many calls into realloc as the profile made"
for r in 1 4 c8; do
    if [ $r = c8 ]; then cgrun "$TMP/lua-$r.out" --separate-callers=8 -- lua5.4 "$TMP/r.lua"
    else cgrun "$TMP/lua-$r.out" --separate-recs=$r -- lua5.4 "$TMP/r.lua"; fi
done

# ---- a Lua with its function names: the eval loop re-entered through C ----
# (luaV_execute -> luaD_precall -> sort -> auxsort -> sort_comp -> lua_callk ->
# luaD_callnoyield -> luaV_execute again, for each comparison). Before, luaV_execute was drawn
# at half its inclusive cost with more frame self than its whole self cost; now its frames
# hold its self cost, its outermost frames (never under itself) its inclusive cost, exactly
# (the recursion marks tell which of lua_callk's calls are a re-entry), at each setting.
lib=$(pkg-config --variable=libdir lua5.4 2> /dev/null)/liblua5.4.a
if [ ! -f "$lib" ]; then
    not_ok "the Lua host needs Debian's liblua5.4-dev (scripts/install-deps installs it)"
    done_testing
    exit
fi
cc -O2 -g $(pkg-config --cflags lua5.4) -o "$TMP/luahost" "$TARE_ROOT/tests/fixtures/cg/luahost.c" \
    "$lib" -lm
expect_eq "$?" 0 "the Lua host builds against $lib"
for r in 1 2 4 c8; do
    f=$TMP/host-$r.out
    if [ $r = c8 ]; then cgrun "$f" --separate-callers=8 -- "$TMP/luahost" "$TMP/r.lua"
    else cgrun "$f" --separate-recs=$r -- "$TMP/luahost" "$TMP/r.lua"; fi
    expect_eq "$(cat "$f.stdout")" "$(printf '610\t1\t400')" "Lua host $r: ran the script"
    cp "$TMP/inv.sums" "$f.sums"
    err=$(cat "$TMP/inv.err")
    # (the parser's explist, under itself only through expressions: once drawn where the
    # states' shares left too little under it, now pulled in from its callers)
    [ $r = 1 ] || expect_no_match "$err" "only an estimate" \
        "Lua host $r: every function's outermost frames hold its inclusive cost (nothing reported)"
    for fn in luaV_execute luaD_precall lua_callk sort_comp auxsort; do
        expect_eq "$(frame_self "$f.sums" $fn)" "$(top_of "$f" $fn self)" \
            "Lua host $r: $fn's frames hold its self cost"
        [ $r = 1 ] && continue     # (no marks: the inclusive costs of a cycle are bounds)
        expect_eq "$(frame_outer "$f.sums" $fn)" "$(top_of "$f" $fn inclusive)" \
            "Lua host $r: $fn's outermost frames hold its inclusive cost"
    done
    # luaV_execute is under itself only where re-entered: through lua_callk (the comparator)
    twice=$("$TARE" cg folded --threshold 0 "$f" 2> /dev/null |
            awk '{ sub(/ [0-9]+$/, ""); if (split($0, a, "luaV_execute") > 2) print }')
    expect_empty "$(grep -v 'sort_comp;lua_callk;luaD_callnoyield;luaV_execute' <<<"$twice" |
                    head -n 3)" \
        "Lua host $r: luaV_execute drawn under itself only where table.sort's comparator re-enters it"
    [ $r = 1 ] || check "Lua host $r: and it is drawn re-entered there" test -n "$twice"
done
done_testing
