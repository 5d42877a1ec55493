# tare count --valgrind-arg: options passed through to valgrind, and recorded.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
tmp=$TMP   # (a trap of its own here once left lib.sh's $TMP behind)

# The option reaches callgrind: --toggle-collect=hot passed through gives callgrind's own
# "Collected" figure for it as the whole count.
vg=$(valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" --toggle-collect=hot \
    "$F/region" 1000 2>&1 |
    sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p')
run_tare count --format json --valgrind-arg --toggle-collect=hot --valgrind-arg=--separate-recs=2 \
    -- "$F/region" 1000
expect_rc 0 "count with valgrind options"
expect_match "$out" "\"instructions\": $vg," "the option reached callgrind ($vg)"
expect_match "$out" '"valgrind_args": \["--toggle-collect=hot", "--separate-recs=2"\]' \
    "recorded in the JSON, in order"
# Text says so beside the table.
run_tare count --valgrind-arg --separate-recs=2 -- "$F/region" 10
expect_match "$out" \
    "valgrind options added \(counts under other options are not comparable\): --separate-recs=2" \
    "text says the options"
# None given: no field (the JSON is as before).
run_tare count --format json -- "$F/region" 10
expect_no_match "$out" "valgrind_args" "no options, no field"
# Options tare sets itself, and non-options, are refused.
for bad in --tool=memcheck --callgrind-out-file=x --log-file=x; do
    run_tare count --valgrind-arg "$bad" -- "$F/region" 10
    expect_rc 2 "refused: $bad"
    expect_match "$err" "tare sets" "why $bad is refused"
done
run_tare count --valgrind-arg notanoption -- "$F/region" 10
expect_rc 2 "a non-option refused"
expect_match "$err" "takes a valgrind option" "says what it takes"
# An option valgrind itself refuses is a failed run, with valgrind's reason.
run_tare count --valgrind-arg --no-such-option=1 -- "$F/region" 10
expect_rc 1 "valgrind refuses an option"
expect_match "$err" "no-such-option" "valgrind's word on it"

done_testing
