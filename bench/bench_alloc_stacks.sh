# bench_alloc_stacks.sh: `tare alloc --stacks` against heaptrack, side by side in one run, as
# ratios to the program run natively.
# 1. the unwinders a stack could be taken by (bench/unwind_speed.c): a frame-pointer walk,
#    libunwind's unw_backtrace, glibc's backtrace; ns a frame;
# 2. the cost: the malloc/free loop (tests/fixtures/alloc_loop) built with frame pointers and
#    without (libunwind then takes every stack), and python3 building, writing and parsing a
#    JSON document (no frame pointers: libunwind); lanes of one `tare wall` series, runs
#    interleaved: native, the plain counting allocator, the stack recording in the process
#    (the library alone), then `tare alloc --stacks` whole (run, name, write the table) and
#    `heaptrack -o FILE` whole (record and interpret);
# 3. exact: per-stack allocations, temporaries, leaked and peak bytes of alloc_stacks_fp
#    equal heaptrack_print's; the work's allocations and bytes equal memcheck's (Lua, Python).
set -eu
: "${TARE:=build/tare}" "${BUILD:=build}"
lib=${TARE_ALLOC_LIB:-$BUILD/libtare-alloc.so}
case $lib in /*) ;; *) lib=$PWD/$lib ;; esac
case $TARE in /*) ;; *) TARE=$PWD/$TARE ;; esac
for f in "$lib" "$BUILD/fixtures/alloc_loop" "$BUILD/fixtures/alloc_stacks_fp"; do
    [ -e "$f" ] || { echo "bench_alloc_stacks: $f missing: run make and make $f"; exit 1; }
done
for t in heaptrack heaptrack_print valgrind; do
    command -v $t >/dev/null || { echo "bench_alloc_stacks: $t is not installed"; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-11} slow_runs=${SLOW_RUNS:-3}
loop_n=${LOOP_N:-3000000} json_n=${JSON_N:-30000}
export PYTHONMALLOC=malloc PYTHONHASHSEED=0
script="import json; d = [{'id': i, 'name': 'item%d' % i, 'tags': ['a', 'b', str(i)], 'v': i * 0.5} for i in range(N)]; s = json.dumps(d); assert len(json.loads(s)) == N"

echo "1. one stack taken, by each candidate (bench/unwind_speed.c, frame pointers kept):"
cc -O2 -fno-omit-frame-pointer -o "$tmp/unwind_speed" bench/unwind_speed.c -ldl
"$tmp/unwind_speed" "${UNWIND_CALLS:-200000}" | sed 's/^/   /'

col() { awk -F'\t' -v n="$2" -v k="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["name"] == n { print $c[k] }' "$1"; }

cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -o "$tmp/alloc_loop_fp" tests/fixtures/alloc_loop.c
# The floor of any interposer: malloc and free forwarded to glibc's, nothing counted.
cat > "$tmp/fwd.c" <<'C'
#include <stddef.h>
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
__attribute__((visibility("default"))) void *malloc(size_t n) { return __libc_malloc(n); }
__attribute__((visibility("default"))) void free(void *p) { __libc_free(p); }
C
cc -O2 -fPIC -shared -fno-builtin -o "$tmp/fwd.so" "$tmp/fwd.c"
bench() {   # bench LABEL CMD...: the ratios of one workload
    local label=$1; shift
    local cmd name; cmd=$(printf '%q ' "$@"); name=$(basename "$1")
    "$TARE" wall --runs "$runs" -w 1 -f tsv --lane native: --lane "fwd:LD_PRELOAD=$tmp/fwd.so" \
        --lane "plain:LD_PRELOAD=$lib,TARE_ALLOC_OUT=$tmp/r" \
        --lane "stacks:LD_PRELOAD=$lib,TARE_ALLOC_OUT=$tmp/r,TARE_ALLOC_STACKS=auto" \
        -- "$@" > "$tmp/fast.tsv"
    "$TARE" wall --runs "$slow_runs" -w 1 -f tsv --shell sh --name tare-alloc-stacks \
        --name heaptrack "$TARE alloc --stacks -f tsv -n 0 -o $tmp/t.tsv -- $cmd >/dev/null" \
        "heaptrack -o $tmp/ht $cmd >/dev/null" > "$tmp/slow.tsv"
    local nm nc; nm=$(col "$tmp/fast.tsv" "$name+native" median_s)
    nc=$(awk -v u="$(col "$tmp/fast.tsv" "$name+native" user_s)" \
        -v s="$(col "$tmp/fast.tsv" "$name+native" sys_s)" 'BEGIN { print u + s }')
    echo "   $label: native median $nm s (cpu $nc s)"
    printf '     %-28s %10s %10s\n' "" "wall" "cpu"
    for lane in fwd plain stacks; do
        awk -v l="$lane" -v m="$(col "$tmp/fast.tsv" "$name+$lane" median_s)" \
            -v u="$(col "$tmp/fast.tsv" "$name+$lane" user_s)" \
            -v s="$(col "$tmp/fast.tsv" "$name+$lane" sys_s)" -v nm="$nm" -v nc="$nc" \
            'BEGIN { printf "     %-28s %9.2fx %9.2fx\n", (l == "plain" ? "counting allocator" : \
                l == "fwd" ? "forwarding only (floor)" : "stack recording (library)"), \
                m / nm, (u + s) / nc }'
    done
    for t in tare-alloc-stacks heaptrack; do
        awk -v t="$t" -v m="$(col "$tmp/slow.tsv" "$t" median_s)" \
            -v u="$(col "$tmp/slow.tsv" "$t" user_s)" -v s="$(col "$tmp/slow.tsv" "$t" sys_s)" \
            -v nm="$nm" -v nc="$nc" \
            'BEGIN { printf "     %-28s %9.2fx %9.2fx\n", (t == "heaptrack" ? "heaptrack (whole)" : \
                "tare alloc --stacks (whole)"), m / nm, (u + s) / nc }'
    done
    awk -v a="$(col "$tmp/slow.tsv" tare-alloc-stacks median_s)" \
        -v h="$(col "$tmp/slow.tsv" heaptrack median_s)" \
        -v au="$(col "$tmp/slow.tsv" tare-alloc-stacks user_s)" \
        -v as="$(col "$tmp/slow.tsv" tare-alloc-stacks sys_s)" \
        -v hu="$(col "$tmp/slow.tsv" heaptrack user_s)" \
        -v hs="$(col "$tmp/slow.tsv" heaptrack sys_s)" \
        'BEGIN { printf "     tare alloc --stacks / heaptrack: %.3f of its wall time, %.3f of its cpu\n",
                 a / h, (au + as) / (hu + hs) }'
    grep -oE 'by_fp=[0-9]+ by_dwarf=[0-9]+' "$tmp/r" | tail -1 | sed 's/^/     stacks taken: /'
    rm -f "$tmp/r"
}
echo
echo "2. cost; wall and cpu (user + sys) ratios to native: $runs runs of native, a library that"
echo "   only forwards malloc and free, the counting allocator and the library recording stacks,"
echo "   interleaved; $slow_runs of the whole commands"
bench "malloc/free loop, frame pointers" "$tmp/alloc_loop_fp" "$loop_n"
bench "malloc/free loop, no frame pointers (libunwind)" "$BUILD/fixtures/alloc_loop" "$loop_n"
bench "python3 JSON (libunwind)" /usr/bin/python3 -S -c "${script//N/$json_n}"

echo
echo "3. exact"
# heaptrack's folded stacks of alloc_stacks_fp: one line per call site, "func (file.c)" frames;
# the program's own frames kept (its stacks start in glibc and heaptrack's own library).
heaptrack -o "$tmp/hs" "$BUILD/fixtures/alloc_stacks_fp" >/dev/null 2>&1
"$TARE" alloc --stacks -f tsv -n 0 -- "$BUILD/fixtures/alloc_stacks_fp" > "$tmp/ts.tsv"
for cost in allocations temporary leaked peak; do
    heaptrack_print -f "$tmp"/hs.* --flamegraph-cost-type $cost -F "$tmp/hf.$cost" >/dev/null
done
/usr/bin/python3 - "$tmp" <<'PY'
import collections, re, sys
tmp = sys.argv[1]
FIX = {"main", "temp_loop", "rec", "via_pointer", "alloc_a", "alloc_b", "thread_main",
       "thread_work", "child_work", "leak_some", "grow", "in_scope", "scoped_direct", "hold"}
def own(stack):          # the fixture's own frames, outermost first (no glibc, no scopes)
    return ";".join(f for f in stack if f in FIX)
ht = collections.defaultdict(lambda: [0, 0, 0, 0])
for k, cost in enumerate(["allocations", "temporary", "leaked", "peak"]):
    for line in open(f"{tmp}/hf.{cost}"):
        stack, _, v = line.rstrip("\n").rpartition(" ")
        frames = [re.sub(r" \(alloc_stacks\.c\)$", "", f) for f in stack.split(";")
                  if f.endswith("(alloc_stacks.c)")]
        if frames:
            ht[own(frames)][k] += int(v)
tare = {}
rows = [l.rstrip("\n").split("\t") for l in open(f"{tmp}/ts.tsv")][1:]
for r in rows:
    key = own(r[0].split(";"))
    v = [int(r[1]), int(r[3]), int(r[5]), int(r[4])]       # allocations temporaries leaked peak
    tare[key] = [a + b for a, b in zip(tare.get(key, [0, 0, 0, 0]), v)]
allocs = [k for k in tare if ht.get(k, [None])[0] == tare[k][0]]
same = [k for k in tare if ht.get(k) == tare[k]]
print(f"   alloc_stacks_fp, its {len(tare)} stacks (the program's own frames): allocations equal "
      f"heaptrack_print's in {len(allocs)}; allocations, temporaries, leaked and peak bytes in "
      f"{len(same)}")
for k in tare:
    if ht.get(k) != tare[k]:
        print(f"     {k}: tare {tare[k]}, heaptrack {ht.get(k)} "
              "(allocations, temporaries, leaked, peak)")
PY

clean=(env -i PATH=/usr/bin:/bin PYTHONHASHSEED=0 PYTHONMALLOC=malloc)
vg() { "${clean[@]}" valgrind --run-libc-freeres=no "$@" 2>&1 >/dev/null |
    sed -nE 's/.*total heap usage: ([0-9,]+) allocs, [0-9,]+ frees, ([0-9,]+) bytes.*/\1 \2/p' |
    tr -d ,; }
