#!/usr/bin/env bash
# GPU validation (used on the H200 through the device tool; usable on any GPU machine).
#   scripts/gpu_validate.sh tests            build, mskb device, gpu-labelled tests
#   scripts/gpu_validate.sh run [TASKS] [SWEEP] [BUDGET]   build, mskb run -> run.json / run.md
# Outputs land in $OUT (default ./gpu-out). The correctness-only test of every shipped kernel is
# sharded over 4 concurrent processes; the timing tests and `mskb run` run alone on the GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
phase=${1:-tests}
export MSKB_CACHE_DIR=${MSKB_CACHE_DIR:-$PWD/build/kernel-cache}
t0=$(date +%s)
cmake --preset gpu > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build --preset gpu -j "$(nproc)" > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
mskb=build/gpu/apps/mskb
export MSKB_RUNNER=$PWD/build/gpu/apps/mskb-runner MSKB_TEST_KERNELS=$PWD/tests/gpu/kernels
if [ "$phase" = tests ]; then
  $mskb device --json > "$OUT/device.json"; $mskb device
  t1=$(date +%s)
  $mskb build --all > "$OUT/kernels-build.log" 2>&1; echo "kernel builds rc=$? ($(( $(date +%s) - t1 )) s): $(tail -1 "$OUT/kernels-build.log")"
  grep FAIL -A1 "$OUT/kernels-build.log" | head -20
  build/gpu/tests/gpu/harness_gpu_test > "$OUT/harness_gpu_test.log" 2>&1; echo "harness_gpu_test rc=$?"
  build/gpu/tests/gpu/gpu_reference_gpu_test > "$OUT/gpu_reference_gpu_test.log" 2>&1; echo "gpu_reference_gpu_test rc=$?"
  grep -E "repeatab|paper sweep|cached rebuild|FAILED|Failure" -A2 "$OUT/harness_gpu_test.log" "$OUT/gpu_reference_gpu_test.log" | head -30
  t2=$(date +%s)
  for s in 0 1 2 3; do
    GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$s build/gpu/tests/gpu/shipped_kernels_gpu_test > "$OUT/shipped.$s.log" 2>&1 &
  done
  wait
  cat "$OUT"/shipped.?.log > "$OUT/shipped_kernels_gpu_test.log"; rm -f "$OUT"/shipped.?.log
  echo "shipped_kernels_gpu_test ($(( $(date +%s) - t2 )) s): $(grep -c '^\[       OK' "$OUT/shipped_kernels_gpu_test.log") tasks ok, $(grep -c '^\[  FAILED  \] Tasks' "$OUT/shipped_kernels_gpu_test.log") failed"
  grep -E "^\[  FAILED  \] Tasks" "$OUT/shipped_kernels_gpu_test.log" | sort -u | head -40
else
  tasks=${2:-all}; sweep=${3:-paper}; budget=${4:-0.25}
  sel="--all"; [ "$tasks" != all ] && sel="--task $tasks"
  t2=$(date +%s)
  $mskb run $sel --sweep "$sweep" --budget "$budget" --json "$OUT/run.json" --markdown "$OUT/run.md" > "$OUT/run.log" 2>"$OUT/run.progress"
  echo "mskb run rc=$? ($(( $(date +%s) - t2 )) s)"; cat "$OUT/run.log"
fi
