# s42 call 7: the committed build (beta rows from 8 KB) against main on f32 with beta = 1 and
# f16 -> f32 FVI problems and on cutt-random (seeds drawn here), no tests (planner-only change,
# the kernel as call 6).
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c7; mkdir -p $D
S1=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); S2=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "$S1 $S2" > $D/seeds.txt
python3 gen_fvi.py $S1 24 > $D/long.txt; python3 gen_fvi.py $S2 24 16 4096 > $D/short.txt
./xpose-head bench cutt-random --limit 16 --list > $D/cutt.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for t in "--type f32 --beta 1" "--type f16 --out-type f32" "--type f32 --out-type bf16"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/; s/ --beta 1/-beta1/")
  for f in long short cutt; do
    run xpose-head $f $f-head-$k $t
    run xpose-new $f $f-new-$k $t
  done
done
cat $D/fails.txt 2>/dev/null
cd $OUT && tar czf c7.tgz c7
