# Every command's usage lines equal its man page SYNOPSIS (the guide's "usage is the man page").
. "$(dirname "$0")/lib.sh"

synopsis() {   # the SYNOPSIS lines of a man page, roff markup removed
    awk '/^\.SH SYNOPSIS/ { on = 1; next } /^\.SH/ { on = 0 } on && !/^\./' "$1" |
        sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\e/\\/g' -e 's/\\&//g'
}

usage_lines() { # the usage lines of --help, without "usage: " / "   or: "
    "$TARE" "$@" --help | awk \
        '/^(usage|   or): / { sub(/^(usage|   or): /, ""); print; next } { exit }'
}

check "tare help lists commands" test -n "$("$TARE" help --commands)"
for cmd in $("$TARE" help --commands); do
    page="$TARE_ROOT/doc/tare-$cmd.1"
    if [ ! -f "$page" ]; then not_ok "$cmd has no man page $page"; continue; fi
    ok
    expect_eq "$(usage_lines "$cmd")" "$(synopsis "$page")" \
        "usage of 'tare $cmd' vs SYNOPSIS of tare-$cmd.1"
    run_tare "$cmd" --no-such-option
    expect_rc 2 "tare $cmd with an unknown option"
    expect_match "$err" "usage: tare $cmd" "tare $cmd with an unknown option prints usage"
done
expect_eq "$("$TARE" --help | awk '/^(usage|   or): / { sub(/^(usage|   or): /, ""); print; next } { exit }')" \
    "$(synopsis "$TARE_ROOT/doc/tare.1")" "usage of 'tare' vs SYNOPSIS of tare.1"
run_tare --version
expect_match "$out" '^tare [0-9]+\.[0-9]+' "tare --version"
run_tare no-such-command
expect_rc 2 "unknown command"
expect_match "$err" "unknown command 'no-such-command'" "unknown command message"
done_testing
