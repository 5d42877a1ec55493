#!/usr/bin/env bash
# bench/bench_cg_lex.sh: the callgrind reader's lexer alone (bench/cg_lex_speed.c) on the large
# cc1 profile of bench_cg.sh, against counting the same bytes' newlines, as ratios; in one
# thread and in several. The whole read is bench_cg.sh's; this one judges a change to the
# lexer to a percent or two, which the whole read on a shared machine cannot.
set -eu
BUILD=${BUILD:-build}
prof=$(bench/cg_profile.sh)
make -s "$BUILD/libtare-core.a" BUILD="$BUILD"
cc -std=gnu11 -O2 -Isrc -o "$BUILD/cg_lex_speed" bench/cg_lex_speed.c "$BUILD/libtare-core.a" -lm \
    -pthread
"$BUILD/cg_lex_speed" "$prof" "${CG_LEX_PASSES:-15}"
