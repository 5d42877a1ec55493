# tests/cli/test_golden.sh: the machine-readable outputs (TSV, JSON) compared whole, byte for
# byte, with the files under tests/golden/; UPDATE=1 rewrites them (`make golden-update`).
#
# The inputs are committed under tests/golden/input/ so that the outputs do not move:
# - cg_allocs.callgrind, cg_allocs-no-pvalloc.callgrind, cg_cycles-mutual.callgrind: real
#   callgrind 3.19 profiles of tests/fixtures/cg_allocs.c (no argument, then `no-pvalloc`) and
#   cg_cycles.c (`mutual 9`), built once with `cc -std=gnu11 -O1 -g` in /tmp/tare-golden (the
#   paths the profiles name) and run there under `valgrind --tool=callgrind`.
# - mutsu-poly-call.tsv: the rows of the seed's history (shared/data/mutsu-bench-history.tsv)
#   for bench-fib, poly-call and poly-call+jit at its commits 52 to 82 (31 commits, the last
#   two after poly-call's +25% step at b0bee3c), so `history check` finds a regression in it.
# `tare count` runs fixtures built by the test run under valgrind: the values that depend on
# the libc, the loader or the kernel (instructions; peak_bytes, in the allocator's usable sizes)
# are masked as N; the rest (allocations, bytes asked for, names, lanes, status) is compared.
. "$(dirname "$0")/lib.sh"

ROOT=${TARE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
G=$ROOT/tests/golden
IN=$G/input
UPDATE=${UPDATE:-}
names=()

mask_none() { cat; }
# The count columns that vary with the libc and the kernel, in TSV (by column name) and JSON.
mask_count_tsv() {
    awk -F'\t' -v OFS='\t' '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "instructions" || $i == "peak_bytes") m[i] = 1
                  print; next }
        { for (i in m) if ($i ~ /^[0-9]+$/) $i = "N"; print }'
}
mask_count_json() { sed -E 's/"(instructions|peak_bytes)": [0-9]+/"\1": N/g'; }

# golden NAME RC DIR MASK ARGS...: `tare ARGS` run in DIR must exit RC, and its stdout through
# MASK must equal tests/golden/NAME; a difference is printed as a unified diff. With UPDATE=1
# the file is written instead (the exit status is still checked: it is not in the file).
golden() {
    local name=$1 want=$2 dir=$3 mask=$4; shift 4
    names+=("$name")
    (cd "$dir" && "$TARE" "$@") > "$TMP/raw" 2> "$TMP/err"
    rc=$?
    err=$(cat "$TMP/err")
    expect_rc "$want" "$name: tare $*"
    "$mask" < "$TMP/raw" > "$TMP/got"
    if [ -n "$UPDATE" ]; then
        if ! cmp -s "$TMP/got" "$G/$name"; then
            # (renamed into place: under make check the ASan suite's file may be writing too)
            cp "$TMP/got" "$G/.$name.$$" && mv "$G/.$name.$$" "$G/$name"
            echo "updated tests/golden/$name"
        fi
        ok
    elif [ ! -f "$G/$name" ]; then
        not_ok "$name: no tests/golden/$name (make golden-update writes it)"
    elif diff -u --label "tests/golden/$name" --label "tare $*" "$G/$name" "$TMP/got"; then
        ok
    else
        not_ok "$name: tare $* differs from tests/golden/$name (the diff above)"
    fi
}

