# tare cg page: one self-contained HTML file, every name escaped, and in a real browser
# (headless Chromium over the DevTools pipe): no console errors; the root frame is the program
# total and the whole width; a known function's frame has the inclusive cost `tare cg top
# --inclusive` gives (fixtures with known stacks, recursion, inlined code); a click zooms; the
# function view lists the known callers with their call counts; the events switch redraws.
# Saves a screenshot in $BUILD.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cg_lib.sh"
SHOTDIR=$TARE_ROOT/${BUILD:-build}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

field() { json_path "$1" "$2"; }   # field JSON a.0.b: that value, as JSON
incl_of() {   # incl_of PROFILE NAME: the inclusive cost `tare cg top --inclusive` gives
    "$TARE" cg top --inclusive -n 0 --format=tsv "$1" | awk -F'\t' -v f="$2" \
        'NR > 1 && $1 == f { print $4; exit }'
}
total_of() { "$TARE" cg info --format=json "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"; }

cgrun "$TMP/st.out" --cache-sim=yes -- "$FIXTURES/cg_stacks"

# ---- usage and bad input ----
run_tare cg page "$TMP/st.out"
expect_rc 2 "page without -o"
expect_match "$err" "no -o OUT" "page without -o: says so"
run_tare cg page -o "$TMP/x.html"
expect_rc 2 "page without a profile"
printf 'events: Ir\nfn=main\n1 x\n' > "$TMP/bad.out"
run_tare cg page "$TMP/bad.out" -o "$TMP/x.html"
expect_rc 2 "page of a malformed profile"
expect_match "$err" "bad.out' line 3" "page: the file and line of the fault"
check "page: nothing written on error" test ! -e "$TMP/x.html"
check "page: no temporary left" test -z "$(ls "$TMP" | grep 'x.html.tmp')"

# ---- the page itself ----
run_tare cg page "$TMP/st.out" -o "$TMP/st.html"
expect_rc 0 "page of cg_stacks"
expect_empty "$out" "page: nothing on stdout"
page=$(cat "$TMP/st.html")
expect_match "$page" '^<!DOCTYPE html>' "an HTML page"
expect_no_match "$page" '<(link|iframe|img|object|embed)[ >]' "no external resources"
expect_no_match "$page" '<script[^>]* src=' "no external script"
expect_no_match "$page" '@import|url\(' "no CSS imports"
expect_match "$page" "default-src 'none'" "a content security policy that forbids fetching"
expect_eq "$(grep -o '<script' "$TMP/st.html" | wc -l)" 2 "the data block and the page's script"

# hostile and C++ names are data, never markup
T='std::map<K&, V<int> >::find<"q">(K const&)'
H='x</script><script>alert(1)</script><img src=x onerror=alert(2)>'
printf \
    'events: Ir\ncmd: %s\nfn=main\n1 10\ncfn=%s\ncalls=3 1\n1 50\ncfn=%s\ncalls=1 1\n1 40\nfn=%s\n1 50\nfn=%s\n1 40\ntotals: 100\n' \
    "$H" "$T" "$H" "$T" "$H" > "$TMP/names.out"
run_tare cg page "$TMP/names.out" -o "$TMP/names.html" --title "</title><script>alert(3)</script>"
expect_rc 0 "page of hostile names"
evil=$(cat "$TMP/names.html")
expect_no_match "$evil" '<script>alert|<img src=x|</script><img' "no hostile markup in the page"
expect_eq "$(grep -o '<script' "$TMP/names.html" | wc -l)" 2 \
    "hostile names: still only the page's two script elements"
expect_match "$evil" '<title>&lt;/title&gt;&lt;script&gt;alert\(3\)&lt;/script&gt;</title>' \
    "title escaped"

