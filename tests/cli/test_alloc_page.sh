# tare alloc --format html: the page of `tare cg page` over the exact stacks. Every frame of
# the page's data is the sum of the stack table's rows that start with its path, in each of the
# five measures; in headless Chromium (cdp.js) the measure switch redraws the frames, and each
# frame drawn has the table's number and that share of the flame's width, the root the total.
# The function view and the tooltip; --diff of two tables: AFTER's frames coloured by their
# own stack's change, the movers by the change of the functions' self values; hostile names;
# a table of 40,000 stacks. Saves screenshots in $BUILD.
. "$(dirname "$0")/lib.sh"
SHOTDIR=$TARE_ROOT/${BUILD:-build}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
field() { json_path "$1" "$2"; }

# page_vs_table PAGE TSV: every frame of the page's data, in every measure, against the sum of
# the table's rows through its path: "ok FRAMES PATHS" or the frames that differ.
page_vs_table() {
    node -e '
        const fs = require("fs");
        const D = require(process.env.TARE_ROOT + "/tests/cli/page_data.js")(process.argv[1]);
        const rows = fs.readFileSync(process.argv[2], "utf8").trim().split("\n"), head = rows[0].split("\t");
        const cols = ["allocations", "bytes", "temporaries", "peak_bytes", "leaked_bytes"].map((c) => head.indexOf(c));
        const want = new Map([["", [0, 0, 0, 0, 0]]]);
        for (const r of rows.slice(1)) {
            const c = r.split("\t"), f = c[0].split(";");
            for (let i = 0; i <= f.length; i++) {
                const p = f.slice(0, i).join(";");
                if (!want.has(p)) want.set(p, [0, 0, 0, 0, 0]);
                cols.forEach((k, m) => { want.get(p)[m] += Number(c[k]); });
            }
        }
        const FR = D.fr, path = [], bad = [];
        for (let i = 0; i < FR.f.length; i++) {
            path[FR.d[i]] = FR.f[i] >= 0 ? D.f[FR.f[i]][0] : "";
            const p = path.slice(1, FR.d[i] + 1).join(";"), w = want.get(p);
            for (let m = 0; m < 5; m++)
                if (!w || FR.v[m][i] !== w[m]) bad.push(p + " " + D.events[m] + " " + FR.v[m][i] + " != " + (w && w[m]));
        }
        console.log(bad.length ? bad.slice(0, 5).join(", ") : "ok " + FR.f.length + " " + want.size);' "$1" "$2"
}

# drawn_vs_table RESULT TSV MEASURE COLUMN: the frames the browser saw drawn under MEASURE
# against the table's sums: {"root", "total", "drawn", "bad", "missing"} (a frame is bad when its
# value differs, when the width the page gave it is not its share of the flame, or when it is
# drawn wider than 8 px and not that wide; missing: a path of the table a pixel wide or more
# that is not drawn).
drawn_vs_table() {
    node -e '
        const fs = require("fs"), [res, tsv, m, col] = process.argv.slice(1);
        const R = JSON.parse(fs.readFileSync(res, "utf8")).by[m];
        const rows = fs.readFileSync(tsv, "utf8").trim().split("\n"), k = rows[0].split("\t").indexOf(col);
        const want = new Map();
        let total = 0;
        for (const r of rows.slice(1)) {
            const c = r.split("\t"), f = c[0].split(";"), v = Number(c[k]);
            total += v;
            for (let i = 1; i <= f.length; i++) {
                const p = f.slice(0, i).join(";");
                want.set(p, (want.get(p) || 0) + v);
            }
        }
        const W = R.flame_width, bad = [], seen = new Set();
        let root = null, drawn = 0;
        for (const [p, v, w, drawnW] of R.frames) {
            seen.add(p);
            if (p === "") { root = [v, w]; continue; }
            drawn++;
            const e = want.get(p) || 0, ew = e / total * W;
            if (v !== e || Math.abs(w - ew) > 0.01 || (ew > 8 && Math.abs(drawnW - ew) > 1))
                bad.push(p + ": " + v + " (table " + e + "), " + w.toFixed(2) + " px (" + ew.toFixed(2) + ")");
        }
        const missing = [...want].filter(([p, v]) => v / total * W >= 1 && !seen.has(p)).map(([p]) => p);
        console.log(JSON.stringify({ root, total, W, drawn, bad, missing }));' "$@"
}

