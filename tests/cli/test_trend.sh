# tare trend: a self-contained page, everything escaped, and in a real browser (headless
# Chromium over the DevTools protocol): no console errors, one chart per benchmark, the metric
# switch, window, filter, table and tooltip working. Saves a screenshot in $BUILD.
. "$(dirname "$0")/lib.sh"
EXCERPT=$TARE_ROOT/tests/fixtures/mutsu-excerpt.tsv
# The real history: $TARE_DATA, or ../shared/data beside the repository, when present.
MUTSU=${TARE_DATA:-$TARE_ROOT/../shared/data}/mutsu-bench-history.tsv
[ -r "$MUTSU" ] || MUTSU=$EXCERPT
SHOTDIR=$TARE_ROOT/${BUILD:-build}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

# field JSON NAME: one top-level field of a JSON object, as JSON.
field() { json_path "$1" "$2"; }

run_tare trend "$EXCERPT"
expect_rc 2 "no -o"
run_tare trend -o "$TMP/x.html"
expect_rc 2 "no FILE"
run_tare trend --commit-url 'javascript:alert(1)//{sha}' "$EXCERPT" -o "$TMP/x.html"
expect_rc 2 "a javascript: commit URL is refused"
printf 'commit\tbenchmark\tratio\nc\tb\tx\n' > "$TMP/bad.tsv"
run_tare trend "$TMP/bad.tsv" -o "$TMP/x.html"
expect_rc 2 "malformed history"
expect_eq "$err" "tare trend: '$TMP/bad.tsv' line 2: column 'ratio': not a number: 'x'" \
    "malformed message"
check "nothing written on error" test ! -e "$TMP/x.html"

run_tare trend "$EXCERPT" -o "$TMP/e.html" --commit-url 'https://example.org/r/commit/{sha}'
expect_rc 0 "trend of the excerpt"
page=$(cat "$TMP/e.html")
expect_match "$page" '^<!DOCTYPE html>' "an HTML page"
# Self-contained: no external script, style, font, image or frame.
expect_no_match "$page" '<(link|iframe|img|object|embed)[ >]' "no external resources"
expect_no_match "$page" '<script[^>]* src=' "no external script"
expect_no_match "$page" '@import|url\(' "no CSS imports"
expect_match "$page" "default-src 'none'" "a content security policy that forbids fetching"
# Data inline, with every series of the excerpt.
for b in bench-fib bench-fib+jit hash-access; do
    expect_match "$page" "\"name\":\"${b//+/\\+}\"" "series $b inline"
done

# Hostile names are data, never markup.
{ printf 'date\tcommit\tbenchmark\tmedian_s\n'
  for i in 1 2 3 4 5; do
      printf '2026-01-0%dT00:00:00Z\tc%d\t<script>alert(1)</script>\t1.%d\n' $i $i $i
      printf '2026-01-0%dT00:00:00Z\tc%d\tx</script><img src=x onerror=alert(2)>+"lane&\t2.%d\n' \
          $i $i $i
  done; } > "$TMP/evil.tsv"
run_tare trend --title '</title><script>alert(3)</script>' "$TMP/evil.tsv" -o "$TMP/evil.html"
expect_rc 0 "trend of hostile names"
evil=$(cat "$TMP/evil.html")
expect_no_match "$evil" '<script>alert|<img src=x|</script><img' "no hostile markup in the page"
expect_eq "$(grep -o '<script' "$TMP/evil.html" | wc -l)" 2 \
    "only the page's own two script elements"
expect_match "$evil" '\\u003cscript\\u003ealert\(1\)\\u003c/script\\u003e' \
    "names escaped in the JSON"
expect_match "$evil" '<title>&lt;/title&gt;&lt;script&gt;alert\(3\)&lt;/script&gt;</title>' \
    "title escaped"

if ! command -v node > /dev/null || [ ! -x "$CHROMIUM" ]; then
    not_ok "the browser test needs node and chromium (scripts/install-deps check)"
    done_testing
    exit
fi
browser trend_browser.js   # (browse: lib.sh)

