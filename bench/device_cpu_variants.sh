#!/usr/bin/env bash
# On the device machine: the CPU backend over the issue-2 suites under forced settings
# (XPOSE_CPU_NT=0/1, the default rule `auto`, `thp`: the default rule with glibc malloc
# asking for transparent huge pages, at half the 6D limit), one merged CSV per variant in $OUT, plus the cache
# facts the store policy depends on. Uses a carried CPU-only build (build-cpu/tools/xpose) when
# it runs there, else builds one. Usage: bash bench/device_cpu_variants.sh [LIMIT_6D] [VARIANTS]
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
limit6d=${1:-60}
variants=${2:-"nt0 nt1 auto"}
{ lscpu; nproc; free -g; ldd --version | head -1; getconf -a | grep -i CACHE;
  /lib64/ld-linux-x86-64.so.2 --list-diagnostics 2>/dev/null | grep -iE 'threshold|cache_size';
  cat /sys/kernel/mm/transparent_hugepage/enabled; } > "$out/machine.txt" 2>&1
x=./build-cpu/tools/xpose
if ! $x --help > /dev/null 2>&1; then
  x=./build-dev/tools/xpose
  cmake -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF \
    -DXPOSE_ENABLE_CUDA=OFF > "$out/build.log" 2>&1 &&
    cmake --build build-dev -j16 >> "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
for v in $variants; do
  unset XPOSE_CPU_NT GLIBC_TUNABLES
  case $v in nt0) export XPOSE_CPU_NT=0 ;; nt1) export XPOSE_CPU_NT=1 ;;
    thp) export GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ;; esac  # malloc madvises huge pages
  echo "== variant $v"
  first=1
  lim6=$limit6d; [[ $v == thp ]] && lim6=$((limit6d / 2))
  for s in cutt-random ttlg6d-16 ttlg6d-15 ttlg6d-17; do
    l=(); [[ $s == ttlg6d-* ]] && [ "$lim6" -gt 0 ] && l=(--limit "$lim6")
    $x bench $s --backend cpu "${l[@]}" --csv /tmp/v.csv --quiet 2>&1 | tail -3
    if [ $first = 1 ]; then cat /tmp/v.csv > "$out/cpu-$v.csv"; first=0
    else tail -n +2 /tmp/v.csv >> "$out/cpu-$v.csv"; fi
  done
done
