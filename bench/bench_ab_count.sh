#!/usr/bin/env bash
# bench/bench_ab_count.sh: what tare ab --count's rounds cost (one pass of A and one of B side
# by side, each round in a later second of the clock; six passes a side when the counts vary)
# against the same commands' passes all at once (tare count -j N of A, A, B, B: two passes of
# each, side by side, as ab took them before), alternating, ROUNDS rounds; on a program that
# does not vary (busy) and on Lua (its string hash seeded from time(NULL)). Then AA runs of
# tare ab --count A/A on that Lua script: how many it calls "no change". TARE names the binary.
set -eu
TARE=${TARE:-build/tare}
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
AA=${AA:-10}
N=$(nproc)
command -v valgrind >/dev/null || { echo "bench_ab_count: needs valgrind" >&2; exit 1; }
command -v lua5.4 >/dev/null || { echo "bench_ab_count: needs lua5.4" >&2; exit 1; }
[ -x "$BUILD/fixtures/busy" ] || { echo "bench_ab_count: no $BUILD/fixtures/busy" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/keys.lua" <<'LUA'
local t, s = {}, 0
for i = 1, 3000 do t["k" .. i] = i end
for _, v in pairs(t) do s = s + v end
print(s)
LUA
now() { date +%s.%N; }
med() { sort -n | awk \
    '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "tare ab --count (rounds) against tare count -j $N of A A B B, $ROUNDS rounds, alternating"
for r in $(seq "$ROUNDS"); do
    for c in busy lua; do
        if [ "$c" = busy ]; then a="$BUILD/fixtures/busy 20"; b="$BUILD/fixtures/busy 21"
        else a="lua5.4 $tmp/keys.lua"; b=$a; fi
        t0=$(now)
        "$TARE" ab --pairs 1 --warmup 0 --count "$a" "$b" > /dev/null 2>&1
        t1=$(now)
        "$TARE" count -j "$N" -f tsv "$a" "$a" "$b" "$b" > /dev/null 2>&1
        t2=$(now)
        echo "$c ab $(echo "$t1 - $t0" | bc)" >> "$tmp/times"
        echo "$c count $(echo "$t2 - $t1" | bc)" >> "$tmp/times"
    done
done
printf '%-6s %14s %18s %8s\n' program "ab --count s" "count -j $N s" ratio
for c in busy lua; do
    ma=$(awk -v c="$c" '$1 == c && $2 == "ab" { print $3 }' "$tmp/times" | med)
    mc=$(awk -v c="$c" '$1 == c && $2 == "count" { print $3 }' "$tmp/times" | med)
    printf '%-6s %14.2f %18.2f %8.2f\n' "$c" "$ma" "$mc" "$(echo "scale=3; $ma / $mc" | bc)"
done
echo "tare ab --pairs 1 --count A/A on lua5.4 keys.lua, $AA runs: the counts' verdicts"
for i in $(seq "$AA"); do
    "$TARE" ab --pairs 1 --warmup 0 --count --format=json "lua5.4 $tmp/keys.lua" \
        "lua5.4 $tmp/keys.lua" 2> /dev/null | tr -d '\n' |
        sed -n 's/.*"runs": \([0-9]*\).*"work": "\([a-z]*\)".*/\2 (\1 passes)\n/p'
done | grep . | sort | uniq -c
