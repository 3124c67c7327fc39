#!/usr/bin/env bash
# Tuning experiments in one device call, phases chosen by arguments (each writes into $OUT as it
# finishes; everything is bundled into $OUT/exp.tar.gz, a digest into $OUT/summary.md). Binaries
# come from .carry/ (bash bench/build_carry.sh on the build machine). Tests, the suites and the
# full in-place sweep are bench/device_final.sh's phases.
#   inplace   in-place ratios for 1/2/4/8-byte elements at a few n, and ncu counters of the
#             4-byte swap kernel (n = 16384)
#   v1bf      V1BF band widths (WIDTHS, default "0 16 256"; 0 = plain walk) on three
#             rect-large cases, 4-byte elements
#   diag      GPU: every candidate timed (explain --measure-all) on representative and worst
#             suite cases, and ncu stall/memory sections of the tile kernel on three of them
#   calibrate `xpose calibrate` (dataset + refine + bench-suite plan-choice report; the new
#             coefficients in $OUT/exp/sm_90.txt), then GPU suites planned by the new
#             coefficients (XPOSE_MODEL_FILE) for comparison with the shipped ones
#   ab        .carry/xpose-base (an older build, carried by hand) against .carry/xpose on
#             sampled GPU suites, heuristic plans, same cases; without xpose-base, .carry/xpose
#             against itself with the environment AB_ENV (e.g. AB_ENV=XPOSE_CUDA_RING=1)
#   single    single use (bench-single, 5 rounds) of .carry/xpose-base and .carry/xpose in turn,
#             twice each, then the misaligned-pointer paths of both (the quick suite with in
#             and out 1 or 4 bytes past alignment, and 16-byte elements 8 bytes past it)
#   cpurows   CPU: bench/suites/cpu-rows.txt forced to `direct`, to `super` and planned, in turn
#             (two rounds each), and every candidate timed on the two worst blocked cuTT cases
# Usage (device): bash bench/device_exp.sh PHASE...
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/xpose-out}; r=$out/exp; mkdir -p "$r"
sum=$out/summary.md
log() { echo "== $* ($(date +%T))" | tee -a "$sum"; }
pack() { tar -czf "$out/exp.tar.gz" -C "$r" . 2>/dev/null; }
x=.carry/xpose
cat .carry/commit.txt >> "$sum" 2>/dev/null
grep -E "^r0[178] " bench/suites/rect-large.txt > "$r/rect3.txt"
for phase in "$@"; do
  case $phase in
  inplace)
    log "in-place ratios and ncu counters"
    timeout 60 $x bench-inplace --elems 1,2,4,8 --ns 8192,32768,65536 --ws 8 --reps 3 \
      --csv "$r/inplace.csv" > "$r/inplace.log" 2>&1
    grep -hE ",v1b,8," "$r/inplace.csv" >> "$sum"
    timeout 60 ncu --kernel-name regex:swap_tiles --launch-count 1 --section SpeedOfLight \
      --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
      $x inplace --n 16384 --elem 4 --reps 1 > "$r/ncu-inplace-4.txt" 2>&1
    grep -E "DRAM Throughput|Achieved Occupancy|Warp Cycles Per Issued|L1/TEX Hit" \
      "$r/ncu-inplace-4.txt" >> "$sum"
    pack ;;
  v1bf)
    log "V1BF band widths ${WIDTHS:-0 16 256} on r01, r07, r08 (4 B)"
    for w in ${WIDTHS:-0 16 256}; do
      sch=(); [ "$w" -gt 0 ] && sch=(--schema "tiled:band=$w")
      timeout 40 $x bench "$r/rect3.txt" --backend cuda --elem 4 --reps 5 "${sch[@]}" \
        --csv "$r/band-$w.csv" --quiet > /dev/null 2>&1
      echo "w=$w $(cut -d, -f2,6 "$r/band-$w.csv" | tail -n +2 | tr '\n' ' ')" >> "$sum"
    done
    pack ;;
  diag)
    log "every candidate timed on representative and worst cases"
    while read -r name ext perm elem; do
      timeout 40 $x explain --extents "$ext" --perm "$perm" --elem "$elem" --backend cuda \
        --measure-all > "$r/explain-$name.txt" 2>&1
      echo "$name: $(grep -A1 "^chosen plan" "$r/explain-$name.txt" | tail -1)" >> "$sum"
    done < <(grep -v "^#" bench/diag-cases.txt)
    pack
    log "ncu: stalls and memory of the tile kernel"
    for c in "t16 16,16,16,16,16,16 2,4,0,3,5,1 8" "t16-512 16,16,16,16,16,16 2,4,0,3,5,1 8 tiled:in=16,out=128,threads=512" \
             "sq13952 13952,13952 1,0 8" "sq13961 13961,13961 1,0 8"; do
      set -- $c; sch=(); [ -n "${5:-}" ] && sch=(--schema "$5")
      timeout 60 ncu --kernel-name regex:tiled --launch-skip 2 --launch-count 1 --section SpeedOfLight \
        --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
        --section SchedulerStats $x run --extents "$2" --perm "$3" --elem "$4" --backend cuda \
        --reps 3 "${sch[@]}" > "$r/ncu-$1.txt" 2>&1
      echo "-- $1" >> "$sum"
      grep -E "DRAM Throughput|Duration|Achieved Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible|L2 Hit|Mem Busy|Max Bandwidth" \
        "$r/ncu-$1.txt" >> "$sum"
    done
    pack ;;
  calibrate)
    log "calibrate"
    timeout 330 $x calibrate --seconds 270 --out "$r/sm_90.txt" --csv "$r/calibrate_sm_90.csv" \
      --commit "$(cut -c8-14 .carry/commit.txt)" > "$r/calibrate.log" 2>&1
    echo "exit $?" >> "$sum"; grep -vE "^calibrate: [0-9]+/" "$r/calibrate.log" | tail -32 >> "$sum"
    gzip -f "$r/calibrate_sm_90.csv"; pack
    log "gpu suites planned by the new coefficients"
    for s in "ttlg6d-15 --limit 120" "ttlg6d-16 --limit 120" "ttlg6d-17 --limit 120" cutt-random \
             cutt-rank8 cutt-rank12 square; do
      set -- $s
      XPOSE_MODEL_FILE="$r/sm_90.txt" timeout 60 $x bench "$@" --backend cuda \
        --csv "$r/new-$1.csv" --quiet 2>/dev/null | tail -1 >> "$sum"
    done
    pack ;;
  ab)
    log "A/B: .carry/xpose-base against .carry/xpose, sampled GPU suites (heuristic plans)"
    for s in "ttlg6d-15 --limit 60" "ttlg6d-16 --limit 60" "ttlg6d-17 --limit 60" \
             "cutt-random --limit 40" "cutt-rank8 --limit 25" "cutt-rank12 --limit 20" \
             "square --limit 6" "$r/rect3.txt --elem 4"; do
      set -- $s; n=$(basename "$1" .txt)
      for v in base new; do
        b=$x; e=(); [ $v = base ] && [ -x .carry/xpose-base ] && b=.carry/xpose-base
        [ $v = new ] && [ ! -x .carry/xpose-base ] && e=(${AB_ENV:?no .carry/xpose-base: set AB_ENV})
        timeout 60 env "${e[@]}" $b bench "$@" --backend cuda --csv "$r/ab-$v-$n.csv" --quiet 2>/dev/null |
          grep -E "^\| [a-z0-9]" | grep -v "suite" | sed "s/^/$v /" >> "$sum"
      done
    done
    pack ;;
  single)
    log "single use and misaligned pointers: .carry/xpose-base against .carry/xpose"
    for k in 1 2; do
      for v in base new; do
        b=$x; [ $v = base ] && b=.carry/xpose-base
        timeout 60 $b bench-single --backend cuda > "$r/single-$v-$k.txt" 2>&1
        echo "$v $k: $(tail -1 "$r/single-$v-$k.txt")" >> "$sum"
      done
    done
    for m in "--misalign 1" "--misalign 4" "--elem 16 --misalign 8" "--elem 2 --misalign 1" \
             "--misalign 0"; do
      for v in base new; do
        b=$x; [ $v = base ] && b=.carry/xpose-base
        n=$(echo "$m" | tr -d ' -')
        timeout 60 $b bench quick --backend cuda $m --csv "$r/mis-$v-$n.csv" --quiet 2>&1 |
          grep -E "^\| quick" | sed "s/^/$v $m /" >> "$sum"
      done
    done
    pack ;;
  cpurows)
    log "cpu: direct against super on rows that stay; every candidate of two blocked cases"
    for i in $(seq 24); do awk '{exit !($1 < 2)}' /proc/loadavg && break; sleep 5; done
    for k in 1 2; do
      for v in direct super heuristic; do
        s=(--schema $v); [ $v = heuristic ] && s=()
        $x bench bench/suites/cpu-rows.txt --backend cpu "${s[@]}" --rounds 2 \
          --csv "$r/rows-$v-$k.csv" --quiet 2>&1 | grep -E "^\| cpu-rows" |
          sed "s/^/$v $k /" >> "$sum"
      done
    done
    for c in "7,7,19,2,21,32,19 4,3,1,5,0,2,6" "29,17,798,68 3,2,1,0"; do
      set -- $c
      $x explain --extents $1 --perm $2 --backend cpu --measure-all > "$r/explain-cpu-$1.txt" 2>&1
      grep -E "^  [ *] " "$r/explain-cpu-$1.txt" >> "$sum"
    done
    pack ;;
  *) echo "unknown phase '$phase' (inplace, v1bf, diag, calibrate, ab, single, cpurows)" >&2
     exit 2 ;;
  esac
done
pack
