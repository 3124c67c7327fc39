#!/bin/bash
# s39 call 7: f16 -> e4m3 in 16-bit lanes (7027d5b, n) against 91cb6b1 (m) on the device host's
# 16 cores; issue 15's CPU rows on the final build; the CPU tests.
cd .carry && for f in xpose_m xpose_n xpose_tests_n; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c7; mkdir -p $O
timeout 120 ./xpose_tests_n > $O/tests.txt 2>&1; tail -2 $O/tests.txt
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $SEED > $O/seed.txt
./xpose_m bench fresh --seed $SEED --list 2>/dev/null | sed 's/ elem=[0-9]*//' | awk '{split($3,e,","); v=1; for(i in e) v*=e[i]; if (v>=4000000) print}' | head -16 > $O/fresh.txt
for round in 1 2; do for b in m n; do
  timeout 100 ./xpose_$b bench cutt-random $O/fresh.txt --limit 16 --type f16 --out-type f8e4m3 --backend cpu --reps 5 --quiet --csv $O/res-f16-f8e4m3-$b-$round.csv > /dev/null 2>&1
done; done
for cfg in "f32 bf16" "f32 f16" "f16 f32" "bf16 f8e4m3" "f32 f32 --beta 1" "f32 f32 --pad 7"; do
  set -- $cfg; name=$1-$2$3
  timeout 100 ./xpose_n bench cutt-random --limit 16 --type $1 --out-type $2 $3 $4 --backend cpu --reps 5 --quiet --csv $O/final-$name.csv > /dev/null 2>&1
done
cd $O && for f in res-*-m-*.csv; do mv $f ${f/-m-/-base-}; done; for f in res-*-n-*.csv; do mv $f ${f/-n-/-new-}; done
cd $OUT && tar czf c7.tgz c7 && ls c7 | wc -l
