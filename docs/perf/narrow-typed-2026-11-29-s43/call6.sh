# s43 call 6: the final build's GPU tests (all) and memcheck of the narrow typed tests; `quick`.
cd .carry && for f in xpose-new xpose_gpu_tests; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c6; mkdir -p $D
timeout 300 ./xpose_gpu_tests > $D/tests.txt 2>&1; echo "tests rc $?" >> $D/tests.txt
grep -E "PASSED|FAILED|runs, |realigned gathered|every input value|plans in narrow|plans move groups|tests rc" $D/tests.txt | head -20
timeout 240 compute-sanitizer --tool memcheck ./xpose_gpu_tests --gtest_filter='NarrowTypedGpu.*' > $D/memcheck.txt 2>&1; echo "memcheck rc $?" >> $D/memcheck.txt
tail -2 $D/memcheck.txt
./xpose-new bench quick --backend cuda > $D/quick.txt 2>&1; tail -2 $D/quick.txt
cd $OUT && tar czf c6.tgz c6
