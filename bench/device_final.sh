#!/usr/bin/env bash
# The measured run behind docs/perf/: one device call (H100 + its 16 CPU cores). Phases in order
# of importance, each writing into $OUT as it finishes (a call stopped at its time limit still
# returns what was done): GPU tests, every GPU suite (heuristic plans), the in-place sweep, the
# CPU suites, heuristic vs measured plans on a sample, PyTorch and CuPy on the same cases,
# compute-sanitizer. Binaries: .carry/ (built on the build machine for sm_90 by
# bench/build_carry.sh, saving the device the build) or, failing that, a build here.
# Usage (device): bash bench/device_final.sh [PHASE...]   (default: all; phases: tests gpu
# inplace cpu measured frameworks sanitizer, in this order whatever the order given)
set -uo pipefail
phases=" ${*:-tests gpu inplace cpu measured frameworks sanitizer} "
want() { [[ $phases == *" $1 "* ]]; }
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/xpose-out}; r=$out/run; mkdir -p "$r"
sum=$out/summary.md
log() { echo "== $* ($(date +%T))" | tee -a "$sum"; }
pack() { tar -czf "$out/run.tar.gz" -C "$r" . 2>/dev/null; }
bin=.carry
if ! $bin/xpose --help > /dev/null 2>&1; then
  log "carried binaries do not run here; building"
  cmake -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DXPOSE_GTEST_SOURCE_DIR="$PWD/.deps/googletest" > "$r/build.log" 2>&1 &&
    cmake --build build-dev -j16 >> "$r/build.log" 2>&1 || { tail -40 "$r/build.log"; exit 1; }
  bin=$r/bin; mkdir -p "$bin"
  cp build-dev/tools/xpose build-dev/tests/xpose_gpu_tests build-dev/tests/xpose_tests "$bin/"
fi
x=$bin/xpose
{ cat $bin/commit.txt 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep -E "Model name|^CPU\(s\)"; } > "$r/machine.txt" 2>&1
cat "$r/machine.txt" >> "$sum"
want tests && { log "gpu tests";
$bin/xpose_gpu_tests --gtest_brief=1 > "$r/gpu-tests.log" 2>&1; echo "exit $?" >> "$sum"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests? ran|Failure|plan creation" "$r/gpu-tests.log" | head -20 >> "$sum"; pack; }
want gpu && { log "gpu suites, heuristic plans (6D suites: 240 evenly spread permutations each)";
for s in ttlg6d-15 ttlg6d-16 ttlg6d-17 cutt-random cutt-rank8 cutt-rank12 square small; do
  l=(); [[ $s == ttlg6d-* ]] && l=(--limit 240)
  $x bench $s --backend cuda "${l[@]}" --csv "$r/gpu-$s.csv" --quiet 2>"$r/gpu-$s.err" | tail -1 >> "$sum"
done
$x bench bench/suites/rect-large.txt --backend cuda --elem 4 --csv "$r/gpu-rect-large.csv" --quiet 2>&1 | tail -1 >> "$sum"
for e in 4 8; do
  $x bench bench/suites/chien3d.txt --backend cuda --elem $e --csv "$r/gpu-chien3d-$e.csv" --quiet 2>&1 | tail -1 >> "$sum"
done; pack; }
want inplace && { log "in-place sweep (n up to the largest square in 64 GiB; V1B band widths for the heat map)";
timeout 60 $x bench-inplace --elems 4 --ns 1024,4096,8192,16384,32768,46336,65536,92160,131072 \
  --ws 1,2,4,8,16,32,64 --reps 3 --csv "$r/inplace-4.csv" > "$r/inplace-4.log" 2>&1; echo "exit $?" >> "$sum"
timeout 50 $x bench-inplace --elems 8 --ns 1024,4096,8192,16384,32768,46336,65536,92160 \
  --ws 1,2,4,8,16,32,64 --reps 3 --csv "$r/inplace-8.csv" > "$r/inplace-8.log" 2>&1; echo "exit $?" >> "$sum"
timeout 30 $x bench-inplace --elems 1,2 --ns 8192,32768,65536 --ws 8 --reps 3 \
  --csv "$r/inplace-12.csv" > "$r/inplace-12.log" 2>&1; echo "exit $?" >> "$sum"
grep -hE ",v1b,8," "$r"/inplace-4.csv "$r"/inplace-8.csv "$r"/inplace-12.csv | tail -30 >> "$sum"; pack; }
want cpu && { log "cpu suites (16 cores, cold caches, 5 passes over all four suites together; 6D suites: 120 evenly spread permutations each)";
# A fresh VM is busy for a minute or two after boot (load 8.9 seen): wait (up to 120 s) until the
# 1-minute load average is below 2, so the suites do not time the machine's own start-up.
for i in $(seq 24); do awk '{exit !($1 < 2)}' /proc/loadavg && break; sleep 5; done
echo "load before the cpu suites: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$sum"
# One benchmark of the four suites, each pass over all of them: a slow spell of the VM (minutes
# long, seen to sink one suite's every pass) touches one or two passes of every case instead.
$x bench cutt-random ttlg6d-15 ttlg6d-16 ttlg6d-17 --backend cpu --rounds 5 --limit 120 \
  --csv "$r/cpu-suites.csv" --quiet 2>/dev/null | grep -E "^\| (cutt|ttlg)" >> "$sum"; pack; }
want measured && { log "gpu: heuristic vs measured plans, 30 evenly spread cases per suite";
for s in ttlg6d-16 ttlg6d-17 cutt-random cutt-rank8 cutt-rank12 square; do
  $x bench $s --backend cuda --limit 30 --csv "$r/heur30-$s.csv" --quiet > /dev/null 2>&1
  $x bench $s --backend cuda --limit 30 --planning measure --csv "$r/meas30-$s.csv" --quiet 2>/dev/null | tail -1 >> "$sum"
done
$x bench bench/suites/rect-large.txt --backend cuda --elem 4 --planning measure --csv "$r/meas-rect-large.csv" --quiet 2>&1 | tail -1 >> "$sum"
timeout 60 $x bench-single --backend cuda > "$r/bench-single.txt" 2>&1; tail -12 "$r/bench-single.txt" >> "$sum"; pack; }
want frameworks && { log "frameworks";
PYTHONUNBUFFERED=1 timeout 70 python3 tools/bench_frameworks.py --xpose $x --suite ttlg6d-16 \
  --suite cutt-random --suite cutt-rank8 --suite square --limit 24 --reps 10 --frameworks torch,cupy \
  --csv "$r/frameworks.csv" > "$r/frameworks.log" 2>&1; echo "exit $?" >> "$sum"; tail -12 "$r/frameworks.log" >> "$sum"; pack; }
want sanitizer && { log "compute-sanitizer";
mc='CudaCorrectness.ForcedSchemas:CudaCorrectness.UnalignedPointers:InplaceGpu.EveryForcedScheme'
rc='CudaCorrectness.ForcedSchemas:CudaCorrectness.UnalignedPointers:InplaceGpu.SquaresEveryElementSizeAndLayout'
timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 $bin/xpose_gpu_tests \
  --gtest_filter="$mc" > "$r/memcheck.log" 2>&1
echo "memcheck exit $?" >> "$sum"; tail -2 "$r/memcheck.log" >> "$sum"
timeout 30 compute-sanitizer --tool racecheck --error-exitcode 9 $bin/xpose_gpu_tests \
  --gtest_filter="$rc" > "$r/racecheck.log" 2>&1
echo "racecheck exit $?" >> "$sum"; tail -2 "$r/racecheck.log" >> "$sum"; pack; }
log "done"
