#!/bin/bash
# s41 call 2: typed tiles without 4-byte groups for pointers off 4 bytes (the change), on call
# 1's cases (seed 3506231577) and cutt-random, padded, three conversions; the GPU tests (and
# compute-sanitizer on the new ones); ncu counters of padded against plain f32 on the same plan.
cd .carry && for f in xpose xpose_gpu_tests; do xz -dk -f $f.xz; chmod +x $f; done
O=$OUT/c2; mkdir -p $O
./xpose_gpu_tests --gtest_filter='TypedGpu.*:TypedPlanner.*:CudaPlanner*' > $O/tests.txt 2>&1; echo "tests rc $?" >> $O/tests.txt
tail -3 $O/tests.txt
compute-sanitizer --tool memcheck ./xpose_gpu_tests --gtest_filter='TypedGpu.TilesForPointersOffFourBytes:TypedGpu.MeasurePlanningOnTypedAndStrided' > $O/sanitizer.txt 2>&1; echo "sanitizer rc $?" >> $O/sanitizer.txt
tail -3 $O/sanitizer.txt
./xpose bench fresh --seed 3506231577 --list | sed 's/ elem=[0-9]*//' | head -12 > $O/fresh.txt
./xpose bench cutt-random --limit 16 --list > $O/cutt.txt
for s in cutt fresh; do
  for cfg in "f32 bf16" "bf16 f8e4m3" "f16 f32"; do
    set -- $cfg
    ./xpose bench $O/$s.txt --type $1 --out-type $2 --pad 7 --backend cuda --reps 10 --csv $O/h-$s-$1-$2.csv > /dev/null 2>&1
  done
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread
for c in "17,17,17,17,17,17 0,5,1,4,3,2" "4,27,24,7,22,60 1,3,2,4,0,5" "8,8,8,8,8,8,8,8 5,3,7,6,2,1,0,4" "799,160,196 1,2,0"; do
  set -- $c
  for v in "--pad 7" ""; do
    ncu --metrics $M --kernel-name regex:"tiled_kernel|wide2d" --launch-skip 2 --launch-count 1 ./xpose run --extents $1 --perm $2 --type f32 $v --backend cuda --reps 3 > $O/t.txt 2>&1
    echo "== $1 perm $2 $v" >> $O/ncu.txt; grep -E "tiled_kernel|wide2d|__|plan  |ratio" $O/t.txt >> $O/ncu.txt
  done
done
rm -f $O/t.txt
cd $OUT && tar czf c2.tgz c2 && ls c2
