#!/usr/bin/env bash
# Session 6 device call: fitted tiles vs base vs 128 KiB staging (experiment.patch on 1258987).
set -u
d=$(dirname "$0"); out=${OUT:-/tmp/out}; mkdir -p "$out/r"
{ nproc; lscpu | grep -E "Model name|^CPU\(s\)|L2|L3"; cat /sys/kernel/mm/transparent_hugepage/enabled; uptime; } > "$out/r/machine.txt" 2>&1
V="${VARIANTS:-base fto/env=XPOSE_EXP=1 fti/env=XPOSE_EXP=2 s128/env=XPOSE_EXP=4}"
$d/cpu_ab --reps ${REPS:-5} --budget ${BUDGET:-330} --csv "$out/r/ab.csv" --raw "$out/r/ab-raw.csv" $V < $d/cases.txt > "$out/r/ab.log" 2>&1
tail -3 "$out/r/ab.log"
tar -czf "$out/ab.tar.gz" -C "$out/r" .
