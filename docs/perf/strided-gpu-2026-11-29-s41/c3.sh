#!/bin/bash
# s41 call 3 (an experiment build, not kept): wide2d.cu's tile for strided moves (elements of
# 4 bytes and more, offsets >= 0): the GPU tests; every candidate timed on padded f32 (call 1's
# seed and a new one) and the heuristic runs, to set how wide2d ranks for strided problems.
cd .carry && for f in xpose xpose_gpu_tests; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c3; mkdir -p $O
./xpose_gpu_tests --gtest_filter='TypedGpu.*:TypedPlanner.*:CudaWide2d*:CudaPlanner*' > $O/tests.txt 2>&1; echo "tests rc $?" >> $O/tests.txt
tail -3 $O/tests.txt; grep "through wide2d" $O/tests.txt
compute-sanitizer --tool memcheck ./xpose_gpu_tests --gtest_filter='TypedGpu.Wide2dOnStridedMoves' > $O/sanitizer.txt 2>&1; echo "sanitizer rc $?" >> $O/sanitizer.txt
tail -2 $O/sanitizer.txt
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $SEED" > $O/seed.txt
./xpose bench fresh --seed 3506231577 --list | sed 's/ elem=[0-9]*//' | head -12 > $O/fresh1.txt
./xpose bench fresh --seed $SEED --list | sed 's/ elem=[0-9]*//' | head -16 > $O/fresh2.txt
./xpose bench cutt-random --limit 16 --list > $O/cutt.txt
for s in cutt fresh1 fresh2; do
  ./xpose bench $O/$s.txt --type f32 --pad 7 --backend cuda --reps 10 --csv $O/h-$s.csv > /dev/null 2>&1
  while read -r suite id ext perm; do
    echo "== $id" >> $O/x-$s.txt
    timeout 60 ./xpose explain --extents $ext --perm $perm --type f32 --pad 7 --backend cuda --measure-all >> $O/x-$s.txt 2>&1
  done < $O/$s.txt
done
cd $OUT && tar czf c3.tgz c3 && ls c3
