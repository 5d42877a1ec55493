# tests/cli/lib.sh: helpers for the end-to-end tests. Each test_*.sh sources this,
# makes its checks, and ends with `done_testing`.
set -u
: "${TARE:?TARE must name the binary under test}"
: "${FIXTURES:?FIXTURES must name the built fixtures}"
case $TARE in /*) ;; *) TARE=$PWD/$TARE ;; esac
case $FIXTURES in /*) ;; *) FIXTURES=$PWD/$FIXTURES ;; esac
TEST_NAME=$(basename "$0")
passed=0
failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok()     { passed=$((passed + 1)); }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }

# repeats FULL FEW: how many times to repeat a statistical trial (the same code on new draws):
# FULL in the plain suite, FEW in the sanitizer suite (TARE_TEST_SANITIZED, set by make), which
# looks for memory errors: a repeat runs no code the first did not, and the plain suite holds
# the statistical claim at full strength.
repeats() { if [ -n "${TARE_TEST_SANITIZED:-}" ]; then echo "$2"; else echo "$1"; fi; }

# check DESC CMD...: CMD must succeed.
check() {
    local desc=$1; shift
    if "$@"; then ok; else not_ok "$desc"; fi
}

# run_tare ARGS...: runs tare, leaving stdout in $out, stderr in $err and the status in $rc.
run_tare() {
    "$TARE" "$@" > "$TMP/out" 2> "$TMP/err"
    rc=$?
    out=$(cat "$TMP/out")
    err=$(cat "$TMP/err")
}

expect_rc() {
    local want=$1 desc=$2
    if [ "$rc" -eq "$want" ]; then ok; else not_ok "$desc: exit $rc, want $want; stderr: $err"; fi
}

expect_match() {      # expect_match TEXT REGEX DESC
    if grep -Eq -- "$2" <<<"$1"; then ok; else not_ok "$3: /$2/ not in: $1"; fi
}

expect_no_match() {
    if grep -Eq -- "$2" <<<"$1"; then not_ok "$3: /$2/ found in: $1"; else ok; fi
}

# expect_eq GOT WANT DESC: GOT is WANT, and not empty: two empty values are most often two
# computations that both failed, so they fail here; an answer that is meant to be empty is
# checked with expect_empty.
expect_eq() {
    if [ -z "$1$2" ]; then not_ok "$3: both sides are empty"
    elif [ "$1" = "$2" ]; then ok
    else not_ok "$3: got '$1', want '$2'"; fi
}

expect_empty() {      # expect_empty GOT DESC
    if [ -z "$1" ]; then ok; else not_ok "$2: got '$1', want nothing"; fi
}

# tsv_field TSV ROW COLUMN-NAME: one cell of a TSV with a header (ROW 1 is the first data row).
tsv_field() {
    awk -F'\t' -v row="$2" -v col="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        NR == row + 1 { if (c) print $c }' <<<"$1"
}

# browser SCRIPT: starts tests/cli/SCRIPT (trend_browser.js, cg_page_browser.js) as a coprocess
# that visits pages in one headless Chromium, for the whole file (SCRIPT --serve; each page in a
# browser context of its own). Call it in the file's own shell, not in $(...).
browser() { coproc BROWSER { exec node "$TARE_ROOT/tests/cli/$1" --serve; }; }
# browse ARGS...: the JSON line SCRIPT prints for its visit of the page ARGS name.
browse() {
    local res
    printf '%s\0' "$@" > "$TMP/browse.args"
    if [ -n "${BROWSER_PID:-}" ] && echo "$TMP/browse.args" >&"${BROWSER[1]}" &&
        read -r -t 150 res <&"${BROWSER[0]}"; then
        echo "$res"
    else
        echo '{"error": "no answer from the browser"}'
    fi
}

# json_path JSON PATH: the value at PATH (keys and indexes joined by dots: a.0.b) in the JSON, as
# JSON (node's JSON.stringify; "undefined" where there is none). Every path of a JSON is written
# out by one node run and kept by the JSON's checksum: a browser test reads dozens of fields of
# each result, and node's start was most of their cost. Nothing when the JSON does not parse.
json_path() {
    local f
    f=$TMP/json.$(cksum <<<"$1" | tr ' ' '.')
    [ -f "$f" ] || { node -e '
        const out = [];
        (function walk(v, p) {
            out.push(p + "\t" + JSON.stringify(v));
            if (v !== null && typeof v === "object")
                for (const k of Object.keys(v)) walk(v[k], p === "" ? k : p + "." + k);
        })(JSON.parse(require("fs").readFileSync(0, "utf8")), "");
        console.log(out.join("\n"));' <<<"$1" > "$f.tmp" 2> /dev/null && mv "$f.tmp" "$f"; }
    [ -f "$f" ] && awk -F'\t' -v p="$2" '
        { v[$1] = $2 }
        END {
            if (p in v) { print v[p]; exit }
            # as a path read key by key: undefined past a key that is not there, null past a null
            for (q = p; sub(/\.[^.]*$/, "", q) || q != ""; ) {
                if ((q in v) && v[q] == "null") { print "null"; exit }
                if (q !~ /\./) break
            }
            print "undefined"
        }' "$f"
}

# done_testing: the tally tests/run reads; a file that made no check fails.
done_testing() {
    [ $((passed + failed)) -eq 0 ] && not_ok "$TEST_NAME made no check"
    echo "$TEST_NAME: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
