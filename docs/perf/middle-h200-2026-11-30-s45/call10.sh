# s45 call 10: the README's commands from the final tree (build and quick, then every test) and
# memcheck of the direct kernel's tests.
D=$OUT/c10; mkdir -p $D; T0=$SECONDS
(cmake -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j && ./build/tools/xpose bench quick) > $D/readme1.txt 2>&1
echo "readme1 rc $? at $((SECONDS-T0)) s" >> $D/time.txt
ctest --test-dir build --output-on-failure -L gpu > $D/ctest-gpu.txt 2>&1; echo "ctest gpu rc $? at $((SECONDS-T0)) s" >> $D/time.txt
ctest --test-dir build --output-on-failure -LE gpu -j8 > $D/ctest-cpu.txt 2>&1; echo "ctest cpu rc $? at $((SECONDS-T0)) s" >> $D/time.txt
timeout 120 compute-sanitizer --tool memcheck build/tests/xpose_gpu_tests \
  --gtest_filter='CudaCorrectness.DirectInL2:CudaCorrectness.DirectSmallTensorsAnyAlignment' > $D/memcheck.txt 2>&1
echo "memcheck rc $? at $((SECONDS-T0)) s" >> $D/time.txt
cat $D/time.txt; tail -3 $D/readme1.txt; grep -h "tests passed" $D/ctest-*.txt; grep -h "plans in L2" $D/ctest-gpu.txt; tail -2 $D/memcheck.txt
cd $OUT && tar czf c10.tgz c10
