# s45 call 1: cells for plain 4-, 8- and 16-byte elements against main (f2db96a): wide cells
# problems drawn here (gen_wide_cells.py), large (32-128 MiB) and middle (1-16 MiB, --latency,
# two rounds), cutt-random 4 B and 16 fresh problems as controls; each list by one build then
# the other.
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c1; mkdir -p $D
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); M=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
F=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo "large $S middle $M fresh $F" > $D/seed.txt
python3 gen_wide_cells.py $S 32 32 128 > $D/large.txt
python3 gen_wide_cells.py $M 40 1 16 > $D/middle.txt
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
./xpose-new bench fresh --seed $F --list | head -16 > $D/fresh.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
T0=$SECONDS
for b in head new; do run xpose-$b large large-$b; done; echo "large $((SECONDS-T0))" >> $D/time.txt
for r in 1 2; do for b in head new; do run xpose-$b middle middle-$b-r$r --latency; done; done
echo "middle $((SECONDS-T0))" >> $D/time.txt
for b in head new; do run xpose-$b cutt cutt-$b --elem 4; run xpose-$b fresh fresh-$b; done
echo "controls $((SECONDS-T0))" >> $D/time.txt
./xpose-new bench $D/large.txt --backend cuda --planning measure --csv $D/large-measure.csv --quiet > $D/large-measure.txt 2>&1
echo "measure $((SECONDS-T0))" >> $D/time.txt
cat $D/fails.txt 2>/dev/null; cat $D/time.txt
cd $OUT && tar czf c1.tgz c1
