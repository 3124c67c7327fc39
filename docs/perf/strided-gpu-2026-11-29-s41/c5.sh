#!/bin/bash
# s41 call 5: the README's two commands on the device at the session's code (no build folder
# carried), the GPU and CPU tests by label, and the plot (matplotlib is on the device only).
O=$OUT/c5; mkdir -p $O
D=docs/perf/strided-gpu-2026-11-29-s41
mkdir -p /tmp/x && tar xzf $D/c1.tgz -C /tmp/x && tar xzf $D/c2.tgz -C /tmp/x
python3 $D/plot.py /tmp/x/c1 /tmp/x/c2 $O > $O/plot.log 2>&1
start=$(date +%s)
cmake -B build -DCMAKE_BUILD_TYPE=Release > $O/cmake.txt 2>&1 && cmake --build build -j > $O/build.txt 2>&1 && ./build/tools/xpose bench quick > $O/quick.txt 2>&1
echo "build+quick rc $? in $(( $(date +%s) - start )) s" | tee -a $O/quick.txt
tail -4 $O/quick.txt
ctest --test-dir build -L gpu --output-on-failure > $O/gpu.txt 2>&1; echo "gpu rc $?" >> $O/gpu.txt
ctest --test-dir build -LE gpu -j 8 --output-on-failure > $O/cpu.txt 2>&1; echo "cpu rc $?" >> $O/cpu.txt
tail -4 $O/gpu.txt; tail -4 $O/cpu.txt
echo "total $(( $(date +%s) - start )) s"
cd $OUT && tar czf c5.tgz c5
