#!/bin/bash
# s40 call 4: main 95f6e08 (m) against the change (n), CPU-only builds, 16-core host. Each case
# alone, the two builds back to back (m n, then n m), so the host's drift between runs (10-20 %
# on unchanged paths in call 3) falls on both; a fresh seed drawn here plus cutt-random.
cd .carry && for f in xpose_m xpose_n; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c4; mkdir -p $O/cases
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $SEED" > $O/seed.txt
./xpose_n bench fresh --seed $SEED --list | sed 's/ elem=[0-9]*//' | head -16 > $O/fresh.txt
./xpose_n bench cutt-random --limit 16 --list > $O/cutt.txt
cat $O/fresh.txt $O/cutt.txt > $O/cases.txt
i=0; while read -r line; do echo "$line" > $O/cases/$i.txt; i=$((i+1)); done < $O/cases.txt
for cfg in "f32 f32 --pad 7" "f32 bf16 --pad 7" "bf16 f8e4m3 --pad 7" "f16 f32 --pad 7" "f32 bf16"; do
  set -- $cfg; name=$1-$2$3$4
  for c in $O/cases/*.txt; do
    for order in "m n" "n m"; do for b in $order; do
      timeout 30 ./xpose_$b bench $c --type $1 --out-type $2 $3 $4 --backend cpu --reps 5 --quiet --csv $O/t.csv > /dev/null 2>&1 && tail -n +2 $O/t.csv | sed "s/^/$b,/" >> $O/res-$name.csv
    done; done
  done
done
rm -f $O/t.csv
cd $OUT && tar czf c4.tgz c4 && ls c4 | wc -l
