# tare alloc and libtare-alloc.so: exact counts against the fixtures' own definitions and
# against valgrind memcheck, scopes in threads, fork/_exit/exec, static and own-malloc
# programs, C++, and scope macros that compile to nothing when off.
. "$(dirname "$0")/lib.sh"
LIB=${TARE_ALLOC_LIB:-$TARE_ROOT/$BUILD/libtare-alloc.so}
case $LIB in /*) ;; *) LIB=$TARE_ROOT/$LIB ;; esac
check "libtare-alloc.so is built" test -f "$LIB"

json_field() {   # json_field JSON KEY: a top-level number
    sed -E "s/.*\"$2\": ([0-9]+).*/\1/" <<<"$1"
}

# --- exact counts: the fixture's own tally, and memcheck's heap summary ---------------------
want=$("$FIXTURES/alloc_known")
run_tare alloc --format json -- "$FIXTURES/alloc_known"
expect_rc 0 "alloc_known"
expect_eq \
    "allocations=$(json_field "$out" allocations) frees=$(json_field "$out" frees) bytes=$(json_field "$out" bytes)" \
    "$want" "alloc_known: counts equal the program's own tally"
expect_match "$out" \
    '^\{"allocations": [0-9]+, "frees": [0-9]+, "bytes": [0-9]+, "peak_bytes": [0-9]+, "scopes": \[\]\}$' \
    "json has exactly the documented keys"

if command -v valgrind >/dev/null; then
    # valgrind 3.19 does not count pvalloc: the "memcheck" mode leaves it out. libc_freeres
    # would add frees of libc's own buffers at exit, which no program makes itself.
    vg=$(valgrind --run-libc-freeres=no "$FIXTURES/alloc_known" memcheck 2>&1 >/dev/null |
         sed -nE 's/.*total heap usage: ([0-9,]+) allocs, ([0-9,]+) frees, ([0-9,]+) bytes allocated.*/\1 \2 \3/p' | tr -d ,)
    check "memcheck printed its heap summary" test -n "$vg"
    run_tare alloc --format json -- "$FIXTURES/alloc_known" memcheck
    expect_eq \
        "$(json_field "$out" allocations) $(json_field "$out" frees) $(json_field "$out" bytes)" \
        "$vg" \
        "alloc_known: equal to memcheck's total heap usage"
    want_m=$("$FIXTURES/alloc_known" memcheck | sed -E \
        's/allocations=([0-9]+) frees=([0-9]+) bytes=([0-9]+)/\1 \2 \3/')
    expect_eq "$vg" "$want_m" "memcheck agrees with the program's own tally"
else
    not_ok "valgrind is not installed (scripts/install-deps check)"
fi

# peak_bytes: exact in a single-threaded program, as the program itself adds it up.
wantp=$("$FIXTURES/alloc_known" peak)
run_tare alloc --format json -- "$FIXTURES/alloc_known" peak
expect_eq "peak_bytes=$(json_field "$out" peak_bytes)" "$wantp" \
    "peak_bytes equals the program's own sum of usable sizes"
check "the peak is not trivially small ($wantp)" test "${wantp#peak_bytes=}" -gt 1048576

# The text report has the same numbers.
run_tare alloc -- "$FIXTURES/alloc_known"
expect_rc 0 "alloc_known, text"
expect_match "$out" "^allocations +$(sed -E 's/allocations=([0-9]+).*/\1/' <<<"$want")$" \
    "text: allocations"

# --- scopes: nested, recursive, closed early, in five threads -------------------------------
want=$("$FIXTURES/alloc_scopes")
run_tare alloc --format json -- "$FIXTURES/alloc_scopes"
expect_rc 0 "alloc_scopes"
expect_eq "$(sed -E 's/.*"scopes": (\[.*\])\}$/\1/' <<<"$out")" "$want" \
    "scopes: exact inclusive and exclusive counts"
