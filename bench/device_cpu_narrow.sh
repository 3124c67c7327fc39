#!/usr/bin/env bash
# On the 16-core device: the CPU backend of two builds carried in .carry-cpu/ (main/ and branch/,
# from bench/build_carry_cpu.sh) over the quick, cutt-random and TTLG 6D suites for 1-, 2-, 4- and
# 8-byte elements, the two builds alternating suite by suite (same VM, same minutes). Per
# (suite, element size, build): a CSV and the summary lines; summary.txt gathers them.
# Usage (from the checkout root): bash bench/device_cpu_narrow.sh [LIMIT_6D (cases per 6D suite,
# default 40)], or the copy bench/build_carry_cpu.sh puts in .carry-cpu/.
# Stops starting new runs after XPOSE_BUDGET_S seconds (default 540) so that what ran comes back;
# XPOSE_ELEMS (default "1 2 4 8") picks the element sizes, e.g. for a second call.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
lim6d=${1:-40}
budget=${XPOSE_BUDGET_S:-540}
dir=.carry-cpu
{ lscpu | head -20; nproc; free -g; cat $dir/*/commit.txt; } > "$out/machine.txt" 2>&1
start=$SECONDS
for e in ${XPOSE_ELEMS:-1 2 4 8}; do
  for s in quick cutt-random 6d; do
    args=("$s"); [ "$s" = 6d ] && args=(ttlg6d-15 ttlg6d-16 ttlg6d-17 --limit "$lim6d")
    for b in main branch; do
      if (( SECONDS - start > budget )); then
        echo "budget of ${budget}s spent: skipped $b $s elem $e" | tee -a "$out/summary.txt"
        continue
      fi
      t0=$SECONDS
      "$dir/$b/xpose" bench "${args[@]}" --backend cpu --elem "$e" --quiet \
        --csv "$out/$b-$s-e$e.csv" > "$out/$b-$s-e$e.log" 2>&1
      grep '^| [a-z]' "$out/$b-$s-e$e.log" | grep -v '^| suite' |
        sed "s/^/$b e$e $((SECONDS - t0))s /" | tee -a "$out/summary.txt"
    done
  done
done
