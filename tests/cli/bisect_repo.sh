# tests/cli/bisect_repo.sh: the repository tare bisect is tested (and benchmarked) on: 40
# commits of a small C program; commit 12 does not build, 23 makes its loop 5% longer (+80,000
# instructions), 31 adds 2% more allocations (5,000 -> 5,100). Tags c1..c40.
# make_repo DIR: the issue's repository, 40 commits of a small C program.
make_repo() {
    local dir=$1 k loop allocs broken subject
    mkdir -p "$dir"
    git -C "$dir" init -q
    git -C "$dir" config user.email bisect@example.org
    git -C "$dir" config user.name "tare test"
    for k in $(seq 1 40); do
        loop=200000; allocs=5000; broken=""; subject="commit $k: version $k"
        [ "$k" -ge 23 ] && loop=210000
        [ "$k" -ge 31 ] && allocs=5100
        [ "$k" -eq 12 ] && broken="this line does not compile;" && \
            subject="commit 12: does not build"
        [ "$k" -eq 23 ] && subject="commit 23: the loop 5% longer"
        [ "$k" -eq 31 ] && subject="commit 31: 2% more allocations"
        cat > "$dir/prog.c" <<EOF
/* prog.c: tare bisect's test program, version $k. */
#include <stdio.h>
#include <stdlib.h>
#define VERSION $k
#define LOOP $loop
#define ALLOCS $allocs
$broken
int main(void)
{
    volatile unsigned long acc = 0;
    for (long i = 0; i < LOOP; i++)
        acc += (unsigned long)i * i;
    for (int i = 0; i < ALLOCS; i++) {
        volatile char *p = malloc(64);
        for (int k = 0; k < 64; k++)
            p[k] = (char)k;
        acc += p[7];
        free((void *)p);
    }
    printf("version %d: %lu\n", VERSION, acc);
    return 0;
}
EOF
        git -C "$dir" add prog.c
        GIT_AUTHOR_DATE="2026-11-01T00:$(printf %02d "$k"):00Z" \
            GIT_COMMITTER_DATE="2026-11-01T00:$(printf %02d "$k"):00Z" \
            git -C "$dir" commit -q -m "$subject"
        git -C "$dir" tag "c$k"
    done
}

# make_wall_repo DIR SLEEPER: 12 commits of a run.sh that sleeps with the sleeper fixture:
# 0.05 s up to commit 8, 0.15 s (3 times as long) from commit 9 on; commit 6 alternates between
# no sleep (faster than good) and 0.4 s (far slower) from one run to the next, so that tare ab's
# interval takes in both and cannot decide it (in 20 pairs: --max-pairs 20). Tags w1..w12.
make_wall_repo() {
    local dir=$1 sleeper=$2 k body subject
    mkdir -p "$dir"
    git -C "$dir" init -q
    git -C "$dir" config user.email bisect@example.org
    git -C "$dir" config user.name "tare test"
    printf '.n\n' > "$dir/.gitignore"
    for k in $(seq 1 12); do
        subject="commit $k: version $k"
        body="exec '$sleeper' 0.05"
        [ "$k" -ge 9 ] && body="exec '$sleeper' 0.15" && subject="commit $k: version $k"
        [ "$k" -eq 9 ] && subject="commit 9: sleeps 3 times as long"
        if [ "$k" -eq 6 ]; then
            subject="commit 6: sometimes fast, sometimes slow"
            body="n=0; [ -f .n ] && read -r n < .n; echo \$((n + 1)) > .n
[ \$((n % 2)) -eq 0 ] && exit 0; exec '$sleeper' 0.4"
        fi
        printf '# run.sh: tare bisect --metric wall test program, version %s.\n%s\n' "$k" \
            "$body" > "$dir/run.sh"
        git -C "$dir" add run.sh .gitignore
        GIT_AUTHOR_DATE="2026-11-02T00:$(printf %02d "$k"):00Z" \
            GIT_COMMITTER_DATE="2026-11-02T00:$(printf %02d "$k"):00Z" \
            git -C "$dir" commit -q -m "$subject"
        git -C "$dir" tag "w$k"
    done
}

# make_counter_repo DIR: 12 commits of a program that reports its own counters (as the seed's
# MUTSU_VM_STATS does): on stderr with VM_STATS=1, else through $TARE_METRICS_OUT when tare
# sets it. steps is 1000 up to commit 6 and 1100 (10% more) from commit 7 on, with the same
# work (the instructions do not move); calls is 50 throughout. Tags k1..k12.
make_counter_repo() {
    local dir=$1 k steps subject
    mkdir -p "$dir"
    git -C "$dir" init -q
    git -C "$dir" config user.email bisect@example.org
    git -C "$dir" config user.name "tare test"
    for k in $(seq 1 12); do
        steps=1000; subject="commit $k: version $k"
        [ "$k" -ge 7 ] && steps=1100
        [ "$k" -eq 7 ] && subject="commit 7: 10% more steps"
        cat > "$dir/prog.c" <<EOF
/* prog.c: tare bisect --metric NAME's test program, version $k. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
    volatile unsigned long acc = 0;
    for (long i = 0; i < 100000; i++)
        acc += (unsigned long)i;
    const char *stats = getenv("VM_STATS"), *out = getenv("TARE_METRICS_OUT");
    FILE *f = stats && strcmp(stats, "1") == 0 ? stderr : out ? fopen(out, "a") : NULL;
    if (f) {
        fprintf(f, f == stderr ? "steps: %d\ncalls: 50\n" : "steps %d\ncalls 50\n", $steps);
        if (f != stderr)
            fclose(f);
    }
    printf("version $k: %lu\n", acc);
    return 0;
}
EOF
        git -C "$dir" add prog.c
        GIT_AUTHOR_DATE="2026-11-03T00:$(printf %02d "$k"):00Z" \
            GIT_COMMITTER_DATE="2026-11-03T00:$(printf %02d "$k"):00Z" \
            git -C "$dir" commit -q -m "$subject"
        git -C "$dir" tag "k$k"
    done
}
