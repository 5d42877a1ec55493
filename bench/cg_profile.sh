#!/usr/bin/env bash
# bench/cg_profile.sh: prints the path of the large real callgrind profile the cg benchmarks
# read (gcc's cc1 compiling a generated file, --dump-instr=yes, 27 MB), making it the first
# time (about half a minute) and caching it under $BUILD/bench/cg/.
set -eu
BUILD=${BUILD:-build}
dir=$BUILD/bench/cg
prof=$dir/cc1.callgrind.out
for tool in valgrind gcc; do
    command -v "$tool" >/dev/null || { echo "cg_profile: needs $tool (Debian: valgrind, gcc)" \
        >&2; exit 1; }
done
mkdir -p "$dir"
if [ ! -s "$prof" ]; then
    cc1=$(gcc -print-prog-name=cc1)
    bench/gen_cg_input.sh "$dir/input.c" 20
    echo "cg_profile: making the profile (callgrind on $cc1 -O2, once; cached in $prof)" >&2
    valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes --separate-callers=2 \
        --callgrind-out-file="$prof.tmp" "$cc1" -quiet -O2 "$dir/input.c" -o /dev/null \
        > /dev/null 2> "$dir/valgrind.log"
    mv "$prof.tmp" "$prof"
fi
echo "$prof"