# The page from the mutsu history, in a real browser.
run_tare trend "$MUTSU" -o "$TMP/mutsu.html" --title 'mutsu benchmarks'
expect_rc 0 "trend of the mutsu history"
res=$(browse "$TMP/mutsu.html" "$SHOTDIR/trend-screenshot.png")
expect_eq "$(field "$res" error)" "undefined" "browser run completed ($res)"
expect_eq "$(field "$res" errors)" "[]" "no console errors or exceptions"
expect_eq "$(field "$res" ready)" '"1"' "the page's script ran to the end"
nbench=$(awk -F'\t' 'NR > 1 { sub(/\+.*/, "", $3); print $3 }' "$MUTSU" | sort -u | wc -l)
nseries=$(awk -F'\t' 'NR > 1 { print $3 }' "$MUTSU" | sort -u | wc -l)
expect_eq "$(field "$res" charts)" "$nbench" "one chart per benchmark"
expect_eq "$(field "$res" paths)" "$nseries" "one line per lane"
[ "$MUTSU" = "$EXCERPT" ] || expect_eq "$(field "$res" dots)" 0 \
    "a long history: lines only, no dots"
expect_eq "$(field "$res" names)" \
    "$(awk -F'\t' 'NR > 1 { sub(/\+.*/, "", $3); print $3 }' "$MUTSU" | LC_ALL=C sort -u |
       node -e 'console.log(JSON.stringify(require("fs").readFileSync(0, "utf8").trim().split("\n")))')" \
    "chart names are the benchmarks"
expect_eq "$(field "$res" metrics)" '["median_s","min_s","ratio"]' \
    "metrics offered are those in the data"
expect_eq "$(field "$res" metric_before)" '"ratio"' \
    "without counts the page opens on the ratio to the reference"
expect_eq "$(field "$res" metric_after)" '"median_s"' "the metric switch redraws the first chart"
expect_eq "$(field "$res" all_switched)" true "the metric switch redraws every chart"
expect_eq "$(field "$res" path_changed)" true "the switched chart draws other values"
expect_eq "$(field "$res" metric_button_on)" '"median_s"' "the switched button shows as on"
expect_eq "$(field "$res" points_50)" 50 "window 50 draws 50 commits"
ncommits=$(awk -F'\t' -v b="$(awk -F'\t' 'NR == 2 { print $3 }' "$MUTSU")" 'NR > 1 && $3 == b' \
    "$MUTSU" | wc -l)
[ "$MUTSU" = "$EXCERPT" ] || expect_eq "$(field "$res" points_all)" "$ncommits" \
    "window all draws every commit"
expect_eq "$(field "$res" filter_shown)" \
    "$(awk -F'\t' 'NR > 1 { sub(/\+.*/, "", $3); print $3 }' "$MUTSU" | sort -u | grep -c fib)" \
        "the name filter"
expect_eq "$(field "$res" table_rows)" "$nseries" "the table view has a row per series"
expect_match "$(field "$res" tooltip)" '[0-9a-f]{12}  20[0-9-]+T.*base: [0-9.]+ ms' \
    "the tooltip shows commit, date, values"
expect_eq "$(field "$res" title)" '"mutsu benchmarks"' "title"
check "screenshot saved" test -s "$SHOTDIR/trend-screenshot.png"

# Hostile names in the browser: shown as text, nothing run.
res=$(browse "$TMP/evil.html")
expect_eq "$(field "$res" errors)" "[]" "hostile page: no dialogs, no errors"
expect_eq "$(field "$res" injected)" 2 "hostile page: no script element added"
expect_eq "$(field "$res" names)" \
    '["<script>alert(1)</script>","x</script><img src=x onerror=alert(2)>"]' \
    "hostile names shown as text"
expect_eq "$(field "$res" title)" '"</title><script>alert(3)</script>"' \
    "hostile title shown as text"

# Wall and count files together: the count metrics are offered, and a deterministic step
# at the newest commit (instructions +5% in one series) marks its chart.
awk -F'\t' 'BEGIN { OFS = "\t"; print "date", "commit", "benchmark", "instructions", "allocations", "toolchain" }
    NR > 1 { n[$3]++; print $1, $2, $3, 1000000 + n[$3], 5000, "gcc" }' "$EXCERPT" \
    > "$TMP/count.tsv"
