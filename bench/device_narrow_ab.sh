#!/usr/bin/env bash
# Narrow-kernel candidates against main in one device call (docs/perf/narrow-h100.md,
# 2026-11-26). Main's sources come as $D/main.tgz (`git archive main | gzip`), each candidate as
# $D/v<NAME>/ holding its narrow.cu and tile_shape.cpp; all are built incrementally on one tree
# of main. Then: the GPU tests (all on the last candidate, the narrow ones on the others),
# `xpose bench dtypes --limit 120` alternated M, the candidates, the last again, M again; quick
# 4 B and 8 B on M and the last candidate; ncu instruction counts of the last candidate on four
# 1- and 2-byte cases. Results in $OUT/res.tgz.
# Usage (device, carrying $D): D=.carry-narrow VARIANTS="A C" bash bench/device_narrow_ab.sh
set -uo pipefail
D=$(cd "${D:-.carry-narrow}" && pwd); read -r -a vs <<< "${VARIANTS:-A C}"; last=${vs[-1]}
R=$OUT/r; W=/tmp/narrow-ab; rm -rf $W; mkdir -p $R $W/src $W/bin
tar xzf $D/main.tgz -C $W/src && cd $W/src || exit 1
t0=$(date +%s)
nv=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cmake -B b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER=$nv \
  > $R/configure.log 2>&1
grep -q "^CMAKE_CUDA_COMPILER:.*nvcc" b/CMakeCache.txt ||
  { echo "configured without CUDA"; tail -20 $R/configure.log; exit 1; }
cmake --build b -j16 --target xpose_tool 2>&1 | grep -E " error|Error " | head
cp b/tools/xpose $W/bin/M
for v in "${vs[@]}"; do
  cp $D/v$v/narrow.cu src/cuda/narrow.cu; cp $D/v$v/tile_shape.cpp src/cuda/tile_shape.cpp
  cmake --build b -j16 --target xpose_tool xpose_gpu_tests 2>&1 | grep -E " error|Error " | head
  cp b/tools/xpose $W/bin/$v; cp b/tests/xpose_gpu_tests $W/bin/T$v
done
echo "build $(( $(date +%s) - t0 ))s"
summary() { grep -E '^\[  (PASSED|FAILED)' "$1" | tr '\n' ' '; }
for v in "${vs[@]}"; do
  filter=--gtest_filter='CudaNarrow*:NarrowPlan*:CudaCorrectness*'; [ $v = $last ] && filter=
  timeout 60 $W/bin/T$v $filter > $R/tests-$v.txt 2>&1; echo "tests $v rc $?: $(summary $R/tests-$v.txt)"
done
k=0
for v in M "${vs[@]}" $last M; do
  k=$((k + 1))
  timeout 40 $W/bin/$v bench dtypes --limit 120 --backend cuda --quiet --csv $R/dtypes-$v-$k.csv \
    > $R/dtypes-$v-$k.txt 2>&1
  echo "$v#$k"; grep -E "byte" $R/dtypes-$v-$k.txt
done
for v in M $last; do for e in 4 8; do
  echo "$v quick elem $e: $(timeout 30 $W/bin/$v bench quick --backend cuda --elem $e --quiet 2>&1 |
    grep -E '^\| quick')"
done; done
tar czf $OUT/res.tgz -C $OUT r
prof() {  # name elem extents perm [extra ncu sections]
  local extra=${5:-}
  timeout 40 ncu --section InstructionStats --section SpeedOfLight --section LaunchStats $extra \
    -k regex:narrow_kernel -c 1 -o $R/$1 $W/bin/$last run --backend cuda --elem $2 --extents $3 \
    --perm $4 --reps 3 > $R/$1.run.txt 2>&1
  ncu -i $R/$1.ncu-rep --page details --csv > $R/$1.details.csv 2>&1
  [ -n "$extra" ] && ncu -i $R/$1.ncu-rep --page source --csv --print-source sass > $R/$1.sass.csv 2>&1
  echo "$1 $(grep -E 'ratio|backend cuda:' $R/$1.run.txt | tr -s ' ' | tr '\n' ' ')"
  grep -E '"(Executed Instructions|Duration|Issue Slots Busy)"' $R/$1.details.csv |
    awk -F'","' '{print "   ", $(NF-2), $NF}'
}
prof sq1 1 14142,14142 1,0 "--section SourceCounters"
prof sq2 2 10000,10000 1,0
prof r6b1 1 24,24,24,24,24,24 5,4,0,2,1,3
prof r4b2 2 45,223,45,220 2,3,1,0
rm -f $R/*.ncu-rep; tar czf $OUT/res.tgz -C $OUT r; rm -rf $R
echo "total $(( $(date +%s) - t0 ))s"
