# stdin and stdout of the measured runs: --input FILE, --output null|inherit|FILE, --show-output.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES

# A file of a known size on stdin of every run (countin prints the bytes it read).
head -c 123457 /dev/zero > "$TMP/in"
run_tare wall --runs 3 --input "$TMP/in" --output "$TMP/out.txt" "$F/countin"
expect_rc 0 "--input and --output FILE"
expect_eq "$(cat "$TMP/out.txt")" "$(printf '123457\n%.0s' 1 2 3 4)" \
    "every byte of --input reached the command (the warm-up and 3 runs, each its line)"
expect_no_match "$out" "123457" "--output FILE keeps it off tare's stdout"
# The same through the forked, gated start that --counters uses.
run_tare wall --runs 2 --counters --input "$TMP/in" --output "$TMP/outc.txt" "$F/countin"
expect_rc 0 "--input with --counters"
expect_eq "$(cat "$TMP/outc.txt")" "$(printf '123457\n%.0s' 1 2 3)" \
    "the gated start reads --input too"
# By default stdin is /dev/null and stdout is thrown away.
run_tare wall --runs 1 --output "$TMP/out2.txt" "$F/countin"
expect_eq "$(cat "$TMP/out2.txt")" "$(printf '0\n0')" "without --input, stdin is empty"
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
run_tare wall --runs 1 --output "$TMP/no-such-dir/out" "$F/countin"
expect_rc 2 "an --output FILE that cannot be written"
expect_match "$err" "^tare wall: cannot write '.*no-such-dir/out': No such file or directory" \
    "said before any run"

# --output FILE holds every run's stdout: emptied once, then each run appends, warm-ups
# included, hooks never. A counter kept in a file numbers the runs as they happen.
numbered="n=\$(cat '$TMP/n' 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n > '$TMP/n'; echo"
echo stale > "$TMP/seq.txt"
rm -f "$TMP/n"
run_tare wall -w 2 -r 3 -S sh -p 'echo prepare' -c 'echo cleanup' --output "$TMP/seq.txt" \
    "$numbered run \$n"
expect_rc 0 "wall --output FILE with a numbered command"
expect_eq "$(cat "$TMP/seq.txt")" "$(seq -f 'run %g' 1 5)" \
    "wall: 2 warm-ups then 3 runs, each its line in order; nothing stale, no hook"
rm -f "$TMP/n"
run_tare stat -w 1 -r 2 -e task-clock -S sh --output "$TMP/seq.txt" "$numbered run \$n"
expect_rc 0 "stat --output FILE"
expect_eq "$(cat "$TMP/seq.txt")" "$(seq -f 'run %g' 1 3)" "stat: the warm-up and 2 runs"
rm -f "$TMP/n"
run_tare ab --pairs 3 -w 1 -S sh --output "$TMP/seq.txt" "$numbered a \$n" "$numbered b \$n"
expect_rc 0 "ab --output FILE"
expect_eq "$(cut -d' ' -f2 "$TMP/seq.txt" | tr '\n' ' ')" "$(seq -s ' ' 1 "$(cat "$TMP/n")") " \
    "ab: every run of both sides, in the order they ran ($(cat "$TMP/n") runs)"
expect_eq "$(grep -c '^a ' "$TMP/seq.txt"):$(grep -c '^b ' "$TMP/seq.txt")" \
    "$(($(cat "$TMP/n") / 2)):$(($(cat "$TMP/n") / 2))" "as many of A as of B"
if command -v valgrind > /dev/null; then
    rm -f "$TMP/n"
    run_tare count -S sh --output "$TMP/seq.txt" "$numbered run \$n"
    expect_rc 0 "count --output FILE"
    expect_eq "$(cat "$TMP/seq.txt")" "$(seq -f 'run %g' 1 "$(cat "$TMP/n")")" \
        "count: every run, the native warm-up and the counted ones ($(cat "$TMP/n"))"
    check "count ran more than once" test "$(cat "$TMP/n")" -ge 2
fi
done_testing