last=$(tail -1 "$EXCERPT" | cut -f2)
awk -F'\t' -v c="$last" \
    'BEGIN { OFS = "\t" } NR > 1 && $2 == c && $3 == "hash-access" { $4 = int($4 * 1.05) } { print }' \
    "$TMP/count.tsv" > "$TMP/count2.tsv"
run_tare history check --format json "$TMP/count2.tsv"
expect_match "$out" '"benchmark": "hash-access", "metric": "instructions"' \
    "the planted count step is a regression"
run_tare trend "$EXCERPT" "$TMP/count2.tsv" -o "$TMP/both.html"
expect_rc 0 "trend of wall and count files"
res=$(browse "$TMP/both.html" "" instructions)
expect_eq "$(field "$res" errors)" "[]" "wall+count page: no errors"
expect_eq "$(field "$res" metrics)" '["median_s","min_s","ratio","instructions","allocations"]' \
    "count metrics offered"
expect_eq "$(field "$res" metric_before)" '"instructions"' "with counts it opens on instructions"
expect_eq "$(field "$res" metric_button_on)" '"instructions"' "and its button is on"
expect_eq "$(field "$res" alarm_cards)" '["hash-access"]' \
    "the chart with the newest regression is marked"

# The chips are tare history check's judgement at the newest point, never the raw last
# change: "levels" moves between two levels every three commits (its last value 30% over
# the median of the ten before, its consecutive changes mostly 0), which check learns as
# noise (within its fence: grey); "step" has a 50% step in its last three commits (check's
# regression: red). "det" counts 1.7 billion instructions give or take 14: its y range is
# never narrower than the 2% threshold, and its tick labels differ. 30 commits on one day:
# the x axis names the commits at its ends, not one date twice.
awk 'BEGIN { OFS = "\t"; print "date", "commit", "benchmark", "median_s", "instructions"
  for (i = 1; i <= 30; i++) {
    c = sprintf("%07x%s", i, "abcdefabcdefabcdefabcdefabcdefabcd0")
    d = sprintf("2026-01-01T00:%02d:00Z", i)
    print d, c, "levels", (int((i - 1) / 3) % 2 ? 1.3 : 1.0) * (1 + 0.002 * (i % 3)), "NA"
    print d, c, "step", (1 + 0.005 * ((7 * i) % 5 - 2)) * (i >= 28 ? 1.5 : 1), "NA"
    print d, c, "det", "NA", 1700000000 + (i % 3) * 7
  } }' > "$TMP/judged.tsv"
run_tare history check --format json "$TMP/judged.tsv"
expect_match "$out" '^\{"regressions": \[\{"benchmark": "step", "metric": "median_s"' \
    "check: step regresses"
expect_no_match "$out" '"benchmark": "levels"' "check: levels does not"
run_tare trend "$TMP/judged.tsv" -o "$TMP/judged.html"
res=$(browse "$TMP/judged.html" "" median_s)
js() { node -e \
    'const o = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(eval(process.argv[1]))' \
    "$1" <<<"$res"; }
expect_eq "$(field "$res" errors)" "[]" "judged page: no errors"
expect_match "$(js 'o.chips.levels[0][0]')" '^\+[0-9.]+% within ±[0-9.]+%$' \
    "levels: the change within the fence"
expect_eq "$(js 'o.chips.levels[0][1]')" chip "levels: a grey chip"
expect_match "$(js 'o.chips.step[0][0]')" '^regression \+4[89]\.[0-9]% past ±[0-9.]+%$' \
    "step: the regression and its fence"
expect_eq "$(js 'o.chips.step[0][1]')" "chip alarm" "step: a red chip"
expect_eq "$(js 'o.axes.step.x.join(" ")')" "0000001 000001e" \
    "one day's commits: the ends' hashes"
expect_match "$(js 'o.chips_before.det[0][0]')" 'within ±2\.0%$' "det: within the 2% threshold"
expect_eq "$(js 'new Set(o.axes_before.det.y).size')" 4 \
    "det: four distinct tick labels ($(js 'o.axes_before.det.y.join(" ")'))"