run_tare alloc --stacks -f tsv -n 0 -o "$TMP/fix.tsv" -- "$FIXTURES/alloc_stacks_fp"
expect_rc 0 "the fixture's stack table"
check "the table has the fixture's stacks" test "$(wc -l < "$TMP/fix.tsv")" -ge 14

# ---- usage ----
run_tare alloc -f html -- "$FIXTURES/alloc_stacks_fp"
expect_rc 2 "html without --stacks"
expect_match "$err" "only with --stacks" "html without --stacks: says so"
run_tare alloc --from "$TMP/no-such.tsv" -f html -o "$TMP/x.html"
expect_rc 2 "html of a missing table"
check "nothing written for a missing table" test ! -e "$TMP/x.html"

# ---- the page of a saved table, and of a run ----
run_tare alloc --from "$TMP/fix.tsv" -f html -o "$TMP/fix.html"
expect_rc 0 "--from TABLE -f html -o PAGE"
expect_empty "$out" "-o: nothing on stdout"
page=$(cat "$TMP/fix.html")
expect_match "$page" '^<!DOCTYPE html>' "an HTML page"
expect_no_match "$page" '<(link|iframe|img|object|embed)[ >]' "no external resources"
expect_no_match "$page" '<script[^>]* src=' "no external script"
expect_match "$page" "default-src 'none'" "a content security policy that forbids fetching"
expect_eq "$(grep -o '<script' "$TMP/fix.html" | wc -l)" 2 "the data block and the page's script"
expect_match "$page" 'cg_page.js: the script of the page' "cg page's own script"
if ! command -v node > /dev/null; then
    not_ok "the page tests need node (scripts/install-deps check)"
    done_testing
    exit
fi
expect_match "$(page_vs_table "$TMP/fix.html" "$TMP/fix.tsv")" '^ok [0-9]+ [0-9]+$' \
    "every frame of the page, in every measure, is the table's sum through its path"
# a run's page straight away: the fixture's stacks are the same every run
run_tare alloc --stacks -f html -- "$FIXTURES/alloc_stacks_fp"
expect_rc 0 "--stacks -f html to stdout"
printf '%s\n' "$out" > "$TMP/run.html"
expect_match "$(page_vs_table "$TMP/run.html" "$TMP/fix.tsv")" '^ok ' \
    "a run's page: its frames are the table's sums"
expect_match "$out" '"title": "tare alloc: [^"]*alloc_stacks_fp"' \
    "a run's page: titled by its command"

if [ ! -x "$CHROMIUM" ]; then
    not_ok "the browser test needs chromium (scripts/install-deps check)"
    done_testing
    exit
fi
browser alloc_page_browser.js   # (browse: lib.sh)

# ---- in the browser: the switch redraws the frames to the table's numbers ----
res=$(browse "$TMP/fix.html" "$SHOTDIR/alloc-page-screenshot.png" rec)
printf '%s\n' "$res" > "$TMP/res.json"
expect_eq "$(field "$res" error)" "undefined" "browser run completed ($res)"
expect_eq "$(field "$res" errors)" "[]" "no console errors or exceptions"
expect_eq "$(field "$res" ready)" '"1"' "the page's script ran to the end"
expect_eq "$(field "$res" switch_label)" '"measure"' "the switch is the measure's"
expect_eq "$(field "$res" measures)" \
    '["allocations","bytes","temporaries","peak bytes","leaked bytes"]' \
    "the switch offers the five measures"
m=0
for col in allocations bytes temporaries peak_bytes leaked_bytes; do
    label=${col/_/ }
    chk=$(drawn_vs_table "$TMP/res.json" "$TMP/fix.tsv" "$label" "$col")
    total=$(field "$chk" total)
    expect_eq "$(field "$res" "by.$label.on")" "\"$label\"" "$label: its button on"
    expect_eq "$(field "$chk" root.0)" "$total" "$label: the root frame is the table's total"
    expect_eq "$(field "$chk" root.1)" "$(field "$chk" W)" "$label: the root is the whole width"
    expect_eq "$(field "$chk" bad)" "[]" \
        "$label: every frame drawn has the table's number and its share of the width"
    expect_eq "$(field "$chk" missing)" "[]" "$label: every stack a pixel wide is drawn"
    check "$label: frames drawn ($(field "$chk" drawn))" test "$(field "$chk" drawn)" -ge 3
    expect_match "$(field "$res" "by.$label.summary")" \
        "^\"$label total $(sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta' <<<"$total") · [0-9,]+ stacks\"$" \
        "$label: the summary line"
    m=$((m + 1))
