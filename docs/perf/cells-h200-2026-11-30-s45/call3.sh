# s45 call 3: the README's commands from this tree (build and quick, then every test), memcheck of
# the cells tests, fresh-middle's weakest 4-byte case (session 38) with main and the build, and
# the plot of calls 1-2.
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
tar xzf c1.tgz && tar xzf c2.tgz && cd ..
D=$OUT/c3; mkdir -p $D; T0=$SECONDS
git log -1 --format=%H > $D/commit.txt 2>/dev/null
(cmake -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j && ./build/tools/xpose bench quick) > $D/readme1.txt 2>&1
echo "readme1 rc $? at $((SECONDS-T0)) s" >> $D/time.txt
ctest --test-dir build --output-on-failure -L gpu > $D/ctest-gpu.txt 2>&1; echo "ctest gpu rc $? at $((SECONDS-T0)) s" >> $D/time.txt
ctest --test-dir build --output-on-failure -LE gpu -j8 > $D/ctest-cpu.txt 2>&1; echo "ctest cpu rc $? at $((SECONDS-T0)) s" >> $D/time.txt
timeout 180 compute-sanitizer --tool memcheck build/tests/xpose_gpu_tests \
  --gtest_filter='CudaCells.CellsAnyAlignment:CudaCells.RandomCellProblems' > $D/memcheck.txt 2>&1
echo "memcheck rc $? at $((SECONDS-T0)) s" >> $D/time.txt
printf 'cells weak4 13,8,2,41,8,16 1,0,5,4,3,2 elem=4\ncells weak8 5,24,6,12,16 3,2,1,0,4 elem=8\n' > $D/weak.txt
for r in 1 2; do for b in head new; do
  .carry/xpose-$b bench $D/weak.txt --backend cuda --latency --csv $D/weak-$b-r$r.csv > $D/weak-$b-r$r.txt 2>&1
done; done
python3 .carry/plot_cells.py .carry/c1 .carry/c2 $D/cells-wide.png > $D/plot.txt 2>&1
tail -3 $D/readme1.txt; cat $D/time.txt; tail -3 $D/ctest-gpu.txt $D/ctest-cpu.txt; tail -4 $D/memcheck.txt
cd $OUT && tar czf c3.tgz c3
