# tests/cli/cg_lib.sh: helpers of the tare cg tests (sourced after lib.sh): profiles made by
# valgrind here, the costs the profile itself states, and the model's invariants checked on
# every profile made (the command line's numbers, and the frame tree's sums against them).

# cgrun OUT [valgrind options] -- PROG ARGS: a callgrind profile; "Collected" into $OUT.collected.
# Under tests/run (TEST_CACHE) a profile is made once for the whole run and copied to each OUT
# that asks for the same one (the same options, the same program and arguments, a file argument
# by its content): the profile is these tests' input, and the plain and ASan suites, and
# several files, read the same ones. Each reading of it is still checked (cg_invariants).
cgrun() {
    local out=$1; shift
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    local key a made fd
    if [ -n "${TEST_CACHE:-}" ] && command -v flock > /dev/null; then
        # the program by its path (a profile names its objects by path: the same program
        # copied elsewhere is another profile), the files it reads by name and content
        key=$({ prog=$(command -v "$1")
                echo "program $prog $(cksum < "$prog")"
                for a in "${opts[@]}" -- "${@:2}"; do
                    if [ -f "$a" ]; then echo "file $(basename "$a") $(cksum < "$a")"
                    else echo "word $a"; fi
                done; } | cksum | tr ' ' .)
        made=$TEST_CACHE/cgrun.$key
        exec {fd}> "$made.lock"
        flock "$fd"
        if [ ! -d "$made" ]; then
            mkdir -p "$made.new"
            cg_valgrind "$made.new/p" "${opts[@]}" -- "$@"
            mv "$made.new" "$made"
        fi
        for a in "$made"/p*; do cp "$a" "$out${a#"$made"/p}"; done
        exec {fd}>&-
    else
        cg_valgrind "$out" "${opts[@]}" -- "$@"
    fi
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.log" | tail -n 1 > "$out.collected"
    local files=() f
    for f in "$out" "$out".[0-9]* "$out"-[0-9]*; do
        [ -s "$f" ] && files+=("$f")     # (with threads apart, $out itself is empty)
    done
    if [ ${#files[@]} -gt 0 ]; then
        cg_invariants "$(basename "$out")" "${files[@]}"
        cg_frame_invariants "$(basename "$out")" "${files[@]}"
    fi
}
cg_valgrind() {   # cg_valgrind OUT [valgrind options] -- PROG ARGS: the profile, stdout, log
    local out=$1; shift
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    valgrind --tool=callgrind "${opts[@]}" --callgrind-out-file="$out" "$@" > "$out.stdout" \
        2> "$out.log"
}
json_num() {  # json_num JSON KEY: a top-level number
    sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" <<<"$1"
}
tsv_row() {   # tsv_row TSV COL VALUE: the first data row whose COL is VALUE
    awk -F'\t' -v col="$2" -v val="$3" \
        'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; print; next }
        c && $c == val { print; exit }' <<<"$1"
}

# edge_line_cost FILE CALLER CALLEE [cost|calls [prefix]]: the cost (first event) the profile
# states on the lines of CALLER's calls into CALLEE, contexts as callgrind names them (B'2 is
# not B), or with "calls" their number; CALLER "*": any; with "prefix", every name that begins
# with CALLER (CALLEE). Read here from the file, not by tare
edge_line_cost() {
    awk -v a="$2" -v b="$3" -v what="${4:-cost}" -v prefix="${5:+1}" '
        function is(x, want) { return prefix ? index(x, want) == 1 : x == want }
        function name(s,   id, rest) {
            if (!match(s, /^\([0-9]+\)/))
                return s
            id = substr(s, 2, RLENGTH - 2)
            rest = substr(s, RLENGTH + 1)
            sub(/^ /, "", rest)
            if (rest != "")
                names[id] = rest
            return names[id]
        }
        /^fn=/ { fn = name(substr($0, 4)); next }
        /^cfn=/ { cfn = name(substr($0, 5)); next }
        /^jfn=/ { name(substr($0, 5)); next }
        /^calls=/ {
            want = (a == "*" || is(fn, a)) && is(cfn, b)
            n = substr($1, 7)
            getline
            if (want) s += what == "calls" ? n : $2
            next
        }
        END { print s + 0 }' "$1"
}

# cg_inclusive FILE... NAME: NAME's inclusive cost and whether it is a bound ("1234 0")
cg_inclusive() {
    local name=${*: -1}
    "$TARE" cg top -n 0 --format=tsv "${@:1:$#-1}" |
        awk -F'\t' -v f="$name" 'NR > 1 && $1 == f { print $4, $5; exit }'
}

# cg_invariants LABEL FILE...: tare's model of the profile keeps its invariants: the self
# costs add up to the total, no inclusive cost is above it, and the outer calls into each
# function whose inclusive cost is exact add up to it (each function by name and object)
cg_invariants() {
    local label=$1; shift
    local total top callers res
    total=$("$TARE" cg info --format=json "$@" | sed -n 's/.*"totals": {"[^"]*": \([0-9]*\).*/\1/p')
    top=$("$TARE" cg top -n 0 --format=tsv "$@")
    callers=$("$TARE" cg callers "" -n 0 --format=tsv "$@")
    res=$(awk -F'\t' -v total="$total" '
        FNR == 1 { file++; next }
        file == 1 { k = $1 SUBSEP $2; self += $3; incl[k] = $4; bound[k] = $5; if ($4 > total) over++; next }
        $5 == "outer" { k = $1 SUBSEP $6; outer[k] += $4; has[k] = 1 }
        END {
            for (k in has)
                if (bound[k] != 1) { checked++; if (outer[k] != incl[k]) bad++ }
            printf "%s %d %d", self == total ? "sum=total" : "sum=" self "/" total, over, bad
            print " " checked + 0 > "/dev/stderr"
        }' <(printf '%s\n' "$top") <(printf '%s\n' "$callers") 2> "$TMP/checked")
    expect_eq "$res" "sum=total 0 0" "$label: self costs add up to the total ($total), none inclusive above it, outer callers add up to each exact inclusive"
    check "$label: some functions' callers checked ($(cat "$TMP/checked"))" test \
        "$(cat "$TMP/checked")" -gt 0
}

# frame_sums FOLDED TOP: from folded stacks (every frame: --threshold 0) and `cg top`'s TSV, per
# function name (names two objects share left out: folded stacks name no object): "name self
# frames_self inclusive outermost bound", where frames_self is what the lines ending in it add
# up to, and outermost what the lines with it anywhere on the stack add up to (its frames not
# under another of its frames); then "total SUM" of the lines
frame_sums() {
    awk -F'\t' '
        FNR == NR {
            if (FNR > 1) {
                if (($1 in obj) && obj[$1] != $2) dup[$1] = 1
                obj[$1] = $2; self[$1] += $3; incl[$1] += $4; bound[$1] = bound[$1] || $5
            }
            next
        }
        {
            line = $0; v = line; sub(/.* /, "", v); sub(/ [0-9]+$/, "", line)
            total += v
            n = split(line, a, ";"); fs[a[n]] += v
            delete seen
            for (i = 1; i <= n; i++) if (!(a[i] in seen)) { seen[a[i]] = 1; fo[a[i]] += v }
        }
        END {
            for (k in self) if (!(k in dup))
                printf "%s\t%d\t%d\t%d\t%d\t%d\n", k, self[k], fs[k], incl[k], fo[k], bound[k]
            printf "total\t%d\n", total
        }' "$2" "$1"
}

# cg_frame_invariants LABEL FILE...: the frame tree (`cg folded --threshold 0`, every frame)
# holds the profile's own numbers: its lines add up to the total; the frames of every function
# to its self cost from `cg top`; the outermost frames of every function to its inclusive cost,
# but for those tare itself reports as an estimate (their number on stderr, counted here too);
# frame_sums' lines kept in $TMP/inv.sums
cg_frame_invariants() {
    local label=$1; shift
    local total res said
    total=$("$TARE" cg info --format=json "$@" | sed -n 's/.*"totals": {"[^"]*": \([0-9]*\).*/\1/p')
    "$TARE" cg top -n 0 --format=tsv "$@" > "$TMP/inv.top"
    # (streamed: a CPython profile's stacks are some hundreds of megabytes)
    res=$("$TARE" cg folded --threshold 0 "$@" 2> "$TMP/inv.err" | frame_sums - "$TMP/inv.top" |
          tee "$TMP/inv.sums" | awk -F'\t' -v total="$total" '
        $1 == "total" && NF == 2 { sum = $2; next }
        { n++; if ($2 != $3) bad_self++; if ($4 != $5) bad_incl++ }
        END { printf "%s %d %d", sum == total ? "sum=total" : "sum=" sum "/" total, bad_self, bad_incl
              print " " n > "/dev/stderr" }' 2> "$TMP/inv.n")
    said=$(sed -n 's/.*the outermost frames of \([0-9]*\) only an estimate.*/\1/p' "$TMP/inv.err")
    expect_eq "${res% *}" "sum=total 0" \
        "$label: the frames add up to the total ($total), and each function's to its self cost ($(cat "$TMP/inv.n") functions)"
    check "$label: each function's outermost frames hold its inclusive cost, but the ${said:-0} tare reports as an estimate (${res##* } differ)" \
        test "${res##* }" -le "${said:-0}"
    [ "${res##* }" -le "${said:-0}" ]
}

# ctx_edge FILE FROM TO: the cost of the call lines from the contexts whose names begin with
# FROM into those that begin with TO, as the profile writes them
ctx_edge() { edge_line_cost "$1" "$2" "$3" cost prefix; }