# --separate-callers contexts: the frames are the profile's own costs between contexts, marked
# exact, and the data says how deep the contexts go (the page's note says so)
cgrun "$TMP/c4.out" --separate-callers=4 -- "$FIXTURES/cg_stacks" c
run_tare cg page "$TMP/c4.out" -o "$TMP/c4.html"
expect_rc 0 "page of a --separate-callers=4 profile"
# frame (value, exact) of main;CALLER;shared;deep, from the page's own data
deep_frame() {
    node -e '
        const D = require(process.env.TARE_ROOT + "/tests/cli/page_data.js")(process.argv[1]);
        const FR = D.fr, name = (i) => FR.f[i] >= 0 ? D.f[FR.f[i]][0] : "", path = [];
        let out = "none";
        for (let i = 0; i < FR.f.length; i++) {
            path[FR.d[i]] = name(i);
            const p = path.slice(1, FR.d[i] + 1), m = p.indexOf("main");
            if (m >= 0 && p.slice(m).join(";") === "main;" + process.argv[2] + ";shared;deep")
                out = FR.v[0][i] + " " + FR.x[i];
        }
        console.log(out + " " + D.ctx);' "$1" "$2"
}
if command -v node > /dev/null; then
    for who in left right; do
        want=$(ctx_edge "$TMP/c4.out" "shared'$who'main'" "deep'shared'$who'main'")
        expect_eq "$(deep_frame "$TMP/c4.html" "$who")" "$want 1 4" \
            "page with contexts: deep under $who is its context's call line ($want), exact; contexts 4 deep"
    done
    run_tare cg page "$TMP/st.out" -o "$TMP/st0.html"
    expect_match "$(deep_frame "$TMP/st0.html" left)" '^[0-9]+ 0 0$' \
        "page without contexts: deep under left is an estimate"
fi

if ! command -v node > /dev/null || [ ! -x "$CHROMIUM" ]; then
    not_ok "the browser test needs node and chromium (scripts/install-deps check)"
    done_testing
    exit
fi
browser cg_page_browser.js   # (browse: lib.sh)

res=$(browse "$TMP/st.html" "$SHOTDIR/cg-page-screenshot.png" left shared Dr)
expect_eq "$(field "$res" error)" "undefined" "browser run completed ($res)"
expect_eq "$(field "$res" errors)" "[]" "no console errors or exceptions"
# (striped: frames of a function whose frames are an estimate of its numbers; here libc's exit
# path, which never returns, and the frames above it: callgrind's costs for them are at odds)
expect_eq "$(field "$res" striped.wrong)" 0 \
    "the frames striped are those of the functions marked an estimate ($(field "$res" striped.n))"
expect_eq "$(node -e 'const D = require(process.env.TARE_ROOT + "/tests/cli/page_data.js")(process.argv[1]);
    console.log(D.f.filter((f) => ["main", "left", "right", "shared", "deep", "leaf_b"]
      .includes(f[0])).map((f) => f[0] + ":" + (f[4] & 6)).sort().join(" "))' "$TMP/st.html")" \
    "deep:0 leaf_b:0 left:0 main:0 right:0 shared:0" \
    "the program's own functions not marked an estimate (their frames hold their numbers)"
# the line under the title: the event's total, then how many profile files and parts (a
# source list once took the place of the count: "[object Object],...")
expect_match "$(field "$res" summary)" '^"Ir total [0-9,]+ . 1 file, 1 part"$' \
    "the summary line counts the files and parts"
expect_eq "$(field "$res" ready)" '"1"' "the page's script ran to the end"
expect_eq "$(field "$res" events)" '["Ir","Dr","Dw","I1mr","D1mr","D1mw","ILmr","DLmr","DLmw"]' \
    "the events switch offers the profile's events"
expect_eq "$(field "$res" root.value)" "$(total_of "$TMP/st.out" Ir)" \
    "the root frame is the program total"
expect_eq "$(field "$res" root.width)" "$(field "$res" root.flame_width)" \
    "the root frame is the whole width"
# the page as wide as the window, before and after the function view opened (its source
# lines once widened the page by 157 px: a sideways scroll bar)
expect_eq "$(field "$res" overflow_x.px) $(field "$res" overflow_x_end.px)" "0 0" \
    "no sideways scrolling ($(field "$res" overflow_x_end.wide))"
# every frame its share of the width, the thin ones too (padding once drew them at 7 px)
check "frames under 7 px drawn ($(field "$res" widths.thin))" \
    test "$(field "$res" widths.thin)" -gt 0
