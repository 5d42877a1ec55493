# The version has one source, VERSION in the Makefile: the binary and every man page's .TH line
# must say it, and `make man-version` must write it into the pages.
. "$(dirname "$0")/lib.sh"

ROOT=${TARE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
want=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
check "the Makefile sets VERSION" test -n "$want"
run_tare --version
expect_eq "$out" "tare $want" "tare --version says the Makefile's VERSION"

th_version() {   # the version a page's .TH line carries (its first quoted field, "tare X")
    sed -n 's/^\.TH [^"]*"tare \([^"]*\)".*/\1/p' "$1"
}
pages=0
for page in "$ROOT"/doc/*.1; do
    pages=$((pages + 1))
    expect_eq "$(grep -c '^\.TH ' "$page")" 1 "$(basename "$page") has one .TH line"
    expect_eq "$(th_version "$page")" "$want" \
        "$(basename "$page") .TH says the Makefile's VERSION (make man-version writes it)"
done
check "doc/ has man pages" test "$pages" -gt 0

# make man-version on a copy of the pages, with another version: every .TH line takes it, and
# nothing else in a page changes.
mkdir -p "$TMP/doc"
cp "$ROOT"/doc/*.1 "$TMP/doc/"
make --no-print-directory -s -C "$ROOT" man-version VERSION=9.8.7 MAN1="$(echo "$TMP"/doc/*.1)" \
    > "$TMP/make.out" 2>&1
rc=$?
err=$(cat "$TMP/make.out")
expect_rc 0 "make man-version"
for page in "$TMP"/doc/*.1; do
    n=$(basename "$page")
    expect_eq "$(th_version "$page")" 9.8.7 "make man-version rewrote $n's .TH"
    expect_eq "$(diff "$ROOT/doc/$n" "$page" | grep -c '^[<>]')" 2 \
        "make man-version changed only $n's .TH line"
done

done_testing
