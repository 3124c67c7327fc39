# s45 call 2: the final rule (wide cells where the tensors fit in L2) against main (f2db96a) on
# new seeds: wide cells problems of 1-16 MiB (graph-replayed, two rounds), 12-40 MiB (around the
# L2 bound) and 32-128 MiB; fresh-middle (all element sizes, graph-replayed); cutt-random 4 B and
# 8 B and 16 fresh problems as controls. Each list by one build then the other.
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c2; mkdir -p $D
r32() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }
S=$(r32); B=$(r32); L=$(r32); M=$(r32); F=$(r32)
echo "middle $S bound $B large $L fresh-middle $M fresh $F" > $D/seed.txt
python3 gen_wide_cells.py $S 40 1 16 > $D/middle.txt
python3 gen_wide_cells.py $B 24 12 40 > $D/bound.txt
python3 gen_wide_cells.py $L 24 32 128 > $D/large.txt
./xpose-new bench fresh-middle --seed $M --list > $D/fmid.txt
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
./xpose-new bench fresh --seed $F --list | head -16 > $D/fresh.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for r in 1 2; do for b in head new; do
  run xpose-$b middle middle-$b-r$r --latency; run xpose-$b fmid fmid-$b-r$r --latency
  run xpose-$b bound bound-$b-r$r --latency
done; done
for b in head new; do
  run xpose-$b large large-$b; run xpose-$b cutt cutt4-$b --elem 4; run xpose-$b cutt cutt8-$b --elem 8
  run xpose-$b fresh fresh-$b
done
cat $D/fails.txt 2>/dev/null; echo done
cd $OUT && tar czf c2.tgz c2
