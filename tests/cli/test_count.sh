# tare count end to end: exact, reproducible counts of real programs built by the test run.
. "$(dirname "$0")/lib.sh"
F=$FIXTURES

# The contract's columns, and a known answer: allocmix makes 143 allocating calls by its
# definition, and memcheck's "total heap usage" line must agree.
run_tare count -f tsv -- "$F/allocmix"
expect_rc 0 "count allocmix"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'name\tlane\tinstructions\tallocations\tbytes\tpeak_bytes\tstatus')" "TSV header"
expect_eq "$(tsv_field "$out" 1 allocations)" 143 "allocations of allocmix (by its definition)"
memcheck=$(valgrind --tool=memcheck "$F/allocmix" 2>&1 | sed -nE \
    's/.*total heap usage: ([0-9,]+) allocs.*/\1/p' | tr -d ,)
expect_eq "$(tsv_field "$out" 1 allocations)" "$memcheck" \
    "allocations agree with memcheck's total heap usage"
# Bytes requested by its definition: 6550 (malloc) + 1400 (calloc) + 224 (realloc NULL)
# + 20490 (realloc grow) + 19200 (reallocarray) + 1024 + 2048 + 100 + 100 (aligned) = 51136;
# live at its peak (just before the frees) 50965 bytes requested, which usable sizes exceed.
memcheck_bytes=$(valgrind --tool=memcheck "$F/allocmix" 2>&1 | sed -nE \
    's/.*total heap usage: .* ([0-9,]+) bytes allocated.*/\1/p' | tr -d ,)
expect_eq "$(tsv_field "$out" 1 bytes)" 51136 "bytes of allocmix (by its definition)"
expect_eq "$(tsv_field "$out" 1 bytes)" "$memcheck_bytes" "bytes agree with memcheck"
peak=$(tsv_field "$out" 1 peak_bytes)
check "peak_bytes covers the 50965 live bytes requested, plus under 32 bytes a block ($peak)" \
    test "$peak" -ge 50965 -a "$peak" -le $((50965 + 32 * 143))
check "instructions counted" test "$(tsv_field "$out" 1 instructions)" -gt 10000
expect_eq "$(tsv_field "$out" 1 status)" ok "status"

# The same binary twice gives identical counts; -j 2 gives the same as -j 1.
run_tare count -f tsv -j 1 "$F/busy 2" "$F/allocmix"
first=$out
run_tare count -f tsv -j 2 "$F/busy 2" "$F/allocmix"
expect_eq "$(cut -f3,4 <<<"$out")" "$(cut -f3,4 <<<"$first")" "identical counts, -j 1 and -j 2"

# Work that scales shows exactly: three lanes with 1, 2 and 3 thousand iterations are linear.
run_tare count -f tsv --lane one:TARE_WORK=1 --lane two:TARE_WORK=2 --lane three:TARE_WORK=3 -- \
    "$F/envwork"
expect_rc 0 "lanes"
expect_eq "$(cut -f1,2 <<<"$out" | tail -n +2 | tr '\t\n' ':,')" \
    "envwork+one:one,envwork+two:two,envwork+three:three," "lane series names"
i1=$(tsv_field "$out" 1 instructions); i2=$(tsv_field "$out" 2 instructions); i3=$(tsv_field \
    "$out" 3 instructions)
check "a lane's environment changes the count ($i1 < $i2 < $i3)" test "$i1" -lt "$i2" -a "$i2" \
    -lt "$i3"
expect_eq "$((i3 - i2))" "$((i2 - i1))" "each thousand iterations costs the same instructions"

# The processes a command starts are counted too: 'busy 1 && busy 1' under sh is one busy
# (and a fork) more than 'busy 1' alone, which sh runs by exec.
run_tare count -f tsv -- "$F/busy" 1
one_busy=$(tsv_field "$out" 1 instructions)
run_tare count -f tsv --shell sh --name one --name two "$F/busy 1" "$F/busy 1 && $F/busy 1"
one=$(tsv_field "$out" 1 instructions); two=$(tsv_field "$out" 2 instructions)
check "a child's instructions are counted (two $two - one $one >= busy $one_busy)" \
    test $((two - one)) -ge "$one_busy"
check "a child's allocations are counted" test "$(tsv_field "$out" 2 allocations)" -gt \
    "$(tsv_field "$out" 1 allocations)"

# Failures are NA with the reason, and exit 1; a command that cannot run is bad input.
run_tare count -f tsv "$F/exit3" "$F/crash" "$F/busy 1"
expect_rc 1 "failing commands"
expect_eq "$(tsv_field "$out" 1 instructions)" NA "failed instructions are NA"
expect_eq "$(tsv_field "$out" 1 status)" failed "exit 3 is failed"
expect_eq "$(tsv_field "$out" 2 allocations)" NA "crash allocations are NA"
expect_eq "$(tsv_field "$out" 3 status)" ok "the others are still counted"
expect_match "$err" "'exit3' failed: native warm-up run exited with status 3" "why exit3 failed"
expect_match "$err" "something went wrong on purpose" "its stderr"
expect_match "$err" "'crash' failed: native warm-up run killed by signal 11" "why crash failed"
run_tare count /nonexistent/program
expect_rc 2 "a command that does not exist"
expect_match "$err" "command not found" "not found message"
run_tare count -f tsv --timeout 0.5 -- "$F/sleeper" 20
expect_rc 1 "timeout"
expect_eq "$(tsv_field "$out" 1 status)" timeout "timeout status"

# --check-warm flags a program whose count does not reproduce, with both numbers.
run_tare count -f tsv --check-warm -- "$F/drift" "$TMP/drift-counter"
expect_rc 1 "drift is not warm-stable"
expect_eq "$(tsv_field "$out" 1 status)" unstable "unstable status"
expect_match "$err" \
    "'drift' is not warm-stable: two callgrind passes gave [0-9]+ and [0-9]+ instructions" \
    "both numbers"
