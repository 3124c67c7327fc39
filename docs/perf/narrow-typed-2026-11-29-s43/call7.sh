# s43 call 7: main (1c8b94c) against the final build (559a2c1), the same cases, each suite by one
# build then the other, two rounds: cutt-random and fresh (seed drawn here, 16 cases, element
# sizes dropped) for seven conversion pairs and three controls whose plans do not change;
# fresh-middle (seed drawn here, 24 cases of 1-16 MiB) with --latency for three pairs. The plot.
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c7; mkdir -p $D
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); M=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "$S $M" > $D/seed.txt
./xpose-new bench fresh --seed $S --list | sed 's/ elem=[0-9]*//' | head -16 > $D/fresh.txt
./xpose-new bench fresh-middle --seed $M --list | sed 's/ elem=[0-9]*//' | head -24 > $D/middle.txt
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for r in 1 2; do
  [ $r = 1 ] && R="" || R="-r2"
  for t in "--type bf16 --out-type f8e4m3" "--type f16 --out-type f32" "--type f8e4m3 --out-type bf16" "--type bf16 --out-type f32" "--type f16 --out-type bf16 --alpha 2" "--type f8e5m2 --out-type f32" "--type f16 --out-type f8e5m2" "--type bf16" "--type f8e4m3" "--type f32 --out-type bf16"; do
    k=$(echo $t | sed "s/--type //; s/ --out-type /-/; s/ --alpha /-a/")
    for f in cutt fresh; do
      run xpose-head $f $f-head-$k$R $t
      run xpose-new $f $f-new-$k$R $t
    done
  done
  for t in "--type bf16 --out-type f8e4m3" "--type f16 --out-type f32" "--type f8e4m3 --out-type bf16"; do
    k=$(echo $t | sed "s/--type //; s/ --out-type /-/")
    run xpose-head middle middle-head-$k$R $t --latency
    run xpose-new middle middle-new-$k$R $t --latency
  done
done
mkdir -p $D/r2 && for f in $D/*-r2.csv; do b=$(basename $f -r2.csv); mv $f $D/r2/$b.csv; done
cat $D/fails.txt 2>/dev/null
python3 plot.py $D $D/plot.png 2>&1 | tail -3
cd $OUT && tar czf c7.tgz c7