done
# the same frame, two widths: main;hold is one allocation of 1 MiB
hold_w() {
    node -e '
        const R = JSON.parse(require("fs").readFileSync(process.argv[1])).by[process.argv[2]];
        const f = R.frames.find((f) => f[0] === "main;hold");
        console.log(f ? (f[2] / R.flame_width).toFixed(3) : 0)' "$TMP/res.json" "$1"
}
check "the switch changes the widths: main;hold most of bytes ($(hold_w bytes))" \
    awk -v w="$(hold_w bytes)" 'BEGIN { exit !(w > 0.9) }'
check "... and a sliver of allocations ($(hold_w allocations))" \
    awk -v w="$(hold_w allocations)" 'BEGIN { exit !(w < 0.01) }'
check "screenshot saved" test -s "$SHOTDIR/alloc-page-screenshot.png"
expect_match "$(field "$res" tooltip)" "this frame: [0-9,]+ allocations" "hover: the frame's value"
# the function view of rec: main;rec, main;rec;rec, ... each end in rec
rec_allocs=$(awk -F'\t' '$1 ~ /(^|;)rec(;|$)/ { s += $2 } END { print s }' "$TMP/fix.tsv")
rec_stacks=$(grep -c '^main;rec' "$TMP/fix.tsv")
expect_eq "$(field "$res" func)" '"rec"' "the function view of rec"
expect_eq "$(field "$res" func_table.0.1)" "\"$rec_allocs\"" "rec: self, its stacks' allocations"
expect_eq "$(field "$res" func_table.0.3)" "\"$rec_allocs\"" "rec: inclusive, once a stack"
expect_eq "$(field "$res" calls_head)" '"stacks"' "a call counts stacks"
all_allocs=$(awk -F'\t' 'NR > 1 { s += $2 } END { print s }' "$TMP/fix.tsv")
rec_pct=$(awk -v a="$rec_allocs" -v t="$all_allocs" 'BEGIN { printf "%.2f%%", 100 * a / t }')
expect_eq "$(field "$res" callers)" "[[\"main\",\"$rec_stacks\",\"$rec_allocs\",\"$rec_pct\"]]" \
    "rec's caller: main, in $rec_stacks stacks"
expect_eq "$(field "$res" callees)" "[]" "rec calls no other function (itself is no call)"

# ---- --diff: AFTER's frames coloured by their own stack's change ----
# BEFORE: temp_loop did 400 allocations, leak_some none; old_path was there and is gone
awk -F'\t' -v OFS='\t' 'NR > 1 && $1 == "main;temp_loop" { $2 = 400; $3 = 12800; $4 = 400 }
    $1 == "main;leak_some" { next } { print } END { print "main;old_path", 9, 90, 0, 0, 0 }' \
    "$TMP/fix.tsv" > "$TMP/before.tsv"
run_tare alloc --diff "$TMP/before.tsv" "$TMP/fix.tsv" -f html -o "$TMP/diff.html"
expect_rc 0 "--diff BEFORE AFTER -f html"
expect_match "$(page_vs_table "$TMP/diff.html" "$TMP/fix.tsv")" '^ok ' "diff page: AFTER's frames"
res=$(browse "$TMP/diff.html" "$SHOTDIR/alloc-page-diff-screenshot.png")
expect_eq "$(field "$res" errors)" "[]" "diff page: no errors"
expect_match "$(field "$res" title)" 'tare alloc diff: .*before.tsv → .*fix.tsv' \
    "diff page: its title"
expect_eq "$(field "$res" by.allocations.up)" '["main;leak_some","main;temp_loop"]' \
    "diff page: the stacks with more allocations (and the new one) red"
