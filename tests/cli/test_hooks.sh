# Hooks around the runs (--setup, --prepare, --conclude, --cleanup) in tare wall, ab and stat.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES
LOG=$TMP/hooks.log
# A hook that appends a line to the log: "WORD series iteration".
logs() { echo "sh -c 'echo $1 \"\$TARE_SERIES\" \"\$TARE_ITERATION\" >> $LOG'"; }

# Never timed: with a 0.2 s sleep before every run, 'true' stays far under 'sleep 0.2'
# measured in the same run (timed with the hook, true would take as long as the sleep).
run_tare wall --runs 3 -w 0 -f tsv --prepare 'sleep 0.2' true 'sleep 0.2'
expect_rc 0 "a --prepare that sleeps"
mt=$(tsv_field "$out" 1 median_s); ms=$(tsv_field "$out" 2 median_s)
check "the prepare hook is not timed (true $mt s, sleep 0.2 $ms s)" \
    awk -v t="$mt" -v s="$ms" 'BEGIN { exit !(t > 0 && 2 * t < s) }'
expect_eq "$(tsv_field "$out" 1 status)" ok "hooked series ok"

# In order, around every run, warm-ups negative, setup and cleanup once per series (0).
: > "$LOG"
run_tare wall --runs 2 -w 1 --name a --name b --setup "$(logs setup)" --prepare "$(logs p1)" \
    --prepare "$(logs p2)" --conclude "$(logs c)" --cleanup "$(logs cleanup)" true 'true x'
expect_rc 0 "every kind of hook"
want="setup a 0
setup b 0"
for it in -1 1 2; do
    for s in a b; do
        want="$want
p1 $s $it
p2 $s $it
c $s $it"
    done
done
want="$want
cleanup a 0
cleanup b 0"
expect_eq "$(cat "$LOG")" "$want" "hooks in order with TARE_SERIES and TARE_ITERATION"

# The same in tare stat (software counters exist everywhere) and tare ab.
: > "$LOG"
run_tare stat --runs 2 -w 1 -e task-clock --prepare "$(logs p)" --cleanup "$(logs cleanup)" true
expect_rc 0 "tare stat with hooks"
expect_eq "$(tr '\n' ' ' < "$LOG")" "p true -1 p true 1 p true 2 cleanup true 0 " \
    "tare stat runs the hooks"
: > "$LOG"
run_tare ab --pairs 2 -w 0 --setup "$(logs setup)" --conclude "$(logs c)" true 'true y'
expect_rc 0 "tare ab with hooks"
expect_eq "$(tr '\n' ' ' < "$LOG")" \
    "setup true 0 setup true y 0 c true 1 c true y 1 c true y 2 c true 2 " \
    "tare ab: hooks follow the alternating pairs"

# A failing command: its conclusion still runs, and so does the cleanup, after the failure.
: > "$LOG"
run_tare wall --runs 3 -w 0 --conclude "$(logs c)" --cleanup "$(logs cleanup)" "$F/exit3"
expect_rc 1 "a failing command with hooks"
expect_eq "$(tr '\n' ' ' < "$LOG")" "c exit3 1 cleanup exit3 0 " \
    "conclude and cleanup after a failure"

# A failing hook: its series is NA with the hook's words and stderr, exit 1; the others go on,
# and the failed series is cleaned up too.
: > "$LOG"
run_tare wall --runs 2 -f tsv --name good --name bad \
    --prepare "sh -c 'if [ \"\$TARE_SERIES\" = bad ]; then echo no disk >&2; exit 7; fi'" \
    --cleanup "$(logs cleanup)" true 'true z'
expect_rc 1 "a failing prepare hook"
expect_eq "$(tsv_field "$out" 1 status)" ok "the other series goes on"
expect_eq "$(tsv_field "$out" 2 status)" failed "the hooked series fails"
expect_eq "$(tsv_field "$out" 2 median_s)" NA "and is NA"
expect_match "$err" "'bad': prepare failed: .* exited with status 7 before warm-up run 1" \
    "the hook's failure"
expect_match "$err" "no disk" "the hook's stderr"
expect_eq "$(tr '\n' ' ' < "$LOG")" "cleanup good 0 cleanup bad 0 " "cleanup after a failed hook"
run_tare wall --runs 2 -w 0 --conclude false true
expect_rc 1 "a failing conclude hook"
expect_match "$err" "conclude failed: 'false' exited with status 1 after measured run 1" \
    "conclude's failure"
