#!/usr/bin/env bash
# Issue 15's CPU speed set on this host, two xpose binaries side by side (A, then B, per
# configuration, so that a slow phase of the machine touches both): bench/device_typed.sh's six
# typed configurations and plain 4-byte elements, on the cutt-random recipe with heuristic plans
# and all hardware threads; ratio = a parallel memcpy of the bytes each plan reads and writes,
# timed in the same run, over the plan's time. Prints one summary line per binary and
# configuration; per-case lines and CSVs in OUTDIR.
#   bash bench/cpu_typed_ab.sh XPOSE_A XPOSE_B [LIMIT (16)] [OUTDIR (.)]
set -u
A=$1 B=$2 L=${3:-16} O=${4:-.}
mkdir -p "$O"
configs=("f32-bf16|--type f32 --out-type bf16"
         "f32-f16|--type f32 --out-type f16"
         "f16-f32|--type f16 --out-type f32"
         "bf16-e4m3|--type bf16 --out-type f8e4m3"
         "f32-beta1|--type f32 --beta 1"
         "f32-pad7|--type f32 --pad 7"
         "plain4|--elem 4")
for c in "${configs[@]}"; do
  IFS='|' read -r name flags <<< "$c"
  for side in a b; do
    x=$A; [ $side = b ] && x=$B
    # shellcheck disable=SC2086
    timeout 120 "$x" bench cutt-random --limit "$L" --backend cpu $flags --reps 3 \
      --csv "$O/$name-$side.csv" > "$O/$name-$side.txt" 2>&1
    printf '%-10s %s %s\n' "$name" "$side" "$(grep -E '^\| cutt' "$O/$name-$side.txt")"
  done
done
