#!/bin/bash
# s39 call 4: e5m2 rows and fused tiles (810438e) against main on the device host's 16 cores, a
# new seed; two earlier pairs again (the rows' refactor); the CPU tests; the plots.
D=$PWD/docs/perf/typed-cpu-2026-11-29-s39
cd .carry && for f in xpose_m xpose_n xpose_tests_n; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c4; mkdir -p $O
timeout 120 ./xpose_tests_n > $O/tests.txt 2>&1; tail -2 $O/tests.txt
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $SEED > $O/seed.txt
./xpose_m bench fresh --seed $SEED --list 2>/dev/null | sed 's/ elem=[0-9]*//' | awk '{split($3,e,","); v=1; for(i in e) v*=e[i]; if (v>=4000000) print}' | head -16 > $O/fresh.txt
for cfg in "f16 f8e5m2" "bf16 f8e5m2" "f32 f8e5m2" "f8e5m2 f16" "f8e5m2 f32" "f8e5m2 bf16" "f32 bf16" "bf16 f8e4m3"; do
  set -- $cfg; name=$1-$2
  for round in 1 2; do for b in m n; do
    timeout 100 ./xpose_$b bench cutt-random $O/fresh.txt --limit 16 --type $1 --out-type $2 --backend cpu --reps 5 --quiet --csv $O/res-$name-$b-$round.csv > /dev/null 2>&1
  done; done
done
cd $O && for f in res-*-m-*.csv; do mv $f ${f/-m-/-base-}; done; for f in res-*-n-*.csv; do mv $f ${f/-n-/-new-}; done
mkdir -p /tmp/c3 && tar xzf $D/call3-16core.tgz -C /tmp/c3
python3 $D/plot.py /tmp/c3/c3 $OUT/typed-cpu.png 'CPU typed conversions, 16-core host (session 39, call 3)' f32-bf16,f32-f16,f32-f8e4m3,bf16-f8e4m3,f16-bf16,bf16-f16,f16-f8e4m3 > $OUT/plot.log 2>&1
python3 $D/plot.py $O $OUT/typed-cpu-e5m2.png 'e5m2 conversions, 16-core host (session 39, call 4)' f16-f8e5m2,bf16-f8e5m2,f32-f8e5m2,f8e5m2-f16,f8e5m2-f32,f8e5m2-bf16 >> $OUT/plot.log 2>&1
cd $OUT && tar czf c4.tgz c4 && ls
