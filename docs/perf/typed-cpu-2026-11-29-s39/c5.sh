#!/bin/bash
# s39 call 5: dense typed problems whose leading dim stays with short runs, in tiles of runs
# (typed_super_plan) against 91cb6b1 (rows), on the device host's 16 cores; random problems of
# a seed drawn here (gen_runs.py); plain f32 for reference.
cd .carry && for f in xpose_m xpose_n; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c5; mkdir -p $O
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $SEED > $O/seed.txt
python3 gen_runs.py $SEED 24 > $O/runs.txt
for cfg in "f32 bf16" "bf16 f8e4m3" "f16 f32" "f32 f32 --beta 1" "f16 bf16" "f32 f8e5m2"; do
  set -- $cfg; name=$1-$2$3
  for round in 1 2; do for b in m n; do
    timeout 100 ./xpose_$b bench $O/runs.txt --type $1 --out-type $2 $3 $4 --backend cpu --reps 5 --quiet --csv $O/res-$name-$b-$round.csv > /dev/null 2>&1
  done; done
done
./xpose_n bench $O/runs.txt --type f32 --backend cpu --reps 5 --quiet --csv $O/plain-f32.csv > /dev/null 2>&1
cd $O && for f in res-*-m-*.csv; do mv $f ${f/-m-/-base-}; done; for f in res-*-n-*.csv; do mv $f ${f/-n-/-new-}; done
cd $OUT && tar czf c5.tgz c5 && ls c5 | wc -l
