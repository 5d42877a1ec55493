# tare run: the suite's hooks (setup, prepare, conclude, cleanup) and input around the wall pass.
. "$(dirname "$0")/lib.sh"
S=$TMP/suite
mkdir -p "$S/data"
head -c 1000 /dev/zero > "$S/data/small.in"
head -c 5000 /dev/zero > "$S/data/big.in"
LOG=$TMP/run.log
cat > "$S/suite.ini" <<EOF
[suite]
command = $FIXTURES/countin
benchmarks = data/*.in
input = data/{name}.in
runs = 2
warmup = 1
setup = sh -c 'echo setup {name} \$TARE_SERIES \$TARE_ITERATION >> $LOG'
prepare = sh -c 'echo prepare {name} \$TARE_ITERATION >> $LOG'
prepare = sh -c 'echo again {name} >> $LOG'
conclude = sh -c 'echo conclude {name} \$TARE_ITERATION >> $LOG'
cleanup = sh -c 'echo cleanup {name} >> $LOG'
EOF
run_tare run --format tsv "$S/suite.ini"
expect_rc 0 "a suite with hooks and input"
want=""
for b in big small; do
    want="${want}setup $b $b 0|"
    for it in -1 1 2; do want="${want}prepare $b $it|again $b|conclude $b $it|"; done
    want="${want}cleanup $b|"
done
expect_eq "$(tr '\n' '|' < "$LOG")" "$want" "the hooks of every benchmark, in order"

# input reaches every run (countin prints the bytes it read).
cat > "$S/io.ini" <<EOF
[suite]
command = sh -c '$FIXTURES/countin > $TMP/{name}.count'
benchmarks = data/*.in
input = data/{name}.in
runs = 1
EOF
run_tare run --format tsv "$S/io.ini"
expect_rc 0 "a suite with input"
expect_eq "$(cat "$TMP/small.count") $(cat "$TMP/big.count")" "1000 5000" \
    "each benchmark's input on stdin"

# A failing hook: that benchmark's series fails with the hook's words; the other goes on.
cat > "$S/bad.ini" <<EOF
[suite]
command = $FIXTURES/countin
benchmarks = data/*.in
runs = 1
prepare = sh -c 'test {name} != big'
EOF
run_tare run --format tsv "$S/bad.ini"
expect_rc 1 "a failing suite hook"
expect_eq "$(awk -F'\t' '$1 == "big" { print $4 "," $8 }' <<<"$out")" "NA,failed" \
    "its benchmark is NA"
expect_eq "$(awk -F'\t' '$1 == "small" { print $8 }' <<<"$out")" ok "the other goes on"
expect_match "$err" \
    "'big' failed: prepare failed: 'sh -c .*' exited with status 1 before warm-up run 1" "why"

# Bad keys: an empty hook, an input that is not there.
printf '[suite]\ncommand = true\nbenchmarks = data/*.in\nprepare =\n' > "$S/empty.ini"
run_tare run "$S/empty.ini"
expect_rc 2 "an empty hook"
expect_match "$err" "'prepare' is empty" "says which"
printf '[suite]\ncommand = true\nbenchmarks = data/*.in\ninput = data/{name}.missing\n' > \
    "$S/noin.ini"
run_tare run "$S/noin.ini"
expect_rc 2 "a missing input"
expect_match "$err" "input = 'data/\{name\}.missing': cannot read '.*big.missing'" "says which file"
done_testing
