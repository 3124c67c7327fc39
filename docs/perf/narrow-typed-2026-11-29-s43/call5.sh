# s43 call 5: conversions two at a time (convert2: two-lane cvt for bf16/f16/fp8 outputs, e4m3 and
# bf16 pair loads) against 3d40aac (one at a time), same cases: cutt-random and fresh (seed drawn
# here); f16 -> f32 (outputs of 4 bytes: one at a time in both) as the control. Two rounds.
cd .carry && for f in xpose-base xpose-pair; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c5; mkdir -p $D
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $S > $D/seed.txt
./xpose-pair bench fresh --seed $S --list | sed 's/ elem=[0-9]*//' | head -16 > $D/fresh.txt
./xpose-pair bench cutt-random --limit 16 --list > $D/cutt.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for r in 1 2; do
for t in "--type bf16 --out-type f8e4m3" "--type f8e4m3 --out-type bf16" "--type f16 --out-type bf16 --alpha 2" "--type f16 --out-type f8e5m2" "--type f16 --out-type f32"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/; s/ --alpha /-a/")
  for f in cutt fresh; do
    run xpose-base $f $f-head-$k-r$r $t
    run xpose-pair $f $f-new-$k-r$r $t
  done
done
done
cat $D/fails.txt 2>/dev/null
cd $OUT && tar czf c5.tgz c5