run_tare count -f json --check-warm -- "$F/busy" 1
expect_rc 0 "busy is warm-stable"
check "json: both passes agree" /usr/bin/python3 -c '
import json, sys
s = json.loads(sys.argv[1])["series"][0]
assert s["status"] == "ok" and s["instructions"] == s["instructions_pass2"] and s["allocations"] == s["allocations_pass2"], s
assert s["bytes"] is None or isinstance(s["bytes"], int)
' "$out"

# --keep-profile keeps a profile tare cg can read.
run_tare count --keep-profile "$TMP/profiles" -f tsv --name mix -- "$F/allocmix"
check "profile kept" test -s "$TMP/profiles/mix.callgrind.out"
expect_match "$(head -c 2000 "$TMP/profiles/mix.callgrind.out")" "events: Ir" \
    "kept file is a callgrind profile"

# Without the counting allocator bytes and peak heap are NA, and tare says why.
TARE_ALLOC_LIB=/nonexistent/libtare-alloc.so run_tare count -f tsv -- "$F/allocmix"
expect_eq "$(tsv_field "$out" 1 bytes)" NA "no library: bytes NA"
expect_eq "$(tsv_field "$out" 1 allocations)" 143 "no library: allocations still counted"
expect_match "$err" "note: bytes and peak heap are NA" "no library: said why"
# A static binary cannot be seen by LD_PRELOAD: NA with the reason, the rest still counted.
run_tare count -f tsv -- "$F/static_hello"
expect_eq "$(tsv_field "$out" 1 bytes)" NA "static: bytes NA"
expect_eq "$(tsv_field "$out" 1 status)" ok "static: still counted"
expect_match "$err" "'static_hello': bytes and peak heap are NA: it wrote no allocation report" \
    "static: said why"

# No valgrind: a clear word naming the package.
run_tare_nopath() { PATH=/nonexistent "$TARE" "$@" > "$TMP/out" 2> "$TMP/err"; rc=$?; err=$(cat \
    "$TMP/err"); }
run_tare_nopath count -- "$F/busy" 1
expect_rc 1 "no valgrind"
expect_match "$err" "valgrind is not installed \(Debian package 'valgrind'\)" "no valgrind message"

# Bad usage.
for bad in "-j 0 true" "--format csv true" "--timeout x true" ""; do
    run_tare count $bad
    expect_rc 2 "count $bad"
done
# --fail-above / --fail-below: the exit status git bisect run expects (0 good, 1 bad, 125 skip),
# against a limit taken from a count made here: busy 1 is at its own count, busy 2 above it.
run_tare count --format tsv -- "$F/busy" 1
limit=$(tsv_field "$out" 1 instructions)
run_tare count --fail-above "$limit" -- "$F/busy" 1
expect_rc 0 "busy 1 is not above its own count"
run_tare count --fail-above "$((limit - 1))" -- "$F/busy" 1
expect_rc 1 "busy 1 is above its count minus one"
expect_match "$err" "'busy': instructions $limit is above $((limit - 1))" "what was above"
run_tare count --fail-above "$limit" -- "$F/busy" 2
expect_rc 1 "busy 2 is above busy 1's count"
run_tare count --fail-below "$limit" -- "$F/busy" 1
expect_rc 0 "busy 1 is not below its own count"
run_tare count --fail-below "$((limit + 1))" -- "$F/busy" 1
expect_rc 1 "busy 1 is below its count plus one"
# allocmix makes 143 allocations by its definition.
run_tare count --metric allocations --fail-above 143 -- "$F/allocmix"
expect_rc 0 "143 allocations are not above 143"
run_tare count --metric allocations --fail-above 142 --fail-below 100 -- "$F/allocmix"
expect_rc 1 "143 allocations are above 142"
expect_match "$err" "allocations 143 is above 142" "the allocations that were above"
run_tare count --fail-above 1 -- "$F/exit3"
expect_rc 125 "a failing command is a commit to skip (125)"
expect_match "$err" "no instructions count: exit 125" "says why 125"
run_tare count --fail-above 1 -- "$TMP/not-built"
expect_rc 125 "a command that is not there is a commit to skip (125)"
# In a real git bisect run: five commits, each a program of more iterations than the last;
# the limit between the second and the third, so git names the third.
if command -v git > /dev/null; then
    R=$TMP/repo
    mkdir -p "$R"
    (cd "$R" && git init -q && git config user.email t@example.org && git config user.name t &&
     for n in 1 2 3 4 5; do
         printf '#!/bin/sh\nexec %s %s\n' "$F/busy" "$n" > work.sh && chmod +x work.sh &&
         git add work.sh && git commit -q -m "busy $n"; done) > /dev/null 2>&1
    run_tare count --format tsv "$F/busy 2" "$F/busy 3"
    mid=$(( ($(tsv_field "$out" 1 instructions) + $(tsv_field "$out" 2 instructions)) / 2 ))
    culprit=$(cd "$R" && git bisect start HEAD HEAD~4 > /dev/null &&
              git bisect run "$TARE" count --fail-above "$mid" -- ./work.sh 2> /dev/null |
              sed -n 's/^\([0-9a-f]*\) is the first bad commit.*/\1/p'
              git bisect reset > /dev/null 2>&1)
    expect_eq "$(cd "$R" && git log -1 --format=%s "$culprit" 2> /dev/null)" "busy 3" \
        "git bisect run with --fail-above names the commit that went above"
fi
for bad in "--fail-above x true" "--fail-below -1 true" "--metric wall true"; do
    run_tare count $bad
    expect_rc 2 "count $bad"
done
done_testing
