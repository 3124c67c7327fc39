#!/usr/bin/env bash
# On the build machine: builds the tool and the test binaries for sm_90 and copies them to
# .carry/ (git-ignored) so that a device call can carry them instead of building there.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -B build-carry -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /dev/null
cmake --build build-carry -j"$(nproc)"
mkdir -p .carry
cp build-carry/tools/xpose build-carry/tests/xpose_gpu_tests build-carry/tests/xpose_tests .carry/
git log -1 --format='commit %H %s' > .carry/commit.txt
du -sh .carry
