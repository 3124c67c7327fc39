cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c2; mkdir -p $D
S1=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); S2=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "$S1 $S2" > $D/seeds.txt
python3 gen_fvi.py $S1 24 > $D/long.txt; python3 gen_fvi.py $S2 24 16 2048 > $D/short.txt
run() {  # bin file tag extra...
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for t in "f32 bf16" "f16 f32" "bf16 f8e4m3"; do set -- $t
  for f in long short; do
    run xpose-head $f $f-head-$1-$2 --type $1 --out-type $2
    run xpose-new $f $f-new-$1-$2 --type $1 --out-type $2
  done
  run xpose-new short short-rows-$1-$2 --type $1 --out-type $2 --schema rows
done
for f in long short; do
  run xpose-head $f $f-head-beta1 --type f32 --beta 1
  run xpose-new $f $f-new-beta1 --type f32 --beta 1
  run xpose-head $f $f-head-pad7 --type f32 --pad 7
  run xpose-new $f $f-new-pad7 --type f32 --pad 7
done
run xpose-new short short-rows-beta1 --type f32 --beta 1 --schema rows
run xpose-new short short-rows-pad7 --type f32 --pad 7 --schema rows
cat $D/fails.txt 2>/dev/null
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
