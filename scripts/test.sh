#!/usr/bin/env bash
# Builds every target (warnings are errors): the tools and the test programs, which scripts/setup.sh
# leaves out, in setup's build folder (the gpu preset where nvidia-smi lists a GPU, else cpu;
# MSKB_PRESET=NAME chooses); then runs the whole test suite. GPU tests run when a GPU is present,
# one at a time (they share the GPU; CPU tests run beside them), and are reported as skipped otherwise.
# MSKB_TESTS_PARTIAL=1 (a machine without network that lacks chromium, Slurm or cpp-httplib, such as
# an offline GPU node): those tests skip or are not built.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${MSKB_PREFIX:-}" ] && compgen -G ".deb/*.deb" >/dev/null; then  # offline: as scripts/setup.sh
  scripts/prefix-deps.sh unpack
  export MSKB_PREFIX=$PWD/.prefix
fi
scripts/install-deps.sh --tests
if [ "${MSKB_TESTS_PARTIAL:-}" = 1 ]; then  # a machine without the test-only tools: their tests skip
  command -v chromium >/dev/null || command -v chromium-browser >/dev/null || export MSKB_NO_BROWSER=1
  command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ] || export MSKB_NO_SLURM=1
fi
scripts/check-tree-size.sh   # no run logs in the tree: files over 1 MiB only in tests/fixtures/
if nvidia-smi -L >/dev/null 2>&1; then preset=gpu; else preset=cpu; fi  # as scripts/setup.sh
preset=${MSKB_PRESET:-$preset}
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" "$@"
# The slow check that every shipped kernel compiles (about 270 nvcc builds) runs with:
#   ctest --test-dir build/$preset -L slow
#   (or: build/$preset/apps/mskb build --all --contenders baseline,vendor,wrong,adversarial)
