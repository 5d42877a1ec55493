# hyperfine's short letters with hyperfine's meanings in wall, ab, stat, count and run; the old
# meanings gone; the three exports in hyperfine's layouts, read the way hyperfine's are.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
PY=/usr/bin/python3
LOG=$TMP/log
hook() { echo "sh -c 'echo $1 \$TARE_ITERATION >> $LOG'"; }   # a hook that logs its name

# -r: runs (the JSON export holds each run's time).
run_tare wall -r 4 -w 0 --export-json "$TMP/r.json" true
expect_rc 0 "wall -r 4"
expect_eq \
    "$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["results"][0]["times"]))' "$TMP/r.json")" \
    4 "-r 4 gives 4 runs in the JSON export"
# -w: warm-up runs (the prepare hook sees them as iterations -1, -2).
rm -f "$LOG"
run_tare wall -r 1 -w 2 -p "$(hook p)" true
expect_eq "$(tr '\n' ' ' < "$LOG")" "p -1 p -2 p 1 " \
    "-w 2 gives two warm-up runs, -p runs before each"
# -n: names the series, in order; --name is the same.
run_tare wall -r 1 -w 0 -f tsv -n fast -n slow true 'true x'
expect_eq "$(tsv_field "$out" 1 name) $(tsv_field "$out" 2 name)" "fast slow" "-n names the series"
run_tare wall -r 1 -w 0 -f tsv --command-name a --name b true 'true x'
expect_eq "$(tsv_field "$out" 1 name) $(tsv_field "$out" 2 name)" "a b" "--command-name and --name"
# -s, -p, -C, -c: setup, prepare, conclude, cleanup, in that order.
rm -f "$LOG"
run_tare wall -r 2 -w 0 -s "$(hook s)" -p "$(hook p)" -C "$(hook C)" -c "$(hook c)" true
expect_rc 0 "hooks by their letters"
expect_eq "$(tr '\n' ' ' < "$LOG")" "s 0 p 1 C 1 p 2 C 2 c 0 " \
    "-s setup, -p prepare, -C conclude, -c cleanup"
# -P, -D, -L: parameters.
run_tare wall -r 1 -w 0 -f tsv -P n 1 5 -D 2 'true {n}'
expect_eq "$(awk -F'\t' 'NR > 1 { printf "%s,", $1 }' <<<"$out")" "true n=1,true n=3,true n=5," \
    "-P n 1 5 -D 2"
run_tare wall -r 1 -w 0 -f tsv -L a x,y -L b 1,2 'true {a} {b}'
expect_eq "$(awk -F'\t' 'NR > 1 { n++ } END { print n }' <<<"$out")" 4 "-L twice: every combination"
# -i: a non-zero exit is measured.
run_tare wall -r 2 -w 0 -f tsv "$F/exit3"
expect_eq "$rc $(tsv_field "$out" 1 status)" "1 failed" "without -i a non-zero exit fails"
run_tare wall -r 2 -w 0 -f tsv -i "$F/exit3"
expect_eq "$rc $(tsv_field "$out" 1 status)" "0 ok" "-i ignores the failure"
# -N: accepted, and no shell (shell syntax still refused); -S SHELL runs through that shell.
run_tare wall -r 1 -w 0 -N true
expect_rc 0 "-N is accepted"
run_tare wall -r 1 -w 0 -N 'echo a | cat'
expect_rc 2 "-N: no shell, so shell syntax is refused"
run_tare wall -r 1 -w 0 -S sh --output "$TMP/o" 'echo a | tr a b'
expect_eq "$rc $(cat "$TMP/o")" "0 b" "-S sh runs the string with sh -c"
if command -v bash > /dev/null; then
    run_tare wall -r 1 -w 0 --shell 'bash --norc' --output "$TMP/o" 'echo "[$BASH_VERSION]"'
    expect_match "$(cat "$TMP/o")" '^\[[0-9]' "--shell 'bash --norc' runs bash"
fi
run_tare wall -r 1 -w 0 -S sh -N 'echo a | cat'
expect_rc 2 "-N after -S takes the shell away"
run_tare wall -r 1 -w 0 -S none 'echo a | cat'
expect_rc 2 "-S none is no shell"
run_tare wall -r 1 -w 0 -S default --output "$TMP/o" 'echo $((1 + 2))'
expect_eq "$rc $(cat "$TMP/o")" "0 3" "-S default is /bin/sh"

# The old meanings are gone.
run_tare wall -r ./x true
expect_rc 2 "-r takes a number now"
expect_match "$err" "bad value './x' for --runs: want a whole number" \
    "-r ./x: --runs wants a number"
run_tare wall -n 3 -w 0 -f tsv true
expect_eq "$rc $(tsv_field "$out" 1 name) $(tsv_field "$out" 1 runs)" "0 3 7" \
    "-n 3 names a series 3 (7 runs)"
