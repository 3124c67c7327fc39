set -x
cd .carry && xz -d -k xpose-head.xz && xz -d -k gpu_tests-head.xz && chmod +x xpose-head gpu_tests-head
mkdir -p $OUT/c1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/c1/gpu.txt
./gpu_tests-head > $OUT/c1/tests.txt 2>&1; echo "tests rc $?" >> $OUT/c1/tests.txt
tail -3 $OUT/c1/tests.txt
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo $S > $OUT/c1/seed.txt
python3 gen_fvi.py $S 24 > $OUT/c1/fvi.txt
for t in "f32 bf16" "f16 f32" "bf16 f8e4m3"; do set -- $t
  ./xpose-head bench $OUT/c1/fvi.txt --type $1 --out-type $2 --backend cuda --csv $OUT/c1/h-$1-$2.csv --quiet > $OUT/c1/h-$1-$2.txt 2>&1
done
./xpose-head bench $OUT/c1/fvi.txt --type f32 --beta 1 --backend cuda --csv $OUT/c1/h-beta1.csv --quiet > $OUT/c1/h-beta1.txt 2>&1
./xpose-head bench $OUT/c1/fvi.txt --type f32 --pad 7 --backend cuda --csv $OUT/c1/h-pad7.csv --quiet > $OUT/c1/h-pad7.txt 2>&1
./xpose-head bench $OUT/c1/fvi.txt --elem 4 --backend cuda --csv $OUT/c1/h-plain4.csv --quiet > $OUT/c1/h-plain4.txt 2>&1
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
