#!/usr/bin/env bash
# Tuning experiments in one device call, phases chosen by arguments (each writes into $OUT as it
# finishes; everything is bundled into $OUT/exp.tar.gz, a digest into $OUT/summary.md).
# Binaries come from .carry/ (bash bench/build_carry.sh on the build machine).
#   inplace   in-place sweep, vector words (default) against XPOSE_INPLACE_SCALAR=1 one-element
#             words, 1/2/4/8-byte elements, plus ncu counters of both on one 4-byte case
#   v1bf      bench/suites/rect-large.txt (4-byte): plain tile order, V1BF band=8, measure
#   ab        .carry/xpose-base against .carry/xpose on sampled GPU suites
#   chien     bench/suites/chien3d.txt, 4- and 8-byte elements
#   gputests  the GPU test binary
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
  gputests)
    log "gpu tests ${GTEST_FILTER:-all}"
    .carry/xpose_gpu_tests --gtest_brief=1 > "$r/gpu-tests.log" 2>&1; echo "exit $?" >> "$sum"
    grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests? ran|Failure" "$r/gpu-tests.log" | head -20 >> "$sum" ;;
  inplace)
    log "in-place: vector words vs one element per access"
    for v in ${IP_VARIANTS:-vec scalar}; do
      env=(); [ $v = scalar ] && env=(XPOSE_INPLACE_SCALAR=1); [ $v = general ] && env=(XPOSE_INPLACE_GENERAL=1)
      env "${env[@]}" timeout 40 $x bench-inplace --elems 4 --ns 8192,16384,32768,65536,131072 \
        --ws 8 --reps 3 --csv "$r/ip4-$v.csv" > "$r/ip4-$v.log" 2>&1
      env "${env[@]}" timeout 25 $x bench-inplace --elems 1,2 --ns 8192,32768,65536 \
        --ws 8 --reps 3 --csv "$r/ip12-$v.csv" > "$r/ip12-$v.log" 2>&1
      echo "-- $v" >> "$sum"; grep -hE ",v1b,8," "$r/ip4-$v.csv" "$r/ip12-$v.csv" >> "$sum"
    done
    timeout 25 $x bench-inplace --elems 8 --ns 8192,32768,92160 --ws 8 --reps 3 \
      --csv "$r/ip8.csv" > "$r/ip8.log" 2>&1; grep -hE ",v1b,8," "$r/ip8.csv" >> "$sum"
    for v in ${IP_VARIANTS:-vec scalar}; do
      env=(); [ $v = scalar ] && env=(XPOSE_INPLACE_SCALAR=1); [ $v = general ] && env=(XPOSE_INPLACE_GENERAL=1)
      env "${env[@]}" timeout 60 ncu --kernel-name regex:swap_tiles --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
        $x inplace --n 16384 --elem 4 --reps 1 > "$r/ncu-ip4-$v.txt" 2>&1
      echo "-- ncu $v" >> "$sum"
      grep -E "DRAM Throughput|Memory Throughput|Achieved Occupancy|Stall Long Scoreboard|Warp Cycles Per Issued|L1/TEX Hit|Mem Busy|Max Bandwidth" "$r/ncu-ip4-$v.txt" | head -12 >> "$sum"
    done
    pack ;;
  v1bf)
    log "rect-large (4 B): plain order, V1BF band 8, measure planning"
    timeout 100 $x bench bench/suites/rect-large.txt --backend cuda --elem 4 --reps 5 --csv "$r/rect-plain.csv" --quiet 2>&1 | tail -3 >> "$sum"
    timeout 100 $x bench bench/suites/rect-large.txt --backend cuda --elem 4 --reps 5 --schema tiled:band=8 --csv "$r/rect-band8.csv" --quiet 2>&1 | tail -3 >> "$sum"
    python3 - "$r" >> "$sum" <<'PY'
import csv, sys
r = sys.argv[1]
rows = {k: {x['case']: x for x in csv.DictReader(open(f'{r}/rect-{k}.csv'))} for k in ('plain', 'band8')}
for c, p in rows['plain'].items():
    print(c, p['normalized'], 'plain', p['ratio'], 'band8', rows['band8'].get(c, {}).get('ratio'),
          p['plan'])
PY
    pack ;;
  bandw)
    log "V1BF band widths on r01, r07, r08 (4 B)"
    for w in 0 16 64 256; do
      sch=(); [ $w -gt 0 ] && sch=(--schema tiled:band=$w)
      timeout 40 $x bench "$r/rect3.txt" --backend cuda --elem 4 --reps 5 "${sch[@]}" --csv "$r/bandw-$w.csv" --quiet > /dev/null 2>&1
      echo "w=$w $(cut -d, -f2,6 "$r/bandw-$w.csv" | tail -n +2 | tr '\n' ' ')" >> "$sum"
    done
    pack ;;
  ab)
    log "A/B: .carry/xpose-base against .carry/xpose, sampled GPU suites (heuristic plans)"
    for s in "ttlg6d-15 --limit 60" "ttlg6d-16 --limit 60" "ttlg6d-17 --limit 60" "cutt-random --limit 40" \
             "cutt-rank8 --limit 25" "cutt-rank12 --limit 20" "square --limit 6" "$r/rect3.txt --elem 4"; do
      set -- $s; n=$(basename "$1" .txt)
      for v in base new; do
        b=$x; [ $v = base ] && b=.carry/xpose-base
        timeout 60 $b bench "$@" --backend cuda --csv "$r/ab-$v-$n.csv" --quiet 2>/dev/null | grep -E "^\| [a-z0-9]" | grep -v "suite" | sed "s/^/$v /" >> "$sum"
      done
    done
    for w in 16 256; do
      timeout 40 $x bench "$r/rect3.txt" --backend cuda --elem 4 --schema tiled:band=$w --csv "$r/ab-band$w.csv" --quiet > /dev/null 2>&1
      echo "new band=$w $(cut -d, -f2,6 "$r/ab-band$w.csv" | tail -n +2 | tr '\n' ' ')" >> "$sum"
    done
    echo "new plain $(cut -d, -f2,6 "$r/ab-new-rect3.csv" | tail -n +2 | tr '\n' ' ')" >> "$sum"
    pack ;;
  chien)
    log "Chien's 3D transposes (bench/suites/chien3d.txt), 4 and 8 B"
    for e in 4 8; do
      timeout 60 $x bench bench/suites/chien3d.txt --backend cuda --elem $e --csv "$r/chien-$e.csv" --quiet 2>&1 | tail -2 >> "$sum"
    done
    pack ;;
  esac
done
pack
