# tare cg on real profiles that valgrind makes here, from fixture programs with known answers,
# and against callgrind_annotate where it is wrong.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/cg_lib.sh"

# ---- allocations: a known number of each allocator call, against memcheck ----
cgrun "$TMP/al.out" -- "$FIXTURES/cg_allocs"
made=$(cat "$TMP/al.out.stdout")
run_tare cg info --format=json "$TMP/al.out"
expect_rc 0 "cg info on a real profile"
expect_eq "$(json_num "$out" allocations)" "$made" \
    "allocations = the calls cg_allocs made (realloc(NULL) once)"
expect_eq "$(json_num "$out" Ir)" "$(cat "$TMP/al.out.collected")" "total Ir = valgrind's Collected"
cgrun "$TMP/al2.out" -- "$FIXTURES/cg_allocs" no-pvalloc
made2=$(cat "$TMP/al2.out.stdout")
heap=$(valgrind "$FIXTURES/cg_allocs" no-pvalloc 2>&1 >/dev/null | sed -n \
    's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,)
run_tare cg info --format=json "$TMP/al2.out"
expect_eq "$(json_num "$out" allocations)" "$heap" \
    "allocations = memcheck's total heap usage allocs"
expect_eq "$heap" "$made2" "memcheck agrees with the program's own count"
run_tare cg allocs --format=tsv "$TMP/al.out"
expect_eq "$(head -n 1 <<<"$out")" "$(printf 'caller\tobject\tallocations')" "allocs TSV header"
expect_eq "$(tsv_field "$(tsv_row "$out" caller main)" 1 allocations)" "$made" \
    "allocs: main made every call"
expect_match "$(tsv_field "$(tsv_row "$out" caller main)" 1 object)" '/cg_allocs$' \
    "allocs: object as written"
# The seed's extractor counted every edge into the allocator: realloc(NULL) -> malloc and
# reallocarray -> realloc twice. Show that sum is bigger, and that tare's is not it.
naive=0
for fn in malloc calloc realloc reallocarray memalign aligned_alloc posix_memalign valloc \
    pvalloc; do
    run_tare cg callers "$fn" --format=tsv -n 0 "$TMP/al.out"
    [ $rc -eq 0 ] || continue
    n=$(awk -F'\t' -v f="$fn" 'NR > 1 && $1 == f { s += $3 } END { print s + 0 }' <<<"$out")
    naive=$((naive + n))
done
check "every-edge count ($naive) bills realloc(NULL) twice, tare ($made) does not" test \
    "$naive" -gt "$made"
run_tare cg diff --allocs --format=tsv "$TMP/al.out" "$TMP/al2.out"
expect_rc 0 "diff --allocs"
expect_eq "$(head -n 1 <<<"$out")" "$(printf 'function\tobject\tbefore\tafter\tdelta\tpct')" \
    "diff TSV header"
row=$(tsv_row "$out" function main)
expect_eq "$(tsv_field "$row" 1 before)/$(tsv_field "$row" 1 after)/$(tsv_field "$row" 1 delta)" \
    "$made/$made2/$((made2 - made))" "diff --allocs: main's before, after, delta"

# ---- recursion: counted once ----
cgrun "$TMP/rec.out" -- "$FIXTURES/cg_recurse" 12
calls=$(cut -d' ' -f1 "$TMP/rec.out.stdout")
run_tare cg callers fib --format=tsv "$TMP/rec.out"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'callee\tcaller\tcalls\tinclusive\tkind\tcallee_object\tcaller_object')" \
    "callers TSV header"
main_row=$(tsv_row "$out" caller main)
expect_eq "$(tsv_field "$main_row" 1 calls)" 1 "main calls fib once"
expect_eq "$(tsv_field "$(tsv_row "$out" caller fib)" 1 calls)" $((calls - 1)) \
    "fib calls itself (its calls - 1) times, recursion levels merged"
