# Parameters: --parameter-scan, --parameter-step-size, --parameter-list; {VAR} in commands and
# hooks, one series per combination, named by its values.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
names() { awk -F'\t' 'NR > 1 { printf "%s|", $1 }' <<<"$1"; }

# A scan: one series per value, each run with its value (the runs' stdout passed through).
run_tare wall --runs 1 -w 0 -f tsv --output inherit --parameter-scan n 1 3 -- echo v{n}
expect_rc 0 "a scan"
expect_eq "$(grep -c '^v[123]$' <<<"$out")" 3 "each value reached its runs"
expect_eq "$(names "$(grep -v '^v' <<<"$out")")" "echo n=1|echo n=2|echo n=3|" \
    "one series per value"
# After the command, as hyperfine allows, and with a decimal step.
run_tare wall --runs 1 -w 0 -f tsv 'echo {x}' --parameter-scan x 0 1 --parameter-step-size 0.25
expect_rc 0 "a scan after the command"
expect_eq "$(names "$out")" "echo x=0|echo x=0.25|echo x=0.5|echo x=0.75|echo x=1|" "a decimal step"
run_tare wall --runs 1 -w 0 -f tsv 'echo {x}' --parameter-scan x 0 1 --parameter-step-size 0.1
expect_eq "$(wc -l <<<"$out")" 12 "0 to 1 by 0.1 ends at 1 (11 series)"
expect_eq "$(tsv_field "$out" 4 name)" "echo x=0.3" "no binary-fraction noise in names"

# Lists: every combination, the first parameter varying slowest; in hooks too, and each
# series' TARE_SERIES is its name.
LOG=$TMP/params.log
run_tare wall --runs 1 -w 0 -f tsv --parameter-list a x,y --parameter-list b 1,2 \
    --setup "sh -c 'echo {a}{b} \"\$TARE_SERIES\" >> $LOG'" 'echo {a} {b}'
expect_rc 0 "two lists"
expect_eq "$(names "$out")" "echo a=x b=1|echo a=x b=2|echo a=y b=1|echo a=y b=2|" \
    "the cartesian product"
expect_eq "$(tr '\n' '|' < "$LOG")" \
    "x1 echo a=x b=1|x2 echo a=x b=2|y1 echo a=y b=1|y2 echo a=y b=2|" \
    "hooks substituted per series"
# A parameter in the command's first word: named after each value's program.
run_tare wall --runs 1 -w 0 -f tsv --parameter-list prog echo,true '{prog} x'
expect_eq "$(names "$out")" "echo prog=echo|true prog=true|" "a parameter as the program"
# A parameter used only in a hook is fine; one used nowhere is a mistake.
run_tare wall --runs 1 -w 0 -f tsv --parameter-list size 5,6 --prepare \
    "sh -c 'test {size} -gt 4'" true
expect_rc 0 "a parameter in a hook only"
expect_eq "$(names "$out")" "true size=5|true size=6|" "named by it"
run_tare wall --runs 1 --parameter-list size 5,6 true
expect_rc 2 "a parameter in no command"
expect_match "$err" "parameter 'size' is in no command or hook" "the unused parameter"
# Lanes and several commands: command, then lane, then values.
run_tare wall --runs 1 -w 0 -f tsv --lane a:K=1 --lane b:K=2 --parameter-list n 1,2 \
    'echo {n}' 'true {n}'
expect_eq "$(names "$out")" \
    "echo+a n=1|echo+a n=2|echo+b n=1|echo+b n=2|true+a n=1|true+a n=2|true+b n=1|true+b n=2|" \
    "commands x lanes x values"
# The export carries hyperfine's "parameters".
run_tare wall --runs 1 -w 0 --export-json "$TMP/e.json" --parameter-scan n 1 2 'echo {n}'
check "the export's parameters" /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [x["parameters"] for x in r] == [{"n": "1"}, {"n": "2"}], r
assert [x["command"] for x in r] == ["echo 1", "echo 2"], r' "$TMP/e.json"
# tare stat has them too.
run_tare stat --runs 1 -w 0 -e task-clock -f tsv --parameter-list n 1,2 'true {n}'
expect_rc 0 "tare stat with a list"
expect_eq "$(names "$out")" "true n=1|true n=2|" "tare stat's series"

# Bad values: exit 2 with the reason, before any run.
for bad in "--parameter-scan n 3 1|MIN <= MAX" "--parameter-scan n a 3|want numbers" \
           "--parameter-scan n 1|want numbers" "--parameter-scan 1n 1 3|bad parameter name" \
           "--parameter-scan n 1 2 --parameter-step-size 0|above 0" \
           "--parameter-scan n 1 2 --parameter-list n 1,2|given twice" \
           "--parameter-list n 1 --parameter-step-size 2|wants a --parameter-scan" \
           "--parameter-scan n 1 100000|at most 10000" \
           "--parameter-list n ''|no values"; do
    eval "set -- ${bad%%|*}"
    run_tare wall --runs 1 "$@" 'echo {n}'
    expect_rc 2 "bad: ${bad%%|*}"
    expect_match "$err" "${bad#*|}" "bad: ${bad%%|*} says why"
done
run_tare wall --runs 1 'echo {n}' --parameter-scan n 1
expect_rc 2 "a scan cut short"
expect_match "$err" "wants VAR MIN MAX" "a scan cut short says so"
done_testing
