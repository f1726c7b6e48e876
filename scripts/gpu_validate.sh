#!/usr/bin/env bash
# GPU validation in one command (used on the H200 through the device tool, usable anywhere):
# build with the gpu preset, run the gpu-labelled tests, measure the device, and run the
# benchmark over the given tasks. Everything lands in $OUT (default ./gpu-out).
#   scripts/gpu_validate.sh [--tasks "a b c"] [--sweep paper|large|all] [--skip-tests]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
tasks=""; sweep=all; skip_tests=0; test_filter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tasks) tasks="$2"; shift 2;;
    --sweep) sweep="$2"; shift 2;;
    --skip-tests) skip_tests=1; shift;;
    --test-filter) test_filter="$2"; shift 2;;
    *) echo "unknown argument $1"; exit 2;;
  esac
done
export MSKB_CACHE_DIR=${MSKB_CACHE_DIR:-$PWD/build/kernel-cache}
t0=$(date +%s)
cmake --preset gpu -DMSKB_BUILD_TESTS=ON > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build --preset gpu -j "$(nproc)" > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
mskb=build/gpu/apps/mskb
$mskb device --json > "$OUT/device.json" 2>&1; $mskb device
if [ $skip_tests = 0 ]; then
  t1=$(date +%s)
  ctest --test-dir build/gpu -L gpu ${test_filter:+-R "$test_filter"} --output-on-failure -V > "$OUT/gpu-tests.log" 2>&1
  echo "gpu tests rc=$? ($(( $(date +%s) - t1 )) s)"; grep -E "^\s*[0-9]+/[0-9]+ Test|tests passed|FAILED|Failed|repeatab|paper sweep|cached rebuild" "$OUT/gpu-tests.log" | head -40
fi
if [ -n "$tasks" ]; then
  t2=$(date +%s)
  $mskb run --task "$(echo $tasks | tr ' ' ',')" --sweep "$sweep" --json "$OUT/run.json" --markdown "$OUT/run.md" > "$OUT/run.log" 2>&1
  echo "runs: $(( $(date +%s) - t2 )) s"; tail -40 "$OUT/run.log"
fi