expect_eq "$(tsv_field "$(tsv_row "$out" caller fib)" 1 kind)/$(tsv_field "$main_row" 1 kind)" \
    "recursive/outer" "callers: fib's own calls apart from main's"
edge=$(tsv_field "$main_row" 1 inclusive)
run_tare cg top --format=tsv --grep fib "$TMP/rec.out"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'function\tobject\tself\tinclusive\tinclusive_bound')" "top TSV header"
expect_eq "$(awk -F'\t' 'NR > 1' <<<"$out" | wc -l)" 1 "fib'2 is not a function of its own"
incl=$(tsv_field "$out" 1 inclusive)
expect_eq "$incl" "$edge" "inclusive of fib = the cost of main's call into it"
expect_eq "$(tsv_field "$out" 1 self)" "$incl" "fib calls nothing else: inclusive = self"
ann=$(callgrind_annotate --inclusive=yes "$TMP/rec.out" 2>/dev/null | grep "fib'2" | head -n 1 | \
    awk '{ gsub(",", "", $1); print $1 }')
check \
    "callgrind_annotate counts recursion again: fib'2 inclusive $ann > the whole recursion $incl" \
    test "${ann:-0}" -gt "$incl"
run_tare cg callees main --format=tsv "$TMP/rec.out"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'caller\tcallee\tcalls\tinclusive\tkind\tcaller_object\tcallee_object')" \
    "callees TSV header"
expect_eq "$(tsv_field "$(tsv_row "$out" callee fib)" 1 calls)" 1 "callees: main -> fib"
run_tare cg lines fib --format=tsv "$TMP/rec.out"
expect_eq "$(head -n 1 <<<"$out")" "$(printf 'function\tfile\tline\tself')" "lines TSV header"
expect_eq "$(awk -F'\t' 'NR > 1 { s += $4 } END { print s }' <<<"$out")" "$incl" \
    "lines add up to fib's self cost"

# ---- recursion through other functions: callgrind's depth marks (f'2) tell the outermost
# calls; the inclusive cost of a function is the cost the profile states on the line of the
# call that enters it, and no more (cg_cycles: each shape entered once from main) ----
X=$FIXTURES/cg_cycles
for shape in direct mutual cycle3 fnptr; do
    cgrun "$TMP/$shape.out" -- "$X" "$shape" 9
done
cgrun "$TMP/mutual1.out" --separate-recs=1 -- "$X" mutual 9
cgrun "$TMP/mutual4.out" --separate-recs=4 -- "$X" mutual 9
cgrun "$TMP/direct1.out" --separate-recs=1 -- "$X" direct 9
cgrun "$TMP/cycle31.out" --separate-recs=1 -- "$X" cycle3 9
# shape: (function, the caller whose line into its outermost level states its cost)
for want in "direct direct main" "mutual mutual_a main" "mutual mutual_b mutual_a" \
            "mutual4 mutual_a main" "mutual4 mutual_b mutual_a" "cycle3 cyc_a main" \
            "cycle3 cyc_b cyc_a" "cycle3 cyc_c cyc_b" "fnptr apply main" "fnptr walk apply" \
            "direct1 direct main"; do
    set -- $want
    line=$(edge_line_cost "$TMP/$1.out" "$3" "$2")
    check "$1: the profile states a cost on $3's call into $2 ($line)" test "$line" -gt 0
    expect_eq "$(cg_inclusive "$TMP/$1.out" "$2")" "$line 0" \
        "$1: $2's inclusive cost is that of $3's call into it, exact"
done
# the old rule (every call into B from another function) counted A'2 -> B'2 again
all_b=$(( $(edge_line_cost "$TMP/mutual.out" mutual_a mutual_b) + $(edge_line_cost \
    "$TMP/mutual.out" "mutual_a'2" "mutual_b'2") ))
check "mutual: the calls into every level of B ($all_b) are more than B's inclusive cost" \
    test "$all_b" -gt "$(edge_line_cost "$TMP/mutual.out" mutual_a mutual_b)"