# ---- tare cg on committed profiles ----
A=cg_allocs.callgrind
A2=cg_allocs-no-pvalloc.callgrind
M=cg_cycles-mutual.callgrind
golden cg-top.tsv 0 "$IN" mask_none cg top --format tsv "$A"
golden cg-top.json 0 "$IN" mask_none cg top --format json "$A"
golden cg-top-all.tsv 0 "$IN" mask_none cg top --format tsv -n 0 "$M"
golden cg-top-inclusive.tsv 0 "$IN" mask_none cg top --inclusive --format tsv "$M"
golden cg-top-inclusive.json 0 "$IN" mask_none cg top --inclusive --format json "$M"
golden cg-top-grep.tsv 0 "$IN" mask_none cg top --grep mutual --format tsv "$M"
golden cg-top-two-files.tsv 0 "$IN" mask_none cg top --format tsv "$A" "$A2"
golden cg-callers.tsv 0 "$IN" mask_none cg callers mutual_b --format tsv "$M"
golden cg-callers.json 0 "$IN" mask_none cg callers mutual_b --format json "$M"
golden cg-callers-malloc.tsv 0 "$IN" mask_none cg callers malloc --exact --format tsv "$A"
golden cg-callees.tsv 0 "$IN" mask_none cg callees main --exact --format tsv "$M"
golden cg-callees.json 0 "$IN" mask_none cg callees mutual_a --format json "$M"
golden cg-info.json 0 "$IN" mask_none cg info --format json "$A"
golden cg-info-mutual.json 0 "$IN" mask_none cg info --format json "$M"
golden cg-diff.tsv 0 "$IN" mask_none cg diff --format tsv "$A" "$A2"
golden cg-diff.json 0 "$IN" mask_none cg diff --format json "$A" "$A2"
golden cg-diff-inclusive.tsv 0 "$IN" mask_none cg diff --inclusive --format tsv "$A" "$A2"
golden cg-diff-allocs.tsv 0 "$IN" mask_none cg diff --allocs --format tsv "$A" "$A2"
golden cg-diff-allocs.json 0 "$IN" mask_none cg diff --allocs --format json "$A" "$A2"
golden cg-allocs.tsv 0 "$IN" mask_none cg allocs --format tsv "$A"
golden cg-allocs.json 0 "$IN" mask_none cg allocs --format json "$A"
golden cg-lines.tsv 0 "$IN" mask_none cg lines hold --format tsv "$A"
golden cg-lines.json 0 "$IN" mask_none cg lines hold --format json "$A"

# ---- tare history on a committed excerpt of the seed's history ----
H=mutsu-poly-call.tsv
golden history-check.json 3 "$IN" mask_none history check --format json "$H"
# The ninth commit of the excerpt: too few points for any step test, so nothing was checked.
golden history-check-early.json 2 "$IN" mask_none history check --format json --commit ae05718 "$H"
golden history-check-persist.json 3 "$IN" mask_none history check --format json --persist 1 \
    --commit b0bee3c "$H"
golden history-noise.tsv 0 "$IN" mask_none history noise --format tsv "$H"
golden history-noise.json 0 "$IN" mask_none history noise --format json "$H"
golden history-noise.csv 0 "$IN" mask_none history noise --format csv "$H"

# ---- tare goal ----
golden goal.json 0 "$IN" mask_none goal --from 59 --to 10 --format json
golden goal-slices.json 0 "$IN" mask_none goal --from 121 --to 100 --slice 10 --format json -- \
    10% -10%
golden goal-higher.json 0 "$IN" mask_none goal --from 100 --to 150 --format json 5% 1.04x
golden goal-reached.json 0 "$IN" mask_none goal --from 110.25 --to 100 --format json 5% 5

# ---- tare count on fixtures, the libc's and kernel's values masked ----
golden count.tsv 0 "$FIXTURES" mask_count_tsv count --format tsv ./allocmix
golden count.json 0 "$FIXTURES" mask_count_json count --format json ./allocmix
golden count-lanes.tsv 0 "$FIXTURES" mask_count_tsv \
    count --format tsv --lane small:TARE_WORK=1 --lane big:TARE_WORK=50 ./envwork ./allocmix
golden count-lanes.json 0 "$FIXTURES" mask_count_json \
    count --format json --lane small:TARE_WORK=1 --lane big:TARE_WORK=50 ./envwork ./allocmix
golden count-failed.tsv 1 "$FIXTURES" mask_count_tsv \
    count --format tsv --name mix --name boom --name three ./allocmix ./crash ./exit3
golden count-failed.json 1 "$FIXTURES" mask_count_json \
    count --format json --name mix --name boom --name three ./allocmix ./crash ./exit3

# Every file under tests/golden/ is some case's: a case renamed or dropped leaves none behind.
for f in "$G"/*; do
    [ -f "$f" ] || continue
    n=$(basename "$f")
    case " ${names[*]} " in
        *" $n "*) ok ;;
        *) if [ -n "$UPDATE" ]; then rm -f "$f"; echo "removed tests/golden/$n"; ok
           else not_ok "tests/golden/$n is no case's output (make golden-update removes it)"; fi ;;
    esac
done

done_testing
