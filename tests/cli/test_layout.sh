# scripts/core-layout and src/core's parts (HACKING.md, "The layers"): every core file lives in
# the folder of its part, a part includes only the parts below it, and a file out of its place
# or an include across the layers is named. The faults are made in a copy of the tree.
. "$(dirname "$0")/lib.sh"
root=${TARE_ROOT:-$PWD}
layout="$root/scripts/core-layout"

(cd "$root" && "$layout" --check) > "$TMP/out" 2>&1
expect_eq "$?" 0 "every src/core file is in its part's folder: $(head -3 "$TMP/out")"
expect_empty "$(cd "$root" && ls src/core/*.[ch] 2>/dev/null)" "no flat file left in src/core"
nparts=$(cd "$root" && ls -d src/core/*/ | grep -c .)
expect_eq "$nparts" 5 "five parts: $(cd "$root" && ls -d src/core/*/ | tr '\n' ' ')"
(cd "$root" && "$layout" --layers) > "$TMP/out" 2>&1
expect_eq "$?" 0 "each part includes only the parts below it: $(head -3 "$TMP/out")"
expect_empty "$(cd "$root" && grep -rlE '#include "core/[a-z_]+\.h"' src tests bench)" \
    "no include of a flat core path"
missing=$(cd "$root" && grep -rhoE '#include "core/[a-z_]+/[a-z_]+\.h"' src tests bench |
    sed 's/#include "//; s/"$//' | sort -u | while read -r h; do
        [ -f "src/$h" ] || echo "$h"; done)
expect_empty "$missing" "every core include resolves"
expect_empty "$(cd "$root" && grep -rn 'struct target\b' src bench tests/unit)" \
    "one name for a measured series: no struct target left"

# A copy of the tree to break.
copy=$TMP/copy
mkdir -p "$copy"
(cd "$root" && cp -r src scripts "$copy/")
(cd "$copy" && git init -q && git add -A &&
    git -c user.email=t@t -c user.name=t commit -qm copy) > /dev/null 2>&1
check "the copy is a repository" test -d "$copy/.git"

printf '/* stray.c: no part. */\n' > "$copy/src/core/stray.c"
ROOT=$copy "$layout" --check > "$TMP/out" 2>&1
expect_eq "$?" 1 "a flat core file with no part fails the check"
expect_match "$(cat "$TMP/out")" "src/core/stray\\.\\[ch\\] has no part" "and is named"
rm "$copy/src/core/stray.c"

git -C "$copy" mv src/core/util/json.c src/core/engine/json.c
ROOT=$copy "$layout" --check > "$TMP/out" 2>&1
expect_eq "$?" 1 "a file in another part's folder fails the check"
expect_match "$(cat "$TMP/out")" "src/core/engine/json\\.c is in engine/, its part is util" \
    "and says where it belongs"
git -C "$copy" mv src/core/engine/json.c src/core/util/json.c

printf '#include "core/engine/session.h"\n' >> "$copy/src/core/util/stats.c"
ROOT=$copy "$layout" --layers > "$TMP/out" 2>&1
expect_eq "$?" 1 "a util file including the engine fails the layers"
expect_match "$(cat "$TMP/out")" "src/core/util/stats\\.c: includes core/engine/" \
    "and names the file and the part"
printf '#include "cli/out.h"\n' >> "$copy/src/core/history/history.c"
ROOT=$copy "$layout" --layers > "$TMP/out" 2>&1
expect_match "$(cat "$TMP/out")" "src/core/history/history\\.c: includes src/cli" \
    "the library including the CLI is named"

ROOT=$copy "$layout" --move > "$TMP/out" 2>&1
expect_eq "$?" 1 "--move on a moved tree refuses"
expect_match "$(cat "$TMP/out")" "already moved" "and says so"

done_testing
