#!/bin/bash
# s41 call 6: where dense typed tiles spend their time (ncu sections of the tile kernel), bf16 ->
# e4m3 and f32 -> bf16 on two cutt-random shapes whose plans are typed tiles, for the next step.
cd .carry && xz -dk -f xpose.xz && chmod +x xpose
O=$OUT/c6; mkdir -p $O
for c in "8,8,8,8,8,8,8,8 5,3,7,6,2,1,0,4" "17,17,17,17,17,17 0,5,1,4,3,2"; do
  set -- $c
  for t in "bf16 f8e4m3" "f32 bf16"; do
    set -- $1 $2 $t
    ./xpose run --extents $1 --perm $2 --type $3 --out-type $4 --backend cuda --reps 10 > $O/t.txt 2>&1
    echo "== $1 perm $2 $3 -> $4" >> $O/ncu.txt; grep -E "ratio|plan desc" -A1 $O/t.txt | head -4 >> $O/ncu.txt
    ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --kernel-name regex:"tiled_kernel" --launch-skip 2 --launch-count 1 ./xpose run --extents $1 --perm $2 --type $3 --out-type $4 --backend cuda --reps 3 >> $O/ncu.txt 2>&1
  done
done
rm -f $O/t.txt; cd $OUT && tar czf c6.tgz c6 && wc -l c6/ncu.txt
