# s43 call 9: the review mend (fix_rounded, the deal-warp rule, store_if): every GPU test, memcheck
# of the narrow typed tests, cutt-random medians of three pairs against call 7's, and plan choice:
# heuristic against measure planning on fresh problems (seed drawn here) for three pairs.
cd .carry && for f in xpose-new xpose_gpu_tests; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c9; mkdir -p $D
timeout 240 ./xpose_gpu_tests > $D/tests.txt 2>&1; echo "tests rc $?" >> $D/tests.txt
timeout 150 compute-sanitizer --tool memcheck ./xpose_gpu_tests --gtest_filter='NarrowTypedGpu.*' > $D/memcheck.txt 2>&1; echo "memcheck rc $?" >> $D/memcheck.txt
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $S > $D/seed.txt
./xpose-new bench fresh --seed $S --list | sed 's/ elem=[0-9]*//' | head -16 > $D/fresh.txt
./xpose-new bench cutt-random --limit 16 --list > $D/cutt.txt
for t in "--type bf16 --out-type f8e4m3" "--type f8e4m3 --out-type bf16" "--type f16 --out-type f32"; do
  k=$(echo $t | sed "s/--type //; s/ --out-type /-/")
  ./xpose-new bench $D/cutt.txt $t --backend cuda --csv $D/cutt-$k.csv --quiet > $D/cutt-$k.txt 2>&1
  ./xpose-new bench $D/fresh.txt $t --backend cuda --csv $D/fresh-heur-$k.csv --quiet > $D/fresh-heur-$k.txt 2>&1
  ./xpose-new bench $D/fresh.txt $t --backend cuda --planning measure --csv $D/fresh-meas-$k.csv --quiet > $D/fresh-meas-$k.txt 2>&1
done
cd $OUT && tar czf c9.tgz c9
