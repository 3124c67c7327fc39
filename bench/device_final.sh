#!/usr/bin/env bash
# The measured run behind docs/perf/: one device call (H100 + its 16 CPU cores) that builds
# everything, runs all tests (cpu and gpu labels), compute-sanitizer memcheck and racecheck on a
# representative set, every GPU suite with heuristic and (sampled) measured plans, PyTorch and
# CuPy on the same cases, and the CPU suites. Everything lands in $OUT/run.tar.gz plus a summary.
# Needs GoogleTest sources in .deps/googletest (carry .deps). Usage: bash bench/device_final.sh
set -uo pipefail
out=${OUT:-/tmp/xpose-out}; mkdir -p "$out"; r=$(mktemp -d); cd "$(dirname "$0")/.."
log() { echo "== $*" | tee -a "$r/summary.md"; }
{ git log -1 --format='commit %H %s' 2>/dev/null || echo "commit unknown"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; lscpu | grep -E "Model name|^CPU\(s\)|L3"; } > "$r/machine.txt" 2>&1
cmake -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DXPOSE_GTEST_SOURCE_DIR="$PWD/.deps/googletest" > "$r/build.log" 2>&1 &&
  cmake --build build-dev -j16 >> "$r/build.log" 2>&1 || { tail -40 "$r/build.log"; exit 1; }
x=./build-dev/tools/xpose
log "tests"; ctest --test-dir build-dev -j2 --output-on-failure > "$r/ctest.log" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$r/ctest.log" | tee -a "$r/summary.md"
t=./build-dev/tests/xpose_gpu_tests; f='CudaCorrectness.ForcedSchemas:CudaCorrectness.UnalignedPointers'
log "memcheck"; compute-sanitizer --tool memcheck --error-exitcode 9 $t --gtest_filter=$f > "$r/memcheck.log" 2>&1; echo "memcheck exit $?" | tee -a "$r/summary.md"; tail -3 "$r/memcheck.log" >> "$r/summary.md"
log "racecheck"; compute-sanitizer --tool racecheck --error-exitcode 9 $t --gtest_filter=CudaCorrectness.ForcedSchemas > "$r/racecheck.log" 2>&1; echo "racecheck exit $?" | tee -a "$r/summary.md"; tail -3 "$r/racecheck.log" >> "$r/summary.md"
log "gpu heuristic"
for s in ttlg6d-15 ttlg6d-16 ttlg6d-17 cutt-random cutt-rank8 cutt-rank12 square small; do
  $x bench $s --backend cuda --csv "$r/gpu-$s.csv" --quiet 2>"$r/gpu-$s.err" | tail -1 | tee -a "$r/summary.md"
done
log "gpu measured (sampled; the heuristic run above has the same cases for --limit)"
for s in ttlg6d-16 ttlg6d-17 cutt-random cutt-rank8 square; do
  $x bench $s --backend cuda --limit 40 --csv "$r/gpu-heur40-$s.csv" --quiet > /dev/null 2>&1
  $x bench $s --backend cuda --planning measure --limit 40 --csv "$r/gpu-meas40-$s.csv" --quiet 2>/dev/null | tail -1 | tee -a "$r/summary.md"
done
log "frameworks"; PYTHONUNBUFFERED=1 timeout 150 python3 tools/bench_frameworks.py --xpose $x --suite ttlg6d-16 --suite cutt-random --suite cutt-rank8 --suite square --limit 60 --reps 10 --csv "$r/frameworks.csv" 2>"$r/frameworks.err" | tee -a "$r/summary.md"
log "cpu (16 cores)"
for s in cutt-random ttlg6d-15 ttlg6d-16 ttlg6d-17; do
  l=(); [[ $s == ttlg6d-* ]] && l=(--limit 180)
  $x bench $s --backend cpu "${l[@]}" --csv "$r/cpu-$s.csv" --quiet 2>/dev/null | tail -1 | tee -a "$r/summary.md"
done
tar -czf "$out/run.tar.gz" -C "$r" . && cp "$r/summary.md" "$out/"
