# s43 call 1: the first build's GPU tests (all), memcheck of the narrow typed tests.
cd .carry && for f in xpose_gpu_tests; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c1; mkdir -p $D
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $D/gpu.txt
timeout 300 ./xpose_gpu_tests > $D/tests.txt 2>&1; echo "tests rc $?" >> $D/tests.txt
tail -4 $D/tests.txt
grep -E "FAILED|runs, |plans in narrow|plans move groups|Failure|Expected|Which is|first wrong" $D/tests.txt | head -40
timeout 200 compute-sanitizer --tool memcheck ./xpose_gpu_tests --gtest_filter='NarrowTypedGpu.*' > $D/memcheck.txt 2>&1; echo "memcheck rc $?" >> $D/memcheck.txt
tail -4 $D/memcheck.txt
cd $OUT && tar czf c1.tgz c1
