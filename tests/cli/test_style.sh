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

# Scripts: the opening comment may follow a #! line; a line may pass the limit only by one
# word (blanks inside quotes, across lines too, do not split it) too long for a line of its own.
long=$(printf 'x%.0s' $(seq 1 100))
cat > "$TMP/s.sh" <<SH
#!/bin/sh
# s.sh: a script with long lines.
echo "${long:0:60}" "${long:0:40}"
grep -E '^${long:0:95}' file
awk 'BEGIN {
    print "${long:0:50} ${long:0:50}" }' "${long:0:5}"
echo "${long:0:30} # not a comment" ${long:0:70} # a comment: ${long:0:30}
SH
"$style" "$TMP/s.sh" > "$TMP/out" 2>&1
rc=$?; out=$(cat "$TMP/out")
expect_eq "$rc" 1 "a script with a breakable long line fails"
expect_match "$out" "s\.sh:3: column: line is 110 columns" "two words that fit on lines of their own"
expect_no_match "$out" "s\.sh:4:" "one word too long for any line passes"
expect_no_match "$out" "s\.sh:6:" "a program's line inside its quotes is one word"
expect_match "$out" "s\.sh:7: column:" "a quoted # starts no comment; the words are measured"
expect_no_match "$out" "file-head" "the comment after the #! line is the opening comment"
expect_eq "$(grep -c . <<<"$out")" 3 "two problems (and the count line)"
printf '#!/bin/sh\nset -eu\n' > "$TMP/t.sh"
"$style" "$TMP/t.sh" > "$TMP/out" 2>&1
expect_match "$(cat "$TMP/out")" "t\.sh:2: file-head:" "a script without its opening comment"

# Under tests/, examples/ and bench/ only column and file-head apply: test code may sprintf.
mkdir -p "$TMP/tests/unit"
printf '/* t.c: test code. */\nvoid f(char *d) { sprintf(d, "x"); exit(1); }\n' \
    > "$TMP/tests/unit/t.c"
"$style" "$TMP/tests/unit/t.c" > "$TMP/out" 2>&1
expect_eq "$?" 0 "sprintf and exit() in test code: $(cat "$TMP/out")"
printf 'void f(void);\n' > "$TMP/tests/unit/u.c"
"$style" "$TMP/tests/unit/u.c" > "$TMP/out" 2>&1
expect_match "$(cat "$TMP/out")" "u\.c:1: file-head:" "test code still opens with its comment"

# src/core never prints, writes to stdout/stderr or exits; a FILE * it is given is fine.
cat > "$TMP/src/core/p.c" <<'C'
/* p.c: a core file that prints. */
#include <stdio.h>
void p_one(FILE *f)
{
    fprintf(f, "to the caller's stream\n");
    printf("on its own\n");
    fputs("x", stderr);
    puts("printf(");
    exit(2);
    _exit(3); /* style: allow core-prints -- the test's own opt-out */
}
C
"$style" "$TMP/src/core/p.c" > "$TMP/out" 2>&1
rc=$?; out=$(cat "$TMP/out")
expect_eq "$rc" 1 "a core file that prints fails"
expect_no_match "$out" "p\.c:5:" "fprintf to a stream it is given is allowed"
expect_match "$out" "p\.c:6: core-prints:" "printf flagged"
expect_match "$out" "p\.c:7: core-prints:" "stderr flagged"
expect_match "$out" "p\.c:8: core-prints:" "puts flagged (not the name in its string)"
expect_match "$out" "p\.c:9: core-prints:" "exit flagged"
expect_no_match "$out" "p\.c:10:" "the opt-out lets its line through"
cp "$TMP/src/core/p.c" "$TMP/p.c"
"$style" "$TMP/p.c" > "$TMP/out" 2>&1
expect_no_match "$(cat "$TMP/out")" "core-prints" "outside src/core printing is the CLI's job"

# function-length: 150 lines from a function's name to its closing brace pass, 151 fail
{ printf '/* len.c: two functions, 150 and 151 lines. */\nint f(void)\n{\n'
  for i in $(seq 147); do echo '    (void)0;'; done
  printf '}\nint g(void)\n{\n'
  for i in $(seq 148); do echo '    (void)0;'; done
  echo '}'; } > "$TMP/src/core/len.c"
"$style" "$TMP/src/core/len.c" > "$TMP/out" 2>&1
rc=$?; out=$(cat "$TMP/out")
expect_eq "$rc" 1 "a function of 151 lines fails"
expect_no_match "$out" "len\.c:2:" "a function of 150 lines passes"
expect_match "$out" "len\.c:152: function-length: a function of 151 lines" \
    "the long one flagged at its first line, with its length"

"$style" > "$TMP/out" 2>&1
rc=$?
expect_eq "$rc" 0 "the tree keeps the house rules: $(head -3 "$TMP/out")"
# The tree's default set reaches tests/, examples/ and bench/, their scripts too, but not the
# fuzz corpora or the golden files.
"$style" --list > "$TMP/list"
for f in src/core/history/history.c include/tare/scope.h tests/cli/test_style.sh tests/run \
    tests/unit/unit.h tests/fixtures/cg/inl.h examples/sort.c examples/suite.ini bench/run \
    bench/ab_aa.py tests/cli/trend_browser.js scripts/install-deps; do
    check "check-style checks $f" grep -qx "$f" "$TMP/list"
done
expect_eq "$(grep -c -e '^tests/fuzz/corpus' -e '^tests/golden/' -e '\.tsv$' "$TMP/list")" 0 \
    "no corpus, golden file or data in the default set"

done_testing
