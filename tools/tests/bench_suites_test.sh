#!/usr/bin/env bash
# The `xpose bench` suites as data (ctest xpose_tool_bench_suites): the built-in suites' case
# lists are fixed (their checksums are those of the lists before per-case element sizes came),
# per-case element sizes survive --list, suite files and --limit, the fresh suite replays from
# its seed, and a mixed-size suite runs on the CPU with --latency.
# Usage: bench_suites_test.sh XPOSE
set -euo pipefail
x=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

while read -r sum suite; do
  got=$("$x" bench "$suite" --list | md5sum | cut -d' ' -f1)
  [ "$got" = "$sum" ] || fail "$suite --list changed ($got, was $sum)"
done <<'SUMS'
94329de0d3616ac83401a983052a2f29 quick
533f5d9218b36ddcec38e6ba4037d275 ttlg6d-15
d3ad34cf5a06730df921d092b49cd047 ttlg6d-16
7be0267685fcff7e5a3e0d7ccc430573 ttlg6d-17
3116b0f823135e249aa3f1825c8f51cb cutt-random
b32cc99a40dbdf205478fa6fa91606b7 cutt-rank8
34063cc6fde42defd8e65c3e296abd1d cutt-rank12
9bdc32a84eb4837328cabc2f8cc13f5a square
55237be23070decdc3f2bcc70adb4c3f small
1b1368553e6516c5a4f3e16ed86c3740 all
SUMS
[ "$("$x" bench cutt-random --list --limit 7 | md5sum | cut -d' ' -f1)" = \
  b60e1058b44a0903c33f7086e590ac90 ] || fail "cutt-random --limit 7 changed"

"$x" bench dtypes --list > "$tmp/dtypes.txt"
[ "$(wc -l < "$tmp/dtypes.txt")" = 505 ] || fail "dtypes has $(wc -l < "$tmp/dtypes.txt") cases"
"$x" bench "$tmp/dtypes.txt" --list | cmp -s - "$tmp/dtypes.txt" || fail "dtypes: file round trip"
sizes=$("$x" bench dtypes --list --limit 5 | awk '{print $NF}' | tr '\n' ' ')
[ "$sizes" = "elem=1 elem=2 elem=4 elem=8 elem=16 " ] || fail "dtypes --limit 5: $sizes"
[ "$("$x" bench sizes --list | wc -l)" = 90 ] || fail "sizes: not 90 cases"

"$x" bench fresh --list --seed 7 > "$tmp/a.txt" 2> "$tmp/a.err"
"$x" bench fresh --list --seed 7 > "$tmp/b.txt" 2> /dev/null
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "fresh --seed 7 differs between runs"
grep -qx "fresh: seed 7" "$tmp/a.err" || fail "fresh: no seed line"
[ "$(wc -l < "$tmp/a.txt")" = 60 ] || fail "fresh: not 60 cases"
"$x" bench fresh --list 2>&1 >/dev/null | grep -q "^fresh: seed [0-9]" || fail "fresh: no seed"
if "$x" bench quick --seed 3 --list > /dev/null 2>&1; then fail "--seed without fresh accepted"; fi

echo "bad a 4,5 1,0 elem=3" > "$tmp/bad.txt"
set +e
"$x" bench "$tmp/bad.txt" --list > /dev/null 2> "$tmp/bad.err"
rc=$?
set -e
[ $rc = 2 ] && grep -q "elem: 3 is not one of" "$tmp/bad.err" || fail "elem=3 accepted (rc $rc)"

printf 'mix a 64,32 1,0 elem=2\nmix b 64,32 1,0\nmix c 16,16,8 2,0,1 elem=16\n' > "$tmp/mix.txt"
"$x" bench "$tmp/mix.txt" --backend cpu --reps 1 --latency --quiet --csv "$tmp/mix.csv" \
  > "$tmp/mix.out"
[ "$(cut -d, -f3 "$tmp/mix.csv" | tr '\n' ' ')" = "elem 2 8 16 " ] || fail "CSV elem column"
head -1 "$tmp/mix.csv" | grep -q ",plan,batch,single_us,copy_single_us,graph_us,copy_graph_us$" ||
  fail "latency CSV header"
[ "$(grep -cE '",20,[0-9.]+,[0-9.]+,0\.000,0\.000$' "$tmp/mix.csv")" = 3 ] ||
  fail "latency CSV columns"
grep -q "^|   16-byte" "$tmp/mix.out" || fail "no per-size summary row"
echo "bench suites: 1 passed, 0 failed"
