# s43 call 2: main (1c8b94c, built for sm_90) against the change on dense conversions from 1- and 2-byte inputs:
# cutt-random and fresh problems (seed drawn here), the same cases, each suite by one build then
# the other; f32 -> bf16 (plans unchanged) as the noise control.
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c2; mkdir -p $D
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $S > $D/seed.txt
./xpose-new bench fresh --seed $S --list | sed 's/ elem=[0-9]*//' | head -16 > $D/fresh.txt
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for t in "--type bf16 --out-type f8e4m3" "--type f16 --out-type f32" "--type f8e4m3 --out-type bf16"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/")
  for f in cutt fresh; do
    run xpose-head $f $f-head-$k $t
    run xpose-new $f $f-new-$k $t
  done
done
run xpose-head cutt cutt-head-f32-bf16 --type f32 --out-type bf16
run xpose-new cutt cutt-new-f32-bf16 --type f32 --out-type bf16
cat $D/fails.txt 2>/dev/null
grep -h "^| cutt\|^| fresh\|^type" $D/*-*.txt | head -40
cd $OUT && tar czf c2.tgz c2