expect_eq "$(field "$res" by.allocations.down)" '[]' "diff page: none blue (old_path is no frame)"
expect_eq "$(field "$res" "by.leaked bytes.up")" '["main;leak_some"]' \
    "diff page, leaked bytes: only the new leak red"
moved=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).by.allocations.movers
    .filter((r) => r[4] !== "0").map((r) => r[0] + " " + r[4] + (r[6] ? " " + r[6] : "")).join(", "))' <<<"$res")
expect_eq "$moved" "temp_loop +600, old_path -9 gone, leak_some +4 new" \
    "diff page: the movers, biggest change first"
expect_match "$(field "$res" by.allocations.summary)" \
    '^"allocations total before [0-9,]+, after [0-9,]+ \(\+[0-9.]+%\)' "diff page: both totals"
run_tare alloc --diff "$TMP/before.tsv" "$TMP/fix.tsv" -f folded
expect_rc 2 "--diff has no folded format (still)"

# ---- hostile names are text ----
H='x</script><script>alert(1)</script><img src=x onerror=alert(2)>'
printf 'stack\tallocations\tbytes\ttemporaries\tpeak_bytes\tleaked_bytes\nmain;%s\t5\t50\t0\t0\t0\nmain;<b>\t1\t1\t0\t0\t0\n' \
    "$H" > "$TMP/evil.tsv"
run_tare alloc --from "$TMP/evil.tsv" -f html -o "$TMP/evil.html"
expect_rc 0 "page of hostile names"
expect_no_match "$(cat "$TMP/evil.html")" '<script>alert|<img src=x|</script><img|<b>' \
    "no hostile markup in the page"
expect_eq "$(grep -o '<script' "$TMP/evil.html" | wc -l)" 2 "hostile names: still two scripts"
res=$(browse "$TMP/evil.html" "" "$H")
expect_eq "$(field "$res" errors)" "[]" "hostile page: no dialogs, no errors"
expect_eq "$(field "$res" func)" "$(node -e 'console.log(JSON.stringify(process.argv[1]))' "$H")" \
    "the hostile name shown as text"
expect_match "$(field "$res" by.allocations.frames)" '\["main;x</script><script>alert' \
    "the hostile name's frame"

# ---- ten times the largest real table: Python importing 15 modules has 3,320 stacks (16,796
# frames), so 40,000 stacks up to 130 deep, each branching off an earlier one as real ones do ----
awk 'BEGIN { srand(3); print "stack\tallocations\tbytes\ttemporaries\tpeak_bytes\tleaked_bytes";
    for (r = 0; r < 40000; r++) {
        if (r == 0 || rand() < 0.02) {
            s = "main;f" int(rand() * 9); for (k = int(rand() * 40); k > 0; k--) s = s ";f" int(rand() * 200)
        } else {
            n = split(st[int(rand() * r)], f, ";"); cut = n - int(rand() * 6); if (cut < 1) cut = 1
            s = f[1]; for (k = 2; k <= cut; k++) s = s ";" f[k]
        }
        for (k = 1 + int(rand() * 6); k > 0 && split(s, f, ";") < 130; k--) s = s ";f" int(rand() * 200)
        st[r] = s
        if (!seen[s]++) print s "\t" 1 + int(rand() * 9) "\t" 8 * (1 + int(rand() * 99)) "\t0\t0\t0" } }' \
    > "$TMP/big.tsv"
rows=$(($(wc -l < "$TMP/big.tsv") - 1))
run_tare alloc --from "$TMP/big.tsv" -f html -o "$TMP/big.html"
expect_rc 0 "page of $rows stacks"
expect_match "$(page_vs_table "$TMP/big.html" "$TMP/big.tsv")" '^ok ' \
    "$rows stacks: every frame is the table's sum"
res=$(browse "$TMP/big.html" "" f1)
printf '%s\n' "$res" > "$TMP/bigres.json"
expect_eq "$(field "$res" errors)" "[]" "$rows stacks: the page opens without errors"
expect_eq "$(field "$(drawn_vs_table "$TMP/bigres.json" "$TMP/big.tsv" bytes bytes)" bad)" "[]" \
    "$rows stacks: the frames drawn by bytes are the table's"
done_testing
