#!/usr/bin/env bash
# On the device machine: build (no tests) and benchmark the CPU backend on its cores over the
# issue-2 suites, plus the quick suite on the best backend. Logs and CSVs go to $OUT.
# Usage: bash bench/device_cpu_bench.sh [LIMIT_6D]
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
limit6d=${1:-0}
{ lscpu | head -20; nproc; free -g; } > "$out/machine.txt" 2>&1
cmake -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/build.log" 2>&1 &&
  cmake --build build-dev -j16 >> "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
x=./build-dev/tools/xpose
lim=(); [ "$limit6d" -gt 0 ] && lim=(--limit "$limit6d")
$x bench quick --csv "$out/quick-auto.csv" 2>&1 | tail -25
for s in cutt-random ttlg6d-16 ttlg6d-15 ttlg6d-17; do
  l=(); [[ $s == ttlg6d-* ]] && l=("${lim[@]}")
  $x bench $s --backend cpu "${l[@]}" --csv "$out/cpu-$s.csv" --quiet 2>&1 | tail -6
done
