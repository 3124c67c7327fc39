#!/bin/bash
# s39 call 8: issue 15's CPU rows and the fp8 pairs, main 3abf518 (m) against the session's
# last build 7027d5b (n), two rounds alternating, cutt-random --limit 16, device host's 16 cores.
cd .carry && for f in xpose_m xpose_n; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c8; mkdir -p $O
for cfg in "f32 bf16" "f32 f16" "f16 f32" "bf16 f8e4m3" "f32 f32 --beta 1" "f32 f32 --pad 7" "f16 f8e4m3" "bf16 f8e5m2" "f8e5m2 bf16"; do
  set -- $cfg; name=$1-$2$3
  for round in 1 2; do for b in m n; do
    timeout 100 ./xpose_$b bench cutt-random --limit 16 --type $1 --out-type $2 $3 $4 --backend cpu --reps 5 --quiet --csv $O/res-$name-$b-$round.csv > /dev/null 2>&1
  done; done
done
cd $O && for f in res-*-m-*.csv; do mv $f ${f/-m-/-base-}; done; for f in res-*-n-*.csv; do mv $f ${f/-n-/-new-}; done
cd $OUT && tar czf c8.tgz c8 && ls c8 | wc -l
