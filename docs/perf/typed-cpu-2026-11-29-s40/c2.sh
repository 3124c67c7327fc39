#!/bin/bash
# The XPOSE_CPU_* knobs below existed only in the experiment build that ran this call (the
# session's working tree); the final code has the rule of call 2 as constants, plus no beta.
# s40 call 2: the rule (tile area >= 256; copies: input run >= 32 B, output run > 128 B) against
# old (TypedPlan tiles for every strided problem) and new0 (the engine wherever dims 0 are
# contiguous), on a fresh seed drawn here; one binary, env knobs. 16-core host.
cd .carry && for f in xpose_n xpose_tests; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c2; mkdir -p $O
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $SEED" > $O/seed.txt
./xpose_n bench fresh --seed $SEED --list | sed 's/ elem=[0-9]*//' | head -24 > $O/fresh.txt
./xpose_n bench cutt-random --limit 16 --list > $O/cutt.txt
cat $O/fresh.txt $O/cutt.txt > $O/cases.txt
(timeout 200 ./xpose_tests > $O/tests.txt 2>&1; echo "rc $?" >> $O/tests.txt)
for cfg in "f32 f32" "f32 bf16" "bf16 f8e4m3" "f16 f32" "f32 f32 --beta 1"; do
  set -- $cfg; name=$1-$2$3
  for round in 1 2; do for v in old rule new0; do
    case $v in old) E="XPOSE_CPU_STRIDED_AREA=1000000000";; rule) E="XPOSE_CPU_X=1";; new0) E="XPOSE_CPU_STRIDED_AREA=0 XPOSE_CPU_STRIDED_COPY_J=0 XPOSE_CPU_STRIDED_COPY_I=0";; esac
    env $E timeout 60 ./xpose_n bench $O/cases.txt --type $1 --out-type $2 $3 $4 --pad 7 --backend cpu --reps 5 --quiet --csv $O/res-$name-$v-$round.csv > /dev/null 2>&1
  done; done
done
cd $OUT && tar czf c2.tgz c2 && ls c2 | wc -l && tail -3 c2/tests.txt
