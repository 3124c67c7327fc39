#!/usr/bin/env bash
# Device call 2: base vs three candidates (experiment build: experiment.patch on 2a2bfdd), worst and spread lists.
set -u
d=$(dirname "$0"); out=${OUT:-/tmp/out}; mkdir -p "$out/r"
{ nproc; lscpu | grep -E "Model name|^CPU\(s\)|L2|L3"; cat /sys/kernel/mm/transparent_hugepage/enabled; uptime; } > "$out/r/machine.txt" 2>&1
V="base c1/env=XPOSE_EXP=832 c2/env=XPOSE_EXP=960 c3/env=XPOSE_EXP=848"
$d/cpu_ab --reps 7 --budget 78 --csv "$out/r/worst.csv" --raw "$out/r/worst-raw.csv" $V thp/hp < $d/worst2.txt > "$out/r/worst.log" 2>&1
tar -czf "$out/run2.tar.gz" -C "$out/r" .
$d/cpu_ab --reps 7 --budget 98 --csv "$out/r/spread.csv" --raw "$out/r/spread-raw.csv" $V < $d/spread2.txt > "$out/r/spread.log" 2>&1
tar -czf "$out/run2.tar.gz" -C "$out/r" .
rm -rf "$out/r"