expect_eq "$(cg_inclusive "$TMP/mutual4.out" mutual_b)" \
    "$(cg_inclusive "$TMP/mutual.out" mutual_b)" \
    "--separate-recs=4 (B'2 .. B'4): the same inclusive cost as 2"
run_tare cg callers mutual_b --exact --format=tsv "$TMP/mutual.out"
expect_eq "$(awk -F'\t' 'NR > 1 { print $2 "/" $5 }' <<<"$out" | sort | tr '\n' ' ')" \
    "mutual_a/outer mutual_a/recursive " \
    "callers of B: A's outermost call, and A'2's calls apart"
expect_eq "$(tsv_field "$(tsv_row "$out" kind recursive)" 1 calls)" \
    "$(edge_line_cost "$TMP/mutual.out" "mutual_a'2" "mutual_b'2" calls)" \
    "callers of B: its recursive calls are A'2's calls"
run_tare cg callers mutual_b --exact "$TMP/mutual.out"
expect_match "$out" "^recursive calls \(inside the calls above\): [0-9]+ \(mutual_a [0-9]+\)$" \
    "callers text: recursive calls apart"
expect_match "$out" "1 outer call into it" "callers text: one outer call"
# without marks (--separate-recs=1) a cycle cannot be told apart: the calls into it from
# outside, as a bound; never above the total; a direct recursion alone is still exact
expect_eq "$(cg_inclusive "$TMP/mutual1.out" mutual_a)" \
    "$(edge_line_cost "$TMP/mutual1.out" main mutual_a) 1" \
    "--separate-recs=1: A's inclusive cost is the call into the cycle, marked a bound"
set -- $(cg_inclusive "$TMP/mutual1.out" mutual_b)
exact_b=$(edge_line_cost "$TMP/mutual.out" mutual_a mutual_b)
check "--separate-recs=1: B's bound ($1) is no less than the truth ($exact_b)" test "$1" \
    -ge "$exact_b"
expect_eq "$2" 1 "--separate-recs=1: B's inclusive cost marked a bound"
expect_eq "$(cg_inclusive "$TMP/cycle31.out" cyc_c | cut -d' ' -f2)" 1 \
    "--separate-recs=1: a three-function cycle is a bound"
run_tare cg top --inclusive -n 0 "$TMP/mutual1.out"
expect_match "$out" "<=[0-9,]+ +<=[0-9.]+%  mutual_b" "top text: the bound marked <="
expect_match "$out" "^<= an upper bound: see BOUNDS in tare-cg\(1\)$" "top text: what <= means"
run_tare cg callers mutual_b --exact "$TMP/mutual1.out"
expect_match "$out" "inclusive <=[0-9,]+;" "callers text: the bound marked <="
expect_match "$out" "^calls within a cycle of functions" \
    "callers text: calls within the cycle apart"
run_tare cg info "$TMP/mutual1.out"
expect_match "$out" "^bounds: +[0-9]+ inclusive costs are only an upper bound" \
    "info: how many bounds"
# diff --inclusive: the same rule, and the bound marked
run_tare cg diff --inclusive --format=tsv "$TMP/mutual.out" "$TMP/mutual1.out"
expect_eq "$(head -n 1 <<<"$out")" \
    "$(printf 'function\tobject\tbefore\tafter\tdelta\tpct\tinclusive_bound')" \
    "diff --inclusive TSV header"
row=$(tsv_row "$out" function mutual_b)
expect_eq \
    "$(tsv_field "$row" 1 before)/$(tsv_field "$row" 1 inclusive_bound)/$(tsv_field "$row" 1 pct)" \
    "$exact_b/1/NA" \
    "diff --inclusive: B's exact cost before, a bound after: no change figure"
run_tare cg diff --inclusive -n 0 --format=tsv "$TMP/mutual.out" "$TMP/mutual4.out"
expect_eq \
    "$(tsv_field "$(tsv_row "$out" function mutual_b)" 1 before)/$(tsv_field "$(tsv_row "$out" function mutual_b)" 1 after)" \
    "$exact_b/$exact_b" "diff --inclusive: B the same in both"
