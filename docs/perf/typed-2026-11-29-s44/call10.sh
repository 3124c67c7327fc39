# s44 call 10: typed cells (k >= 2) against main: cells problems drawn here (gen_cells.py, seed
# drawn here, 16 problems, half with input dim 0 first) and call 6's cutt-random and fresh lists,
# for f16 -> f32, bf16 -> e4m3, e4m3 -> bf16, bf16 -> f32; each suite by one build then the other.
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c10; mkdir -p $D
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $S > $D/seed.txt
python3 gen_cells.py $S 16 > $D/cells.txt
cp cutt.txt fresh.txt $D/
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for t in "--type f16 --out-type f32" "--type bf16 --out-type f8e4m3" "--type f8e4m3 --out-type bf16" "--type bf16 --out-type f32"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/")
  for f in cells cutt fresh; do
    run xpose-head $f $f-head-$k $t
    run xpose-new $f $f-new-$k $t
  done
done
cat $D/fails.txt 2>/dev/null
python3 ab.py $D > $D/ab.txt 2>&1
cd $OUT && tar czf c10.tgz c10
