# s43 call 10: fix_rounded's e4m3 test as !(a <= 464) (the same bits): the bit-for-bit tests, the
# narrow typed tests under memcheck's neighbours skipped, cutt-random medians of three pairs.
cd .carry && for f in xpose-new xpose_gpu_tests; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c10; mkdir -p $D
timeout 150 ./xpose_gpu_tests --gtest_filter='TypedGpu.*:NarrowTypedGpu.*:RowsGpu.*:CudaNarrow*' > $D/tests.txt 2>&1; echo "tests rc $?" >> $D/tests.txt
grep -E "PASSED|FAILED|tests rc" $D/tests.txt | head
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
for t in "--type bf16 --out-type f8e4m3" "--type f8e4m3 --out-type bf16" "--type f16 --out-type f32" "--type f32 --out-type f8e4m3"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/")
  ./xpose-new bench $D/cutt.txt $t --backend cuda --csv $D/cutt-$k.csv --quiet > $D/cutt-$k.txt 2>&1
done
grep -h "^| \|^type" $D/cutt-*.txt | grep -v "suite  " | paste - - | cut -c1-160
cd $OUT && tar czf c10.tgz c10