run_tare wall --shell 'echo a | cat'
expect_rc 2 "--shell takes a shell, not a command"
expect_match "$err" "bad value 'echo a \| cat' for --shell: want a shell" "--shell's message"
run_tare wall --shell no-such-shell-here true
expect_rc 2 "--shell with a program that does not exist"
run_tare wall -P 0 true
expect_rc 2 "-P is --parameter-scan, not --pin"
expect_match "$err" "--parameter-scan wants VAR MIN MAX" "-P's message"
run_tare wall -r 1 -w 0 --reference true true
expect_rc 0 "--reference keeps its long name"
run_tare wall -r 1 -w 0 --pin 0 true
expect_rc 0 "--pin keeps its long name"

# stat: -r runs, -n names, -P a scan.
run_tare stat -r 2 -w 0 -e task-clock -f tsv -n t -P n 1 2 'true {n}'
expect_eq "$rc $(awk -F'\t' 'NR > 1 { printf "%s/%s,", $1, $7 }' <<<"$out")" "0 t n=1/2,t n=2/2," \
    "stat -r 2 -n t -P n 1 2"
run_tare stat -n 3 -e task-clock true
expect_rc 0 "stat -n names a series"
# ab: -r pairs (--runs is the same), -n names A and B, -p a hook.
rm -f "$LOG"
run_tare ab -r 6 -w 0 -n one -n two -p "$(hook p)" -f json true 'true x'
expect_eq \
    "$rc $($PY -c 'import json,sys; d=json.load(sys.stdin); print(d["pairs"], d["a"]["name"], d["b"]["name"])' <<<"$out" 2>&1)" \
    "0 6 one two" "ab -r 6 -n one -n two"
expect_eq "$(grep -c '^p ' "$LOG")" 12 "ab -p runs before each of the 12 runs"
run_tare ab --runs 6 -w 0 -f json true 'true x'
expect_eq "$($PY -c 'import json,sys; print(json.load(sys.stdin)["pairs"])' <<<"$out" 2>&1)" 6 \
    "ab --runs is --pairs"
# count: -n names, -S sh, -N.
run_tare count -f tsv -j 2 -n one -S sh "$F/busy 1" "$F/busy 1 && $F/busy 1"
expect_eq "$rc $(tsv_field "$out" 1 name) $(tsv_field "$out" 2 name)" "0 one busy" \
    "count -n one -S sh"
