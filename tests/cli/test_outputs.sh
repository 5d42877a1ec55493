# Hostile names through every output format of every command that prints one: a backtick
# and '|', </details> and <img>, <script>, terminal escapes, bytes that are not UTF-8, a tab
# and a newline, a 100 KB name. Each output is read by a consumer that is not tare's code:
# Python's json (strict: UTF-8, no NaN), csv and ElementTree (tests/cli/check_outputs.py),
# xmllint against the JUnit schema Jenkins uses (tests/cli/junit-10.xsd), Graphviz's dot.
# Every name must come out whole, in the form doc/RELIABILITY.md ("Outputs") gives it.
. "$(dirname "$0")/lib.sh"
ROOT=${TARE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
CHK=$ROOT/tests/cli/check_outputs.py
XSD=$ROOT/tests/cli/junit-10.xsd

long=$(head -c 102400 /dev/zero | tr '\0' 'L')
names=($'tick`b | **spoofed** | cell' '</details><img src="https://e.example/x.png">'
       '<script>alert(1)</script>' $'esc\e]0;pwned\a\e[2J\e[31m' $'bad\xff\xfe\xc3(\xed\xa0\x80'
       $'tab\there\nline\xc2\x85' "$long")
printf '%s\0' "${names[@]}" > "$TMP/names"

# check_out KIND FILE DESC [NAMES]: FILE read as its consumer reads it, with every name in it
# (NAMES, a file of NUL-separated names; none to check with "-").
check_out() {
    local names=${4:-$TMP/names} r
    if [ "$names" = - ]; then
        r=$("$PY" "$CHK" "$1" "$2" 2>&1)
    else
        r=$("$PY" "$CHK" "$1" "$2" "$names" 2>&1)
    fi
    expect_eq "$r" ok "$3"
}

check_junit() {   # check_junit FILE DESC [NAMES]: Jenkins' schema, then the names
    if xmllint --noout --schema "$XSD" "$1" > "$TMP/xmllint" 2>&1; then ok
    else not_ok "$2: not valid JUnit: $(head -c 600 "$TMP/xmllint")"; fi
    check_out junit "$1" "$2" "${3:-}"
}

# one series per name: the same cheap command, told apart by an argument
nargs=() cmds=()
for i in "${!names[@]}"; do
    nargs+=(-n "${names[$i]}")
    cmds+=("true $i")
done

exports() {   # exports PREFIX: every export option, into files named PREFIX.*
    echo --export-json "$1.hf.json" --export-csv "$1.hf.csv" --export-markdown "$1.hf.md" \
        --export-bmf "$1.bmf.json" --export-gab "$1.gab.json" --export-junit "$1.junit.xml"
}

# ---- wall: every format, every export ----
for f in text tsv json csv markdown; do
    "$TARE" wall -r 1 -w 0 "${nargs[@]}" -f $f "${cmds[@]}" > "$TMP/wall.$f" 2> "$TMP/err"
    rc=$?
    expect_eq "$rc" 0 "wall -f $f with hostile names: exit 0 ($(head -c 300 "$TMP/err"))"
done
check_out text "$TMP/wall.text" "wall text: names shown, escapes visible"
check_out text "$TMP/wall.tsv" "wall tsv: names whole, control characters visible"
check_out json "$TMP/wall.json" "wall json: strict JSON, names whole"
check_out csv "$TMP/wall.csv" "wall csv"
check_out text "$TMP/wall.markdown" "wall markdown: UTF-8, no control character" -
# shellcheck disable=SC2046
"$TARE" wall -r 1 -w 0 "${nargs[@]}" $(exports "$TMP/w") "${cmds[@]}" > /dev/null 2>&1
check_out json "$TMP/w.bmf.json" "wall --export-bmf"
check_out json "$TMP/w.gab.json" "wall --export-gab"
check_junit "$TMP/w.junit.xml" "wall --export-junit"
# hyperfine's exports name the command, not the series: the commands are plain here
check_out json "$TMP/w.hf.json" "wall --export-json" -
check_out csv "$TMP/w.hf.csv" "wall --export-csv" -
check_out text "$TMP/w.hf.md" "wall --export-markdown" -

# hostile commands in hyperfine's exports (the shell runs them: printf's arguments)
"$TARE" wall -r 1 -w 0 -S sh --export-json "$TMP/c.json" --export-csv "$TMP/c.csv" \
    --export-markdown "$TMP/c.md" "printf '%s' '${names[1]}'" "printf '%s' '${names[3]}'" \
    > /dev/null 2>&1
printf '%s\0' "printf '%s' '${names[1]}'" "printf '%s' '${names[3]}'" > "$TMP/cnames"
check_out json "$TMP/c.json" "--export-json: hostile commands" "$TMP/cnames"
check_out csv "$TMP/c.csv" "--export-csv: hostile commands" "$TMP/cnames"
check_out text "$TMP/c.md" "--export-markdown: hostile commands, no control character" -

# ---- stat (where this machine lets tare read a software counter) ----
"$TARE" stat -r 1 -w 0 -e task-clock -f json "${nargs[@]}" "${cmds[@]}" > "$TMP/stat.json" \
    2> "$TMP/err"
if [ $? -eq 0 ]; then
    check_out json "$TMP/stat.json" "stat json"
    for f in text tsv; do
        "$TARE" stat -r 1 -w 0 -e task-clock -f $f "${nargs[@]}" "${cmds[@]}" > "$TMP/stat.$f" \
            2> /dev/null
        check_out text "$TMP/stat.$f" "stat $f"
    done
else
    echo "# stat skipped: $(head -1 "$TMP/err")"
fi

# ---- count: every format, the CI exports ----
"$TARE" count "${nargs[@]}" -f json --export-bmf "$TMP/k.bmf.json" --export-gab "$TMP/k.gab.json" \
    --export-junit "$TMP/k.junit.xml" "${cmds[@]}" > "$TMP/count.json" 2> "$TMP/err"
expect_eq "$?" 0 "count with hostile names: exit 0 ($(head -c 300 "$TMP/err"))"
check_out json "$TMP/count.json" "count json"
check_out json "$TMP/k.bmf.json" "count --export-bmf"
check_out json "$TMP/k.gab.json" "count --export-gab"
check_junit "$TMP/k.junit.xml" "count --export-junit"
"$TARE" count "${nargs[@]:0:4}" -f tsv "${cmds[@]:0:2}" > "$TMP/count.tsv" 2> /dev/null
printf '%s\0' "${names[@]:0:2}" > "$TMP/names2"
check_out text "$TMP/count.tsv" "count tsv" "$TMP/names2"

# ---- cg: function, object and file names from a profile (a line each: no newline) ----
cgnames=()
for n in "${names[@]}"; do cgnames+=("${n//$'\n'/ }"); done
printf '%s\0' "${cgnames[@]}" > "$TMP/cgnames"
{
    printf 'version: 1\ncreator: test\ncmd: %s\npositions: line\nevents: Ir\n' "${names[3]}"
    i=0
    for n in "${cgnames[@]}"; do
        printf 'ob=%s.so\nfl=%s.c\nfn=%s\n%d %d\n' "$n" "$n" "$n" $((i + 1)) $((100 * (i + 1)))
        if [ $i -gt 0 ]; then
            printf 'cfn=%s\ncalls=2 1\n%d 7\n' "${cgnames[0]}" $((i + 1))
        fi
        i=$((i + 1))
    done
    printf 'summary: 2800\n'
} > "$TMP/h.cg"
sed 's/^summary: .*/summary: 2842/; s/^1 100$/1 142/' "$TMP/h.cg" > "$TMP/h2.cg"
# every subcommand and format: the consumer's reading of it; the names checked below
cgrun() {   # cgrun DESC KIND ARGS...
    local desc=$1 kind=$2; shift 2
    "$TARE" cg "$@" > "$TMP/cg.out" 2> "$TMP/err"
    expect_eq "$?" 0 "cg $desc: exit 0 ($(head -c 300 "$TMP/err"))"
    check_out "$kind" "$TMP/cg.out" "cg $desc" -
}
for f in text tsv json; do
    k=text; [ $f = json ] && k=json
    cgrun "top -f $f" $k top --inclusive "$TMP/h.cg" -f $f
    cgrun "callers -f $f" $k callers tick "$TMP/h.cg" -f $f
    cgrun "callees -f $f" $k callees esc "$TMP/h.cg" -f $f
    cgrun "lines -f $f" $k lines bad "$TMP/h.cg" -f $f
    cgrun "diff -f $f" $k diff "$TMP/h.cg" "$TMP/h2.cg" -f $f
done
cgrun "info" text info "$TMP/h.cg"
cgrun "info -f json" json info "$TMP/h.cg" -f json
"$TARE" cg top -n 0 "$TMP/h.cg" > "$TMP/cg.text"
check_out text "$TMP/cg.text" "cg top text: every name, escapes visible" "$TMP/cgnames"
"$TARE" cg top -n 0 -f json "$TMP/h.cg" > "$TMP/cg.json"
check_out json "$TMP/cg.json" "cg top json: every name whole" "$TMP/cgnames"
"$TARE" cg diff -n 0 -f json "$TMP/h.cg" "$TMP/h2.cg" > "$TMP/diff.json" 2> "$TMP/err"
check_out json "$TMP/diff.json" "cg diff json: every name whole" "$TMP/cgnames"
"$TARE" cg callers -n 0 -f json tick "$TMP/h.cg" > "$TMP/callers.json" 2> "$TMP/err"
check_out json "$TMP/callers.json" "cg callers json: every caller's name whole" \
    "$TMP/cgnames"
if command -v dot > /dev/null; then
    "$TARE" cg dot "$TMP/h.cg" > "$TMP/g.dot" 2> "$TMP/err"
    expect_eq "$(dot -Tsvg "$TMP/g.dot" 2>&1 > /dev/null | head -3)" "" \
        "cg dot: Graphviz reads it without a word"
    check_out text "$TMP/g.dot" "cg dot: UTF-8, no control character" -
fi
"$TARE" cg page -o "$TMP/p.html" "$TMP/h.cg" > /dev/null 2>&1
expect_eq "$(grep -c '<script>alert\|</details>\|<img' "$TMP/p.html")" 0 \
    "cg page: no name's markup reaches the HTML"
check_out text "$TMP/p.html" "cg page: UTF-8, no control character" -

# ---- history: check, noise, report, trend over a history whose benchmarks have those names ----
# The seed's excerpt with its three benchmarks renamed (a TSV cell holds no tab or newline).
hnames=("${cgnames[0]}" "${cgnames[1]}" "${cgnames[4]}")
printf '%s\0' "${hnames[@]}" > "$TMP/hnames"
printf '%s\0' "${hnames[@]:1}" > "$TMP/hregs"   # the two that regress at the last commit
awk -F'\t' -v OFS='\t' -v a="${hnames[0]}" -v b="${hnames[1]}" -v c="${hnames[2]}" '
    NR > 1 { $3 = $3 == "bench-fib" ? a : $3 == "poly-call" ? b : c } { print }' \
    "$ROOT/tests/golden/input/mutsu-poly-call.tsv" > "$TMP/h.tsv"
"$TARE" history check -f json "$TMP/h.tsv" > "$TMP/hc.json" 2> /dev/null
check_out json "$TMP/hc.json" "history check json" "$TMP/hregs"
"$TARE" history check "$TMP/h.tsv" > "$TMP/hc.text" 2> /dev/null
check_out text "$TMP/hc.text" "history check text: escapes visible" "$TMP/hregs"
"$TARE" history noise -f json "$TMP/h.tsv" > "$TMP/hn.json" 2> /dev/null
check_out json "$TMP/hn.json" "history noise json" "$TMP/hnames"
for f in text tsv csv markdown; do
    "$TARE" history noise -f $f "$TMP/h.tsv" > "$TMP/hn.$f" 2> /dev/null
    check_out text "$TMP/hn.$f" "history noise $f: UTF-8, no control character" -
done
"$TARE" history check --export-junit "$TMP/h.junit.xml" --export-bmf "$TMP/h.bmf.json" \
    "$TMP/h.tsv" > /dev/null 2>&1
check_junit "$TMP/h.junit.xml" "history check --export-junit" "$TMP/hregs"
check_out json "$TMP/h.bmf.json" "history check --export-bmf" "$TMP/hregs"
"$TARE" trend -o "$TMP/t.html" "$TMP/h.tsv" 2> /dev/null
expect_eq "$(grep -c '<script>alert\|</details>\|<img' "$TMP/t.html")" 0 \
    "trend page: no name's markup reaches the HTML"
check_out text "$TMP/t.html" "trend page: UTF-8, no control character" -
# report: the Markdown read by GitHub's own renderer (cmark-gfm with its table extension)
"$TARE" report "$TMP/h.tsv" > "$TMP/r.md" 2> /dev/null
if command -v cmark-gfm > /dev/null; then
    cmark-gfm -e table --unsafe "$TMP/r.md" > "$TMP/r.html"
    expect_eq "$("$PY" "$ROOT/tests/cli/check_markdown.py" "$TMP/r.md" "$TMP/r.html" \
        "$TMP/hnames" 2>&1)" ok "report: GitHub reads every name as written, no forged cell"
else
    not_ok "cmark-gfm is not installed (scripts/install-deps check installs it)"
fi
# --summary on a full disk (a file size limit here) appends all of the block or none of it.
printf '%01000d\n' 0 > "$TMP/summary.md"
(ulimit -f 2; trap '' XFSZ; exec "$TARE" report --summary "$TMP/summary.md" "$TMP/h.tsv") \
    > /dev/null 2> "$TMP/err"
expect_eq "$? $(wc -c < "$TMP/summary.md")" "2 1001" \
    "report --summary past a size limit: exit 2, the file as it was ($(head -c 200 "$TMP/err"))"

# ---- ab, run: names of their own ----
"$TARE" ab -r 2 -w 0 -n "${names[3]}" -n "${names[4]}" -f json true 'true x' > "$TMP/ab.json" \
    2> /dev/null
printf '%s\0' "${names[3]}" "${names[4]}" > "$TMP/abnames"
check_out json "$TMP/ab.json" "ab json" "$TMP/abnames"
"$TARE" ab -r 2 -w 0 -n "${names[3]}" -n "${names[4]}" true 'true x' > "$TMP/ab.text" 2> /dev/null
check_out text "$TMP/ab.text" "ab text: escapes visible" "$TMP/abnames"
mkdir -p "$TMP/rb"
rnames=("${cgnames[0]}" "${cgnames[3]}" "${cgnames[4]}")
for n in "${rnames[@]}"; do printf 'x\n' > "$TMP/rb/$n.txt"; done
printf '%s\0' "${rnames[@]}" > "$TMP/rnames"
printf '[suite]\ncommand = true {name}\nbenchmarks = rb/*.txt\nruns = 1\nwarmup = 0\n' \
    > "$TMP/rs.ini"
for f in json text tsv; do
    "$TARE" run -f $f "$TMP/rs.ini" > "$TMP/run.$f" 2> "$TMP/err"
    k=text; [ $f = json ] && k=json
    check_out $k "$TMP/run.$f" "run $f: names whole ($(head -c 200 "$TMP/err"))" "$TMP/rnames"
done

# ---- the other JSON outputs: strict JSON whatever they hold ----
"$TARE" goal -f json --from 100 --to 50 1.1 > "$TMP/goal.json" 2> /dev/null
check_out json "$TMP/goal.json" "goal json" -
"$TARE" alloc -f json -- true > "$TMP/alloc.json" 2> /dev/null
check_out json "$TMP/alloc.json" "alloc json" -
"$TARE" cg allocs -f json "$ROOT/tests/golden/input/cg_allocs.callgrind" > "$TMP/allocs.json"
check_out json "$TMP/allocs.json" "cg allocs json" -

# ---- every write checked: standard output on a full device is exit 2, for every command ----
H=$ROOT/tests/golden/input/mutsu-poly-call.tsv
for c in $("$TARE" help --commands); do
    "$TARE" "$c" --help > /dev/full 2> "$TMP/err"
    expect_eq "$? $(grep -c '^tare: cannot write standard output: ' "$TMP/err")" "2 1" \
        "$c --help > /dev/full"
done
mkdir -p "$TMP/b"
printf 'x\n' > "$TMP/b/one.txt"
printf '[suite]\ncommand = true {name}\nbenchmarks = b/*.txt\nruns = 1\nwarmup = 0\n' \
    > "$TMP/suite.ini"
full=("--version" "wall -r 1 -w 0 true" "ab -r 2 -w 0 true true x" "count true"
      "cg top $ROOT/tests/golden/input/cg_allocs.callgrind" "alloc -- true" "run $TMP/suite.ini"
      "history check $H" "history noise $H" "report $H" "goal --from 100 --to 50")
for c in "${full[@]}"; do
    read -ra args <<<"$c"
    [ "${args[0]}" = ab ] && args=(ab -r 2 -w 0 true 'true x')
    "$TARE" "${args[@]}" > /dev/full 2> "$TMP/err"
    r=$?
    expect_eq "$r $(grep -c 'cannot write standard output' "$TMP/err")" "2 1" \
        "tare $c > /dev/full: exit 2 and said ($(head -c 200 "$TMP/err"))"
done
# An export to a path that is not a regular file (a pipe here, /dev/stdout in a CI log) is
# written there directly, not replaced by a renamed temporary.
mkfifo "$TMP/pipe"
cat "$TMP/pipe" > "$TMP/from-pipe" &
"$TARE" wall -r 1 -w 0 --export-json "$TMP/pipe" true > /dev/null 2>&1
r=$?
wait
expect_eq "$r $(test -p "$TMP/pipe" && echo fifo) $("$PY" "$CHK" json "$TMP/from-pipe")" \
    "0 fifo ok" "--export-json to a FIFO: written through it, the FIFO left in place"

done_testing
