#!/bin/bash
# Main's tool ($MAIN) and the change's ($NEW), alternating, two rounds each, on a case list:
#   MAIN=... NEW=... THREADS=1|2 [WARM=1] bash ab.sh LIST TAG   ->  TAG-{main,new}-{1,2}.csv
# (session 46: main 2ab40b5's and this commit's CPU code; `python3 cmp.py TAG v` compares).
list=$1; tag=$2
for k in 1 2; do
  for v in main new; do
    if [ $v = main ]; then b=$MAIN; else b=$NEW; fi
    $b bench $list --backend cpu --threads ${THREADS:-1} ${WARM:+--warm} --reps 7 \
      --csv $tag-$v-$k.csv > /dev/null 2>&1
  done
done