run_tare wall --runs 2 --setup false --cleanup "$(logs cleanup)" true
expect_rc 1 "a failing setup hook"
expect_match "$err" "setup failed: 'false' exited with status 1" "setup's failure"
run_tare wall --runs 2 --cleanup false true
expect_rc 1 "a failing cleanup hook"
expect_match "$err" "cleanup failed" "cleanup's failure"
run_tare wall --runs 2 --prepare no-such-hook-program true
expect_rc 1 "a hook that cannot start"
expect_match "$err" "prepare failed: 'no-such-hook-program' could not start: .*not found" \
    "why it could not start"
run_tare ab --pairs 6 --prepare false true 'true q'
expect_rc 1 "tare ab: a failing hook stops the pairs"
expect_match "$err" "A 'true': prepare failed: 'false' exited with status 1" \
    "tare ab names the side"
run_tare stat --runs 2 -e task-clock --prepare false true
expect_rc 1 "tare stat: a failing hook"
expect_match "$out" "task-clock +NA" "tare stat: NA"

# Hooks are split like the commands: shell syntax needs --shell, which they then get too.
run_tare wall --runs 1 --prepare "echo x >> $LOG" true
expect_rc 2 "shell syntax in a hook without --shell"
expect_match "$err" "--prepare: command 'echo x >> .*' uses shell syntax" "the hook's shell syntax"
: > "$LOG"
run_tare wall --runs 1 -w 0 --shell sh --prepare "echo \$TARE_ITERATION >> $LOG" true
expect_rc 0 "a hook with --shell"
expect_eq "$(cat "$LOG")" 1 "the hook ran under sh -c"

# Ctrl-C: the measured run is killed at once, then the cleanup hooks of the series that began
# still run (within a 5 s grace; hyperfine 1.15 runs none), and tare exits 130. A second
# Ctrl-C ends a cleanup at once. The signal comes once the setup hook has run.
I=$TMP/int
mkdir -p "$I"
wait_for() {   # wait_for FILE: up to 20 s
    local i
    for i in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.1; done
    return 1
}
# bg_tare ARGS...: tare in the background, its pid in $p
bg_tare() { "$TARE" "$@" > "$TMP/out" 2> "$TMP/err" & p=$!; }
bg_tare wall -r 1000 -S sh -n snooze -s "touch $I/began" \
    -c "echo \$TARE_SERIES \$TARE_ITERATION > $I/cleaned" 'sleep 0.2'
wait_for "$I/began"
sleep 0.3
kill -INT "$p"
wait "$p"
rc=$? err=$(cat "$TMP/err")
expect_rc 130 "SIGINT mid-run: 130"
expect_match "$err" "^tare wall: interrupted$" "said"
expect_eq "$(cat "$I/cleaned" 2>/dev/null)" "snooze 0" "the cleanup hook ran after the interrupt"
# a cleanup that hangs: a second SIGINT ends it at once (its sleep's length is this file's own,
# so that pgrep finds no other run's: the suites run side by side)
NAP=31.$$
rm -f "$I"/*
bg_tare wall -r 1000 -S sh -s "touch $I/began" -c "touch $I/cleaning; sleep $NAP; touch $I/late" \
    'sleep 0.2'
wait_for "$I/began"
kill -INT "$p"
wait_for "$I/cleaning"
check "the hanging cleanup began" test -e "$I/cleaning"
kill -INT "$p"
wait "$p"
rc=$? err=$(cat "$TMP/err")
expect_rc 130 "a second SIGINT during the cleanup: 130"
check "the cleanup was ended, not finished" test ! -e "$I/late"
check "its sleep is gone" bash -c "! pgrep -f '[s]leep $NAP' > /dev/null"
# ... and one SIGINT alone: the cleanup is ended when the grace is over (5 s)
rm -f "$I"/*
bg_tare wall -r 1000 -S sh -s "touch $I/began" -c "touch $I/cleaning; sleep $NAP; touch $I/late" \
    'sleep 0.2'
wait_for "$I/began"
kill -INT "$p"
wait "$p"
rc=$? err=$(cat "$TMP/err")
expect_rc 130 "SIGINT, then a cleanup that outlives the grace: 130"
check "the cleanup began" test -e "$I/cleaning"
check "and was ended at the grace's end" test ! -e "$I/late"
check "its sleep is gone too" bash -c "! pgrep -f '[s]leep $NAP' > /dev/null"
done_testing
