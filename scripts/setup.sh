#!/usr/bin/env bash
# One command on a fresh machine: install dependencies, build the tools, and run the main job.
#   Build:          the three tools (mskb, mskb-runner, cudamaster) and nothing else; the test programs
#                   are built by scripts/test.sh, which builds every target and runs the tests.
#   GPU machine:    measures the device, runs the no-key agent demo (replay cassette), then
#                   `mskb run` over the six slice tasks (baseline + vendor, FP32 and BF16, paper
#                   sweep, every GPU; a few minutes), writing results/mskb-run.{json,md}, and prints
#                   the one command for the whole suite (50 tasks: about 7 minutes on one H200).
#   No GPU:         compiles the six slice tasks' baselines and vendor contenders with the harness's
#                   nvcc recipe (one line per kernel as it ends; every shipped kernel, ~270 nvcc
#                   builds with the adversarial corpus, took ~35 min on 2 cores), and says what needs a GPU.
# It ends with the line that puts the tools on PATH. Every step prints as it goes, in a log too.
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
cmake --build --preset "$preset" -j "$(nproc)" --target mskb mskb-runner cudamaster
apps=$PWD/build/$preset/apps
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
  $mskb build --task "$slice" --contenders baseline,vendor
  cat <<MSG

No NVIDIA GPU found: the tools are built and the baselines and vendor contenders of $slice
compile (every task's kernels: mskb build --all; with the adversarial corpus, ~270 nvcc builds,
about 35 minutes on 2 cores).
What needs a GPU: mskb device | run | check, cudamaster profile/optimize, and the gpu-labelled tests.
Build and run the tests with: scripts/test.sh
MSG
fi
cat <<MSG

Put the tools on your PATH (this shell; add it to ~/.bashrc to keep it):
  export PATH=$apps:\$PATH
Then start with README.md, "Judge your first kernel".
MSG
