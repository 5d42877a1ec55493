# tare self-test: every check passes here, and a check that cannot run is a skip, not a pass.
. "$(dirname "$0")/lib.sh"

run_tare self-test
expect_rc 0 "self-test passes"
expect_eq "$(grep -c '^ok ' <<<"$out")" 5 "five checks ran and passed"
expect_match "$out" '^self-test: 5 passed, 0 failed, 0 skipped$' "closing line"
expect_match "$out" "realloc\(NULL\) counted once: 7 allocations" "realloc check"
expect_match "$out" "allocations of a known program: 143 allocations \(want 143\)" "count check"

TARE_VALGRIND=/nonexistent/valgrind run_tare self-test
expect_rc 0 "no valgrind: not a failure"
expect_match "$out" '^skip tare count on a known program: TARE_VALGRIND' \
    "no valgrind: skipped with the reason"
expect_match "$out" 'self-test: 3 passed, 0 failed, 1 skipped' "no valgrind: three reader checks"

CC=/bin/false run_tare self-test
expect_match "$out" '^skip .*no C compiler' "no compiler: skipped"

TARE_ALLOC_LIB=/nonexistent/lib.so run_tare self-test
expect_match "$out" '^skip tare count: bytes of a known program' \
    "no allocator library: bytes skipped"

run_tare self-test extra
expect_rc 2 "an argument is bad usage"
done_testing
