# tests/cli/backfill_repo.sh: the repository tare run --revisions is tested (and benchmarked)
# on: 40 commits of a small C program whose instructions step +10% at commit 25 (its loop
# 20,000 -> 22,000 iterations) and whose build fails at commit 9. Commit dates one a minute.
# make_backfill_repo DIR LOG: the 40 commits, tagged c1..c40; suite.ini (count = yes, build =,
# each build adding a line to LOG) and benchmarks/one.txt in each.
make_backfill_repo() {
    local dir=$1 log=$2 k loop broken subject
    git init -q "$dir"
    git -C "$dir" config user.email backfill@example.org
    git -C "$dir" config user.name "tare test"
    mkdir -p "$dir/benchmarks"
    : > "$dir/benchmarks/one.txt"
    printf '[suite]\ncommand = ./prog {bench}\nbenchmarks = benchmarks/*.txt\ncount = yes\n%s\n' \
        "build = cc -O1 -o prog prog.c && echo built >> $log" > "$dir/suite.ini"
    for k in $(seq 1 40); do
        loop=20000; broken=""; subject="commit $k: version $k"
        [ "$k" -ge 25 ] && loop=22000
        [ "$k" -eq 25 ] && subject="commit 25: the loop 10% longer"
        [ "$k" -eq 9 ] && broken="this line does not compile;" && subject="commit 9: no build"
        printf '/* %d */\n#include <stdio.h>\n%s\nint main(void)\n{
    volatile unsigned long a = 0;\n    for (long i = 0; i < %d; i++)\n        a += (unsigned long)i * i;
    printf("%%lu\\n", a);\n    return 0;\n}\n' "$k" "$broken" "$loop" > "$dir/prog.c"
        git -C "$dir" add prog.c suite.ini benchmarks
        GIT_AUTHOR_DATE="2026-11-01T00:$(printf %02d "$k"):00Z" \
            GIT_COMMITTER_DATE="2026-11-01T00:$(printf %02d "$k"):00Z" \
            git -C "$dir" commit -q -m "$subject"
        git -C "$dir" tag "c$k"
    done
}
