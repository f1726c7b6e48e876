#!/usr/bin/env bash
# The build defaults and the installed layout, as a new user meets them:
#  1. `cmake -S . -B DIR` without a preset compiles kernels for the first GPU's architecture, or
#     sm_90 where there is no GPU (never CMake's compiler default);
#  2. `cmake --install` puts the tools and their data into a prefix, and the installed mskb reads
#     PREFIX/share/mskb from any directory: a kernel broken in the installed copy fails to build
#     there while the source tree's copy is untouched.
#   install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1; build=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cmake -S "$src" -B "$tmp/cfg" -DMSKB_BUILD_TESTS=OFF > "$tmp/cfg.log" 2>&1 || { tail -20 "$tmp/cfg.log"; exit 1; }
want=90
if cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1) && [ -n "$cc" ]; then want=${cc/./}; fi
got=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:STRING=//p' "$tmp/cfg/CMakeCache.txt")
[ "$got" = "$want" ] || { echo "FAIL: default CUDA architecture $got, expected $want"; exit 1; }
grep -q "CUDA architecture: sm_$want" "$tmp/cfg.log" || { echo "FAIL: configure does not say the architecture"; exit 1; }
echo "default architecture without a preset: sm_$got"

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 || { tail -20 "$tmp/install.log"; exit 1; }
for f in bin/mskb bin/mskb-runner bin/cudamaster share/mskb/tasks/algebra/vector_add/baseline_fp32.cu \
         share/mskb/kernels/include/mskb_vendor.cuh share/mskb/prompts share/mskb/data/demo/spmv_csr_fp32.jsonl \
         share/mskb/data/demo/matrix_vector_mul_fp32.jsonl \
         share/mskb/tests/adversarial share/mskb/README.md share/mskb/docs/harness.md; do
  [ -e "$tmp/prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
cd /
env -u MSKB_ROOT "$tmp/prefix/bin/mskb" list > "$tmp/list.txt" || { echo "FAIL: installed mskb list"; exit 1; }
grep -q "^vector_add" "$tmp/list.txt" || { echo "FAIL: installed mskb list has no vector_add"; exit 1; }
export MSKB_CACHE_DIR=$tmp/cache
k=$tmp/prefix/share/mskb/tasks/algebra/vector_add/baseline_fp32.cu
env -u MSKB_ROOT "$tmp/prefix/bin/mskb" build --kernel "$k" > "$tmp/ok.txt" 2>&1 || { cat "$tmp/ok.txt"; echo "FAIL: the installed kernel does not build"; exit 1; }
echo 'this is not CUDA' >> "$k"
if env -u MSKB_ROOT "$tmp/prefix/bin/mskb" build --task vector_add > "$tmp/broken.txt" 2>&1; then
  cat "$tmp/broken.txt"; echo "FAIL: the installed mskb built the source tree's kernels, not PREFIX/share/mskb's"; exit 1
fi
grep -q "baseline_fp32.cu" "$tmp/broken.txt" || { cat "$tmp/broken.txt"; echo "FAIL: no compile error named"; exit 1; }
echo "installed layout: tools run from /, data read from PREFIX/share/mskb"
