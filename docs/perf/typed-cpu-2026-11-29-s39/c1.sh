#!/bin/bash
# s39 call 1: fused typed CPU tiles against main on the device host's 16 cores (CPU only).
cd .carry && for f in xpose_m xpose_n xpose_tests_n; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c1; mkdir -p $O; lscpu > $O/lscpu.txt; nproc
timeout 200 ./xpose_tests_n --gtest_filter='TypedCpu.*:TypedOps*:CpuBackend.*:TypedPlan*' > $O/tests.txt 2>&1; tail -3 $O/tests.txt
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $SEED > $O/seed.txt
./xpose_m bench fresh --seed $SEED --list 2>/dev/null | sed 's/ elem=[0-9]*//' | awk '{split($3,e,","); v=1; for(i in e) v*=e[i]; if (v>=4000000) print}' | head -16 > $O/fresh.txt
for cfg in "f32 bf16" "bf16 f8e4m3" "f32 f16" "f16 f32" "f32 f32 --beta 1" "f32 f8e4m3" "f8e4m3 bf16" "f64 f32"; do
  set -- $cfg; name=$1-$2$3
  for round in 1 2; do for b in m n; do
    timeout 100 ./xpose_$b bench cutt-random $O/fresh.txt --limit 16 --type $1 --out-type $2 $3 $4 --backend cpu --reps 5 --quiet --csv $O/res-$name-$b-$round.csv > /dev/null 2>&1
  done; done
done
for t in f32 bf16; do ./xpose_n bench cutt-random --limit 16 --type $t --backend cpu --reps 5 --quiet --csv $O/plain-$t.csv > /dev/null 2>&1; done
cd $OUT && tar czf c1.tgz c1 && ls -la c1 | wc -l