check "alloc_scopes runs uncounted without the library" test "$("$FIXTURES/alloc_scopes")" = "$want"
if command -v valgrind >/dev/null; then
    # Totals over five threads, against memcheck. Bytes differ by a known amount: the
    # library's thread-local storage is one more module in each new thread's DTV, which
    # pthread_create allocates, 16 bytes an entry: 4 threads, 64 bytes.
    vg=$(valgrind --run-libc-freeres=no "$FIXTURES/alloc_scopes" 2>&1 >/dev/null |
         sed -nE 's/.*total heap usage: ([0-9,]+) allocs, ([0-9,]+) frees, ([0-9,]+) bytes allocated.*/\1 \2 \3/p' | tr -d ,)
    read -r va vf vb <<<"$vg"
    expect_eq \
        "$(json_field "$out" allocations) $(json_field "$out" frees) $(json_field "$out" bytes)" \
        "$va $vf $((vb + 64))" "alloc_scopes: totals over threads equal memcheck's"
fi
run_tare alloc -- "$FIXTURES/alloc_scopes"
expect_match "$out" "scopes cover [0-9.]+% of the allocations" "text: the share the scopes cover"
expect_match "$out" "^work +125 +1,625 +250 " "text: a scope row"

# The report format straight from the library, through TARE_ALLOC_STATS=1 on stderr.
line=$(TARE_ALLOC_STATS=1 LD_PRELOAD=$LIB "$FIXTURES/alloc_scopes" 2>&1 >/dev/null)
expect_match "$line" \
    '^tare-alloc 1 pid=[0-9]+ ppid=[0-9]+ end=exit status=ok allocations=[0-9]+ .* scopes=6 exe=' \
    "report line"
expect_match "$line" \
    '^tare-alloc-scope 1 pid=[0-9]+ label=leaf entries=250 allocs_incl=625 allocs_excl=625 bytes_incl=62500 bytes_excl=62500$' \
    "scope line"
expect_match "$line" ' peak_slack=[1-9][0-9]* threads=5 ' \
    "threaded: the peak's error bound is stated"
line=$(TARE_ALLOC_PEAK=exact TARE_ALLOC_STATS=1 LD_PRELOAD=$LIB "$FIXTURES/alloc_scopes" \
    2>&1 >/dev/null)
expect_match "$line" ' peak_slack=0 threads=5 ' "TARE_ALLOC_PEAK=exact: no error bound"
check "no report without TARE_ALLOC_STATS or TARE_ALLOC_OUT" \
    test -z "$(LD_PRELOAD=$LIB "$FIXTURES/alloc_fork" closed 2>&1)"

# --- processes: fork + exit, fork + _exit, fork + exec; a closed stderr ---------------------
# alloc_fork's definition: the parent 5 allocations of 100 bytes; the child 5 of 10 bytes,
# or 1 of 10 and then (exec'd) 7 of 20.
for mode in fork _exit; do
    run_tare alloc --format json -- "$FIXTURES/alloc_fork" $mode
    expect_eq "$(json_field "$out" allocations) $(json_field "$out" bytes)" "5 500" \
        "$mode: the command's own process"
    run_tare alloc --follow-children --format json -- "$FIXTURES/alloc_fork" $mode
    expect_eq \
        "$(json_field "$out" allocations) $(json_field "$out" frees) $(json_field "$out" bytes)" \
        "10 10 550" "$mode: --follow-children adds the child"
done
run_tare alloc --follow-children --format json -- "$FIXTURES/alloc_fork" exec
expect_eq "$(json_field "$out" allocations) $(json_field "$out" bytes)" "13 650" \
    "exec: child before and after exec"
run_tare alloc --format json -- "$FIXTURES/alloc_fork" vfork
expect_eq "$(json_field "$out" allocations) $(json_field "$out" bytes)" "5 500" \
    "vfork: the parent's counts are its own"
run_tare alloc --follow-children --format json -- "$FIXTURES/alloc_fork" vfork
expect_eq "$(json_field "$out" allocations) $(json_field "$out" bytes)" "12 640" \
    "vfork: a failed exec, then one that works"
run_tare alloc --follow-children -- "$FIXTURES/alloc_fork" fork
expect_match "$out" "^processes +2$" "text: process count"
run_tare alloc --follow-children -- "$FIXTURES/alloc_fork" exec
expect_match "$out" " exec +1 +10 +[0-9]+ +alloc_fork$" \
    "text: the process table has the image replaced by exec"
