# s42 call 4: the README's commands on the device at this tree (build, quick, every test), memcheck
# of the rows tests, then typed FVI problems and cutt-random (seeds drawn here), main against
# this build, and the plot.
O=$OUT/c4; mkdir -p $O
start=$(date +%s)
cmake -B build -DCMAKE_BUILD_TYPE=Release > $O/cmake.txt 2>&1 && cmake --build build -j > $O/build.txt 2>&1 && ./build/tools/xpose bench quick > $O/quick.txt 2>&1
echo "build+quick rc $? in $(( $(date +%s) - start )) s" | tee -a $O/quick.txt
tail -3 $O/quick.txt
ctest --test-dir build -L gpu --output-on-failure > $O/gpu.txt 2>&1; echo "gpu rc $?" >> $O/gpu.txt
tail -3 $O/gpu.txt
./build/tests/xpose_gpu_tests --gtest_filter='RowsGpu.*:RowsPlanner.*' > $O/rows-tests.txt 2>&1; grep -E "OK|FAILED|planned as rows" $O/rows-tests.txt
timeout 150 compute-sanitizer --tool memcheck ./build/tests/xpose_gpu_tests --gtest_filter='RowsGpu.*' > $O/memcheck.txt 2>&1; echo "memcheck rc $?" >> $O/memcheck.txt
tail -2 $O/memcheck.txt
echo "tests done $(( $(date +%s) - start )) s"
cp build/tools/xpose .carry/xpose-new
cd .carry && xz -d -k -f xpose-head.xz && chmod +x xpose-head
D=$O; S1=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); S2=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "$S1 $S2" > $D/seeds.txt
python3 gen_fvi.py $S1 24 > $D/long.txt; python3 gen_fvi.py $S2 24 16 4096 > $D/short.txt
./xpose-head bench cutt-random --limit 16 --list > $D/cutt.txt
run() {  # bin file tag extra...
  local b=$1 f=$2 tag=$3; shift 3
  ./$b bench $D/$f.txt "$@" --backend cuda --csv $D/$tag.csv --quiet > $D/$tag.txt 2>&1 || echo "FAIL $tag" >> $D/fails.txt
}
for t in "--type f32 --out-type bf16" "--type f16 --out-type f32" "--type bf16 --out-type f8e4m3" "--type f32 --beta 1" "--type f32 --out-type f16" "--type f32 --out-type bf16 --pad 7"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/; s/ --beta 1/-beta1/; s/ --pad 7/-pad7/")
  for f in long short cutt; do
    run xpose-head $f $f-head-$k $t
    run xpose-new $f $f-new-$k $t
  done
done
cat $D/fails.txt 2>/dev/null
python3 ../docs/perf/rows-typed-2026-11-29-s42/plot.py $D $D/rows.png > $D/plot.log 2>&1
echo "total $(( $(date +%s) - start )) s"
cd $OUT && tar czf c4.tgz c4
