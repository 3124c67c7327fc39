# s45 call 7: the README's commands from this tree (build and quick, then every test), memcheck
# of the direct-in-L2 test, main (f2db96a, carried) against the device's build on new seeds:
# fresh-middle (two seeds), cells problems of 1-16 MiB, random 4-16 B problems of 12-24 MiB,
# the sizes cases up to 64 MiB (graph-replayed, two rounds), cutt-random 8 B and 16 fresh
# problems as controls; plan creation (bench-host) with both; the plot.
cd .carry && xz -d -k -f xpose-head.xz && chmod +x xpose-head && cd ..
D=$OUT/c7; mkdir -p $D; T0=$SECONDS
(cmake -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j && ./build/tools/xpose bench quick) > $D/readme1.txt 2>&1
echo "readme1 rc $? at $((SECONDS-T0)) s" >> $D/time.txt
ctest --test-dir build --output-on-failure -L gpu > $D/ctest-gpu.txt 2>&1; echo "ctest gpu rc $? at $((SECONDS-T0)) s" >> $D/time.txt
ctest --test-dir build --output-on-failure -LE gpu -j8 > $D/ctest-cpu.txt 2>&1; echo "ctest cpu rc $? at $((SECONDS-T0)) s" >> $D/time.txt
timeout 120 compute-sanitizer --tool memcheck build/tests/xpose_gpu_tests \
  --gtest_filter='CudaCorrectness.DirectInL2:CudaCorrectness.DirectSmallTensorsAnyAlignment' > $D/memcheck.txt 2>&1
echo "memcheck rc $? at $((SECONDS-T0)) s" >> $D/time.txt
cp build/tools/xpose .carry/xpose-new
cd .carry
r32() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }
A=$(r32); B=$(r32); C=$(r32); E=$(r32); F=$(r32); P=$(r32)
echo "fresh-middle $A $B cells $C edge $E fresh $F bench-host $P" > $D/seed.txt
./xpose-new bench fresh-middle --seed $A --list > $D/fma.txt
./xpose-new bench fresh-middle --seed $B --list > $D/fmb.txt
python3 gen_wide_cells.py $C 40 1 16 > $D/cells.txt
python3 gen_random.py $E 40 12 24 > $D/edge.txt
./xpose-new bench sizes --list | grep -v -E "256MiB|1GiB" > $D/sizes.txt
./xpose-new bench fresh --seed $F --list | head -16 > $D/fresh.txt
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
run() {
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for r in 1 2; do for f in fma fmb cells edge sizes; do
  run xpose-head $f $f-head-r$r --latency; run xpose-new $f $f-new-r$r --latency
done; done
run xpose-head fresh fresh-head; run xpose-new fresh fresh-new
run xpose-head cutt cutt8-head --elem 8; run xpose-new cutt cutt8-new --elem 8
for b in head new; do ./xpose-$b bench-host --problems 1000 --seed $P > $D/host-$b.txt 2>&1; done
python3 ab_cells.py $D > $D/ab.md 2>&1
python3 plot_direct.py $D $D/direct.png fma fmb cells edge sizes > $D/plot.txt 2>&1
cat $D/time.txt $D/fails.txt 2>/dev/null; tail -3 $D/readme1.txt; grep -h "tests passed" $D/ctest-*.txt
tail -2 $D/memcheck.txt; cat $D/ab.md; grep -h -i "median" $D/host-*.txt | head -4
cd $OUT && tar czf c7.tgz c7
