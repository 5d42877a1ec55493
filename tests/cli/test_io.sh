# stdin and stdout of the measured runs: --input FILE, --output null|inherit|FILE, --show-output.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES

# A file of a known size on stdin of every run (countin prints the bytes it read).
head -c 123457 /dev/zero > "$TMP/in"
run_tare wall --runs 3 --input "$TMP/in" --output "$TMP/out.txt" "$F/countin"
expect_rc 0 "--input and --output FILE"
expect_eq "$(cat "$TMP/out.txt")" 123457 "every byte of --input reached the command"
expect_no_match "$out" "123457" "--output FILE keeps it off tare's stdout"
# The same through the forked, gated start that --counters uses.
run_tare wall --runs 2 --counters --input "$TMP/in" --output "$TMP/outc.txt" "$F/countin"
expect_rc 0 "--input with --counters"
expect_eq "$(cat "$TMP/outc.txt")" 123457 "the gated start reads --input too"
# By default stdin is /dev/null and stdout is thrown away.
run_tare wall --runs 1 --output "$TMP/out2.txt" "$F/countin"
expect_eq "$(cat "$TMP/out2.txt")" 0 "without --input, stdin is empty"
run_tare wall --runs 2 -w 1 --input "$TMP/in" "$F/countin"
expect_no_match "$out" "123457" "--output null by default"
# inherit, and --show-output its alias: the runs' output comes through (warm-up included).
for o in "--output inherit" --show-output; do
    run_tare wall --runs 2 -w 1 --input "$TMP/in" $o "$F/countin"
    expect_rc 0 "$o"
    expect_eq "$(grep -c '^123457$' <<<"$out")" 3 "$o passes every run's stdout through"
done
run_tare wall --runs 2 --output null --input "$TMP/in" "$F/countin"
expect_no_match "$out" "123457" "--output null"
# ab and stat too.
run_tare ab --pairs 2 -w 0 --input "$TMP/in" --output inherit "$F/countin" "$F/countin x"
expect_rc 0 "tare ab with --input"
expect_eq "$(grep -c '^123457$' <<<"$out")" 4 "tare ab feeds both sides"
run_tare stat --runs 1 -w 0 -e task-clock --input "$TMP/in" --output "$TMP/out3.txt" "$F/countin"
expect_rc 0 "tare stat with --input"
expect_eq "$(cat "$TMP/out3.txt")" 123457 "tare stat feeds it"
# A missing input is bad input, said once, before any run.
run_tare wall --runs 1 --input "$TMP/no-such-file" "$F/countin"
expect_rc 2 "missing --input"
expect_match "$err" "^tare wall: cannot read '.*no-such-file': No such file or directory" \
    "the message"
run_tare wall --runs 1 --output '' "$F/countin"
expect_rc 2 "empty --output"
done_testing
