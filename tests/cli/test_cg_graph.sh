# tare cg folded and tare cg dot: pictures of real profiles of fixtures with known stacks
# (cg_stacks), recursion (cg_recurse, cg_cycles), checked against tare's own top/callees and
# the costs the profile states; dot read back by Graphviz.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cg_lib.sh"

cgrun "$TMP/st.out" -- "$FIXTURES/cg_stacks"
total=$(json_num "$("$TARE" cg info --format=json "$TMP/st.out")" Ir)
top=$("$TARE" cg top -n 0 --format=tsv "$TMP/st.out")
self_of() { awk -F'\t' -v f="$1" 'NR > 1 && $1 == f { print $3; exit }' <<<"$top"; }
incl_of() { awk -F'\t' -v f="$1" 'NR > 1 && $1 == f { print $4; exit }' <<<"$top"; }

# ---- folded ----
run_tare cg folded "$TMP/st.out"
expect_rc 0 "folded of cg_stacks"
folded=$out
expect_eq "$(awk '{ s += $NF } END { print s }' <<<"$folded")" "$total" \
    "folded: the lines add up to the total"
expect_eq "$(grep -c ' [0-9][0-9]*$' <<<"$folded")" "$(wc -l <<<"$folded")" \
    "folded: every line is 'stack count'"
