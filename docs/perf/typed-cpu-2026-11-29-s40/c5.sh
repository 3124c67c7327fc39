#!/bin/bash
# s40 calls 5-6: the final CPU test binary (xpose_tests of cedf2dc, CPU-only, carried) on the
# 16-core host, and the plots (matplotlib is on the device only; call 6 re-ran them with the
# legend fixed).
D=docs/perf/typed-cpu-2026-11-29-s40
O=$OUT/c5; mkdir -p $O /tmp/c4x
tar xzf $D/c4.tgz -C /tmp/c4x
python3 $D/plot.py /tmp/c4x/c4 $D/gpu-bound.csv $O > $O/plot.log 2>&1
cd .carry && xz -dk -f xpose_tests.xz && chmod +x xpose_tests
(timeout 200 ./xpose_tests > $O/tests.txt 2>&1; echo "rc $?" >> $O/tests.txt)
tail -3 $O/tests.txt; cat $O/plot.log
