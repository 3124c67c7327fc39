#!/bin/bash
# s41 call 1: padded problems on the GPU, every candidate timed (explain --measure-all, which
# now times strided and typed candidates on scratch buffers) against the heuristic pick; the
# heuristic, measure-planned and plain runs of the same cases; the GPU tests of the change.
cd .carry && for f in xpose xpose_gpu_tests; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c1; mkdir -p $O
./xpose_gpu_tests --gtest_filter='TypedGpu.*:TypedPlanner.*' > $O/tests.txt 2>&1; echo "tests rc $?" >> $O/tests.txt
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $SEED" > $O/seed.txt
./xpose bench fresh --seed $SEED --list | sed 's/ elem=[0-9]*//' | head -12 > $O/fresh.txt
./xpose bench cutt-random --limit 16 --list > $O/cutt.txt
for s in cutt fresh; do
  for cfg in "f32 f32 --pad 7" "f32 bf16 --pad 7"; do
    set -- $cfg; name=$s-$1-$2
    ./xpose bench $O/$s.txt --type $1 --out-type $2 $3 $4 --backend cuda --reps 10 --csv $O/h-$name.csv > /dev/null 2>&1
    ./xpose bench $O/$s.txt --type $1 --out-type $2 $3 $4 --backend cuda --reps 10 --planning measure --csv $O/m-$name.csv > /dev/null 2>&1
    while read -r suite id ext perm; do
      echo "== $id" >> $O/x-$name.txt
      timeout 60 ./xpose explain --extents $ext --perm $perm --type $1 --out-type $2 $3 $4 --backend cuda --measure-all >> $O/x-$name.txt 2>&1
    done < $O/$s.txt
  done
  ./xpose bench $O/$s.txt --elem 4 --backend cuda --reps 10 --csv $O/h-$s-plain.csv > /dev/null 2>&1
done
cd $OUT && tar czf c1.tgz c1 && ls -la c1 | head -30
