#!/usr/bin/env bash
# Issues 13 and 14 in one device call: element sizes (the dtypes suite, xpose against PyTorch,
# CuPy and JAX), plan generalization (the fresh suite, heuristic against measure planning) and
# latency against size (the sizes suite with --latency, PyTorch batched and single). Each phase
# writes into $OUT/dtypes-run/ as it ends and appends its digest to $OUT/summary.md, so a call
# stopped at its limit still returns what was done. Binaries: .carry/ (bench/build_carry.sh on
# the build machine) or, failing that, a build here in build-dev.
# Usage (device): bash bench/device_dtypes.sh [PHASE...]   (default: all; phases: dtypes
#   frameworks fresh sizes). Expected on the H100: about 1.5, 2, 1 and 1.5 minutes.
set -uo pipefail
phases=" ${*:-dtypes frameworks fresh sizes} "
want() { [[ $phases == *" $1 "* ]]; }
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/xpose-out}; r=$out/dtypes-run; mkdir -p "$r"
sum=$out/summary.md
log() { echo "== $* ($(date +%T))" | tee -a "$sum"; }
pack() { tar -czf "$out/dtypes-run.tar.gz" -C "$r" . 2>/dev/null; }
x=.carry/xpose
if ! $x --help > /dev/null 2>&1; then
  log "no carried binary; building build-dev"
  cmake -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DXPOSE_BUILD_TESTS=OFF > "$r/build.log" 2>&1 &&
    cmake --build build-dev -j16 --target xpose_tool >> "$r/build.log" 2>&1 ||
    { tail -40 "$r/build.log"; exit 1; }
  x=build-dev/tools/xpose
fi
export PYTHONUNBUFFERED=1
want dtypes && { log "dtypes: 505 cases, 1-16 byte elements, heuristic plans";
timeout 300 $x bench dtypes --backend cuda --quiet --csv "$r/dtypes.csv" > "$r/dtypes.txt" \
  2> "$r/dtypes.err"; echo "exit $?" >> "$sum"; grep -E "^\|" "$r/dtypes.txt" >> "$sum"; pack; }
want frameworks && { log "dtypes against PyTorch, CuPy and JAX (120 cases)";
timeout 100 $x bench dtypes --backend cuda --limit 120 --quiet --csv "$r/dtypes-120.csv" \
  > /dev/null 2>&1
timeout 300 python3 tools/bench_frameworks.py --xpose $x --suite dtypes --limit 120 --reps 10 \
  --xpose-csv "$r/dtypes-120.csv" --csv "$r/dtypes-frameworks.csv" > "$r/frameworks.txt" \
  2> "$r/frameworks.err"; echo "exit $?" >> "$sum"; cat "$r/frameworks.txt" >> "$sum"
python3 tools/plot_bench.py dtypes "$r/dtypes-120.csv" "$r/dtypes-frameworks.csv" \
  -o "$r/dtypes.png" >> "$sum" 2>&1; pack; }
want fresh && { log "fresh: heuristic against measure planning";
OUT=$r XPOSE=$x timeout 300 bash bench/plan_generalization.sh >> "$sum" 2>&1
echo "exit $?" >> "$sum"; pack; }
want sizes && { log "sizes: one call against batches, 4 KiB to 1 GiB";
timeout 200 $x bench sizes --backend cuda --latency --quiet --csv "$r/sizes.csv" \
  > "$r/sizes.txt" 2> "$r/sizes.err"; echo "exit $?" >> "$sum"; cat "$r/sizes.txt" >> "$sum"
for mode in batched single; do
  flag=(); [ $mode = single ] && flag=(--single)
  timeout 100 python3 tools/bench_frameworks.py --xpose $x --suite sizes --frameworks torch \
    --reps 10 "${flag[@]}" --csv "$r/sizes-torch-$mode.csv" > "$r/sizes-torch-$mode.txt" \
    2> "$r/sizes-torch-$mode.err"; echo "torch $mode: exit $?" >> "$sum"
  cat "$r/sizes-torch-$mode.txt" >> "$sum"
done; pack; }
log "done"
