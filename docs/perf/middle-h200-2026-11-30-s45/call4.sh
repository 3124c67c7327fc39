# s45 call 4 (experiment build: a forced 'direct' at any size): fresh-middle of two seeds drawn
# here, graph-replayed, heuristic plans against the direct kernel forced, two rounds.
cd .carry && xz -d -k -f xpose-exp.xz && chmod +x xpose-exp
D=$OUT/c4; mkdir -p $D
r32() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }
A=$(r32); B=$(r32); echo "fresh-middle $A $B" > $D/seed.txt
./xpose-exp bench fresh-middle --seed $A --list > $D/fa.txt
./xpose-exp bench fresh-middle --seed $B --list > $D/fb.txt
for r in 1 2; do for f in fa fb; do
  ./xpose-exp bench $D/$f.txt --backend cuda --latency --quiet --csv $D/$f-heur-r$r.csv > $D/$f-heur-r$r.txt 2>&1 || echo "FAIL $f heur" >> $D/fails.txt
  ./xpose-exp bench $D/$f.txt --backend cuda --latency --quiet --schema direct --csv $D/$f-direct-r$r.csv > $D/$f-direct-r$r.txt 2>&1 || echo "FAIL $f direct" >> $D/fails.txt
done; done
cat $D/fails.txt 2>/dev/null; tail -12 $D/fa-direct-r1.txt
cd $OUT && tar czf c4.tgz c4