ta() { "${clean[@]}" "$TARE" alloc --stacks -f json -- "$@" |
    /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["allocations"], d["bytes"], d["stacks"]["totals"]["allocations"], d["stacks"]["totals"]["bytes"])'; }
lua='local t = {} for i = 1, N do t[i] = tostring(i) .. "x" end'
read -r v1 vb1 <<<"$(vg /usr/bin/lua5.4 -e "${lua//N/200000}")"
read -r t1 tb1 s1 sb1 <<<"$(ta /usr/bin/lua5.4 -e "${lua//N/200000}")"
echo "   lua5.4, 200,000 strings: memcheck $v1 allocs $vb1 bytes; tare $t1 allocs $tb1 bytes" \
    "(the stacks add up to $s1, $sb1)"
py="${script//N/$((json_n / 10))}" py2="${script//N/$((json_n / 5))}"
read -r v1 vb1 <<<"$(vg /usr/bin/python3 -S -c "$py")"
read -r v2 vb2 <<<"$(vg /usr/bin/python3 -S -c "$py2")"
read -r t1 tb1 s1 sb1 <<<"$(ta /usr/bin/python3 -S -c "$py")"
read -r t2 tb2 s2 sb2 <<<"$(ta /usr/bin/python3 -S -c "$py2")"
echo "   python3 JSON, $((json_n / 10)) and $((json_n / 5)) items: memcheck $v1, $v2 allocs;" \
    "tare $t1, $t2 (whole runs; python derives paths from /proc/self/exe, valgrind's under it)"
echo "     the work ($((json_n / 10)) more items): memcheck $((v2 - v1)) allocs $((vb2 - vb1))" \
    "bytes, tare $((t2 - t1)) allocs $((tb2 - tb1)) bytes; stacks add up: $s2 $sb2"
