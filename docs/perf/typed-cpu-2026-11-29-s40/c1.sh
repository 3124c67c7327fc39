#!/bin/bash
# The XPOSE_CPU_* knobs below existed only in the experiment build that ran this call (the
# session's working tree); the final code has the rule of call 2 as constants, plus no beta.
# s40 call 1: padded (strided) problems through the dense tile engine, one binary, env toggles:
# old = XPOSE_CPU_STRIDED_RUN=1e9 (TypedPlan tiles), new = 0 (dense engine whenever dims 0 are
# contiguous), nogaps = new without the out_gaps direct stores. 16-core host.
cd .carry && for f in xpose_n xpose_tests; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c1; mkdir -p $O
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $SEED" > $O/seed.txt
./xpose_n bench fresh --seed $SEED --list | sed 's/ elem=[0-9]*//' | head -12 > $O/fresh.txt
./xpose_n bench cutt-random --limit 16 --list > $O/cutt.txt
cat $O/fresh.txt $O/cutt.txt > $O/cases.txt
(timeout 120 ./xpose_tests --gtest_filter='Typed*:CpuBackend*:Narrow*' > $O/tests.txt 2>&1; echo "rc $?" >> $O/tests.txt) 
for cfg in "f32 f32" "f32 bf16" "bf16 f8e4m3"; do
  set -- $cfg; name=$1-$2
  for round in 1 2; do for v in old new; do
    [ $v = old ] && R=1000000000 || R=0
    XPOSE_CPU_STRIDED_RUN=$R timeout 60 ./xpose_n bench $O/cases.txt --type $1 --out-type $2 --pad 7 --backend cpu --reps 5 --quiet --csv $O/res-$name-$v-$round.csv > /dev/null 2>&1
  done; done
done
XPOSE_CPU_STRIDED_RUN=0 XPOSE_CPU_GAPS=0 timeout 60 ./xpose_n bench $O/cases.txt --type f32 --out-type f32 --pad 7 --backend cpu --reps 5 --quiet --csv $O/res-f32-f32-nogaps-1.csv > /dev/null 2>&1
cd $OUT && tar czf c1.tgz c1 && ls c1 | wc -l
