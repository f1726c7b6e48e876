#!/usr/bin/env bash
# A submission folder for `mskb run --submission`, made from kernels this repository ships, with
# the disposition each one must get (expect.tsv), as a stand-in for a model's generated kernels:
#   - four LLM-written kernels, the agent demos' accepted answers (data/demo: spmv_csr four lanes
#     per row, vector_add float4, softmax one warp per row, dot_product float4 with one atomic per
#     block), in fp32/;
#   - wrong kernels from the tasks' wrong/ folders (each with its declared mskb-expect);
#   - naive baselines submitted as they are (correct, P about 1);
#   - vector_add twice (vector_add.cu and fp32/vector_add.cu: two contenders, two names);
#   - two files the scan skips (no such task; a folder that is not a precision).
#   scripts/demo-submission.sh make DIR                 # writes DIR (22 kernels, 2 skipped files)
#   scripts/demo-submission.sh verify DIR REPORT.json   # each kernel got what expect.tsv says
set -euo pipefail
root=$(cd "${0%/*}/.." && pwd)
usage() { echo "usage: scripts/demo-submission.sh make DIR | verify DIR REPORT.json" >&2; exit 2; }

# The first ```cuda block of an agent's answer.
code_of() { awk '/^```cuda/{on=1; next} on && /^```/{exit} on' "$1"; }
# A task's folder under tasks/.
task_dir() { local d; d=$(compgen -G "$root/tasks/*/$1") || { echo "no task $1" >&2; exit 1; }; echo "$d"; }

make_folder() {
  local dir=$1
  [ -e "$dir" ] && { echo "demo-submission: $dir exists" >&2; exit 1; }
  mkdir -p "$dir/fp32" "$dir/bf16" "$dir/extra"
  : > "$dir/expect.tsv"
  expect() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$dir/expect.tsv"; }
  # LLM-written kernels (the demos' accepted answers).
  code_of "$root/data/demo/spmv_csr_fp32/coder_2.md" > "$dir/fp32/spmv_csr.cu"; expect fp32/spmv_csr.cu fp32 passed
  code_of "$root/data/demo/suite4/vector_add/coder_1.md" > "$dir/fp32/vector_add.cu"; expect fp32/vector_add.cu fp32 passed
  code_of "$root/data/demo/suite4/softmax/coder_2.md" > "$dir/fp32/softmax.cu"; expect fp32/softmax.cu fp32 passed
  code_of "$root/data/demo/suite4/dot_product/coder_1.md" > "$dir/fp32/dot_product.cu"; expect fp32/dot_product.cu fp32 passed
  # Wrong kernels: name -> the shipped wrong/ kernel; the precisions it exports and its expectation
  # come from its mskb-precision / mskb-expect lines.
  local spec name src prec p want
  for spec in matrix_copy.cu=matrix_copy/vector4_no_tail fp32/matrix_mul.cu=matrix_mul/tf32_inputs \
              bf16/matrix_mul.cu=matrix_mul/bf16_accumulate RELU.cu=RELU/vector_no_tail \
              stencil_2d.cu=stencil_2d/no_bounds_check bf16/stencil_2d.cu=stencil_2d/side_stream_diagnostic \
              gelu.cu=gelu/tanh_approx layer_norm.cu=layer_norm/single_block_stats; do
    name=${spec%%=*}; src=${spec#*=}
    src="$(task_dir "${src%%/*}")/wrong/${src#*/}.cu"
    cp "$src" "$dir/$name"
    want=$(sed -n 's|^// mskb-expect: *||p' "$src" | head -1)
    prec=$(sed -n 's|^// mskb-precision: *||p' "$src" | head -1)
    case "$name" in fp32/*) prec=fp32 ;; bf16/*) prec=bf16 ;; esac
    for p in $prec; do expect "$name" "$p" "$want"; done
  done
  # Baselines submitted as they are.
  local t d
  for t in sigmoid rms_norm matrix_transpose; do
    d=$(task_dir $t)
    cp "$d/baseline_fp32.cu" "$dir/$t.cu"; expect "$t.cu" fp32 passed
    cp "$d/baseline_bf16.cu" "$dir/${t}_bf16.cu"; expect "${t}_bf16.cu" bf16 passed
  done
  for t in softmax dot_product spmv_csr; do
    cp "$(task_dir $t)/baseline_bf16.cu" "$dir/${t}_bf16.cu"; expect "${t}_bf16.cu" bf16 passed
  done
  # vector_add a second time: the FP32 baseline, beside fp32/vector_add.cu.
  cp "$(task_dir vector_add)/baseline_fp32.cu" "$dir/vector_add.cu"; expect vector_add.cu fp32 passed
  # Skipped by the scan, reported.
  printf 'extern "C" void not_a_task(float* x) {}\n' > "$dir/not_a_task.cu"; expect not_a_task.cu - skipped
  cp "$(task_dir RELU)/baseline_fp32.cu" "$dir/extra/RELU.cu"; expect extra/RELU.cu - skipped
  # The scan's rule: TASK.cu is a task's BF16 kernel only where the submission has no
  # bf16/TASK.cu or TASK_bf16.cu (stencil_2d.cu: bf16/stencil_2d.cu takes BF16).
  local path p2 want2
  while IFS=$'\t' read -r path p2 want2; do
    if [ "$p2" = bf16 ] && [[ $path != */* && $path != *_bf16.cu ]] &&
       { [ -e "$dir/bf16/$path" ] || [ -e "$dir/${path%.cu}_bf16.cu" ]; }; then continue; fi
    printf '%s\t%s\t%s\n' "$path" "$p2" "$want2"
  done < "$dir/expect.tsv" > "$dir/expect.tsv.new" && mv "$dir/expect.tsv.new" "$dir/expect.tsv"
  echo "demo-submission: $(find "$dir" -name '*.cu' | wc -l) .cu files in $dir ($(grep -vc skipped "$dir/expect.tsv") kernel x precision entries expected)"
}

verify() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
folder, report = sys.argv[1], sys.argv[2]
r = json.load(open(report))
got = {}
for c in r["contenders"]:
    k = c.get("kernel") or ""
    if k.startswith(os.path.abspath(folder) + "/"):
        got[(os.path.relpath(k, os.path.abspath(folder)), c["precision"])] = c["disposition"]
skipped = {s["file"] for s in r.get("submission", {}).get("skipped", [])}
bad = 0
n = 0
for line in open(os.path.join(folder, "expect.tsv")):
    path, prec, want = line.rstrip("\n").split("\t")
    n += 1
    if want == "skipped":
        ok = path in skipped
        have = "skipped" if ok else "not reported as skipped"
    else:
        have = got.pop((path, prec), "missing")
        ok = have == want or (want == "passed" and have == "noisy")
    if not ok:
        bad += 1
    print(f"{'ok ' if ok else 'BAD'} {path:32} {prec:5} expected {want:16} got {have}")
for (path, prec), have in got.items():
    bad += 1
    print(f"BAD {path:32} {prec:5} not in expect.tsv, got {have}")
print(f"demo-submission: {n - bad} of {n} as expected" if bad == 0 else f"demo-submission: {bad} not as expected")
sys.exit(1 if bad else 0)
PY
}

case "${1:-}" in
  make) [ $# -eq 2 ] || usage; make_folder "$2" ;;
  verify) [ $# -eq 3 ] || usage; verify "$2" "$3" ;;
  *) usage ;;
esac
