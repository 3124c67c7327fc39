#!/usr/bin/env bash
# One device call for the CUDA backend: build the project (build-dev, sm_90), run the GPU tests,
# time suites with the official `xpose bench` (ratio = copy time / transposition time against a
# same-size cudaMemcpyAsync in the same run, 8-byte elements), print a compact table last.
# Everything lands in $OUT/cuda-run.tar.gz (CSVs, logs) plus $OUT/summary.txt.
# Needs GoogleTest sources in .deps/googletest (carry .deps). Usage on the device machine:
#   bash bench/cuda_device_run.sh MODE [test-filter]
# MODE: full   every GPU suite once (heuristic plans), plus measure vs heuristic on samples
#       ab     A/B of the cp.async pipeline depth (XPOSE_CUDA_STAGES=2,3,4) on sampled suites
#              and bench/suites/probe.txt, plus measure vs heuristic on samples
#       tests  build and GPU tests only
# ncu on one case: ncu --section SpeedOfLight ... ./build-dev/tools/xpose run --extents 13953,13953
#   --perm 1,0 --backend cuda --reps 1
set -uo pipefail
MODE=${1:-full}
FILTER=${2:-*}
OUT=${OUT:-/tmp/xpose-device-out}
mkdir -p "$OUT"
r=$(mktemp -d)
S="$r/summary.txt"
x=./build-dev/tools/xpose
say() { echo "$*" | tee -a "$S"; }
finish() {
  grep -q "== table" "$S" || { echo "== table (partial)"; cat "$r/table.txt" 2>/dev/null; } >>"$S"
  tar -czf "$OUT/cuda-run.tar.gz" -C "$r" . ; cp "$S" "$OUT/summary.txt"
}
trap finish EXIT
trap 'exit 1' INT TERM
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total --format=csv,noheader | tee -a "$S"
git log -1 --format='commit %h %s' 2>/dev/null | tee -a "$S"
t0=$SECONDS
cmake -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DXPOSE_GTEST_SOURCE_DIR="$PWD/.deps/googletest" >"$r/configure.log" 2>&1 ||
  { tail -30 "$r/configure.log"; exit 1; }
# The tool and the GPU tests only (the CPU tests are not this script's business).
cmake --build build-dev -j16 --target xpose_tool xpose_gpu_tests >"$r/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$r/build.log" | head -60; exit 1; }
say "build $((SECONDS - t0)) s"
t0=$SECONDS
./build-dev/tests/xpose_gpu_tests --gtest_filter="$FILTER" >"$r/gpu_tests.log" 2>&1
say "gpu tests exit $? ($((SECONDS - t0)) s): $(grep -E '^\[  (PASSED|FAILED) ' "$r/gpu_tests.log" | tr '\n' ' ')"
grep -E "schema .* accepted|plan creation" "$r/gpu_tests.log" | head -20 >>"$S"
grep -B2 -A12 "Failure" "$r/gpu_tests.log" | head -60
[ "$MODE" = tests ] && exit 0

# bench LABEL SUITE [args...]: one `xpose bench`, its table rows prefixed with LABEL.
bench() {
  local label=$1 suite=$2; shift 2
  local name; name=$(basename "$suite" .txt)
  local t=$SECONDS
  $x bench "$suite" --backend cuda --quiet --csv "$r/$label-$name.csv" "$@" \
    >"$r/$label-$name.txt" 2>"$r/$label-$name.err"
  grep -E '^\| [a-z]' "$r/$label-$name.txt" | grep -v '| suite' |
    sed "s/^/$label /; s/\$/ $((SECONDS - t)) s/" >>"$r/table.txt"
}
SAMPLES=("ttlg6d-15 --limit 90" "ttlg6d-16 --limit 90" "ttlg6d-17 --limit 90"
         "cutt-random --limit 40" "cutt-rank8 --limit 25" "cutt-rank12 --limit 20"
         "square --limit 6" "bench/suites/probe.txt")
MEASURED=("ttlg6d-17 --limit 24" "cutt-random --limit 20" "cutt-rank8 --limit 12"
          "cutt-rank12 --limit 10" "square --limit 4")
if [ "$MODE" = ab ]; then
  for st in 3 2 4; do
    for s in "${SAMPLES[@]}"; do XPOSE_CUDA_STAGES=$st bench "S$st" $s; done
  done
else
  for s in ttlg6d-15 ttlg6d-16 ttlg6d-17 cutt-random cutt-rank8 cutt-rank12 square small \
           bench/suites/probe.txt; do bench heur $s; done
fi
for s in "${MEASURED[@]}"; do
  set -- $s; bench hlim "$@"; bench meas "$@" --planning measure
done
{
  echo; echo "== worst cases (heuristic)"
  python3 bench/cuda_summary.py worst 3 $(ls "$r"/S2-*.csv "$r"/heur-*.csv 2>/dev/null)
  echo; echo "== pairs (base other)"
  for f in "$r"/S2-*.csv; do
    n=${f##*/S2-}
    python3 bench/cuda_summary.py pair "S3 vs S2 ${n%.csv}" "$f" "$r/S3-$n"
    python3 bench/cuda_summary.py pair "S4 vs S2 ${n%.csv}" "$f" "$r/S4-$n"
  done 2>/dev/null
  for f in "$r"/nofill-*.csv; do
    n=${f##*/nofill-}
    python3 bench/cuda_summary.py pair "fill vs nofill ${n%.csv}" "$f" "$r/heur-$n"
  done
  for f in "$r"/meas-*.csv; do
    n=${f##*/meas-}
    python3 bench/cuda_summary.py pair "measure vs heur ${n%.csv}" "$r/hlim-$n" "$f"
  done
  grep -h "copy.*GB\|planning" "$r"/*.txt 2>/dev/null | sort -u | head -3
  echo; echo "== table (label | suite | cases | median | p10 | worst | failed | seconds)"
  cat "$r/table.txt"
} >>"$S"
grep -A200 "== worst" "$S"
