#!/bin/bash
# s39 call 2: the final fused typed CPU tiles (fused where a tile holds a block; no f16 -> f32)
# against main on the device host's 16 cores, a new seed; the CPU tests; 1-byte output probes.
cd .carry && for f in xpose_m xpose_n xpose_tests_n; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c2; mkdir -p $O
timeout 120 ./xpose_tests_n > $O/tests.txt 2>&1; tail -2 $O/tests.txt
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $SEED > $O/seed.txt
./xpose_m bench fresh --seed $SEED --list 2>/dev/null | sed 's/ elem=[0-9]*//' | awk '{split($3,e,","); v=1; for(i in e) v*=e[i]; if (v>=4000000) print}' | head -16 > $O/fresh.txt
for cfg in "f32 bf16" "bf16 f8e4m3" "f32 f16" "f16 f32" "f32 f8e4m3" "f16 bf16" "f8e4m3 bf16" "f32 f32 --beta 1"; do
  set -- $cfg; name=$1-$2$3
  for round in 1 2; do for b in m n; do
    timeout 100 ./xpose_$b bench cutt-random $O/fresh.txt --limit 16 --type $1 --out-type $2 $3 $4 --backend cpu --reps 5 --quiet --csv $O/res-$name-$b-$round.csv > /dev/null 2>&1
  done; done
done
./xpose_n bench cutt-random --limit 16 --type f32 --backend cpu --pad 7 --reps 5 --quiet --csv $O/pad-f32.csv > /dev/null 2>&1
for t in "--type bf16" "--type bf16 --out-type f8e4m3" "--elem 1" "--type f32 --out-type bf16" "--type f32"; do
  for th in 16 1; do echo "$t threads $th: $(./xpose_n run --extents 5000,5000 --perm 1,0 $t --backend cpu --threads $th --reps 10 2>&1 | grep -E '^time|^ratio' | tr '\n' ' ')"; done
done > $O/probe.txt 2>&1
which perf > $O/perf.txt 2>&1
cd $OUT && tar czf c2.tgz c2 && ls c2 | wc -l
