#!/bin/bash
# s41 call 4: the change as committed (measure planning for non-plain problems, typed tiles
# without groups): the GPU tests; then dense typed problems (issue 15's conversions and beta = 1)
# with every candidate timed against the heuristic pick, cutt-random and a fresh seed.
cd .carry && for f in xpose xpose_gpu_tests; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c4; mkdir -p $O
./xpose_gpu_tests --gtest_filter='TypedGpu.*:TypedPlanner.*:CudaPlanner*:Cuda*Measure*' > $O/tests.txt 2>&1; echo "tests rc $?" >> $O/tests.txt
tail -3 $O/tests.txt
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $SEED" > $O/seed.txt
./xpose bench fresh --seed $SEED --list | sed 's/ elem=[0-9]*//' | head -12 > $O/fresh.txt
./xpose bench cutt-random --limit 16 --list > $O/cutt.txt
for s in cutt fresh; do
  for cfg in "f32 bf16" "f16 f32" "bf16 f8e4m3" "f32 f32 --beta 1"; do
    set -- $cfg; name=$s-$1-$2$3$4
    ./xpose bench $O/$s.txt --type $1 --out-type $2 $3 $4 --backend cuda --reps 10 --csv $O/h-$name.csv > /dev/null 2>&1
    while read -r suite id ext perm; do
      echo "== $id" >> $O/x-$name.txt
      timeout 60 ./xpose explain --extents $ext --perm $perm --type $1 --out-type $2 $3 $4 --backend cuda --measure-all >> $O/x-$name.txt 2>&1
    done < $O/$s.txt
  done
done
cd $OUT && tar czf c4.tgz c4 && ls c4 | wc -l