check "every frame drawn at its share of the width (off by $(field "$res" widths.off) px at most)" \
    awk -v d="$(field "$res" widths.off)" 'BEGIN { exit !(d < 0.5) }'
incl=$(incl_of "$TMP/st.out" left)
expect_eq "$(field "$res" name_frames.0.value)" "$incl" \
    "left's frame = its inclusive cost from tare cg top --inclusive ($incl)"
want=$(awk -v v="$incl" -v t="$(total_of "$TMP/st.out" Ir)" -v \
    w="$(field "$res" root.flame_width)" 'BEGIN { print v / t * w }')
got=$(field "$res" name_frames.0.width)
check "left's frame is its share of the width ($got px ~ $want px)" \
    awk -v a="$got" -v b="$want" 'BEGIN { exit !(a - b < 1 && b - a < 1) }'
expect_match "$(field "$res" tooltip)" \
    "this frame: $(sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta' <<<"$incl") Ir" \
    "hover: the frame's cost"
expect_match "$(field "$res" tooltip)" "calls from main: 1" \
    "hover: the calls into it from its parent"
expect_eq "$(field "$res" zoom)" "$(field "$res" clicked)" "a click zooms to the frame clicked"
expect_eq "$(field "$res" clicked)" "$(field "$res" name_frames.0.i)" "the click hit left's frame"
expect_eq "$(field "$res" zoomed_frame.width)" "$(field "$res" zoomed_frame.flame_width)" \
    "zoomed: the frame is the whole width"
expect_eq "$(field "$res" func_after_click)" '"left"' "a click on a frame opens its function view"
expect_eq "$(field "$res" zoom_reset)" 0 "reset zoom"
expect_match "$(field "$res" matched)" '^\[1,"matched: [0-9.]+% of the view"\]$' \
    "search highlights left's one frame"
expect_eq "$(field "$res" filtered)" '["shared"]' "the table's filter"
expect_eq "$(field "$res" func)" '"shared"' "the function view of shared"
expect_eq \
    "$(node -e 'console.log(JSON.parse(process.argv[1]).map(r => r[0] + " " + r[1]).join(", "))' "$(field "$res" callers)")" \
    "right 2, left 1" "shared's callers with their call counts (cg_stacks: right twice, left once)"
expect_eq \
    "$(node -e 'console.log(JSON.parse(process.argv[1]).map(r => r[0] + " " + r[1]).join(", "))' "$(field "$res" callees)")" \
    "deep 3" "shared's callees"
expect_eq "$(field "$res" func_after_link)" '"right"' "a caller's link opens its function view"
expect_eq "$(field "$res" event_on)" '"Dr"' "the events switch"
expect_eq "$(field "$res" root_after_event.value)" "$(total_of "$TMP/st.out" Dr)" \
    "after the switch the root frame is the Dr total"
check "screenshot saved" test -s "$SHOTDIR/cg-page-screenshot.png"

# recursion: fib is one frame with its whole inclusive cost
cgrun "$TMP/rec.out" -- "$FIXTURES/cg_recurse" 12
run_tare cg page "$TMP/rec.out" -o "$TMP/rec.html"
res=$(browse "$TMP/rec.html" "" fib)
expect_eq "$(field "$res" errors)" "[]" "recursive fixture: no errors"
expect_eq \
    "$(node -e 'console.log(JSON.parse(process.argv[1]).length)' "$(field "$res" name_frames)")" 1 \
    "fib is one frame, not a tower"
expect_eq "$(field "$res" name_frames.0.value)" "$(incl_of "$TMP/rec.out" fib)" \
    "fib's frame = its inclusive cost"

