# scripts/check-style: each house rule flags a file that breaks it, names the line, and a
# "style: allow RULE" comment on the line lets that one line through.
. "$(dirname "$0")/lib.sh"
style="${TARE_ROOT:-$PWD}/scripts/check-style"
mkdir -p "$TMP/src/core"

long=$(printf 'x%.0s' $(seq 1 90))
# Line 4 is 101 characters; line 5 is 100 characters, one of them two bytes (×), so it passes.
cat > "$TMP/a.c" <<C
/* a.c: a file that breaks every rule a .c file can. */
#include <string.h>
#include <stdlib.h>
int v = 1; /* ${long:0:84} */
int w = 2; /* ${long:0:82}× */
void f(char *d, const char *s)
{
    strcpy(d, s);
    strcat(d, s); /* style: allow banned-call -- the test's own opt-out */
    const char *t = "strcpy(";
    exit(1);
}
int main(void)
{
    exit(0);
}
C
"$style" "$TMP/a.c" > "$TMP/out" 2> "$TMP/err"
rc=$?; out=$(cat "$TMP/out")
expect_eq "$rc" 1 "a file breaking the rules fails"
expect_match "$out" "a\.c:4: column: line is 101 columns, the limit is 100" "column over the limit"
expect_no_match "$out" "a\.c:5:" "100 characters (one of two bytes) is within the limit"
expect_match "$out" "a\.c:8: banned-call:" "strcpy flagged"
expect_no_match "$out" "a\.c:9:" "the opt-out lets its line through"
expect_no_match "$out" "a\.c:10:" "a name inside a string is not a call"
expect_match "$out" "a\.c:11: exit: exit\(\) outside main\(\)" "exit outside main flagged"
expect_no_match "$out" "a\.c:15:" "exit inside main is allowed"
expect_eq "$(grep -c . "$TMP/out")" 3 "three problems, no more"

printf '#include <stdio.h>\nint x;\n' > "$TMP/b.c"
"$style" "$TMP/b.c" > "$TMP/out" 2>&1
expect_match "$(cat "$TMP/out")" "b\.c:1: file-head:" "a file without its opening comment"

cat > "$TMP/src/core/c.h" <<'C'
/* c.h: a core header with one undocumented declaration. */
/* Documented, with the next one in its block. */
int c_one(void);
int c_two(int a,
          int b);

int c_three(void);
C
"$style" "$TMP/src/core/c.h" > "$TMP/out" 2>&1
rc=$?; out=$(cat "$TMP/out")
expect_eq "$rc" 1 "an undocumented core declaration fails"
expect_match "$out" "c\.h:7: header-doc:" "the declaration after a blank line is flagged"
expect_eq "$(grep -c . <<<"$out")" 2 "only that one (and the count line)"

"$style" > "$TMP/out" 2>&1
rc=$?
expect_eq "$rc" 0 "the tree keeps the house rules: $(head -3 "$TMP/out")"

done_testing
