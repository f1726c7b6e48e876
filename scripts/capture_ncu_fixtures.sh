#!/usr/bin/env bash
# Captures Nsight Compute exports used as CPU test fixtures (tests/cudamaster/profile/fixtures/): each
# slice task's fp32 baseline and vendor kernel, plus three kernels whose bound is known by
# construction. Runs mskb-runner in profile mode (one call between cudaProfilerStart/Stop).
#   OUT=dir scripts/capture_ncu_fixtures.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build/gpu}; OUT=${OUT:-ncu-out}; mkdir -p "$OUT"
mskb=$B/apps/mskb; runner=$B/apps/mskb-runner
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
capture() {  # name task kernel-file shape-json
  local name=$1 task=$2 file=$3 shape=$4
  local so; so=$($mskb build --kernel "$file" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["so"])')
  [ -z "$so" ] && { echo "$name: build failed"; return; }
  cat > "$OUT/$name.request.json" <<JSON
{"mode":"profile","task":"$task","precision":"fp32","library":"$so","symbol":"","checks":[{"shape":$shape,"sweep":"paper","seeds":[1]}]}
JSON
  local t0=$(date +%s.%N)
  timeout 120 ncu --clock-control none --profile-from-start off $sections -f -o "$OUT/$name" "$runner" "$OUT/$name.request.json" 3 > "$OUT/$name.ncu.log" 2>&1
  local rc=$? t1=$(date +%s.%N)
  ncu --import "$OUT/$name.ncu-rep" --csv --page raw --print-units base > "$OUT/$name.csv" 2>> "$OUT/$name.ncu.log"
  echo "$name: ncu rc=$rc, $(python3 -c "print(round($t1-$t0,1))") s, $(($(wc -l < "$OUT/$name.csv") - 2)) kernel rows"
}
capture stream_copy vector_add tests/cudamaster/profile/kernels/stream_copy.cu '{"N":268435456}'
capture pointer_chase vector_add tests/cudamaster/profile/kernels/pointer_chase.cu '{"N":1048576}'
capture fma_loop vector_add tests/cudamaster/profile/kernels/fma_loop.cu '{"N":16777216}'
for t in vector_add dot_product matrix_mul softmax spmv_csr stencil_2d; do
  dir=$(ls -d tasks/*/$t 2>/dev/null) || continue
  shape=$($mskb list --json | python3 -c "import json,sys; print(json.dumps(next(x for x in json.load(sys.stdin) if x['name']=='$t')['paper_shapes'][-1]))")
  capture "${t}_baseline" "$t" "$dir/baseline_fp32.cu" "$shape"
  [ -f "$dir/vendor.cu" ] && capture "${t}_vendor" "$t" "$dir/vendor.cu" "$shape"
done
ls "$OUT"/*.csv | wc -l