expect_eq "$(grep -cE '^ *[0-9]+ +[0-9]+ +(exit|_exit|exec) ' <<<"$out")" 3 \
    "text: one row per process image"
TARE_ALLOC_OUT=$TMP/rep LD_PRELOAD=$LIB "$FIXTURES/alloc_fork" exec
expect_eq "$(grep -c '^tare-alloc 1 ' "$TMP/rep")" 3 "exec: one line per process image"
expect_match "$(cat "$TMP/rep")" "end=exec .*allocations=1 frees=1 bytes=10 " \
    "exec: the image replaced reports first"
line=$(TARE_ALLOC_STATS=1 LD_PRELOAD=$LIB "$FIXTURES/alloc_fork" closed 2>&1)
expect_match "$line" "allocations=4 frees=4 bytes=120 " "report survives a closed stderr"
line=$(TARE_ALLOC_STATS=1 LD_PRELOAD=$LIB "$FIXTURES/alloc_fork" clobber 2>&1)
expect_match "$line" "allocations=4 frees=4 bytes=120 " \
    "report reaches stderr when the program reuses the library's descriptor"
if command -v sort >/dev/null; then     # coreutils sort closes its stderr before exiting
    line=$(printf 'b\na\n' | TARE_ALLOC_STATS=1 LD_PRELOAD=$LIB sort 2>&1 >/dev/null)
    expect_match "$line" '^tare-alloc 1 .*exe=.*sort$' "sort's report survives its closing stderr"
fi
# A relative TARE_ALLOC_OUT is taken from the start-up directory.
(cd "$TMP" && TARE_ALLOC_OUT=rel LD_PRELOAD=$LIB "$FIXTURES/alloc_fork" closed 2>/dev/null)
expect_match "$(cat "$TMP/rel" 2>/dev/null)" "allocations=4 " "relative TARE_ALLOC_OUT"

# --- through another allocator: alloc_known linked against jemalloc --------------------------
# Counted through jemalloc, sizes asked of jemalloc (its usable sizes are not glibc's), and
# pvalloc, which jemalloc lacks, made from jemalloc's memalign rather than glibc's pvalloc.
# jemalloc loads libstdc++, whose start-up allocation ("none" mode) stays live throughout.
# (The tally is the glibc build's: run natively, this build crashes in glibc's pvalloc.)
JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
if [ -f $JE ]; then
    je=$TMP/alloc_known_je
    cc -std=gnu11 -O1 -o "$je" "$TARE_ROOT/tests/fixtures/alloc_known.c" $JE
    check "jemalloc: linked against it" sh -c "ldd '$je' | grep -q libjemalloc"
    run_tare alloc --format json -- "$je" none
    expect_rc 0 "jemalloc: start-up alone"
    base_a=$(json_field "$out" allocations) base_f=$(json_field "$out" frees) base_b=$(json_field \
        "$out" bytes)
    base_p=$(json_field "$out" peak_bytes)
    run_tare alloc --format json -- "$je"
    expect_rc 0 "jemalloc: every entry point"
    expect_eq \
        "allocations=$(( $(json_field "$out" allocations) - base_a )) frees=$(( $(json_field "$out" frees) - base_f )) bytes=$(( $(json_field "$out" bytes) - base_b ))" \
        "$("$FIXTURES/alloc_known")" \
            "jemalloc: counts beyond start-up equal the program's own tally"
    run_tare alloc --format json -- "$je" peak
    expect_eq "peak_bytes=$(( $(json_field "$out" peak_bytes) - base_p ))" "$("$je" peak)" \
        "jemalloc: peak beyond start-up equals the program's own sum of jemalloc's usable sizes"
else
    not_ok "libjemalloc2 is not installed (scripts/install-deps check)"
fi

# --- what the library cannot see is said, never a zero --------------------------------------
run_tare alloc -- "$FIXTURES/static_hello"
expect_rc 1 "static binary"
expect_match "$err" "statically linked \(no PT_INTERP\)" "static binary: the clear message"
expect_empty "$out" "static binary: no counts printed"
run_tare alloc -- "$FIXTURES/alloc_ownmalloc"
expect_rc 1 "own malloc"
expect_match "$err" "defines its own malloc" "own malloc: the clear message"
expect_empty "$out" "own malloc: no counts printed"
run_tare alloc --format json -- "$FIXTURES/alloc_nopie"
expect_rc 0 "a non-PIE program that takes malloc's address is not one with its own malloc"
expect_eq "$(json_field "$out" allocations) $(json_field "$out" bytes)" "6 288" \
    "non-PIE: its 6 allocations of 48 bytes"
