#!/usr/bin/env bash
# Device call 1: diagnostic A/B of CPU variants (experiment build: experiment.patch on 2a2bfdd).
set -u
d=$(dirname "$0"); out=${OUT:-/tmp/out}; mkdir -p "$out/r"
{ nproc; lscpu | grep -E "Model name|^CPU\(s\)|L2|L3|NUMA"; cat /sys/kernel/mm/transparent_hugepage/enabled; free -g | head -2; uptime; } > "$out/r/machine.txt" 2>&1
W="base t8/threads=8 band/env=XPOSE_EXP=1 nolw/env=XPOSE_EXP=2 b3/env=XPOSE_EXP=3 noext/env=XPOSE_EXP=8 blike/env=XPOSE_EXP=15 stack/env=XPOSE_EXP=32 s128/env=XPOSE_EXP=16 nogrp/env=XPOSE_CPU_GROUP=0 nt0/env=XPOSE_CPU_NT=0 thp/hp sq64/schema=blocked:ti=64,to=64 t128x32/schema=blocked:ti=128,to=32 t128x64/schema=blocked:ti=128,to=64 t32x128/schema=blocked:ti=32,to=128"
S="base band/env=XPOSE_EXP=1 nolw/env=XPOSE_EXP=2 b3/env=XPOSE_EXP=3 s128/env=XPOSE_EXP=16 sq64/schema=blocked:ti=64,to=64"
$d/cpu_ab --reps 5 --budget 92 --csv "$out/r/worst.csv" $W < $d/worst1.txt > "$out/r/worst.log" 2>&1
tar -czf "$out/run1.tar.gz" -C "$out/r" .
$d/cpu_ab --reps 5 --budget 70 --csv "$out/r/spread.csv" $S < $d/spread1.txt > "$out/r/spread.log" 2>&1
tar -czf "$out/run1.tar.gz" -C "$out/r" .
rm -rf "$out/r"
