# Interrupts at the edges: a signal while a temporary worktree is removed (tare ab --base,
# tare bisect) still ends in 130 (SIGINT) or 143 (SIGTERM), never 0 with a result; the
# measured group gets SIGTERM first, so a compiler removes its temporaries (SIGKILL at once
# left them in TMPDIR); a history branch is named as git names branches.
. "$(dirname "$0")/lib.sh"
GIT=$(command -v git)
PY=/usr/bin/python3
R=$TMP/repo
mkdir -p "$R" "$TMP/wrap"
git -C "$R" init -q
git -C "$R" config user.email t@example.org
git -C "$R" config user.name "tare test"
for k in 1 2 3; do
    echo "$k" > "$R/f"
    git -C "$R" add f
    git -C "$R" commit -qm "c$k"
done
# A git that takes two seconds over "worktree remove", and says when it starts.
cat > "$TMP/wrap/git" <<EOF
#!/bin/sh
case "\$*" in *"worktree remove"*) touch "$TMP/removing"; sleep 2 ;; esac
exec "$GIT" "\$@"
EOF
chmod +x "$TMP/wrap/git"

# during_removal SIG WANT DESC ARGS...: tare ARGS run in the repository with the slow git;
# SIG sent to tare once the removal has begun; the exit status must be WANT.
during_removal() {
    local sig=$1 want=$2 desc=$3; shift 3
    rm -f "$TMP/removing"
    (cd "$R" && exec env PATH="$TMP/wrap:$PATH" "$TARE" "$@" > "$TMP/out" 2> "$TMP/err") &
    local pid=$! i
    for i in $(seq 600); do [ -e "$TMP/removing" ] && break; sleep 0.05; done
    kill -"$sig" "$pid"
    wait "$pid"
    local got=$?
    expect_eq "$got $(git -C "$R" worktree list | wc -l)" "$want 1" \
        "$desc: exit $want, the worktree gone ($(tail -1 "$TMP/err"))"
}
for sig in INT TERM INT TERM; do
    want=130; [ $sig = TERM ] && want=143
    during_removal $sig $want "ab --base, SIG$sig during the worktree's removal" \
        ab --base HEAD -r 2 -w 0 -- true
done
for sig in INT TERM; do
    want=130; [ $sig = TERM ] && want=143
    during_removal $sig $want "bisect, SIG$sig during the worktrees' removal" \
        bisect --good HEAD~2 --bad HEAD --build true -- true
done

# A commit subject that holds terminal escapes and bytes that are not UTF-8, through bisect's
# text and JSON (tests/cli/check_outputs.py: strict JSON; no control character in the text).
echo 4 > "$R/f"
git -C "$R" commit -qam "$(printf 'evil \033]0;title\007\033[2J \377 subject')"
(cd "$R" && "$TARE" bisect --good HEAD~1 --bad HEAD --build true -f json -- true) \
    > "$TMP/bi.json" 2> /dev/null
expect_eq "$("$PY" "$(dirname "$0")/check_outputs.py" json "$TMP/bi.json")" ok \
    "bisect json with a hostile commit subject"
(cd "$R" && "$TARE" bisect --good HEAD~1 --bad HEAD --build true -- true) > "$TMP/bi.text" \
    2> /dev/null
expect_eq "$("$PY" "$(dirname "$0")/check_outputs.py" text "$TMP/bi.text")" ok \
    "bisect text with a hostile commit subject: escapes shown, not sent"

# SIGTERM before SIGKILL: gcc's driver removes its temporary files on SIGTERM.
if command -v cc > /dev/null; then
    awk 'BEGIN { print "int f(int x) {"; for (i = 0; i < 6000; i++)
                 printf "  x = x * %d + (x >> %d) ^ %d;\n", i % 97 + 3, i % 13 + 1, i
                 print "  return x; }" }' > "$TMP/big.c"
    for sig in INT TERM; do
        want=130; [ $sig = TERM ] && want=143
        rm -rf "$TMP/cctmp"
        mkdir "$TMP/cctmp"
        TMPDIR=$TMP/cctmp "$TARE" wall -r 1 -w 0 -S sh "cc -O2 -c $TMP/big.c -o $TMP/big.o" \
            > /dev/null 2>&1 &
        pid=$!
        for i in $(seq 400); do
            [ -n "$(ls "$TMP/cctmp")" ] && break
            sleep 0.05
        done
        seen=$(ls "$TMP/cctmp" | wc -l)
        kill -"$sig" "$pid"
        wait "$pid"
        got=$?
        # the signal came while cc had its temporaries (one or more, by how far it got)
        check "SIG$sig came while cc had temporaries ($seen)" test "$seen" -ge 1
        expect_eq "$got $(ls "$TMP/cctmp" | wc -l)" "$want 0" \
            "SIG$sig while cc compiles: exit $want, cc's temporaries removed ($(ls "$TMP/cctmp"))"
    done
fi

# Branch names as git names them: HEAD, a leading '-', ".." refused before anything is written.
printf 'date\tcommit\tbenchmark\tmedian_s\n2026-01-01T00:00:00Z\tabc\tb\t1\n' > "$TMP/rows"
for b in HEAD @{-1} 'a..b' 'x.lock'; do
    (cd "$R" && "$TARE" history append "$b:h.tsv" < "$TMP/rows") > /dev/null 2> "$TMP/err"
    expect_eq "$? $(grep -c 'is not a branch name git accepts' "$TMP/err")" "2 1" \
        "history append to branch '$b' refused"
done
expect_eq "$(git -C "$R" for-each-ref --format='%(refname)' refs/heads | tr '\n' ' ')" \
    "refs/heads/$(git -C "$R" symbolic-ref --short HEAD) " "no branch made by a refused name"
(cd "$R" && "$TARE" history append "bench/results:h.tsv" < "$TMP/rows") > /dev/null 2>&1
expect_eq "$? $(git -C "$R" show bench/results:h.tsv | tail -1 | cut -f3)" "0 b" \
    "a good branch name with a slash: written"

done_testing
