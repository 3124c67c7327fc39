#!/bin/bash
# s40 call 3: main 95f6e08 (m) against the final change (n), CPU-only builds, 16-core host, a
# fresh seed drawn here plus cutt-random, two rounds alternating; then the GPU on padded f32
# (session-39 CUDA build: the GPU code is unchanged) for the sector bound.
cd .carry && for f in xpose_m xpose_n xpose_cuda; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c3; mkdir -p $O
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $SEED" > $O/seed.txt
./xpose_n bench fresh --seed $SEED --list | sed 's/ elem=[0-9]*//' | head -24 > $O/fresh.txt
./xpose_n bench cutt-random --limit 16 --list > $O/cutt.txt
cat $O/fresh.txt $O/cutt.txt > $O/cases.txt
for cfg in "f32 f32 --pad 7" "f32 bf16 --pad 7" "bf16 f8e4m3 --pad 7" "f16 f32 --pad 7" "f32 f32 --beta 1 --pad 7" "f32 bf16"; do
  set -- $cfg; name=$1-$2$3$4$5$6
  for round in 1 2; do for b in m n; do
    timeout 60 ./xpose_$b bench $O/cases.txt --type $1 --out-type $2 $3 $4 $5 $6 --backend cpu --reps 5 --quiet --csv $O/res-$name-$b-$round.csv > /dev/null 2>&1
  done; done
done
cd $O && for f in res-*-m-*.csv; do mv $f ${f/-m-/-base-}; done; for f in res-*-n-*.csv; do mv $f ${f/-n-/-new-}; done
cd $OLDPWD
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $O/gpu.txt 2>&1
for cfg in "f32 f32 --pad 7" "f32 bf16 --pad 7" "f32 f32"; do
  set -- $cfg; name=$1-$2$3$4
  timeout 90 ./xpose_cuda bench $O/cases.txt --type $1 --out-type $2 $3 $4 --backend cuda --reps 10 --quiet --csv $O/gpu-$name.csv > /dev/null 2>&1
done
cd $OUT && tar czf c3.tgz c3 && ls c3 | wc -l
