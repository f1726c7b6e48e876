#!/usr/bin/env bash
# What the candidate's sandbox costs on this GPU host (docs/harness.md section 10): the same
# `mskb run` in every sandbox mode, the modes' order rotated each round so drift and cache state
# fall on every mode alike, then one table of per-shape ratios against the unconfined run of the
# same round (scripts/diag/sandbox_cost.py).
#
#   scripts/diag/sandbox_cost.sh BIN OUT [ROUNDS] [mskb run options...]
#     BIN     the folder holding mskb (build/gpu/apps)
#     OUT     a new folder for the reports, the timings and summary.md
#     ROUNDS  default 2
#     options default: --task vector_add,dot_product,softmax,layer_norm,spmv_csr,matrix_mul
#             --contenders baseline,vendor --sweep paper (launch-bound shapes: where host time shows)
# The kernels are built first (`mskb build` of the same selection), so the first run pays no build.
# Modes: on (the default sandbox), off (limits only), files (Landlock only), calls (seccomp only),
# spec (on, with MSKB_SANDBOX_SPEC=allow: no speculation mitigations forced by the filter).
set -euo pipefail
BIN=${1:?usage: sandbox_cost.sh BIN OUT [ROUNDS] [mskb run options...]}
OUT=${2:?usage: sandbox_cost.sh BIN OUT [ROUNDS] [mskb run options...]}
ROUNDS=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
ARGS=("$@")
if [ ${#ARGS[@]} -eq 0 ]; then
  ARGS=(--task vector_add,dot_product,softmax,layer_norm,spmv_csr,matrix_mul --contenders baseline,vendor --sweep paper)
fi
mkdir -p "$OUT"
HERE=$(cd "$(dirname "$0")" && pwd)
modes=(on off files calls spec)
{
  echo "host: $(uname -r)"
  for f in spec_store_bypass spectre_v2; do
    echo "$f: $(cat /sys/devices/system/cpu/vulnerabilities/$f 2>/dev/null || echo unknown)"
  done
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
  echo "mskb: $("$BIN/mskb" --version 2>&1 | head -1)"
  echo "args: ${ARGS[*]}"
} > "$OUT/host.txt"
# The kernels built (and cached) first, so no mode's run pays for the builds: the same selection
# (--task/--all/--task-file, --contenders, --kernel) through `mskb build`.
BUILD=()
for ((i = 0; i < ${#ARGS[@]}; ++i)); do
  case ${ARGS[$i]} in
    --all) BUILD+=(--all) ;;
    --task|--task-file|--contenders|--kernel) BUILD+=("${ARGS[$i]}" "${ARGS[$((i + 1))]:-}"); i=$((i + 1)) ;;
    --task=*|--task-file=*|--contenders=*|--kernel=*) BUILD+=("${ARGS[$i]}") ;;
  esac
done
if "$BIN/mskb" build "${BUILD[@]}" > "$OUT/build.log" 2>&1; then
  echo "kernels built: $(tail -1 "$OUT/build.log")"
else  # the runs report their own build failures; the first one then also pays for the builds
  echo "sandbox_cost: warning: mskb build ${BUILD[*]}: $(tail -1 "$OUT/build.log") (see $OUT/build.log); the first run builds the rest"
fi
: > "$OUT/walls.tsv"
for ((r = 1; r <= ROUNDS; ++r)); do
  for ((k = 0; k < ${#modes[@]}; ++k)); do
    m=${modes[$(( (k + r - 1) % ${#modes[@]} ))]}
    env=(MSKB_SANDBOX=on MSKB_SANDBOX_SPEC=kernel)
    case $m in
      off|files|calls) env=(MSKB_SANDBOX=$m MSKB_SANDBOX_SPEC=kernel) ;;
      spec) env=(MSKB_SANDBOX=on MSKB_SANDBOX_SPEC=allow) ;;
    esac
    t0=$(date +%s.%N)
    rc=0
    env "${env[@]}" "$BIN/mskb" run "${ARGS[@]}" --json "$OUT/r${r}_${m}.json" > "$OUT/r${r}_${m}.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\n' "$r" "$m" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" "$rc" >> "$OUT/walls.tsv"
    echo "round $r $m: rc $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s"
  done
done
python3 "$HERE/sandbox_cost.py" "$OUT" --json "$OUT/summary.json" | tee "$OUT/summary.md"