# inlined code (tests/fixtures/cg/): hot_a's frame holds its pieces from two files
mkdir -p "$TMP/src" && cp "$TARE_ROOT"/tests/fixtures/cg/* "$TMP/src/"
cc -O2 -g -o "$TMP/inl" "$TMP/src/inl_a.c" "$TMP/src/inl_b.c"
cgrun "$TMP/inl.out" -- "$TMP/inl"
run_tare cg page "$TMP/inl.out" -o "$TMP/inl.html"
res=$(browse "$TMP/inl.html" "" hot_a hot_a)
expect_eq "$(field "$res" errors)" "[]" "inlined fixture: no errors"
expect_eq "$(field "$res" name_frames.0.value)" "$(incl_of "$TMP/inl.out" hot_a)" \
    "hot_a's frame = its inclusive cost, inlined pieces merged"
# annotated source: hot_a's lines in its two files, as `tare cg lines` has them, with the text
src_rows() {  # the rows with a cost: file:line cost
    node -e \
        'for (const f of JSON.parse(process.argv[1])) for (const r of f.rows) if (r[1] !== "") console.log(f.file + ":" + r[0] + " " + r[1].replace(/,/g, ""))' \
        "$1"
}
run_tare cg lines hot_a --format=tsv "$TMP/inl.out"
want_lines=$(awk -F'\t' 'NR > 1 { print $2 ":" $3 " " $4 }' <<<"$out" | LC_ALL=C sort)
check "tare cg lines: hot_a has lines in two files" test \
    "$(cut -d: -f1 <<<"$want_lines" | sort -u | wc -l)" -eq 2
expect_eq "$(src_rows "$(field "$res" source)" | LC_ALL=C sort)" "$want_lines" \
    "the function view's source: hot_a's lines and costs, as tare cg lines has them"
expect_eq \
    "$(node -e 'const f = JSON.parse(process.argv[1]).find(f => f.file.endsWith("/inl.h")); console.log(f.rows.find(r => r[0] === "5")[3])' "$(field "$res" source)")" \
    "$(sed -n 5p "$TMP/src/inl.h")" "the source text of inl.h line 5"
# the sources moved away: line numbers and costs only, and --source-root finds them again
mkdir -p "$TMP/moved" && mv "$TMP/src" "$TMP/moved/src"
run_tare cg page "$TMP/inl.out" -o "$TMP/inl2.html"
res=$(browse "$TMP/inl2.html" "" hot_a hot_a)
expect_match "$(field "$res" source.0.note)" "not readable here" "sources gone: the page says so"
expect_eq "$(src_rows "$(field "$res" source)" | LC_ALL=C sort)" "$want_lines" \
    "sources gone: still each line's cost"
run_tare cg page "$TMP/inl.out" -o "$TMP/inl3.html" --source-root "$TMP/moved"
res=$(browse "$TMP/inl3.html" "" hot_a hot_a)
expect_eq "$(field "$res" source.0.note)" '""' "--source-root: the sources found"
expect_eq \
    "$(node -e 'const f = JSON.parse(process.argv[1]).find(f => f.file.endsWith("/inl.h")); console.log(f.rows.find(r => r[0] === "5")[3])' "$(field "$res" source)")" \
    "$(sed -n 5p "$TMP/moved/src/inl.h")" "--source-root: the text of inl.h line 5"

# --diff: cg_stacks with "b" makes leaf_b do 1,000 more rounds and nothing else
cgrun "$TMP/da.out" -- "$FIXTURES/cg_stacks" a
cgrun "$TMP/db.out" -- "$FIXTURES/cg_stacks" b
run_tare cg diff --format=tsv -n 0 "$TMP/da.out" "$TMP/db.out"
self_in() { "$TARE" cg top -n 0 --format=tsv "$1" | awk -F'\t' -v f="$2" '$1 == f { print $3 }'; }
grow=$(( $(self_in "$TMP/db.out" leaf_b) - $(self_in "$TMP/da.out" leaf_b) ))
expect_eq "$(awk -F'\t' 'NR > 1 && $5 != 0 { print $1, $5 }' <<<"$out")" "leaf_b $grow" \
    "tare cg diff: the two profiles differ in leaf_b alone"
run_tare cg page --diff "$TMP/da.out" "$TMP/db.out" -o "$TMP/diff.html"
expect_rc 0 "page --diff"
res=$(browse "$TMP/diff.html" "$SHOTDIR/cg-page-diff-screenshot.png" leaf_b)
expect_eq "$(field "$res" errors)" "[]" "diff page: no errors"
expect_eq "$(field "$res" changed)" '["+leaf_b"]' \
    "diff page: leaf_b's frames coloured as more cost, and no other"
expect_eq "$(field "$res" moved)" \
    "[\"leaf_b +$(sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta' <<<"$grow")\"]" \
    "diff page: the movers table has leaf_b alone changed, by tare cg diff's delta"
expect_eq "$(field "$res" movers.0.0)" '"leaf_b"' "diff page: the biggest mover first"
expect_match "$(field "$res" tooltip)" 'self before [0-9,]+, after [0-9,]+ \(\+[0-9,]+\)' \
    "diff page: hover tells before and after"
expect_eq "$(field "$res" changed_paths)" '["+main;right;leaf_b"]' \
    "diff page: leaf_b's one path coloured"
# a change on one path of a function with two callers: `cg_stacks d` does twice c's work in
# deep under right, none more under left. With --separate-callers contexts both sides'
# frames are exact, and each frame is coloured by its own path's change: deep under right
# alone. Without contexts the split of deep's cost is an estimate, which moves on the other
# path too.
cgrun "$TMP/dc.out" --separate-callers=4 -- "$FIXTURES/cg_stacks" c
cgrun "$TMP/dd.out" --separate-callers=4 -- "$FIXTURES/cg_stacks" d
run_tare cg page --diff "$TMP/dc.out" "$TMP/dd.out" -o "$TMP/diff3.html"
expect_rc 0 "page --diff of two profiles with contexts"
res=$(browse "$TMP/diff3.html" "" deep)
expect_eq "$(field "$res" errors)" "[]" "one-path diff page: no errors"
expect_eq "$(field "$res" changed_paths)" '["+main;right;shared;deep"]' \
    "diff page with contexts: only deep under right coloured"
expect_eq "$(field "$res" changed)" '["+deep"]' \
    "diff page with contexts: deep the one function coloured"
cgrun "$TMP/dc0.out" -- "$FIXTURES/cg_stacks" c
cgrun "$TMP/dd0.out" -- "$FIXTURES/cg_stacks" d
run_tare cg page --diff "$TMP/dc0.out" "$TMP/dd0.out" -o "$TMP/diff4.html"
res=$(browse "$TMP/diff4.html" "" deep)
expect_match "$(field "$res" changed_paths)" 'main;left;shared;deep' \
    "diff page without contexts: the estimate moves deep under left too"
# new and gone: cg_recurse before, cg_stacks after (two programs: compared as asked, as
# `cg diff` compares them)
run_tare cg page --diff --map-object cg_recurse=cg_stacks "$TMP/rec.out" "$TMP/da.out" \
    -o "$TMP/diff2.html"
expect_rc 0 "page --diff of two programs, mapped"
res=$(browse "$TMP/diff2.html")
expect_eq "$(field "$res" errors)" "[]" "new/gone diff page: no errors"
expect_match "$(field "$res" moved)" '"fib -[0-9,]+ gone"' "diff page: fib, only before, is gone"
expect_match "$(field "$res" moved)" '"leaf_b \+[0-9,]+ new"' \
    "diff page: leaf_b, only after, is new"
run_tare cg page --diff "$TMP/da.out" -o "$TMP/x.html"
expect_rc 2 "page --diff wants two profiles"
run_tare cg page --diff "$TMP/st.out" "$TMP/da.out" -o "$TMP/x.html"
expect_rc 2 "page --diff of profiles with different events"
expect_match "$err" "different events" "page --diff: says the events differ"

# ---- an interpreter: a Lua with its function names (Debian's static liblua5.4.a) ----
# luaV_execute is re-entered through C (table.sort's Lua comparator) and calls itself for the
# recursive function: its frames on the page hold its self cost and its outermost frames its
# inclusive cost from `tare cg top`, drawn at that share of the width; its function view is
# `tare cg callees` / `callers`, row for row, the calls inside them apart as the command line
# prints them. The screenshot is the README's.
lib=$(pkg-config --variable=libdir lua5.4 2> /dev/null)/liblua5.4.a
if [ ! -f "$lib" ]; then
    not_ok "the Lua host needs Debian's liblua5.4-dev (scripts/install-deps installs it)"
else
    cat > "$TMP/r.lua" <<'LUA'
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 400 do t[i] = (i * 7919) % 401 end
table.sort(t, function(a, b) return a < b end)
print(fib(15), t[1], t[400])
LUA
    cc -O2 -g $(pkg-config --cflags lua5.4) -o "$TMP/luahost" \
        "$TARE_ROOT/tests/fixtures/cg/luahost.c" "$lib" -lm
    expect_eq "$?" 0 "the Lua host builds against $lib"
    cgrun "$TMP/lua.out" -- "$TMP/luahost" "$TMP/r.lua"
    run_tare cg page --threshold 0 --title "Lua 5.4 (liblua5.4.a): fib(15), table.sort" \
        "$TMP/lua.out" -o "$TMP/lua.html"
    expect_rc 0 "page of the Lua host"
    V=luaV_execute
    res=$(browse "$TMP/lua.html" "$SHOTDIR/cg-page-lua-screenshot.png" $V $V)
    expect_eq "$(field "$res" errors)" "[]" "Lua page: no errors"
    top=$("$TARE" cg top -n 0 --format=tsv "$TMP/lua.out" | awk -F'\t' -v f=$V '$1 == f')
    expect_eq "$(field "$res" name_sums.self)" "$(cut -f3 <<<"$top")" \
        "Lua page: $V's frames hold its self cost from cg top"
    incl=$(cut -f4 <<<"$top")
    expect_eq "$(field "$res" name_sums.outer)" "$incl" \
        "Lua page: $V's outermost frames hold its inclusive cost from cg top"
    sums=$(field "$res" name_sums)
    check "Lua page: $V's outermost frames drawn at its share of the width ($sums)" node -e '
        const r = JSON.parse(process.argv[1]), want = r.outer / r.total * r.flame_width;
        process.exit(r.drawn > 0 && Math.abs(r.outer_width - want) <= r.outer_frames ? 0 : 1);' \
        "$sums"
    expect_eq "$(field "$res" func)" "\"$V\"" "Lua page: the function view of $V"
    for view in callees callers; do
        "$TARE" cg $view -n 0 --format=tsv $V "$TMP/lua.out" > "$TMP/lua.$view"
        expect_eq "$(node -e 'console.log(JSON.parse(process.argv[1]).map(r =>
                       [r[0], r[1].replace(/,/g, ""), r[2].replace(/,/g, "")].join("\t")).join("\n"))' \
                       "$(field "$res" $view)")" \
            "$(awk -F'\t' 'NR > 1 && $5 == "outer" { print $2 "\t" $3 "\t" $4 }' "$TMP/lua.$view")" \
            "Lua page: $V's $view are cg $view's outer rows (function, calls, cost)"
    done
    run_tare cg callees -n 0 $V "$TMP/lua.out"
    cli=$(grep -E '^(recursive calls|calls within|calls from its recursion)' <<<"$out")
    run_tare cg callers -n 0 $V "$TMP/lua.out"
    cli=$(grep -E '^(recursive calls|calls within|calls from its recursion)' <<<"$out"; echo "$cli")
    expect_eq "$(node -e 'console.log(JSON.parse(process.argv[1]).join("\n"))' \
                   "$(field "$res" apart)")" "$cli" \
        "Lua page: the calls shown apart, as cg callers and callees print them"
    check "Lua page: some calls are apart (the re-entry)" test -n "$cli"
    check "Lua screenshot saved" test -s "$SHOTDIR/cg-page-lua-screenshot.png"
fi

# hostile names in the browser: text, nothing run
res=$(browse "$TMP/names.html" "" "$H" "$T")
expect_eq "$(field "$res" errors)" "[]" "hostile page: no dialogs, no errors"
expect_eq "$(field "$res" scripts)" 2 "hostile page: no script element added"
expect_eq "$(field "$res" title)" '"</title><script>alert(3)</script>"' \
    "hostile title shown as text"
expect_eq "$(field "$res" func)" "$(node -e 'console.log(JSON.stringify(process.argv[1]))' "$T")" \
    "the template name shown as text"
expect_eq "$(field "$res" name_frames.0.value)" 40 "the hostile name's frame"
done_testing
