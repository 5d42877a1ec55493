# tare goal: the required multiple and the compounding-slices arithmetic (seed §5a).
. "$(dirname "$0")/lib.sh"

jget() { tr -d '\n' <<<"$1" | sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p"; }

# The seed's example: 59 to 10 is 5.9x; 3% slices take ln 5.9 / ln 1.03 = 60.05 -> 61.
run_tare goal --from 59 --to 10
expect_rc 0 "goal 59 -> 10"
expect_match "$out" 'a 5\.9× improvement is needed' "multiple"
expect_match "$out" 'slices of 3% compound to it in 61 \(60\.05 exactly; 1\.03\^60 = 5\.892×, 1\.03\^61 = 6\.068×\)' "slices"
run_tare goal --from 59 --to 10 --format json
expect_eq "$(jget "$out" multiple)" 5.9 "json multiple"
expect_eq "$(jget "$out" slices)" 61 "json slices"
expect_eq "$(jget "$out" lower_is_better)" true "lower is better"
# 10% slices: ln 5.9 / ln 1.1 = 18.6 -> 19.
run_tare goal --from 59 --to 10 --slice 10% --format json
expect_eq "$(jget "$out" slices)" 19 "10% slices"
run_tare goal --from 59 --to 10 --slice 1.1x --format json
expect_eq "$(jget "$out" slices)" 19 "a slice given as a multiple"

# Measured slices: 1.05 * 1.05 = 1.1025 of a 1.1025x goal is the whole way.
run_tare goal --from 110.25 --to 100 --format json 5% 5
expect_match "$(jget "$out" measured_multiple)" '^1\.1025' "product of slices"
expect_match "$(jget "$out" fraction_of_goal)" '^(1|0\.99999|1\.0000)' "the whole way"
expect_eq "$(jget "$out" remaining_slices)" 0 "nothing remains"
run_tare goal --from 110.25 --to 100 5% 5
expect_match "$out" 'the goal is reached' "text: reached"
# Half the way in log terms: 1.21 needs two 10% slices; one is measured.
run_tare goal --from 121 --to 100 --slice 10 --format json 10%
expect_match "$(jget "$out" fraction_of_goal)" '^0\.5(0000|$)|^0\.49999' "one slice of two"
expect_eq "$(jget "$out" remaining_slices)" 1 "one slice left"
# A regression counts against the goal.
run_tare goal --from 121 --to 100 --slice 10 --format json -- 10% -10%
check "a regression subtracts" awk "BEGIN { exit !($(jget "$out" fraction_of_goal) < 0) }"
# Higher is better when the goal is above the start.
run_tare goal --from 100 --to 150 --format json
expect_eq "$(jget "$out" lower_is_better)" false "higher is better"
expect_eq "$(jget "$out" multiple)" 1.5 "throughput multiple"
run_tare goal --from 10 --to 10
expect_match "$out" 'already there' "no goal"

run_tare goal --from 59
expect_rc 2 "missing --to"
run_tare goal --from 59 --to -3
expect_rc 2 "negative --to"
run_tare goal --from 59 --to 10 --slice 0
expect_rc 2 "zero slice"
run_tare goal --from 59 --to 10 3q
expect_rc 2 "bad slice"
expect_match "$err" "bad slice '3q'" "bad slice message"
done_testing
