#!/bin/bash
# s41 call 7 (an experiment build, not kept): wide2d.cu's tile converting from f32: the GPU
# tests and compute-sanitizer on its test; every candidate timed on f32 -> bf16 / f16 / e4m3
# (call 4's fresh seed 3573558603, cutt-random and a new seed), the heuristic runs beside.
cd .carry && for f in xpose xpose_gpu_tests; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c7; mkdir -p $O
./xpose_gpu_tests --gtest_filter='TypedGpu.*:TypedPlanner.*:CudaWide2d*' > $O/tests.txt 2>&1; echo "tests rc $?" >> $O/tests.txt
tail -3 $O/tests.txt; grep "through wide2d" $O/tests.txt
compute-sanitizer --tool memcheck ./xpose_gpu_tests --gtest_filter='TypedGpu.Wide2dConversionsFromF32' > $O/sanitizer.txt 2>&1; echo "sanitizer rc $?" >> $O/sanitizer.txt
tail -2 $O/sanitizer.txt
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $SEED" > $O/seed.txt
./xpose bench fresh --seed 3573558603 --list | sed 's/ elem=[0-9]*//' | head -12 > $O/fresh1.txt
./xpose bench fresh --seed $SEED --list | sed 's/ elem=[0-9]*//' | head -16 > $O/fresh2.txt
./xpose bench cutt-random --limit 16 --list > $O/cutt.txt
for s in cutt fresh1 fresh2; do
  for t in bf16 f16 f8e4m3; do
    ./xpose bench $O/$s.txt --type f32 --out-type $t --backend cuda --reps 10 --csv $O/h-$s-$t.csv > /dev/null 2>&1
    while read -r suite id ext perm; do
      echo "== $id" >> $O/x-$s-$t.txt
      timeout 60 ./xpose explain --extents $ext --perm $perm --type f32 --out-type $t --backend cuda --measure-all >> $O/x-$s-$t.txt 2>&1
    done < $O/$s.txt
  done
done
cd $OUT && tar czf c7.tgz c7 && ls c7 | wc -l