run_tare alloc -- "$FIXTURES/crash"
expect_rc 1 "a crashing command"
expect_match "$err" "killed by signal" "a crashing command: said"
run_tare alloc -- "$FIXTURES/exit3"
expect_rc 1 "a command exiting 3"
expect_match "$err" "exited with status 3" "a failing command: said"
run_tare alloc -- no-such-command-xyz
expect_rc 2 "unknown command"
TARE_ALLOC_LIB=$TMP/none run_tare alloc -- "$FIXTURES/alloc_known"
expect_rc 2 "missing library"
expect_match "$err" "TARE_ALLOC_LIB" "missing library: said"
run_tare alloc --format tsv -- "$FIXTURES/alloc_known"
expect_rc 2 "unsupported format"
run_tare alloc
expect_rc 2 "no command"

# --- C++: operator new and delete reach malloc ----------------------------------------------
if command -v g++ >/dev/null; then
    cat > "$TMP/newdel.cc" <<'CC'
#include <string>
#include <vector>
int main() {
    std::vector<std::string *> v;
    v.reserve(64);
    for (int i = 0; i < 50; i++) v.push_back(new std::string(100, 'x'));
    for (auto *s : v) delete s;
    int *a = new int[1000];
    delete[] a;
    return 0;
}
CC
    g++ -O1 -o "$TMP/newdel" "$TMP/newdel.cc"
    run_tare alloc --format json -- "$TMP/newdel"
    expect_rc 0 "C++ program"
    got=$(json_field "$out" allocations)
    check "C++: at least the 102 news of its source ($got)" test "${got:-0}" -ge 102
    if command -v valgrind >/dev/null; then
        vg=$(valgrind --run-libc-freeres=no --run-cxx-freeres=no "$TMP/newdel" 2>&1 |
             sed -nE 's/.*total heap usage: ([0-9,]+) allocs, ([0-9,]+) frees, ([0-9,]+) bytes allocated.*/\1 \2 \3/p' | tr -d ,)
        expect_eq \
            "$(json_field "$out" allocations) $(json_field "$out" frees) $(json_field "$out" bytes)" \
            "$vg" \
            "C++: equal to memcheck"
    fi
    # <tare/scope.h> from C++: the same scopes fixture, compiled as C++.
    g++ -O1 -DTARE_ALLOC_STATS -I"$TARE_ROOT/include" -x c++ -o "$TMP/scopes_cc" \
        "$TARE_ROOT/tests/fixtures/alloc_scopes.c" -lpthread
    run_tare alloc --format json -- "$TMP/scopes_cc"
    expect_eq "$(sed -E 's/.*"scopes": (\[.*\])\}$/\1/' <<<"$out")" "$("$TMP/scopes_cc")" \
        "C++: scopes exact"
else
    not_ok "g++ is not installed"
fi

