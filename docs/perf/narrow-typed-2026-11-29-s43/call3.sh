# s43 call 3: every GPU test of the change, memcheck of the narrow typed tests; plain 1- and
# 2-byte moves against the conversions on the same cases (time per case); ncu of one case.
cd .carry && for f in xpose-new xpose_gpu_tests; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c3; mkdir -p $D
timeout 200 ./xpose_gpu_tests > $D/tests.txt 2>&1; echo "tests rc $?" >> $D/tests.txt
grep -E "PASSED|FAILED|runs, |realigned gathered|plans in narrow|plans move groups" $D/tests.txt | head -20
timeout 150 compute-sanitizer --tool memcheck ./xpose_gpu_tests --gtest_filter='NarrowTypedGpu.*' > $D/memcheck.txt 2>&1; echo "memcheck rc $?" >> $D/memcheck.txt
tail -2 $D/memcheck.txt
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
for t in "--type bf16" "--type bf16 --out-type f8e4m3" "--type f16 --out-type f32" "--type f8e4m3" "--type f8e4m3 --out-type bf16"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/")
  ./xpose-new bench $D/cutt.txt $t --backend cuda --csv $D/cutt-$k.csv --quiet > $D/cutt-$k.txt 2>&1
done
grep -h "^| cutt\|^type\|elements" $D/cutt-*.txt
echo "cutt-random r6x1-2 17,17,17,17,17,17 0,5,1,4,3,2" > $D/one.txt
for t in "--type bf16" "--type bf16 --out-type f8e4m3" "--type f16 --out-type f32"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/")
  timeout 60 ncu --kernel-name regex:narrow_kernel --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis ./xpose-new bench $D/one.txt $t --backend cuda --reps 5 > $D/ncu-$k.txt 2>&1
done
grep -hE "Duration|DRAM Throughput|Executed Ipc A|Issue Slots Busy|Executed Instructions  |Memory Throughput|Stall|Warp Cycles Per Issued" $D/ncu-*.txt | head -60
cd $OUT && tar czf c3.tgz c3