check \
    "det: the y range spans at least the threshold either side ($(js 'o.axes_before.det.range.join(" .. ")'))" \
    test "$(js 'const r = o.axes_before.det.range; (r[1] - r[0]) / 1700000000 >= 0.04')" = true
# A history of columns tare does not read: the page is empty, and trend says why.
printf 'date\tcommit\tbenchmark\tmean\n2026-01-01T00:00:00Z\tc1\tb\t1.5\n' > "$TMP/mean.tsv"
run_tare trend "$TMP/mean.tsv" -o "$TMP/mean.html"
expect_rc 0 "trend of unknown columns"
expect_match "$err" "^tare trend: note: the history has rows but no metric tare reads" \
    "says why the page is empty"
# A window of a few commits: each one's short hash on the x axis.
head -n 16 "$TMP/judged.tsv" > "$TMP/five.tsv"
run_tare trend "$TMP/five.tsv" -o "$TMP/five.html"
res=$(browse "$TMP/five.html" "" median_s)
expect_eq "$(js 'o.axes.step.x.join(" ")')" "0000001 0000002 0000003 0000004 0000005" \
    "five commits: five hashes"
expect_match "$(js 'o.chips.step[0][0]')" '^not tested: 5 of 16 points$' \
    "five commits: not tested, said"
expect_eq "$(js 'o.chips.step[0][1]')" chip "not tested: grey"

# A series whose noise gives it a fence wider than itself: no negative axis (no metric tare
# keeps is below 0), and the tooltip gives the commit's own date and subject.
awk 'BEGIN { OFS = "\t"; print "date", "commit", "benchmark", "median_s", "commit_date", "subject"
  for (i = 1; i <= 30; i++)
    print "2026-02-01T00:00:00Z", sprintf("%07x%s", i, "abcdefabcdefabcdefabcdefabcdefabcd0"),
          "wide", (i % 2 ? 0.05 : 0.5) * (1 + i / 1000), sprintf("2025-03-%02dT10:00:00Z", i),
          "commit " i ": the subject" }' > "$TMP/wide.tsv"
run_tare trend "$TMP/wide.tsv" -o "$TMP/wide.html"
res=$(browse "$TMP/wide.html")
expect_eq "$(field "$res" errors)" "[]" "wide page: no errors"
check "wide: the y axis starts at 0 or above ($(js 'o.axes_before.wide.range.join(" .. ")'))" \
    test "$(js 'o.axes_before.wide.range[0] >= 0 && o.axes_before.wide.range[1] > 0.5')" = true
expect_match "$(field "$res" tooltip)" '2025-03-2[0-9]T10:00:00Z.*commit 2[0-9]: the subject' \
    "the tooltip: the commit's date and subject"

# Edge cases: no rows, one commit, only NA values: the page still runs without an error.
printf 'date\tcommit\tbenchmark\tmedian_s\n' > "$TMP/empty.tsv"
printf 'date\tcommit\tbenchmark\tmedian_s\n2026-01-01T00:00:00Z\tc1\tb\t0.5\n' > "$TMP/one.tsv"
printf 'date\tcommit\tbenchmark\tmedian_s\n2026-01-01T00:00:00Z\tc1\tb\tNA\n' > "$TMP/na.tsv"
for f in empty:0 one:1 na:1; do
    run_tare trend "$TMP/${f%:*}.tsv" -o "$TMP/${f%:*}.html"
    res=$(browse "$TMP/${f%:*}.html")
    expect_eq "$(field "$res" errors)" "[]" "${f%:*} history: no errors"
    expect_eq "$(field "$res" charts)" "${f#*:}" "${f%:*} history: charts"
done
# One commit draws no line: its point shows as a dot (the first run of a new history).
res=$(browse "$TMP/one.html")
expect_eq "$(field "$res" dots)" 1 "one commit: its point drawn as a dot"

# The harness itself notices a broken page (so "no errors" above means something).
sed 's|render();$|render(); console.error("planted"); undefinedFunction();|' "$TMP/mutsu.html" > \
    "$TMP/broken.html"
res=$(browse "$TMP/broken.html")
expect_match "$(field "$res" errors)" 'planted' "a planted console error is caught"
expect_match "$(field "$res" errors)" 'undefinedFunction' "a planted exception is caught"
done_testing
