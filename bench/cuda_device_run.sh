#!/usr/bin/env bash
# One device call: configure + build (library and GPU tests), run the GPU tests, build and run
# the timing harness (bench/cuda/tune.cu). Logs go to $OUT. Usage on the device machine:
#   bash bench/cuda_device_run.sh [test-filter] [suites]   (suites: ttlg,cutt,rank812,square,small,probe;
# XPOSE_TUNE_ONCE=1 makes tune launch each case once, untimed, for ncu)
# Needs GoogleTest sources in .deps/googletest (carried from the build machine).
set -o pipefail
OUT=${OUT:-/tmp/xpose-device-out}
mkdir -p "$OUT"
FILTER=${1:-*}
SUITES=${2:-ttlg,cutt,rank812,square,small}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,memory.total --format=csv | tee "$OUT/gpu.txt"
cmake -B build-dev -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DXPOSE_BUILD_TOOLS=OFF \
  -DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20 \
  -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20 \
  -DXPOSE_GTEST_SOURCE_DIR="$PWD/.deps/googletest" >"$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 1; }
time cmake --build build-dev -j16 --target xpose xpose_gpu_tests >"$OUT/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$OUT/build.log" | head -60; exit 1; }
if [ "$FILTER" != "none" ]; then
  time ./build-dev/tests/xpose_gpu_tests --gtest_filter="$FILTER" >"$OUT/gpu_tests.log" 2>&1
  echo "gpu tests exit $?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|plan creation|schema .* accepted|cases$|^backend|^tiled|^rows|^fvi|^packed" \
    "$OUT/gpu_tests.log" | head -80
  grep -B2 -A12 "Failure" "$OUT/gpu_tests.log" | head -80
fi
if [ "$SUITES" != "none" ]; then
  nvcc -std=c++20 -O2 -arch=sm_90 bench/cuda/tune.cu -I include -L build-dev/src -lxpose \
    -Xlinker -rpath="$PWD/build-dev/src" -o build-dev/tune || exit 1
  time ./build-dev/tune "$OUT/bench.csv" "$SUITES" 2>&1 | tee "$OUT/bench.log"
fi