run_tare cg diff --inclusive --allocs "$TMP/mutual.out" "$TMP/mutual4.out"
expect_rc 2 "diff: --inclusive and --allocs together"

# ---- PLT stubs: an address in ??? that only jumps to one function is billed to it ----
# (names are compressed: "fn=(7) name" defines id 7, "cfn=(7)" uses it, in one table for fn
# and cfn; the order functions are written in moves with the addresses, so follow the ids)
stub=$(awk '
    function name_of(line,   id, rest) {
        id = line; sub(/^c?fn=\(/, "", id); sub(/\).*/, "", id)
        rest = line; sub(/^c?fn=\([0-9]+\) ?/, "", rest)
        if (rest != "") names[id] = rest
        return names[id]
    }
    /^fn=\(/ { f = name_of($0) }
    /^cfn=\(/ { c = name_of($0); if (f ~ /^0x/ && c ~ /^__cxa_finalize/) { print f; exit } }' \
    "$TMP/mutual.out")
check "the profile has a stub in front of __cxa_finalize ($stub)" test -n "$stub"
run_tare cg callers __cxa_finalize --exact --format=tsv "$TMP/mutual.out"
expect_eq "$(awk -F'\t' 'NR > 1 && $7 ~ /\?\?\?$/' <<<"$out" | wc -l)" 0 \
    "callers of __cxa_finalize: no stub among them"
expect_eq "$(awk -F'\t' 'NR > 1 && $5 == "outer" { s += $3 } END { print s }' <<<"$out")" \
    "$(edge_line_cost "$TMP/mutual.out" "*" __cxa_finalize calls)" \
    "callers of __cxa_finalize: as many calls as the profile made into it"
run_tare cg info --format=json "$TMP/mutual.out"
check "info: stubs folded ($(json_num "$out" stubs_folded))" test \
    "$(json_num "$out" stubs_folded)" -gt 0
run_tare cg top -n 0 --format=tsv "$TMP/mutual.out"
expect_eq "$(awk -F'\t' 'NR > 1 && $2 ~ /\?\?\?$/ && $1 ~ /^0x/' <<<"$out" | wc -l)" \
    "$("$TARE" cg top -n 0 --format=tsv "$TMP/mutual.out" | awk -F'\t' 'NR > 1 && $2 ~ /\?\?\?$/ && $1 ~ /^0x/' | wc -l)" \
        "top: stable"

# ---- callers NAME: substrings, exact matches first; --exact ----
run_tare cg callers mutual_a --format=tsv "$TMP/mutual.out"
expect_eq "$(awk -F'\t' 'NR > 1 { print $1 }' <<<"$out" | uniq | tr '\n' ' ')" "mutual_a " \
    "callers mutual_a: one function"
run_tare cg callers cyc_ "$TMP/cycle3.out"
expect_match "$out" "cyc_a \(cg_cycles\)" "callers cyc_: every function containing it"
run_tare cg callers main -n 0 --format=tsv "$TMP/mutual.out"
names=$(awk -F'\t' 'NR > 1 { print $1 }' <<<"$out" | uniq)
check "callers main: several functions contain 'main' ($(tr '\n' ' ' <<<"$names"))" test \
    "$(wc -l <<<"$names")" -gt 1
expect_eq "$(head -n 1 <<<"$names")" main "callers main: the exact match first"
run_tare cg top --inclusive -n 0 --format=tsv "$TMP/mutual.out"
check "callers main: first though a function containing 'main' costs more" \
    test "$(awk -F'\t' 'NR > 1 && $1 ~ /main/ { print $1; exit }' <<<"$out")" != main
run_tare cg callers main --exact -n 0 --format=tsv "$TMP/mutual.out"
expect_eq "$(awk -F'\t' 'NR > 1 { print $1 }' <<<"$out" | sort -u)" main \
    "callers --exact main: only main"
run_tare cg callers mai --exact "$TMP/mutual.out"
expect_rc 2 "callers --exact of a part of a name"
expect_match "$err" "no function named 'mai'" "callers --exact: what was not found"
run_tare cg top --exact "$TMP/mutual.out"
expect_rc 2 "--exact is for callers and callees"
# callees: the calls go TO other functions
run_tare cg callees main "$TMP/mutual.out"
expect_match "$out" "calls? from it to other functions" "callees text: calls to other functions"
expect_no_match "$out" "from other functions" "callees text: not 'from other functions'"
# info: a profile without --separate-threads does not tell threads apart (not 0 threads)
run_tare cg info "$TMP/mutual.out"
expect_match "$out" "^threads: +not told apart \(profiled without --separate-threads=yes\)$" \
    "info: threads not told apart"
run_tare cg info --format=json "$TMP/mutual.out"
expect_match "$out" '"threads": null' "info JSON: threads null"

# positions: instr bb line, which callgrind_annotate refuses
cgrun "$TMP/bb.out" --dump-instr=yes --dump-bb=yes -- "$FIXTURES/cg_recurse" 12
check "the profile has positions: instr bb line" grep -q '^positions: instr bb line' "$TMP/bb.out"
run_tare cg lines fib --format=tsv "$TMP/bb.out"
expect_eq "$out" "$(run_tare cg lines fib --format=tsv "$TMP/rec.out"; echo "$out")" \
    "instr bb line: same lines as a plain profile"
expect_match "$(callgrind_annotate "$TMP/bb.out" 2>&1)" "too many event counts" \
    "callgrind_annotate rejects instr bb line"

# ---- parts and files: summed, totals checked ----
cgrun "$TMP/parts.out" --combine-dumps=yes -- "$FIXTURES/cg_dumps"
run_tare cg info --format=json "$TMP/parts.out"
expect_eq "$(json_num "$out" parts)" 2 "two parts in one file"
total=$(json_num "$out" Ir)
expect_eq "$total" "$(cat "$TMP/parts.out.collected")" "parts summed = valgrind's Collected"
cgrun "$TMP/sep.out" -- "$FIXTURES/cg_dumps"
run_tare cg info --format=json "$TMP/sep.out" "$TMP/sep.out.1"
expect_eq "$(json_num "$out" Ir)" "$total" "two dump files summed = the combined file"
ann=$(callgrind_annotate "$TMP/parts.out" 2>/dev/null | awk \
    '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
check "callgrind_annotate totals only the last part ($ann < $total)" test "${ann:-0}" -lt "$total"
cgrun "$TMP/thr.out" --separate-threads=yes -- "$FIXTURES/cg_threads"
run_tare cg info --format=json "$TMP"/thr.out-*
expect_eq "$(json_num "$out" Ir)" "$(cat "$TMP/thr.out.collected")" \
    "thread files summed = valgrind's Collected"
run_tare cg callers work --format=tsv "$TMP"/thr.out-*
expect_eq "$(tsv_field "$(tsv_row "$out" caller thread_main)" 1 calls)" 2 \
    "work called by both threads"

# ---- inlined code from a header, in two files: one row per function ----
mkdir -p "$TMP/src" && cp "$TARE_ROOT"/tests/fixtures/cg/* "$TMP/src/"
cc -O2 -g -o "$TMP/inl" "$TMP/src/inl_a.c" "$TMP/src/inl_b.c"
cgrun "$TMP/inl.out" -- "$TMP/inl"
run_tare cg top --format=tsv --grep hot_ "$TMP/inl.out"
expect_eq "$(awk -F'\t' 'NR > 1' <<<"$out" | wc -l)" 2 "hot_a and hot_b, one row each"
self_a=$(tsv_field "$(tsv_row "$out" function hot_a)" 1 self)
ann=$(cd / && callgrind_annotate --auto=no --threshold=100 "$TMP/inl.out" 2>/dev/null | grep \
    ':hot_a' | awk '{ gsub(",", "", $1); print $1 }')
expect_eq "$(wc -l <<<"$ann")" 2 "callgrind_annotate splits hot_a into two rows (inl_a.c, inl.h)"
expect_eq "$(awk '{ s += $1 } END { print s }' <<<"$ann")" "$self_a" \
    "tare's hot_a = the sum of those pieces"
run_tare cg lines hot_a --format=tsv "$TMP/inl.out"
expect_match "$out" "inl\.h	" "lines of hot_a include the header"
expect_match "$out" "inl_a\.c	" "lines of hot_a include its own file"
# callers that vanish in callgrind_annotate when it runs in the source directory
vanish=$(cd "$TMP/src" && callgrind_annotate --tree=caller --threshold=100 ../inl.out 2>/dev/null \
    | grep -B1 '\*  inl_b\.c:hot_b' | grep -c '<')
there=$(cd / && callgrind_annotate --tree=caller --threshold=100 "$TMP/inl.out" 2>/dev/null | grep \
    -B1 '\*  .*inl_b\.c:hot_b' | grep -c '<')
expect_eq "$vanish/$there" "0/1" "callgrind_annotate loses hot_b's caller in the source directory"
a=$(cd "$TMP/src" && "$TARE" cg callers hot_b --format=tsv "$TMP/inl.out")
b=$(cd / && "$TARE" cg callers hot_b --format=tsv "$TMP/inl.out")
expect_eq "$a" "$b" "tare's callers do not depend on the directory"
expect_eq "$(tsv_field "$(tsv_row "$a" caller main)" 1 calls)" 1 "hot_b's caller main"

# ---- the same name in two objects ----
cc -O1 -fPIC -shared -o "$TMP/libdup.so" "$TMP/src/dup_lib.c"
cc -O1 -o "$TMP/dup" "$TMP/src/dup_main.c" -L"$TMP" -ldup -Wl,-rpath,"$TMP"
cgrun "$TMP/dup.out" -- "$TMP/dup"
run_tare cg top --format=tsv --grep work "$TMP/dup.out"
expect_eq "$(awk -F'\t' 'NR > 1 && $1 == "work"' <<<"$out" | wc -l)" 2 \
    "work in the program and work in the library: two rows"
expect_match "$out" "libdup\.so	" "one of them in libdup.so"
sum=$(awk -F'\t' 'NR > 1 && $1 == "work" { s += $3 } END { print s }' <<<"$out")
ann=$(callgrind_annotate --auto=no "$TMP/dup.out" 2>/dev/null | grep ':work' | awk \
    '{ gsub(",", "", $1); print $1 }')
expect_eq "$(wc -l <<<"$ann")/$ann" "1/$sum" "callgrind_annotate merges both into one ???:work row"

# ---- diff ----
cgrun "$TMP/rec14.out" -- "$FIXTURES/cg_recurse" 14
run_tare cg diff --format=tsv "$TMP/rec.out" "$TMP/rec14.out"
expect_rc 0 "diff"
row=$(tsv_row "$out" function fib)
expect_match "$(tsv_field "$row" 1 pct)" '^\+[0-9]+\.[0-9]+$' "diff: fib grew"
expect_eq "$(awk -F'\t' 'NR == 2 { print $1 }' <<<"$out")" fib "diff: the biggest mover first"
run_tare cg diff --format=tsv "$TMP/rec.out" "$TMP/inl.out"
expect_eq \
    "$(tsv_field "$(tsv_row "$out" function hot_a)" 1 pct)/$(tsv_field "$(tsv_row "$out" function hot_a)" 1 before)" \
    "new/NA" "diff: new"
expect_eq \
    "$(tsv_field "$(tsv_row "$out" function fib)" 1 pct)/$(tsv_field "$(tsv_row "$out" function fib)" 1 after)" \
    "gone/NA" "diff: gone"
run_tare cg diff "$TMP/rec.out" "$TMP/rec14.out"
expect_match "$out" "^total Ir: before [0-9,]+, after [0-9,]+, change \+" "diff text: totals first"

# ---- formats and options ----
run_tare cg top -n 0 --format=tsv "$TMP/rec.out"
n_all=$(($(wc -l <<<"$out") - 1))
run_tare cg top --format=tsv "$TMP/rec.out"
expect_eq "$(($(wc -l <<<"$out") - 1))" 20 "top: 20 rows by default"
check "-n 0: every function ($n_all)" test "$n_all" -gt 20
run_tare cg top --inclusive -n 1 --format=tsv "$TMP/rec.out"
first_incl=$(tsv_field "$out" 1 inclusive)
run_tare cg info --format=json "$TMP/rec.out"
expect_eq "$first_incl" "$(json_num "$out" Ir)" \
    "--inclusive: the entry point first, with the whole program"
expect_match "$out" \
    '^\{"command": ".*cg_recurse 12", "events": \["Ir"\], "totals": \{"Ir": [0-9]+\}, "parts": 1, ' \
    "info JSON"
run_tare cg top --format=json -n 2 "$TMP/rec.out"
expect_match "$out" '^\{"event": "Ir", "total": [0-9]+, "functions": \[' "top JSON"
run_tare cg top "$TMP/rec.out"
expect_match "$out" "program total [0-9,]+ Ir" "top text"
run_tare cg top --event Dr "$TMP/rec.out"
expect_rc 2 "unknown event"
expect_match "$err" "no event 'Dr'" "unknown event message"
run_tare cg callers no_such_function_here "$TMP/rec.out"
expect_rc 2 "callers of nothing"
run_tare cg info --format=tsv "$TMP/rec.out"
expect_rc 2 "info has no TSV"
run_tare cg frobnicate "$TMP/rec.out"
expect_rc 2 "unknown subcommand"

# ---- gzip-compressed profiles ----
gzip -c "$TMP/rec.out" > "$TMP/rec.out.gz"
a=$("$TARE" cg top -n 0 --format=tsv "$TMP/rec.out")
run_tare cg top -n 0 --format=tsv "$TMP/rec.out.gz"
expect_eq "$out" "$a" "a gzip-compressed profile reads the same"
head -c $(($(stat -c %s "$TMP/rec.out.gz") / 2)) "$TMP/rec.out.gz" > "$TMP/half.gz"
run_tare cg top "$TMP/half.gz"
expect_rc 2 "a truncated gzip file"

# ---- threads: a profile of several MiB (gcc's cc1 on a small file) is cut into ranges read at
# once; the answer is the same for any --jobs, and a fault deep in the file is found on its line
cc1=$(gcc -print-prog-name=cc1)
printf 'int f(int x) { return x * 3; }\nint main(void) { return f(2); }\n' > "$TMP/tiny.c"
cgrun "$TMP/cc1.out" --dump-instr=yes --collect-jumps=yes -- "$cc1" -quiet -O2 "$TMP/tiny.c" \
    -o /dev/null
check "the cc1 profile is several MiB" test "$(stat -c %s "$TMP/cc1.out")" -gt 2000000
run_tare cg info --format=json -j 8 "$TMP/cc1.out"
expect_eq "$(json_num "$out" Ir)" "$(cat "$TMP/cc1.out.collected")" \
    "read in 8 ranges: total Ir = valgrind's Collected"
for sub in "top -n 0 --format=tsv" "top -n 0 --inclusive --format=tsv" "allocs -n 0 --format=tsv" \
           "callers malloc -n 0 --format=tsv" "callees main -n 0 --format=tsv" \
               "info --format=json"; do
    # shellcheck disable=SC2086
    one=$("$TARE" cg $sub -j 1 "$TMP/cc1.out")
    for j in 2 3 8; do
        # shellcheck disable=SC2086
        run_tare cg $sub -j $j "$TMP/cc1.out"
        expect_eq "$out" "$one" "cg $sub: -j $j the same as -j 1"
    done
done
gzip -c "$TMP/cc1.out" > "$TMP/cc1.out.gz"     # through a pipe, in blocks, each in ranges
run_tare cg top -n 0 --format=tsv -j 3 "$TMP/cc1.out.gz"
expect_eq "$out" "$("$TARE" cg top -n 0 --format=tsv -j 1 "$TMP/cc1.out")" \
    "the cc1 profile gzip-compressed reads the same"
awk 'NR > 40000 && !done && /^\+[0-9]+ / { sub(/ [0-9]+$/, " 12x"); done = 1 } { print }' \
    "$TMP/cc1.out" > "$TMP/cc1bad.out"
run_tare cg top -j 1 "$TMP/cc1bad.out"
one_err=$err
expect_match "$one_err" "line [0-9]{5,}: bad cost 'x'" "a bad cost deep in the file: its line"
run_tare cg top -j 8 "$TMP/cc1bad.out"
expect_rc 2 "the bad cost in 8 ranges"
expect_eq "$err" "$one_err" "the same message and line in 8 ranges"
run_tare cg top -j 0 "$TMP/cc1.out"
expect_rc 2 "-j 0 is refused"
# -n N keeps the N best without sorting the rest: the same rows, in the same order, as the
# first N of all (cc1 has many functions of equal cost, ordered by name then object)
all_self=$("$TARE" cg top -n 0 --format=tsv "$TMP/cc1.out")
all_incl=$("$TARE" cg top -n 0 --inclusive --format=tsv "$TMP/cc1.out")
ties=$(awk -F'\t' 'NR > 1 { n[$3]++ } END { for (c in n) if (n[c] > 1) t++; print t + 0 }' \
    <<<"$all_self")
check "the cc1 profile has functions of equal self cost ($ties costs shared)" test "$ties" -gt 10
for n in 1 2 7 50 400; do
    run_tare cg top -n $n --format=tsv "$TMP/cc1.out"
    expect_eq "$out" "$(head -n $((n + 1)) <<<"$all_self")" "top -n $n: the first $n of all"
    run_tare cg top -n $n --inclusive --format=tsv "$TMP/cc1.out"
    expect_eq "$out" "$(head -n $((n + 1)) <<<"$all_incl")" \
        "top -n $n --inclusive: the first $n of all"
done

# ---- bad input: file, line, what; exit 2; nothing on stdout ----
run_tare cg top "$TMP/nonexistent.out"
expect_rc 2 "missing file"
expect_match "$err" "^tare cg: cannot open '.*nonexistent.out': No such file" "missing file message"
head -n 200 "$TMP/rec.out" > "$TMP/cut.out"
run_tare cg top "$TMP/cut.out"
expect_rc 2 "truncated profile"
expect_match "$err" "^tare cg: '.*cut.out' line [0-9]+: truncated" "truncated message"
expect_empty "$out" "no partial output"
sed 's/^totals: \([0-9]*\)/totals: 1\1/' "$TMP/rec.out" > "$TMP/tot.out"
run_tare cg info "$TMP/tot.out"
expect_rc 2 "totals mismatch"
expect_match "$err" "line [0-9]+: the cost lines add up to [0-9]+ Ir, but 'totals:' says 1[0-9]+" \
    "totals message"
awk '!done && /^cfn=\([0-9]+\) / { print "cfn=(99999)"; done = 1; next } { print }' "$TMP/rec.out" \
    > "$TMP/id.out"
run_tare cg top "$TMP/id.out"
expect_rc 2 "undefined id"
expect_match "$err" "line [0-9]+: undefined name id 99999 in 'cfn='" "undefined id message"
: > "$TMP/empty.out"
run_tare cg top "$TMP/empty.out"
expect_rc 2 "empty file"
expect_match "$err" "no 'events:' line" "empty file message"
done_testing
