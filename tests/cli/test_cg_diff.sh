# tare cg diff across builds: two builds of one program under two names matched, and every
# function's change exact (each side's self cost as `tare cg top` gives it); a library of one
# file name in two directories; two unrelated programs: "nothing matched", exit 2, nothing on
# stdout; --map-object and its bad values; Debian's lua5.4 copied under two names.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/cg_lib.sh"

SRC=$TARE_ROOT/tests/fixtures/cg

# exact_diff DESC BEFORE AFTER [AFTER_PATH=BEFORE_PATH]... [-- tare cg diff options]: every
# row of `tare cg diff -n 0 --format=tsv` has before and after equal to each side's self cost in
# `tare cg top` (NA where that side lacks it) and delta their difference; every function with a
# self cost on either side is one row. The objects of AFTER are named as BEFORE's through the
# pairs given (the objects tare is to take as one). With --inclusive among the options, the
# inclusive costs.
exact_diff() {
    local desc=$1 a=$2 b=$3; shift 3
    local maps=() opts=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do maps+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    opts=("$@")
    local res col=3
    [[ " ${opts[*]} " == *" --inclusive "* ]] && col=4
    res=$(awk -F'\t' -v maps="${maps[*]}" -v col="$col" '
        BEGIN { n = split(maps, m, " "); for (i = 1; i <= n; i++) {
                    split(m[i], kv, "="); map[kv[1]] = kv[2] } }
        function as_a(o) { return (o in map) ? map[o] : o }
        FNR == 1 { file++; next }
        file == 1 && $col > 0 { sa[$1 SUBSEP $2] = $col; want[$1 SUBSEP $2] = 1 }
        file == 2 && $col > 0 { k = $1 SUBSEP as_a($2); sb[k] = $col; want[k] = 1 }
        file == 3 {
            k = $1 SUBSEP as_a($2)
            rows++
            if (k in seen) { bad = bad " twice:" $1 }
            seen[k] = 1
            wa = (k in sa) ? sa[k] : "NA"; wb = (k in sb) ? sb[k] : "NA"
            if ($3 != wa || $4 != wb || $5 != (wb == "NA" ? 0 : wb) - (wa == "NA" ? 0 : wa))
                bad = bad " " $1 ":" $3 "/" $4 "/" $5 "!=" wa "/" wb
        }
        END {
            for (k in want) if (!(k in seen)) { split(k, x, SUBSEP); bad = bad " missing:" x[1] }
            print (bad == "" ? "exact" : "wrong" bad), rows + 0
        }' <("$TARE" cg top -n 0 --format=tsv "$a") <("$TARE" cg top -n 0 --format=tsv "$b") \
           <("$TARE" cg diff -n 0 --format=tsv "${opts[@]}" "$a" "$b" 2> /dev/null))
    expect_match "$res" '^exact [0-9]+$' "$desc: each row is the difference of cg top's numbers"
    check "$desc: rows compared (${res#* })" test "${res#* }" -gt 5
}

# ---- two builds of one program under two names ----
mkdir -p "$TMP/w1" "$TMP/w2"
cc -O1 -g -DROUNDS=1000 -o "$TMP/w1/builds-3507c338" "$SRC/builds.c"
cc -O1 -g -DROUNDS=1500 -DEXTRA -o "$TMP/w2/builds-5edacafc" "$SRC/builds.c"
cgrun "$TMP/b1.out" -- "$TMP/w1/builds-3507c338"
cgrun "$TMP/b2.out" -- "$TMP/w2/builds-5edacafc"
run_tare cg diff -n 0 --format=tsv "$TMP/b1.out" "$TMP/b2.out"
expect_rc 0 "diff of two builds"
expect_match "$err" \
    "^tare cg diff: matched builds-3507c338 with builds-5edacafc \(the program of each profile: [0-9]+ functions in both, 0 only before, 1 only after\)$" \
    "two builds: matched, said in one line"
expect_eq "$(grep -c . <<<"$err")" 1 "two builds: one line on stderr"
P1=$TMP/w1/builds-3507c338 P2=$TMP/w2/builds-5edacafc
mix=$(tsv_row "$out" function mix)
expect_eq "$(tsv_field "$mix" 1 object)" "$P1" "mix: one row, the program's object before"
b=$(tsv_field "$mix" 1 before) a=$(tsv_field "$mix" 1 after) d=$(tsv_field "$mix" 1 delta)
# mix runs ROUNDS times at one cost a call: 1,000 then 1,500 calls, so the change is half
# its cost before, to the instruction
if [[ "$b/$a/$d" =~ ^[0-9]+/[0-9]+/[0-9]+$ ]]; then
    expect_eq "$((d * 2))/$((a * 2))" "$b/$((b * 3))" \
        "mix: +500 calls of 1,000 cost half again ($b -> $a)"
else
    not_ok "mix: before/after/delta are numbers: '$b/$a/$d'"
fi
extra=$(tsv_row "$out" function extra_step)
expect_eq \
    "$(tsv_field "$extra" 1 pct)/$(tsv_field "$extra" 1 before)/$(tsv_field "$extra" 1 object)" \
    "new/NA/$P2" "extra_step: new, in the second build"
expect_eq "$(tsv_field "$(tsv_row "$out" function main)" 1 before)" \
    "$("$TARE" cg top -n 0 --format=tsv "$TMP/b1.out" | awk -F'\t' -v p="$P1" \
        '$1 == "main" && $2 == p { print $3 }')" "main matched with main"
expect_no_match "$(awk -F'\t' '$6 == "gone" || $6 == "new" { print $1 }' <<<"$out")" \
    '^(mix|run_rounds|main)$' "no function of the program gone and new"
exact_diff "two builds" "$TMP/b1.out" "$TMP/b2.out" "$P2=$P1"
exact_diff "two builds, inclusive" "$TMP/b1.out" "$TMP/b2.out" "$P2=$P1" -- --inclusive
# the same with the profiles the other way: extra_step gone
run_tare cg diff -n 0 --format=tsv "$TMP/b2.out" "$TMP/b1.out"
expect_eq "$(tsv_field "$(tsv_row "$out" function extra_step)" 1 pct)" gone "the other way: gone"
expect_match "$err" \
    "matched builds-5edacafc with builds-3507c338 \(.*1 only before, 0 only after\)" \
    "the other way: the counts turned"
# text and JSON say the same
run_tare cg diff "$TMP/b1.out" "$TMP/b2.out"
expect_match "$out" "^ *[0-9,]+ +[0-9,]+ +\+[0-9,]+ +\+50\.00% +mix +builds-3507c338$" \
    "text: mix's row, +50.00%"
run_tare cg diff --format=json "$TMP/b1.out" "$TMP/b2.out"
expect_match "$out" "\"function\": \"mix\", \"object\": \"$P1\", \"before\": $b, \"after\": $a" \
    "JSON: mix's row"

# ---- a library of one file name in two directories (two work trees) ----
for w in w1 w2; do
    cc -O1 -fPIC -shared -o "$TMP/$w/libdup.so" "$SRC/dup_lib.c"
    cc -O1 -o "$TMP/$w/dup" "$SRC/dup_main.c" -L"$TMP/$w" -ldup -Wl,-rpath,"$TMP/$w"
done
cgrun "$TMP/d1.out" -- "$TMP/w1/dup"
cgrun "$TMP/d2.out" -- "$TMP/w2/dup" x
run_tare cg diff -n 0 --format=tsv "$TMP/d1.out" "$TMP/d2.out"
expect_rc 0 "diff across two work trees"
expect_match "$err" "^tare cg diff: matched $TMP/w1/libdup.so with $TMP/w2/libdup.so \(one file name in two directories: [0-9]+ functions in both, 0 only before, 0 only after\)$" \
    "the library in two directories: said"
expect_match "$err" "matched $TMP/w1/dup with $TMP/w2/dup \(one file name" \
    "the program in two directories: said"
expect_eq "$(awk -F'\t' '$1 == "work" { print $2 }' <<<"$out" | sort | tr '\n' ' ')" \
    "$TMP/w1/dup $TMP/w1/libdup.so " "work of the program and work of the library: two rows"
exact_diff "two work trees" "$TMP/d1.out" "$TMP/d2.out" "$TMP/w2/dup=$TMP/w1/dup" \
    "$TMP/w2/libdup.so=$TMP/w1/libdup.so"

# ---- two unrelated programs: nothing matched ----
for fmt in text tsv json; do
    run_tare cg diff --format=$fmt "$TMP/b1.out" "$TMP/d1.out"
    expect_rc 2 "unrelated programs ($fmt)"
    expect_empty "$out" "unrelated programs ($fmt): nothing on stdout"
    expect_eq "$err" "tare cg diff: nothing matched: the programs 'builds-3507c338' ('$TMP/b1.out') and 'dup' ('$TMP/d1.out') have no function in common but main and the C start-up code; not compared (--map-object builds-3507c338=dup compares them)" \
        "unrelated programs ($fmt): the one line"
done
# the programs' functions that are in common: main and start-up code, nothing else
funcs_of() {   # funcs_of PROFILE OBJECT: the names of the object's functions, sorted
    "$TARE" cg top -n 0 --format=tsv "$1" | awk -F'\t' -v p="$2" '$2 == p { print $1 }' | sort
}
common=$(comm -12 <(funcs_of "$TMP/b1.out" "$P1") <(funcs_of "$TMP/d1.out" "$TMP/w1/dup"))
expect_no_match "$(grep -v -e '^main$' -e '^0x' -e '^(below main)$' <<<"$common")" . \
    "unrelated programs: main, (below main) and 0x... are all they share ($(tr '\n' ' ' <<<"$common"))"
check "unrelated programs: they do share main" grep -qx main <<<"$common"
# no function at all in common, and no program known (no command, no main: real profiles
# have both, so these two are written here): the other line
printf 'events: Ir\nob=/x/one\nfn=mix\n1 50\nfn=run_rounds\n2 7\ntotals: 57\n' > "$TMP/t1.out"
printf 'events: Ir\nob=/y/two\nfn=work\n1 40\ntotals: 40\n' > "$TMP/t2.out"
run_tare cg diff "$TMP/t1.out" "$TMP/t2.out"
expect_rc 2 "no function in common"
expect_empty "$out" "no function in common: nothing on stdout"
expect_eq "$err" "tare cg diff: nothing matched: no function of '$TMP/t1.out' is in '$TMP/t2.out' (by name, in objects of one name); not compared (--map-object OLD=NEW matches objects)" \
    "no function in common: the one line"
run_tare cg diff --format=tsv -n 0 --map-object one=two "$TMP/t1.out" "$TMP/t2.out"
expect_rc 0 "no function in common, mapped: compared"
expect_eq "$(awk -F'\t' 'NR > 1 { print $1, $2, $3, $4, $6 }' <<<"$out" | tr '\n' ' ')" \
    "mix /x/one 50 NA gone work /y/two NA 40 new run_rounds /x/one 7 NA gone " \
    "mapped: each function gone or new, biggest first"

# ---- cg page --diff matches objects as cg diff does ----
# page_rows HTML NAME...: "name object self-before self-after" of each NAME from the page's
# own data ("f" rows: name, object, self, inclusive, bound, BEFORE's self and inclusive)
page_rows() {
    node -e '
        const D = require(process.env.TARE_ROOT + "/tests/cli/page_data.js")(process.argv[1]);
        for (const n of process.argv.slice(2)) {
            const r = D.f.find((x) => x[0] === n);
            console.log(r ? [n, r[1], r[5] === null ? "null" : r[5][0], r[2][0]].join(" ")
                          : n + " none");
        }' "$@"
}
run_tare cg page --diff "$TMP/b1.out" "$TMP/b2.out" -o "$TMP/b.html"
expect_rc 0 "page --diff of two builds"
expect_match "$err" \
    "^tare cg page: matched builds-3507c338 with builds-5edacafc \(the program of each profile: [0-9]+ functions in both, 0 only before, 1 only after\)$" \
    "page --diff of two builds: matched, said as cg diff says it"
self_of() {   # self_of PROFILE FUNCTION: its self cost from cg top
    "$TARE" cg top -n 0 --format=tsv "$1" | awk -F'\t' -v f="$2" '$1 == f { print $3 }'
}
expect_eq "$(page_rows "$TMP/b.html" mix run_rounds main extra_step)" \
    "mix builds-5edacafc $(self_of "$TMP/b1.out" mix) $(self_of "$TMP/b2.out" mix)
run_rounds builds-5edacafc $(self_of "$TMP/b1.out" run_rounds) $(self_of "$TMP/b2.out" run_rounds)
main builds-5edacafc $(self_of "$TMP/b1.out" main) $(self_of "$TMP/b2.out" main)
extra_step builds-5edacafc null $(self_of "$TMP/b2.out" extra_step)" \
    "page --diff of two builds: each function's row has BEFORE's cost (cg top's), extra_step new"
run_tare cg page --diff "$TMP/b1.out" "$TMP/d1.out" -o "$TMP/bd.html"
expect_rc 2 "page --diff of unrelated programs"
expect_eq "$err" "tare cg page: nothing matched: the programs 'builds-3507c338' ('$TMP/b1.out') and 'dup' ('$TMP/d1.out') have no function in common but main and the C start-up code; not compared (--map-object builds-3507c338=dup compares them)" \
    "page --diff of unrelated programs: cg diff's line"
check "page --diff of unrelated programs: no page" test ! -e "$TMP/bd.html"
run_tare cg page --diff --map-object builds-3507c338=dup "$TMP/b1.out" "$TMP/d1.out" \
    -o "$TMP/bd.html"
expect_rc 0 "page --diff --map-object"
expect_match "$err" "^tare cg page: mapped builds-3507c338 to dup \(--map-object: " \
    "page --diff --map-object: said"
expect_eq "$(page_rows "$TMP/bd.html" main)" \
    "main dup $(self_of "$TMP/b1.out" main) $(self_of "$TMP/d1.out" main)" \
    "page --diff --map-object: main's row has BEFORE's cost"
run_tare cg page --map-object a=b "$TMP/b1.out" -o "$TMP/x.html"
expect_rc 2 "page --map-object without --diff"
expect_match "$err" "^tare cg: page: --map-object is for --diff$" \
    "page --map-object without --diff: said"

# ---- --map-object ----
run_tare cg diff -n 0 --format=tsv --map-object builds-3507c338=dup "$TMP/b1.out" "$TMP/d1.out"
expect_rc 0 "--map-object: unrelated programs compared"
expect_match "$err" "^tare cg diff: mapped builds-3507c338 to dup \(--map-object: [0-9]+ functions in both, 2 only before, 1 only after\)$" \
    "--map-object: said, with what is in both"
expect_eq "$(tsv_field "$(tsv_row "$out" function main)" 1 object)" "$P1" \
    "--map-object: main is one row"
expect_eq "$(tsv_field "$(tsv_row "$out" function work)" 1 pct)" new "--map-object: work new"
exact_diff "--map-object" "$TMP/b1.out" "$TMP/d1.out" "$TMP/w1/dup=$P1" -- \
    --map-object builds-3507c338=dup
# by full paths, and a second map (the library's file name) beside it
run_tare cg diff --format=tsv --map-object "$P1=$TMP/w1/dup" --map-object libc.so.6=libdup.so \
    "$TMP/b1.out" "$TMP/d1.out"
expect_rc 0 "--map-object by path, twice"
expect_match "$err" "mapped builds-3507c338 to dup" "--map-object by path"
expect_match "$err" "mapped libc.so.6 to libdup.so \(--map-object: 0 functions in both" \
    "a second --map-object, with nothing in common: said"
# the two builds with an explicit map: the same rows as matched
exact_diff "two builds, mapped" "$TMP/b1.out" "$TMP/b2.out" "$P2=$P1" -- \
    --map-object builds-3507c338=builds-5edacafc
# bad values: a clear error, exit 2
bad_map() {   # bad_map DESC MESSAGE-REGEX ARGS...
    local desc=$1 want=$2; shift 2
    run_tare cg "$@"
    expect_rc 2 "$desc"
    expect_match "$err" "$want" "$desc: the message"
    expect_empty "$out" "$desc: nothing on stdout"
}
bad_map "--map-object without =" "^tare cg: --map-object 'dup': want OLD=NEW \(no '='\)$" \
    diff --map-object dup "$TMP/b1.out" "$TMP/d1.out"
bad_map "--map-object =NEW" "--map-object '=dup': want OLD=NEW \(OLD is empty\)" \
    diff --map-object =dup "$TMP/b1.out" "$TMP/d1.out"
bad_map "--map-object OLD=" "--map-object 'dup=': want OLD=NEW \(NEW is empty\)" \
    diff --map-object dup= "$TMP/b1.out" "$TMP/d1.out"
bad_map "--map-object with no value" "option '--map-object' needs a value" \
    diff "$TMP/b1.out" "$TMP/d1.out" --map-object
bad_map "--map-object of an object not in BEFORE" \
    "^tare cg diff: --map-object 'nosuch=dup': no object 'nosuch' in the profile before \(it has .*'builds-3507c338'" \
    diff --map-object nosuch=dup "$TMP/b1.out" "$TMP/d1.out"
bad_map "--map-object of an object not in AFTER" \
    "--map-object 'builds-3507c338=builds-3507c338': no object 'builds-3507c338' in the profile after" \
    diff --map-object builds-3507c338=builds-3507c338 "$TMP/b1.out" "$TMP/d1.out"
bad_map "an object mapped twice" \
    "^tare cg diff: --map-object 'libc.so.6=dup': '$TMP/w1/dup' is mapped twice$" \
    diff --map-object builds-3507c338=dup --map-object libc.so.6=dup "$TMP/b1.out" "$TMP/d1.out"
bad_map "--map-object for top" "^tare cg: --map-object is for 'diff'$" \
    top --map-object a=b "$TMP/b1.out"

# ---- Debian's lua5.4 copied under two names, on two scripts ----
lua=$(command -v lua5.4)
cp "$lua" "$TMP/w1/lua-3507c338"
cp "$lua" "$TMP/w2/lua-5edacafc"
cat > "$TMP/a.lua" <<'LUA'
local t = {}
for i = 1, 3000 do t[i] = (i * 7919) % 1000 end
table.sort(t)
local s = 0
for i = 1, #t do s = s + t[i] end
print(s)
LUA
cat > "$TMP/b.lua" <<'LUA'
local t = {}
for i = 1, 6000 do t[i] = (i * 7919) % 1000 end
table.sort(t, function(x, y) return x > y end)
local parts = {}
for i = 1, 200 do parts[#parts + 1] = tostring(t[i]) end
print(#table.concat(parts, ","))
LUA
cgrun "$TMP/la.out" -- "$TMP/w1/lua-3507c338" "$TMP/a.lua"
cgrun "$TMP/lb.out" -- "$TMP/w2/lua-5edacafc" "$TMP/b.lua"
run_tare cg diff -n 0 --format=tsv "$TMP/la.out" "$TMP/lb.out"
expect_rc 0 "lua5.4 under two names"
expect_match "$err" \
    "^tare cg diff: matched lua-3507c338 with lua-5edacafc \(the program of each profile: [0-9]+ functions in both, [0-9]+ only before, [0-9]+ only after\)$" \
    "lua5.4 under two names: matched"
expect_eq "$(tsv_field "$(tsv_row "$out" function lua_pcallk)" 1 object)" "$TMP/w1/lua-3507c338" \
    "lua5.4: lua_pcallk one row"
exact_diff "lua5.4 under two names" "$TMP/la.out" "$TMP/lb.out" \
    "$TMP/w2/lua-5edacafc=$TMP/w1/lua-3507c338"
exact_diff "lua5.4 under two names, inclusive" "$TMP/la.out" "$TMP/lb.out" \
    "$TMP/w2/lua-5edacafc=$TMP/w1/lua-3507c338" -- --inclusive
# the copies are one file: the functions both scripts ran are one row each
inboth=$(awk -F'\t' -v p="$TMP/w1/lua-3507c338" 'NR > 1 && $2 == p && $6 != "new" && $6 != "gone"' \
    <<<"$out" | wc -l)
check "lua5.4: most of the program's functions in both ($inboth)" test "$inboth" -gt 50

done_testing
