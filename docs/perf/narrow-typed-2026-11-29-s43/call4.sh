# s43 call 4: main (1c8b94c, sm_90) against the committed change (3d40aac): plain 1- and 2-byte
# moves on cutt-random (control: the narrow kernel's refactor), more conversion pairs on
# cutt-random, and bf16 -> e4m3 / f16 -> f32 on fresh-middle problems (1-16 MiB, seed drawn here)
# with --latency (graph-replayed times); then `xpose bench quick`.
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c4; mkdir -p $D
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $S > $D/seed.txt
./xpose-new bench fresh-middle --seed $S --list | sed 's/ elem=[0-9]*//' | head -24 > $D/middle.txt
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for t in "--type bf16" "--type f8e4m3" "--type f16 --out-type bf16 --alpha 2" "--type f8e5m2 --out-type f32" "--type bf16 --out-type f32" "--type f16 --out-type f8e5m2"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/; s/ --alpha /-a/")
  run xpose-head cutt cutt-head-$k $t
  run xpose-new cutt cutt-new-$k $t
done
for t in "--type bf16 --out-type f8e4m3" "--type f16 --out-type f32"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/")
  run xpose-head middle middle-head-$k $t --latency
  run xpose-new middle middle-new-$k $t --latency
done
cat $D/fails.txt 2>/dev/null
grep -h "^| cutt\|^| fresh\|^type" $D/*-*.txt | head -60
./xpose-new bench quick --backend cuda > $D/quick.txt 2>&1; tail -4 $D/quick.txt
cd $OUT && tar czf c4.tgz c4
