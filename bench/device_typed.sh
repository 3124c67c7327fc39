#!/usr/bin/env bash
# Issue 15's measurements on the device, with binaries carried in $CARRY (default .carry/:
# bench/build_carry.sh; the Python package built for the device's Python in $CARRY/py): the GPU
# tests, compute-sanitizer memcheck over the typed GPU tests, the Python tests, and the typed
# cases of the cutt-random recipe on the GPU and the 16-core host (xpose bench), PyTorch and JAX
# beside them on the GPU (tools/bench_typed.py), plus the plain 4-byte suites as a regression
# check. Results in $OUT.
#   bash bench/device_typed.sh tests          # GPU tests, memcheck of the typed ones, Python tests
#   bash bench/device_typed.sh bench [LIMIT]  # LIMIT cases of cutt-random per configuration (12)
set -u
cd "$(dirname "$0")/.."
C=${CARRY:-.carry} MODE=${1:-tests} L=${2:-12}
X=$C/xpose T=$C/xpose_gpu_tests
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p "$OUT/r"
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; cat $C/commit.txt; } > "$OUT/r/machine.txt"
if [ "$MODE" = tests ]; then
timeout 240 $T > "$OUT/r/gpu-tests.txt" 2>&1; echo "rc=$?" >> "$OUT/r/gpu-tests.txt"
timeout 150 $S --error-exitcode 1 --print-limit 20 --tool memcheck $T \
  --gtest_filter='Typed*' > "$OUT/r/memcheck-typed.txt" 2>&1; echo "rc=$?" >> "$OUT/r/memcheck-typed.txt"
if [ -d $C/py ]; then
  PYTHONPATH=$PWD/$C/py XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 150 python3 -m pytest -q \
    -p no:cacheprovider -rs tests/python > "$OUT/r/pytest.txt" 2>&1; echo "rc=$?" >> "$OUT/r/pytest.txt"
fi
tar czf "$OUT/tests.tgz" -C "$OUT" r
grep -hE "tests passed|PASSED|FAILED|ERROR SUMMARY|rc=|passed|failed" "$OUT"/r/gpu-tests.txt \
  "$OUT"/r/memcheck-typed.txt "$OUT"/r/pytest.txt 2>/dev/null | tail -12
exit 0
fi
configs=("f32-bf16|--type f32 --out-type bf16|float32|bfloat16|0|0"
         "f32-f16|--type f32 --out-type f16|float32|float16|0|0"
         "f16-f32|--type f16 --out-type f32|float16|float32|0|0"
         "bf16-e4m3|--type bf16 --out-type f8e4m3|bfloat16|float8_e4m3fn|0|0"
         "f32-beta1|--type f32 --beta 1|float32|float32|1|0"
         "f32-pad7|--type f32 --pad 7|float32|float32|0|7")
for c in "${configs[@]}"; do
  IFS='|' read -r name flags idt odt beta pad <<< "$c"
  timeout 100 $X bench cutt-random --limit "$L" $flags --reps 10 --quiet \
    --csv "$OUT/r/gpu-$name.csv" > "$OUT/r/gpu-$name.txt" 2>&1
  if [ -d $C/py ]; then
    PYTHONPATH=$PWD/$C/py XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 60 python3 \
      tools/bench_typed.py --xpose $X --suite cutt-random --limit "$L" --in-dtype "$idt" \
      --out-dtype "$odt" --beta "$beta" --pad "$pad" --reps 3 --xpose-csv "$OUT/r/gpu-$name.csv" \
      > "$OUT/r/fw-$name.txt" 2> "$OUT/r/fw-$name.err"
  fi
  tar czf "$OUT/bench.tgz" -C "$OUT" r  # after each step: a timed-out call keeps what it did
done
for c in "${configs[@]}"; do
  IFS='|' read -r name flags _ <<< "$c"
  timeout 60 $X bench cutt-random --limit 8 $flags --backend cpu --reps 3 --quiet \
    --csv "$OUT/r/cpu-$name.csv" > "$OUT/r/cpu-$name.txt" 2>&1
  tar czf "$OUT/bench.tgz" -C "$OUT" r
done
timeout 60 $X bench quick cutt-random --limit 12 --elem 4 --reps 10 --quiet \
  --csv "$OUT/r/gpu-plain4.csv" > "$OUT/r/gpu-plain4.txt" 2>&1
tar czf "$OUT/bench.tgz" -C "$OUT" r
for f in "$OUT"/r/gpu-*.txt "$OUT"/r/cpu-*.txt; do echo "== $f"; grep -E "^\| (cutt|quick)" "$f"; done
for f in "$OUT"/r/fw-*.txt; do echo "== $f"; grep -E "^\| |^xpose at least" "$f"; done