# the program's own stacks, from main on (what is above main is the C runtime's)
mine=$(grep -E '(^|;)main( |;)' <<<"$folded" | sed -E 's/^(.*;)?main/main/')
expect_eq "$(cut -d' ' -f1 <<<"$mine" | LC_ALL=C sort)" \
"main
main;left
main;left;leaf_a
main;left;shared
main;left;shared;deep
main;right
main;right;leaf_b
main;right;shared
main;right;shared;deep" "folded: the stacks of cg_stacks, one line each"
val() { awk -v s="$1" '$1 == s { print $2 }' <<<"$mine"; }
# functions with one caller: the line is the function's own self cost
for s in main main:left main:right main:left:leaf_a main:right:leaf_b; do
    f=${s##*:}
    expect_eq "$(val "${s//:/;}")" "$(self_of "$f")" \
        "folded: ${s//:/;} = the self cost of $f (one caller: exact)"
done
# shared has two callers: its frame under each is that caller's call into it, as the profile
# states it on the call line; its own cost and deep's are split between the two
L=$(edge_line_cost "$TMP/st.out" left shared)
R=$(edge_line_cost "$TMP/st.out" right shared)
expect_eq "$(( $(val 'main;left;shared') + $(val 'main;left;shared;deep') ))" "$L" \
    "folded: shared under left = left's calls into it ($L)"
expect_eq "$(( $(val 'main;right;shared') + $(val 'main;right;shared;deep') ))" "$R" \
    "folded: shared under right = right's calls into it ($R)"
expect_eq \
    "$(( $(val 'main;left;shared') + $(val 'main;right;shared') + $(val 'main;left;shared;deep') + $(val 'main;right;shared;deep') ))" \
    "$(( $(self_of shared) + $(self_of deep) ))" \
        "folded: shared's and deep's four frames add up to their self costs"
# (the split is rounded down frame by frame: each of the two may be 1 short, and shared's
# self 1 over, so the split alone is checked to that unit)
split=$(( $(val 'main;left;shared;deep') + $(val 'main;right;shared;deep') - $(self_of deep) ))
check "folded: deep's two frames add up to its self cost, to the unit of rounding ($split)" test \
    "$split" -ge -2 -a "$split" -le 0
D=$(edge_line_cost "$TMP/st.out" shared deep)
I=$(incl_of shared)
want=$(awk -v d="$D" -v l="$L" -v i="$I" 'BEGIN { printf "%d", d * l / i }')
check \
    "folded: deep under left is the estimate deep x left's share of shared ($want ~ $(val 'main;left;shared;deep'))" \
    test "$(( $(val 'main;left;shared;deep') - want ))" -ge -1 -a \
        "$(( $(val 'main;left;shared;deep') - want ))" -le 1

# --separate-callers contexts: exact stacks. `cg_stacks c` makes deep do 1000 rounds under
# left's shared and 300 under each of right's two: without contexts the split of deep's cost
# follows shared's (an estimate, far off here); with them each frame is the profile's own
# call line between the two contexts
cgrun "$TMP/c0.out" -- "$FIXTURES/cg_stacks" c
cgrun "$TMP/c4.out" --separate-callers=4 -- "$FIXTURES/cg_stacks" c
mine_of() { grep -E '(^|;)main( |;)' | sed -E 's/^(.*;)?main/main/'; }
cval() { awk -v s="$2" '$1 == s { print $2 }' <<<"$1"; }
run_tare cg folded "$TMP/c0.out"
expect_empty "$err" "folded without contexts: no word on stderr"
est=$(mine_of <<<"$out")
run_tare cg folded "$TMP/c4.out"
expect_rc 0 "folded of a --separate-callers=4 profile"
ctx=$(mine_of <<<"$out")
expect_match "$err" \
    '^tare cg folded: stacks from --separate-callers=4 contexts: [0-9.]+% of the cost exact, [0-9.]+% an estimate' \
    "folded: says the stacks come from the contexts, how much is exact"
expect_eq "$(awk '{ s += $NF } END { print s }' <<<"$out")" \
    "$(json_num "$("$TARE" cg info --format=json "$TMP/c4.out")" Ir)" \
    "folded with contexts: the lines add up to the total"
expect_eq "$(cut -d' ' -f1 <<<"$ctx" | LC_ALL=C sort)" \
    "$(cut -d' ' -f1 <<<"$est" | LC_ALL=C sort)" \
    "folded with contexts: the same stacks of cg_stacks"
DL=$(ctx_edge "$TMP/c4.out" "shared'left'main'" "deep'shared'left'main'")
DR=$(ctx_edge "$TMP/c4.out" "shared'right'main'" "deep'shared'right'main'")
check "the profile has call lines between the contexts ($DL, $DR)" test "$DL" -gt 0 -a "$DR" -gt 0
expect_eq "$(cval "$ctx" 'main;left;shared;deep')" "$DL" \
    "folded with contexts: deep under left = the call line of its context ($DL)"
expect_eq "$(cval "$ctx" 'main;right;shared;deep')" "$DR" \
    "folded with contexts: deep under right = the call line of its context ($DR)"
L4=$(ctx_edge "$TMP/c4.out" "left'main'" "shared'left'main'")
expect_eq "$(( $(cval "$ctx" 'main;left;shared') + $(cval "$ctx" 'main;left;shared;deep') ))" \
    "$L4" \
    "folded with contexts: shared under left = left's calls into it ($L4)"
# deep's rounds: 1000 under left, 2 x 300 under right; deep's cost per call is a + b x rounds
check \
    "the exact costs follow the fixture's rounds: deep under left costs more than under right ($DL > $DR)" \
    test "$DL" -gt "$DR"
e_l=$(cval "$est" 'main;left;shared;deep')
check "without contexts deep under left is the estimate, far from the truth ($e_l < $DL / 2)" test \
    "$(( 2 * e_l ))" -lt "$DL"
e_r=$(cval "$est" 'main;right;shared;deep')
check "without contexts deep under right is over the truth ($e_r > 2 x $DR)" test "$e_r" -gt \
    "$(( 2 * DR ))"
# recursion and cycles with contexts: one frame, whole cost; no function twice from main on
cgrun "$TMP/rec3.out" --separate-callers=3 -- "$FIXTURES/cg_recurse" 12
run_tare cg folded "$TMP/rec3.out"
expect_no_match "$out" 'fib;fib' "folded with contexts: fib's recursion is no tower"
expect_eq "$(awk '{ v = $NF; sub(/ [0-9]+$/, "") } /;fib$/ { print v }' <<<"$out")" \
    "$(cg_inclusive "$TMP/rec3.out" fib | cut -d' ' -f1)" \
    "folded with contexts: fib's one frame holds its inclusive cost"
for r in 1 2; do
    cgrun "$TMP/mut$r.out" --separate-callers=3 --separate-recs=$r -- "$FIXTURES/cg_cycles" mutual 9
    run_tare cg folded "$TMP/mut$r.out"
    expect_eq "$(awk '{ s += $NF } END { print s }' <<<"$out")" \
        "$(json_num "$("$TARE" cg info --format=json "$TMP/mut$r.out")" Ir)" \
        "folded with contexts, --separate-recs=$r: adds up to the total"
    expect_empty \
        "$(awk '{ sub(/ [0-9]+$/, ""); if (!sub(/^(.*;)?main;/, "main;")) next; n = split($0, a, ";"); delete seen; for (i = 1; i <= n; i++) if (a[i] !~ /^\[/ && seen[a[i]]++) { print; exit } }' <<<"$out")" \
        "folded with contexts, --separate-recs=$r: no function twice on a stack from main on"
done

# a threshold: frames under it merged into [other], the total kept
run_tare cg folded --threshold 5 "$TMP/st.out"
expect_rc 0 "folded --threshold 5"
expect_eq "$(awk '{ s += $NF } END { print s }' <<<"$out")" "$total" \
    "folded --threshold: still adds up to the total"
expect_match "$out" '\[other\] [0-9]+' "folded --threshold: small callees merged into [other]"
expect_no_match "$out" 'main;left;shared;deep' \
    "folded --threshold 5: deep under left (under 5%) merged"
expect_match "$out" 'main;right;shared;deep [0-9]+' \
    "folded --threshold 5: deep under right (over 5%) kept"

# recursion: one frame, with its whole cost
cgrun "$TMP/rec.out" -- "$FIXTURES/cg_recurse" 12
run_tare cg folded "$TMP/rec.out"
expect_no_match "$out" 'fib;fib' "folded: fib's recursion is no tower"
expect_eq "$(awk '{ v = $NF; sub(/ [0-9]+$/, "") } /;fib$/ { print v }' <<<"$out")" \
    "$(cg_inclusive "$TMP/rec.out" fib | cut -d' ' -f1)" \
    "folded: fib's one frame holds its inclusive cost"
for shape in mutual cycle3; do
    cgrun "$TMP/$shape.out" -- "$FIXTURES/cg_cycles" "$shape" 9
    cgrun "$TMP/${shape}1.out" --separate-recs=1 -- "$FIXTURES/cg_cycles" "$shape" 9
    for f in "$TMP/$shape.out" "$TMP/${shape}1.out"; do
        run_tare cg folded "$f"
        t=$(json_num "$("$TARE" cg info --format=json "$f")" Ir)
        expect_eq "$(awk '{ s += $NF } END { print s }' <<<"$out")" "$t" \
            "folded $(basename "$f"): adds up to the total"
        expect_empty \
            "$(awk '{ sub(/ [0-9]+$/, ""); if (!sub(/^(.*;)?main;/, "main;")) next; n = split($0, a, ";"); delete seen; for (i = 1; i <= n; i++) if (a[i] !~ /^\[/ && seen[a[i]]++) { print; exit } }' <<<"$out")" \
            "folded $(basename "$f"): no function twice on a stack from main on"
    done
done

# ---- dot ----
if command -v dot > /dev/null; then ok; else not_ok \
    "the dot tests need Graphviz's dot (scripts/install-deps check)"; fi
run_tare cg dot "$TMP/st.out"
expect_rc 0 "dot of cg_stacks"
printf '%s\n' "$out" > "$TMP/st.dot"
dot -Tsvg "$TMP/st.dot" > "$TMP/st.svg" 2> "$TMP/dot.err"
expect_eq "$?" 0 "dot -Tsvg reads it ($(head -c 200 "$TMP/dot.err"))"
titles=$(sed -n 's/.*<title>\(.*\)<\/title>.*/\1/p' "$TMP/st.svg")
node_of() { sed -n "s/^  \(f[0-9]*\) \[label=\"$1\\\\n.*/\1/p" "$TMP/st.dot"; }
for f in main left right shared deep leaf_a leaf_b; do
    check "dot: a node for $f" test -n "$(node_of "$f")"
done
pct() { awk -v a="$1" -v t="$total" 'BEGIN { printf "%.2f%%", 100 * a / t }'; }
expect_match "$(grep "^  $(node_of shared) \[" "$TMP/st.dot")" \
    "label=\"shared\\\\n$(pct "$(incl_of shared)")\\\\n\\($(pct "$(self_of shared)")\\)\"" \
    "dot: shared's node has its inclusive and self share"
expect_match "$(grep "^  $(node_of left) -> $(node_of shared) " "$TMP/st.dot")" \
    "label=\"$(pct "$L")\\\\n1×\"" \
    "dot: the edge left -> shared has the cost of the call and its count (1)"
expect_match "$(grep "^  $(node_of right) -> $(node_of shared) " "$TMP/st.dot")" \
    "label=\"$(pct "$R")\\\\n2×\"" \
    "dot: the edge right -> shared: 2 calls"
expect_match "$titles" "^$(node_of left)&#45;&gt;$(node_of shared)\$" \
    "dot: Graphviz drew the edge left -> shared"
# thresholds: leaf_a (about 2.5%) goes under --node-threshold 5, its edge with it
run_tare cg dot --node-threshold 5 "$TMP/st.out"
expect_no_match "$out" 'label="leaf_a' "dot --node-threshold 5: leaf_a left out"
expect_match "$out" 'label="leaf_b' "dot --node-threshold 5: leaf_b (about 10%) kept"
run_tare cg dot --edge-threshold 20 "$TMP/st.out"
expect_no_match "$out" "^  $(node_of left) -> " \
    "dot --edge-threshold 20: left's calls (under 20%) left out"
expect_match "$out" "label=\"leaf_a" "dot --edge-threshold: the nodes stay"
run_tare cg dot --threshold 5 "$TMP/st.out"
expect_rc 2 "dot: --threshold is folded's"
run_tare cg folded --node-threshold 5 "$TMP/st.out"
expect_rc 2 "folded: --node-threshold is dot's"

# hostile and C++ names: text in the graph, never markup; a ';' in a folded name is ':'
T='std::map<K&, V<int> >::find<"q">(K const&) [clone .isra.0]'
H='x</text><script>alert(1)</script>\back;semi'
printf \
    'events: Ir\nfn=main\n1 10\ncfn=%s\ncalls=3 1\n1 50\ncfn=%s\ncalls=1 1\n1 40\nfn=%s\n1 50\nfn=%s\n1 40\ntotals: 100\n' \
    "$T" "$H" "$T" "$H" > "$TMP/names.out"
run_tare cg dot --node-threshold 0 --edge-threshold 0 "$TMP/names.out"
expect_rc 0 "dot of hostile names"
printf '%s\n' "$out" > "$TMP/names.dot"
dot -Tsvg "$TMP/names.dot" > "$TMP/names.svg" 2> "$TMP/dot.err"
expect_eq "$?" 0 "dot -Tsvg reads hostile names ($(head -c 200 "$TMP/dot.err"))"
expect_no_match "$(cat "$TMP/names.svg")" '<script' "dot: no markup from a name in the SVG"
expect_match "$(cat "$TMP/names.svg")" \
    'x&lt;/text&gt;&lt;script&gt;alert\(1\)&lt;/script&gt;\\back;semi' \
    "dot: the hostile name is text in the SVG"
expect_match "$(cat "$TMP/names.svg")" \
    'std::map&lt;K&amp;, V&lt;int&gt; &gt;::find&lt;&quot;q&quot;&gt;' \
    "dot: the template name is text in the SVG"
run_tare cg folded "$TMP/names.out"
expect_eq "$out" "main 10
main;$T 50
main;${H//;/:} 40" "folded: names as they are, ';' written ':'"

# bad input and usage
run_tare cg folded
expect_rc 2 "folded without a profile"
run_tare cg folded --threshold 101 "$TMP/st.out"
expect_rc 2 "folded --threshold over 100"
expect_match "$err" "percentage" "folded --threshold: says what it wants"
run_tare cg dot --event Nope "$TMP/st.out"
expect_rc 2 "dot: an event the profile lacks"
expect_match "$err" "no event 'Nope' in .*st.out' \(it has: Ir" "dot: names the events it has"
printf 'events: Ir\nfn=main\n1 x\n' > "$TMP/bad.out"
run_tare cg folded "$TMP/bad.out"
expect_rc 2 "folded of a malformed profile"
expect_match "$err" "^tare cg: .*bad.out' line 3" "folded: the file and line of the fault"
expect_empty "$out" "folded: nothing printed on a malformed profile"
run_tare cg folded --event Dr "$TMP/st.out"
expect_rc 2 "folded --event that is not in the profile"

done_testing
