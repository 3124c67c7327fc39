#!/bin/bash
# s39 call 6: tiles of runs sized by the output's runs (n, call 5's build) and by the input's
# (v), against 91cb6b1 (m, rows), on call 5's problems and a new seed's.
cd .carry && for f in xpose_m xpose_n xpose_v; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c6; mkdir -p $O
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo "3570313034 $SEED" > $O/seed.txt
python3 gen_runs.py 3570313034 24 > $O/runs.txt; python3 gen_runs.py $SEED 24 | sed 's/^runs/runs2/' >> $O/runs.txt
for cfg in "f32 bf16" "bf16 f8e4m3" "f16 bf16" "f32 f8e5m2"; do
  set -- $cfg; name=$1-$2
  for round in 1 2; do for b in m n v; do
    timeout 100 ./xpose_$b bench $O/runs.txt --type $1 --out-type $2 --backend cpu --reps 5 --quiet --csv $O/res-$name-$b-$round.csv > /dev/null 2>&1
  done; done
done
cd $OUT && tar czf c6.tgz c6 && ls c6 | wc -l