# --- Python (through malloc with PYTHONMALLOC=malloc) -------------------------------------
# Not to the allocation: under valgrind /proc/self/exe is valgrind's own binary, and Python
# derives its paths from it, which changes a handful of its start-up allocations. Both runs
# get a clean environment, since Python copies the environment into os.environ: the bytes
# would otherwise move with whatever the caller's environment holds (make adds plenty).
PY=/usr/bin/python3
if [ -x $PY ] && command -v valgrind >/dev/null; then
    # check_circular=False: the encoder's cycle check makes an int of each container's address,
    # whose size (digits) depends on where the heap lies, under valgrind or not.
    script='import json; json.loads(json.dumps([{"k": i, "v": [str(i)] * 3} for i in range(2000)],
        check_circular=False))'
    clean=(env -i PYTHONHASHSEED=0 PYTHONMALLOC=malloc PATH=/usr/bin:/bin)
    for v in TARE_ALLOC_LIB ASAN_OPTIONS UBSAN_OPTIONS; do
        [ -n "${!v:-}" ] && clean+=("$v=${!v}")
    done
    vg=$("${clean[@]}" valgrind --run-libc-freeres=no $PY -S -c "$script" 2>&1 >/dev/null |
         sed -nE 's/.*total heap usage: ([0-9,]+) allocs, ([0-9,]+) frees, ([0-9,]+) bytes allocated.*/\1 \2 \3/p' | tr -d ,)
    "${clean[@]}" "$TARE" alloc --format json -- $PY -S -c "$script" > "$TMP/out" 2> "$TMP/err"
    rc=$?; out=$(cat "$TMP/out"); err=$(cat "$TMP/err")
    expect_rc 0 "python3"
    read -r va vf vb <<<"$vg"
    ta=$(json_field "$out" allocations); tb=$(json_field "$out" bytes)
    check "python3: allocations within 0.1% of memcheck's ($ta vs $va)" \
        test $(( (ta - va) * (ta - va) * 1000000 )) -le $(( va * va ))
    check "python3: bytes within 0.1% of memcheck's ($tb vs $vb)" \
        test $(( (tb - vb) / 1000 * ((tb - vb) / 1000) * 1000000 )) \
            -le $(( vb / 1000 * (vb / 1000) ))
    check "python3: allocation-heavy ($ta)" test "$ta" -gt 50000
fi

# --- Rust (its System allocator is malloc, realloc and free), when a compiler is at hand ---
if command -v rustc >/dev/null && command -v valgrind >/dev/null; then
    cat > "$TMP/boxes.rs" <<'RS'
fn main() {
    let mut v: Vec<Box<u64>> = Vec::new();
    for i in 0..1000 { v.push(Box::new(i)); }
    let s: String = (0..100).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    std::hint::black_box(&s);
}
RS
    if rustc -O -o "$TMP/boxes" "$TMP/boxes.rs" 2>/dev/null; then
        vg=$(valgrind --run-libc-freeres=no "$TMP/boxes" 2>&1 |
             sed -nE 's/.*total heap usage: ([0-9,]+) allocs, ([0-9,]+) frees, ([0-9,]+) bytes allocated.*/\1 \2 \3/p' | tr -d ,)
        run_tare alloc --format json -- "$TMP/boxes"
        expect_eq \
            "$(json_field "$out" allocations) $(json_field "$out" frees) $(json_field "$out" bytes)" \
            "$vg" \
            "Rust: equal to memcheck"
        check "Rust: at least its 1000 boxes" test "$(json_field "$out" allocations)" -ge 1000
    else
        echo "# rustc could not build the Rust check: skipped"
    fi
else
    echo "# no rustc here: the Rust check is skipped"
fi

# --- the scope macros are nothing when TARE_ALLOC_STATS is not defined ----------------------
sed '/TARE_SCOPE/d' "$TARE_ROOT/tests/fixtures/alloc_scopes.c" > "$TMP/plain.c"
for opt in -O0 -O2; do
    cc -std=gnu11 $opt -I"$TARE_ROOT/include" -c -o "$TMP/with.o" \
        "$TARE_ROOT/tests/fixtures/alloc_scopes.c"
    cc -std=gnu11 $opt -I"$TARE_ROOT/include" -c -o "$TMP/without.o" "$TMP/plain.c"
    objcopy -O binary --only-section=.text "$TMP/with.o" "$TMP/with.text"
    objcopy -O binary --only-section=.text "$TMP/without.o" "$TMP/without.text"
    check "scopes off ($opt): .text identical to the source without them" cmp -s "$TMP/with.text" \
        "$TMP/without.text"
    check "scopes off ($opt): .text not empty" test -s "$TMP/with.text"
    check "scopes off ($opt): no reference to the runtime" sh -c \
        "! nm '$TMP/with.o' | grep -q tare_scope"
done
# ...and on, they do reference it (so the test above could fail).
cc -std=gnu11 -O2 -DTARE_ALLOC_STATS -I"$TARE_ROOT/include" -c -o "$TMP/on.o" \
    "$TARE_ROOT/tests/fixtures/alloc_scopes.c"
check "scopes on: weak references to the runtime" sh -c \
    "nm '$TMP/on.o' | grep -q ' w tare_scope_enter'"
done_testing
