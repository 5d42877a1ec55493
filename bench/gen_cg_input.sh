#!/usr/bin/env bash
# bench/gen_cg_input.sh OUT.c N: a generated C file of N small functions (loops, switches,
# structs, calls) for gcc's cc1 to chew on, so that callgrind writes a big, real profile.
set -eu
out=$1 n=${2:-400}
{
    echo '#include <stddef.h>'
    echo 'struct s { int a, b; double c; char name[16]; };'
    for i in $(seq 1 "$n"); do
        cat <<C
static int helper_$i(struct s *p, int k) { int r = 0;
    for (int j = 0; j < k; j++) { r += p->a * j + p->b; if (r > $i) r -= j; } return r; }
int fn_$i(struct s *p, int x) {
    switch (x % 7) { case 0: return helper_$i(p, x) + $i; case 1: p->c *= 1.5; break;
    case 2: p->a += x; break; case 3: for (int i = 0; i < x; i++) p->name[i % 16] = (char)i; break;
    default: p->b ^= x; }
    return (int)p->c + p->a - p->b + helper_$i(p, $i);
}
C
    done
} > "$out"
