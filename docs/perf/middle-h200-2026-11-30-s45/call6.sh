# s45 call 6: the direct kernel for plain 4-16 byte problems in L2 whose reads stay within 0.4
# of L2 (direct_in_l2, direct_read_factor) against the cells build (7982467), new seeds:
# fresh-middle (two seeds), wide cells problems of 1-16 MiB, random 4-16 B problems of 12-24 MiB
# (the L2 bound), the sizes cases up to 64 MiB, all graph-replayed, two rounds; fresh (16) and
# cutt-random 4 B (16) above L2 as controls.
cd .carry && for f in xpose-cells xpose-direct; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c6; mkdir -p $D
r32() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }
A=$(r32); B=$(r32); C=$(r32); E=$(r32); F=$(r32)
echo "fresh-middle $A $B cells $C edge $E fresh $F" > $D/seed.txt
./xpose-direct bench fresh-middle --seed $A --list > $D/fma.txt
./xpose-direct bench fresh-middle --seed $B --list > $D/fmb.txt
python3 gen_wide_cells.py $C 40 1 16 > $D/cells.txt
python3 gen_random.py $E 40 12 24 > $D/edge.txt
./xpose-direct bench sizes --list | grep -v -E "256MiB|1GiB" > $D/sizes.txt
./xpose-direct bench fresh --seed $F --list | head -16 > $D/fresh.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for r in 1 2; do for f in fma fmb cells edge sizes; do
  run xpose-cells $f $f-head-r$r --latency; run xpose-direct $f $f-new-r$r --latency
done; done
run xpose-cells fresh fresh-head; run xpose-direct fresh fresh-new
./xpose-direct bench cutt-random --limit 16 --list > $D/cutt.txt
run xpose-cells cutt cutt4-head --elem 4; run xpose-direct cutt cutt4-new --elem 4
cat $D/fails.txt 2>/dev/null; head -3 $D/sizes.txt; wc -l $D/sizes.txt
cd $OUT && tar czf c6.tgz c6
