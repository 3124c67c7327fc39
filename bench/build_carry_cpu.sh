#!/usr/bin/env bash
# On the build machine: CPU-only Release builds of the `xpose` tool for this checkout and for a
# base revision (default main, built in a temporary git worktree), copied to .carry-cpu/branch/
# and .carry-cpu/main/ (git-ignored, ~1.5 MB in all), with a copy of bench/device_cpu_narrow.sh,
# so that a device call from any checkout that holds .carry-cpu/ at its root can carry it and run
# `bash .carry-cpu/device_cpu_narrow.sh`.
# Usage: bash bench/build_carry_cpu.sh [BASE_REF]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-main}
jobs=$(nproc)
build() {  # build SOURCE_DIR NAME
  cmake -S "$1" -B "$1/build-carry-cpu" -DXPOSE_ENABLE_CUDA=OFF -DCMAKE_BUILD_TYPE=Release \
    -DXPOSE_BUILD_TESTS=OFF > /dev/null
  cmake --build "$1/build-carry-cpu" -j"$jobs" --target xpose_tool > /dev/null
  mkdir -p ".carry-cpu/$2"
  cp "$1/build-carry-cpu/tools/xpose" ".carry-cpu/$2/"
  git -C "$1" log -1 --format="$2 %h %s" > ".carry-cpu/$2/commit.txt"
}
tmp=$(mktemp -d)
git worktree add --detach "$tmp" "$base" > /dev/null
build "$tmp" main
git worktree remove --force "$tmp"
build . branch
cp bench/device_cpu_narrow.sh .carry-cpu/
cat .carry-cpu/*/commit.txt
du -sh .carry-cpu
