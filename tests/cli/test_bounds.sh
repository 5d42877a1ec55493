# Every reader bounded: /dev/zero, /dev/urandom and a FIFO nobody writes to, as each file
# tare reads (profiles, histories, suites, on the command line and on standard input), must
# end in exit 2 with a message naming the file (a NUL byte is refused in the first block
# read; a FIFO with no writer is given up on after a short wait), holding under 300 MB;
# never a hang (30 s, then the test kills it and fails) or a memory that grows until killed.
# A FIFO whose writer comes late is read whole; a NUL inside a name and a directory given
# as a file are refused with a clear error. tests/cli/run_bounded.py runs each case.
. "$(dirname "$0")/lib.sh"
ROOT=${TARE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
RB=$ROOT/tests/cli/run_bounded.py
H=$ROOT/tests/golden/input/mutsu-poly-call.tsv
CG=$ROOT/tests/golden/input/cg_allocs.callgrind
cd "$TMP" || exit 1
# the history outside any git repository: read in date order, with no note before the error
cp "$H" "$TMP/hist.tsv"
H=$TMP/hist.tsv

# bounded DESC WANT-RE [--stdin FILE] -- ARGS...: tare ARGS exits 2, under 300 MB, saying
# WANT-RE (an extended regular expression) on stderr.
bounded() {
    local desc=$1 want=$2; shift 2
    local pre=()
    while [ "$1" != -- ]; do pre+=("$1"); shift; done
    shift
    local r
    r=$("$PY" "$RB" "${pre[@]}" -- "$TARE" "$@")
    local head=${r%%$'\n'*} msg=${r#*$'\n'}
    local rc=${head#rc=}; rc=${rc%% *}
    local rss=${head##*rss_kb=}
    if [ "$rc" = 2 ] && [ "$rss" -lt 307200 ] && grep -Eq -- "$want" <<<"$msg"; then ok
    else not_ok "$desc: $head; stderr: $msg (want exit 2, under 300 MB, /$want/)"; fi
}

# The readers, each with SRC where its input goes.
readers=(
    "cg top SRC"
    "cg diff SRC $CG"
    "history check SRC"
    "history noise SRC"
    "history merge SRC -o $TMP/merged.tsv"
    "report SRC"
    "trend -o $TMP/t.html SRC"
    "run SRC"
    "history check --suite SRC $H"
    "report --suite SRC $H"
)
for src in /dev/zero /dev/urandom; do
    for r in "${readers[@]}"; do
        read -ra args <<<"${r//SRC/$src}"
        bounded "$r from $src" "'$src' line [0-9]+: a NUL byte" -- "${args[@]}"
    done
done
# Standard input: history append's rows.
cp "$H" "$TMP/append.tsv"
for src in /dev/zero /dev/urandom; do
    bounded "history append from $src on stdin" "'<stdin>' line [0-9]+: a NUL byte" \
        --stdin "$src" -- history append "$TMP/append.tsv"
done
expect_eq "$(cmp "$H" "$TMP/append.tsv" && echo same)" same "nothing appended from them"
# A FIFO with no writer: each reader on its own FIFO, all at once (each waits a while).
i=0
for r in "${readers[@]}"; do
    mkfifo "$TMP/fifo$i"
    read -ra args <<<"${r//SRC/$TMP/fifo$i}"
    "$PY" "$RB" -- "$TARE" "${args[@]}" > "$TMP/fifo$i.out" &
    i=$((i + 1))
done
wait
i=0
for r in "${readers[@]}"; do
    head=$(head -1 "$TMP/fifo$i.out")
    msg=$(sed -n 2p "$TMP/fifo$i.out")
    rss=${head##*rss_kb=}
    if [[ $head == "rc=2 "* ]] && [ "$rss" -lt 307200 ] &&
       grep -Eq "fifo$i': a FIFO with no writer" <<<"$msg"; then ok
    else not_ok "$r from a FIFO with no writer: $head; $msg"; fi
    i=$((i + 1))
done

# A FIFO whose writer comes a second late is waited for and read whole.
mkfifo "$TMP/late"
(sleep 1; cat "$CG" > "$TMP/late") &
run_tare cg top -f tsv "$TMP/late"
wait
expect_eq "$rc $(tsv_field "$out" 1 function)" "0 $("$TARE" cg top -f tsv "$CG" |
    tsv_field "$(cat)" 1 function)" "a FIFO whose writer comes late: read whole"

mkfifo "$TMP/late2"
(sleep 1; cat "$H" > "$TMP/late2") &
run_tare history check -f json "$TMP/late2"
wait
expect_eq "$rc $(grep -c '"regressions"' <<<"$out")" "3 1" \
    "history check of a FIFO whose writer comes late: read once, checked (a regression: 3)"

# A NUL byte inside a function name: refused with its line, not the name cut there.
printf 'events: Ir\nfn=main\n1 10\nfn=cut\0hidden\n2 5\nsummary: 15\n' > nul.cg
run_tare cg top nul.cg
expect_eq "$rc $err" "2 tare cg: 'nul.cg' line 4: a NUL byte: not a text file" \
    "a NUL in a function name"
gzip -c nul.cg > nul.cg.gz
run_tare cg top nul.cg.gz
expect_eq "$rc $err" "2 tare cg: 'nul.cg.gz' line 4: a NUL byte: not a text file" \
    "a NUL in a gzip-compressed profile (read from gzip's pipe)"
# A NUL in a suite, for every command that reads one.
printf '[suite]\ncommand = true\nbenchmarks = a\n\n[bench a]\nthreshold = 5%%\0x\n' > nul.ini
for c in "history check --suite nul.ini $H" "report --suite nul.ini $H" "run nul.ini"; do
    read -ra args <<<"$c"
    run_tare "${args[@]}"
    expect_eq "$rc $(grep -c "'nul.ini' line 6: a NUL byte" <<<"$err")" "2 1" \
        "a NUL in a suite: $c"
done
# A directory where a file is wanted.
for c in "history check --suite $TMP $H" "report --suite $TMP $H" "run $TMP" "cg top $TMP" \
         "history check $TMP"; do
    read -ra args <<<"$c"
    run_tare "${args[@]}"
    expect_eq "$rc $(grep -c "cannot read '$TMP': a directory" <<<"$err")" "2 1" \
        "a directory: $c"
done
# A line past the limit (1 MiB) in a history: refused with its line, not read on.
{ head -1 "$H"; head -c 1100000 /dev/zero | tr '\0' 'x'; echo; } > long.tsv
run_tare history check long.tsv
expect_eq "$rc $err" "2 tare history: 'long.tsv' line 2: a line longer than 1048576 bytes" \
    "a line over the limit"

done_testing
