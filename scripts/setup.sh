#!/usr/bin/env bash
# One command on a fresh machine: install dependencies, build, and run the main job.
#   GPU machine:    measures the device, runs the no-key agent demo (replay cassette), then
#                   `mskb run` over the six slice tasks (baseline + vendor, FP32 and BF16, paper
#                   sweep, every GPU; a few minutes), writing results/mskb-run.{json,md}, and prints
#                   the one command for the whole suite (50 tasks: about 7 minutes on one H200).
#   No GPU:         builds everything, compiles the six slice tasks' shipped kernels (a few minutes,
#                   one line per kernel; `mskb build --all` compiles all 50 tasks' kernels: ~35 min on
#                   2 cores), and says what needs a GPU.
# Extra arguments go to the GPU main job's `mskb run` (e.g. --checks-per-gpu 8).
# Offline: .deb/ carried from `scripts/prefix-deps.sh download` is unpacked into .prefix/ first.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${MSKB_PREFIX:-}" ] && compgen -G ".deb/*.deb" >/dev/null; then
  scripts/prefix-deps.sh unpack
  export MSKB_PREFIX=$PWD/.prefix
fi
scripts/install-deps.sh
if nvidia-smi -L >/dev/null 2>&1; then preset=gpu; else preset=cpu; fi
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
mskb=build/$preset/apps/mskb
slice=vector_add,dot_product,matrix_mul,softmax,spmv_csr,stencil_2d
if [ "$preset" = gpu ]; then
  mkdir -p results
  $mskb device
  build/$preset/apps/cudamaster optimize --task matrix_vector_mul --llm replay:data/demo/matrix_vector_mul_fp32.jsonl --rounds 2 \
    --db results/demo.db --out results/demo
  $mskb run --task "$slice" --json results/mskb-run.json --markdown results/mskb-run.md "$@"
  cat <<MSG

results: results/mskb-run.json, results/mskb-run.md (the six slice tasks: $slice)
the whole suite, 50 tasks x FP32/BF16 (about 7 minutes on one H200; docs/results/h200/throughput/):
  $mskb run --all --json results/suite.json --markdown results/suite.md
MSG
else
  $mskb list
  $mskb build --task "$slice"
  cat <<MSG

No NVIDIA GPU found: everything is built and the shipped kernels of $slice compile
(every task's kernels: $mskb build --all, about 35 minutes on 2 cores).
What needs a GPU: mskb device | run | check, cudamaster profile/optimize, and the gpu-labelled tests.
Run the tests with: scripts/test.sh
MSG
fi
