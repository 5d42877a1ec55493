# scripts/core-layout, the pending move of src/core into its parts (HACKING.md, "The layers"):
# every core file has a part, the move leaves every include resolving, and each part then
# includes only the parts below it. Run on a copy; the tree itself is not moved.
. "$(dirname "$0")/lib.sh"
root=${TARE_ROOT:-$PWD}
layout="$root/scripts/core-layout"

"$layout" --check > "$TMP/out" 2>&1
expect_eq "$?" 0 "every src/core file has its part: $(grep -v -- '->' "$TMP/out" | head -3)"
expect_eq "$(grep -c -- '-> src/core/' "$TMP/out")" \
    "$(ls "$root"/src/core/*.[ch] | sed 's|.*/||; s|\.[ch]$||' | sort -u | grep -c .)" \
    "one line per core module"

# A copy of the tree to move: the sources and everything that names them.
copy=$TMP/copy
mkdir -p "$copy/tests"
(cd "$root" && cp -r src include bench examples doc scripts Makefile README.md "$copy/" &&
    cp -r tests/unit tests/cli "$copy/tests/" && mkdir -p "$copy/tests/fuzz" &&
    cp tests/fuzz/*.[ch] "$copy/tests/fuzz/" && { [ ! -f HACKING.md ] || cp HACKING.md "$copy/"; })
(cd "$copy" && git init -q && git add -A &&
    git -c user.email=t@t -c user.name=t commit -qm copy) > /dev/null 2>&1
check "the copy is a repository" test -d "$copy/.git"

# A core file with no part stops it before anything moves.
printf '/* stray.c: no part. */\n' > "$copy/src/core/stray.c"
ROOT=$copy "$layout" --check > "$TMP/out" 2>&1
expect_eq "$?" 1 "a core file with no part fails the check"
expect_match "$(cat "$TMP/out")" "src/core/stray\\.\\[ch\\] has no part" "and is named"
rm "$copy/src/core/stray.c"

ROOT=$copy "$layout" --move > "$TMP/out" 2>&1
expect_eq "$?" 0 "the move: $(tail -2 "$TMP/out")"
expect_eq "$(ls "$copy"/src/core/*.[ch] 2>/dev/null | grep -c .)" 0 "no core file left flat"
for p in util profile history git engine; do
    check "src/core/$p/ holds files" test -n "$(ls "$copy/src/core/$p/")"
done
# Every include of a core header names a file that is there.
missing=$(cd "$copy" && grep -rhoE '#include "core/[a-z_/]+\.h"' src tests bench |
    sed 's/#include "//; s/"$//' | sort -u | while read -r h; do
        [ -f "src/$h" ] || echo "$h"; done)
expect_empty "$missing" "every core include resolves after the move"
expect_empty "$(cd "$copy" && grep -rlE '#include "core/[a-z_]+\.h"' src tests bench | head -3)" \
    "no include of a flat core path left"
check "the Makefile builds the parts" grep -q 'wildcard src/core/\*/\*\.c' "$copy/Makefile"
check "the lexer's -O3 rule follows it" grep -q 'src/core/profile/cg_lex\.o' "$copy/Makefile"

ROOT=$copy "$layout" --layers > "$TMP/out" 2>&1
expect_eq "$?" 0 "each part includes only the parts below it: $(head -3 "$TMP/out")"
# The check can fail: util may include nothing of the engine.
f=$(ls "$copy"/src/core/util/*.c | head -1)
sed -i '1a #include "core/engine/session.h"' "$f"
ROOT=$copy "$layout" --layers > "$TMP/out" 2>&1
expect_eq "$?" 1 "util including the engine fails"
expect_match "$(cat "$TMP/out")" "util/.*includes core/engine/" "and says which include"
done_testing
