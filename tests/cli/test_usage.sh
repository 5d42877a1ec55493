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
    # every command has its line under COMMANDS in tare(1)
    expect_eq "$(awk '/^\.SH COMMANDS/ { on = 1; next } /^\.SH/ { on = 0 }
                      on && /^\.B / { sub(/^\.B /, ""); gsub(/\\-/, "-"); print }' \
                  "$TARE_ROOT/doc/tare.1" | grep -cx -- "$cmd")" 1 "tare.1 COMMANDS lists $cmd"
    run_tare "$cmd" --no-such-option
    expect_rc 2 "tare $cmd with an unknown option"
    expect_match "$err" "usage: tare $cmd" "tare $cmd with an unknown option prints usage"
done
expect_eq \
    "$("$TARE" --help | awk '/^(usage|   or): / { sub(/^(usage|   or): /, ""); print; next } { exit }')" \
    "$(synopsis "$TARE_ROOT/doc/tare.1")" "usage of 'tare' vs SYNOPSIS of tare.1"
run_tare --version
expect_match "$out" '^tare [0-9]+\.[0-9]+' "tare --version"
run_tare no-such-command
expect_rc 2 "unknown command"
expect_match "$err" "unknown command 'no-such-command'" "unknown command message"
# Each command's --help option list and its man page OPTIONS list name the same
# options: every option documented, none stale. An option is a "-x" or "--long" at the head
# of an option line of --help, or on the line after a .TP (or .TQ) in the page's OPTIONS.
help_opts() {
    "$TARE" "$1" --help | grep -oE '^  (-[A-Za-z0-9](, --[a-z][a-z0-9-]*)?|    --[a-z][a-z0-9-]*)' |
        grep -oE -- '--?[A-Za-z0-9][a-z0-9-]*' | sort -u
}
man_opts() {
    awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH/ { on = 0 } on && tp { print; tp = 0 }
         on && /^\.T[PQ]$/ { tp = 1 }' "$1" |
        sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/"//g' | tr ' ,' '\n\n' |
        grep -E -- '^--?[A-Za-z0-9][a-z0-9-]*$' | sort -u
}
for cmd in $("$TARE" help --commands); do
    page="$TARE_ROOT/doc/tare-$cmd.1"
    h=$(help_opts "$cmd")
    m=$(man_opts "$page")
    check "tare $cmd --help lists options" test -n "$h"
    expect_empty "$(comm -23 <(echo "$h") <(echo "$m") | tr '\n' ' ')" \
        "options of 'tare $cmd --help' missing from OPTIONS of tare-$cmd.1"
    expect_empty "$(comm -13 <(echo "$h") <(echo "$m") | tr '\n' ' ')" \
        "options in OPTIONS of tare-$cmd.1 that 'tare $cmd --help' does not list"
done
# The checks above can fail: a made-up page with a stale option and without one of --help's.
printf '.SH OPTIONS\n.TP\n.BR \\-n ", " \\-\\-stale " \\fIN\\fR"\n.TP\n.B \\-\\-help\n.SH X\n' \
    > "$TMP/fake.1"
expect_eq "$(man_opts "$TMP/fake.1" | tr '\n' ' ')" "--help --stale -n " "man_opts reads .BR and .B"
expect_eq "$(comm -23 <(help_opts wall) <(man_opts "$TMP/fake.1") | grep -c .)" \
    "$(($(help_opts wall | grep -c .) - 2))" \
        "a page without wall's options misses all but -n and --help"
done_testing
