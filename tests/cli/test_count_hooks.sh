# Hooks, --input and --output in tare count: natively, outside valgrind and the counting
# allocator, with TARE_SERIES and TARE_ITERATION; a failing hook makes only its series NA.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
LOG=$TMP/hooks.log
# A hook that appends "WORD series iteration preload" to the log.
logs() { echo \
    "sh -c 'echo $1 \"\$TARE_SERIES\" \"\$TARE_ITERATION\" \"\${LD_PRELOAD:-none}\" >> $LOG'"; }

# The counts of a small program, without hooks and with a heavy Python hook around every
# run: a hook counted under valgrind or the allocator would add millions to them.
run_tare count --jobs 1 --format tsv -- "$F/countin"
expect_rc 0 "count without hooks"
plain=$(cut -f3-6 <<<"$out" | tail -n 1)
heavy="/usr/bin/python3 -c 'x = [str(i) for i in range(200000)]'"
run_tare count --jobs 1 --format tsv --setup "$heavy" --prepare "$heavy" --conclude "$heavy" \
    --cleanup "$heavy" -- "$F/countin"
expect_rc 0 "count with hooks"
expect_eq "$(cut -f3-6 <<<"$out" | tail -n 1)" "$plain" \
    "instructions, allocations, bytes and peak heap unchanged by the hooks"
expect_match "$plain" '^[0-9]+	[0-9]+	[0-9]+	[0-9]+$' "all four counts measured"

# In order around every run: setup 0, the warm-up -1, the callgrind run 1, the allocator's
# run 2, cleanup 0; never with valgrind's or tare's preload.
: > "$LOG"
run_tare count --jobs 1 --name a --setup "$(logs setup)" --prepare "$(logs p)" \
    --conclude "$(logs c)" --cleanup "$(logs cleanup)" -- "$F/countin"
expect_rc 0 "every kind of hook"
expect_eq "$(cat "$LOG")" "setup a 0 none
p a -1 none
c a -1 none
p a 1 none
c a 1 none
p a 2 none
c a 2 none
cleanup a 0 none" "hooks in order, natively, with TARE_SERIES and TARE_ITERATION"

# --check-warm adds a second callgrind run: 2, and the allocator's run becomes 3.
: > "$LOG"
run_tare count --jobs 1 --check-warm --prepare "$(logs p)" -- "$F/countin"
expect_eq "$(awk '{ print $3 }' "$LOG" | tr '\n' ' ')" "-1 1 2 3 " "--check-warm's iterations"

# A failing hook: that series NA with the hook's words and its stderr, the other counted,
# cleanup still run, exit 1.
: > "$LOG"
run_tare count --jobs 1 --format tsv --name ok --name bad \
    --prepare \
        "sh -c 'if [ \"\$TARE_SERIES\" = bad ] && [ \$TARE_ITERATION = 1 ]; then echo db locked >&2; exit 4; fi'" \
    --cleanup "$(logs cleanup)" "$F/countin" "$F/countin x"
expect_rc 1 "a failing prepare hook"
expect_eq "$(tsv_field "$out" 1 status)" ok "the other series is counted"
expect_eq "$(tsv_field "$out" 2 status)" failed "the hooked series failed"
expect_eq "$(tsv_field "$out" 2 instructions)" NA "its counts are NA"
expect_match "$err" \
    "'bad' failed: prepare failed: 'sh -c .*' exited with status 4 before the callgrind run" \
    "the error names the hook and the run"
expect_match "$err" "db locked" "with the hook's stderr"
expect_eq "$(awk '{ print $1, $2 }' "$LOG" | tr '\n' ' ')" "cleanup ok cleanup bad " \
    "cleanup after the failure too"

# A setup that cannot start fails its series before any run.
run_tare count --jobs 1 --format json --setup "$TMP/no-such-hook" -- "$F/countin"
expect_rc 1 "a setup that cannot start"
expect_match "$out" '"status": "failed", "error": "setup failed: ' "json error"

# --input feeds every run's stdin (countin prints the bytes it read); --output FILE keeps
# every run's stdout (the native warm-up and the counted runs), one line each.
head -c 100000 /dev/zero > "$TMP/in"
run_tare count --jobs 1 --input "$TMP/in" --output "$TMP/out.txt" -- "$F/countin"
expect_rc 0 "count --input"
expect_eq "$(sort -u "$TMP/out.txt")" 100000 "every run read the whole input"
check "every run's line kept ($(wc -l < "$TMP/out.txt"))" test "$(wc -l < "$TMP/out.txt")" -ge 2
run_tare count --input "$TMP/missing" -- "$F/countin"
expect_rc 2 "an unreadable --input"


# SIGINT mid-run (under callgrind): the cleanup hook still runs, after every job stopped,
# then 130.
I=$TMP/int
mkdir -p "$I"
"$TARE" count -S sh -s "touch $I/began" -c "echo \$TARE_SERIES \$TARE_ITERATION > $I/cleaned" \
    -n nap 'sleep 30' > "$TMP/out" 2> "$TMP/err" &
p=$!
for i in $(seq 200); do [ -e "$I/began" ] && break; sleep 0.1; done
sleep 0.5
kill -INT "$p"
wait "$p"
rc=$? err=$(cat "$TMP/err")
expect_rc 130 "count, SIGINT mid-run: 130"
expect_eq "$(cat "$I/cleaned" 2>/dev/null)" "nap 0" \
    "count: the cleanup hook ran after the interrupt"
done_testing
