#!/usr/bin/env bash
# Builds every target with the CPU preset (warnings are errors): the tools and the test programs,
# which scripts/setup.sh leaves out; then runs the whole test suite. GPU tests run when a GPU is
# present and are reported as skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
scripts/check-tree-size.sh   # no run logs in the tree: files over 1 MiB only in tests/fixtures/
preset=${MSKB_PRESET:-cpu}
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" "$@"
# The slow check that every shipped kernel compiles (about 270 nvcc builds) runs with:
#   ctest --test-dir build/cpu -L slow
#   (or: build/cpu/apps/mskb build --all --contenders baseline,vendor,wrong,adversarial)