run_tare count -N 'echo a | cat'
expect_rc 2 "count -N: no shell"
# run: -r overrides the suite's runs.
mkdir -p "$TMP/b" && touch "$TMP/b/1.txt"
cat > "$TMP/suite.ini" <<INI
[suite]
command = $F/busy {name}
benchmarks = b/*.txt
runs = 5
INI
run_tare run -r 2 --format tsv "$TMP/suite.ini"
expect_eq "$rc $(tsv_field "$out" 1 runs)" "0 2" "run -r 2"
run_tare run -n 2 "$TMP/suite.ini"
expect_rc 2 "run -n is gone"

# The exports: hyperfine's own files of the same commands are the reference for the layout.
run_tare wall -r 3 -w 0 -P n 1 2 'true {n}' --export-json "$TMP/t.json" --export-csv "$TMP/t.csv" \
    --export-markdown "$TMP/t.md"
expect_rc 0 "wall with the three exports"
if command -v hyperfine > /dev/null; then
    (cd "$TMP" && hyperfine -N -r 3 -P n 1 2 'true {n}' --export-json h.json --export-csv h.csv \
        --export-markdown h.md > /dev/null 2>&1)
    expect_eq "$(head -1 "$TMP/t.csv")" "$(head -1 "$TMP/h.csv")" "CSV header is hyperfine's"
    expect_eq "$(cut -d, -f1,9 "$TMP/t.csv")" "$(cut -d, -f1,9 "$TMP/h.csv")" \
        "CSV commands and parameters are hyperfine's"
    expect_eq "$(head -2 "$TMP/t.md" | sed 's/\[[mµ]*s\]/[U]/g')" \
        "$(head -2 "$TMP/h.md" | sed 's/\[[mµ]*s\]/[U]/g')" "markdown header is hyperfine's"
    expect_eq "$(awk -F'|' 'NR > 2 { print $2 }' "$TMP/t.md")" \
        "$(awk -F'|' 'NR > 2 { print $2 }' "$TMP/h.md")" "markdown commands are hyperfine's"
    # Every field of hyperfine's results, with the same JSON type, in tare's.
    $PY - "$TMP/h.json" "$TMP/t.json" > "$TMP/cmp" 2>&1 <<'PYEOF'
import json, sys
h, t = (json.load(open(p))["results"] for p in sys.argv[1:3])
assert len(h) == len(t), (len(h), len(t))
for a, b in zip(h, t):
    for k, v in a.items():
        assert k in b, "missing " + k
        assert type(v) is type(b[k]) or {type(v), type(b[k])} <= {int, float}, k
    assert a["command"] == b["command"] and a["parameters"] == b["parameters"]
    assert len(b["times"]) == 3 and min(b["times"]) == b["min"] and max(b["times"]) == b["max"]
print("same fields")
PYEOF
    expect_eq "$(cat "$TMP/cmp")" "same fields" "JSON export has hyperfine's fields and types"
else
    not_ok "hyperfine is not installed (scripts/install-deps check installs it)"
fi
# Field by field on tare's own files: the figures agree with the runs.
$PY - "$TMP/t.json" "$TMP/t.csv" > "$TMP/cmp" 2>&1 <<'PYEOF'
import csv, json, statistics, sys
res = json.load(open(sys.argv[1]))["results"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(res) == len(rows) == 2
for r, c in zip(res, rows):
    t = r["times"]
    assert (abs(r["mean"] - statistics.mean(t)) < 1e-6 and
            abs(r["median"] - statistics.median(t)) < 1e-6)
    assert abs(r["stddev"] - statistics.stdev(t)) < 1e-6
    assert r["user"] >= 0 and r["system"] >= 0 and len(r["exit_codes"]) == 3
    for k in ("mean", "stddev", "median", "user", "system", "min", "max"):
        assert abs(float(c[k]) - r[k]) < 1e-6, k
    assert c["command"] == r["command"] and c["parameter_n"] == r["parameters"]["n"]
print("agree")
PYEOF
expect_eq "$(cat "$TMP/cmp")" "agree" "JSON and CSV exports agree with the runs"
expect_eq "$(awk -F'|' 'NR > 2 { print $6 }' "$TMP/t.md" | grep -cx ' 1.00 ')" 1 \
    "markdown: one row is the 1.00 of Relative"
# A failed series is NA in the CSV and the markdown, never 0. hyperfine's JSON leaves it out,
# as hyperfine does (its schema has every figure a number); tare's own JSON keeps it, null.
run_tare wall -r 2 -w 0 --export-csv "$TMP/f.csv" --export-json "$TMP/f.json" --export-markdown \
    "$TMP/f.md" true "$F/exit3"
expect_rc 1 "a failed series"
expect_eq "$(sed -n 3p "$TMP/f.csv" | cut -d, -f2-8)" "NA,NA,NA,NA,NA,NA,NA" \
    "failed series in CSV: NA"
expect_match "$(sed -n 4p "$TMP/f.md")" '\| NA \| NA \| NA \| NA \|$' \
    "failed series in markdown: NA"
if command -v hyperfine > /dev/null; then
    (cd "$TMP" && hyperfine -N -r 2 --export-json hf.json true "$F/exit3" > /dev/null 2>&1)
    # Key by key: the same results, the same keys (memory_usage_byte is later hyperfine's,
    # 1.17 on), every value of the same JSON type.
    $PY - "$TMP/hf.json" "$TMP/f.json" > "$TMP/cmp" 2>&1 <<'PYEOF'
import json, sys
def load(p):
    return json.loads(open(p, encoding="utf-8").read(), parse_constant=lambda c: 1 / 0)
h, t = (load(p)["results"] for p in sys.argv[1:3])
assert [r["command"] for r in h] == [r["command"] for r in t] == ["true"], (h, t)
for a, b in zip(h, t):
    assert set(b) - set(a) <= {"memory_usage_byte"}, set(b) ^ set(a)
    assert set(a) <= set(b), set(a) - set(b)
    for k, v in a.items():
        assert type(v) is type(b[k]) or {type(v), type(b[k])} <= {int, float}, k
print("same keys")
PYEOF
    expect_eq "$(cat "$TMP/cmp")" "same keys" \
        "--export-json with a failed command: hyperfine's results, key by key"
else
    not_ok "hyperfine is not installed (scripts/install-deps check installs it)"
fi
run_tare wall -r 2 -w 0 -f json true "$F/exit3"
expect_eq "$($PY -c 'import json,sys; s=json.load(sys.stdin)["series"][1]; print(s["status"], s["median_s"])' <<<"$out" 2>&1)" \
    "failed None" "tare's own JSON keeps the failed series, null"
# A command with a comma and a quote is one CSV field; a '|' does not split a markdown row.
run_tare wall -r 1 -w 0 -S sh --export-csv "$TMP/q.csv" --export-markdown "$TMP/q.md" \
    'echo "a,b" | cat'
expect_eq \
    "$($PY -c 'import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[0]["command"])' "$TMP/q.csv")" \
    'echo "a,b" | cat' "CSV quoting"
expect_eq "$(sed -n 3p "$TMP/q.md" | awk -F' [|] ' '{ print NF }')" 5 "markdown escapes '|'"
# stat and ab export too.
run_tare stat -r 2 -w 0 -e task-clock --export-csv "$TMP/s.csv" true
expect_eq "$(cut -d, -f1 "$TMP/s.csv" | tr '\n' ' ')" "command true " "stat --export-csv"
run_tare ab -r 6 -w 0 --export-json "$TMP/ab.json" --export-markdown "$TMP/ab.md" true 'true x'
expect_eq \
    "$($PY -c 'import json,sys; print([(r["command"], len(r["times"])) for r in json.load(open(sys.argv[1]))["results"]])' "$TMP/ab.json")" \
    "[('true', 6), ('true x', 6)]" "ab --export-json: A then B"
expect_eq "$(sed -n 3p "$TMP/ab.md" | awk -F'|' '{ print $6 }')" " 1.00 " \
    "ab markdown: Relative against A"
run_tare wall -r 1 --export-csv /nonexistent/dir/x.csv true
expect_rc 2 "an export that cannot be written"
# hyperfine's display options and the two other markup exports.
cat > "$TMP/isnull.sh" <<'SH'
#!/bin/sh
# exits 7 when its standard output is /dev/null (as a program that tests for it would behave)
case "$(readlink /proc/$$/fd/1)" in /dev/null) exit 7 ;; esac
echo out
SH
chmod +x "$TMP/isnull.sh"
(cd "$TMP" && "$TARE" wall -r 2 -w 0 --output pipe "$TMP/isnull.sh" > /dev/null 2>&1)
expect_eq "$? $(test -e "$TMP/pipe" && echo 'a file named pipe')" "0 " \
    "--output pipe: the runs write to a pipe, no file named 'pipe' is made"
run_tare wall -r 2 -w 0 "$TMP/isnull.sh"
expect_rc 1 "--output null (the default): the same program sees /dev/null"
run_tare count --output pipe "$TMP/isnull.sh"
expect_rc 0 "count --output pipe"
run_tare wall -w 0 --min-benchmarking-time 0.3 -m 2 -f json true
expect_eq "$($PY -c 'import json,sys; print(json.load(sys.stdin)["min_time_s"])' <<<"$out" 2>&1)" \
    0.3 "--min-benchmarking-time is --min-time"
run_tare wall -r 3 -w 0 -u second true
expect_match "$(sed -n 3p <<<"$out")" '^true +[0-9]+\.[0-9]{3} s ± [0-9]+\.[0-9]{3} s ' \
    "-u second: the text in seconds, 3 decimals"
run_tare wall -r 3 -w 0 -u microsecond true
expect_match "$(sed -n 3p <<<"$out")" '^true +[0-9]+\.[0-9] µs ± ' "-u microsecond"
run_tare wall -r 3 -w 0 --style none true
expect_eq "$rc ${#out}" "0 0" "--style none: nothing on standard output"
run_tare wall -r 3 -w 0 --style basic -u hours true
expect_rc 2 "-u with a unit hyperfine does not know"
run_tare wall -N -r 3 -w 0 --export-asciidoc "$TMP/t.adoc" --export-orgmode "$TMP/t.org" \
    --export-markdown "$TMP/s.md" --sort mean-time -u millisecond "sleep 0.3" "sleep 0.001"
# (0.3 s against 1 ms: a busy machine does not turn that order round)
expect_eq "$(awk -F'|' 'NR > 2 { print $2 }' "$TMP/s.md" | tr -d ' `' | tr '\n' ,)" \
    "sleep0.001,sleep0.3," "--sort mean-time: the fastest first"
if command -v hyperfine > /dev/null; then
    (cd "$TMP" && hyperfine -N -r 3 -u millisecond --export-asciidoc h.adoc \
        --export-orgmode h.org "sleep 0.3" "sleep 0.001" > /dev/null 2>&1)
    mask() { sed -E 's/[0-9]+\.[0-9]+/N/g; s/sleep N/sleep X/g' "$1"; }
    expect_eq "$(mask "$TMP/t.adoc" | sed 's/`sleep X`/C/' | sort)" \
        "$(mask "$TMP/h.adoc" | sed 's/`sleep X`/C/' | sort)" \
        "--export-asciidoc: hyperfine's layout"
    expect_eq "$(mask "$TMP/t.org" | sed 1,2d | sort)" "$(mask "$TMP/h.org" | sed 1,2d | sort)" \
        "--export-orgmode: hyperfine's rows"
    expect_eq "$(mask "$TMP/t.org" | sed -n 1,2p)" "$(mask "$TMP/h.org" | sed -n 1,2p)" \
        "--export-orgmode: hyperfine's header"
else
    not_ok "hyperfine is not installed (scripts/install-deps check installs it)"
fi
done_testing
