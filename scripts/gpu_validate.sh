#!/usr/bin/env bash
# GPU validation on any GPU machine (the committed H200 results were made with it).
#   scripts/gpu_validate.sh PHASES        PHASES: a comma list of
#     tests     mskb device, every shipped kernel built, the harness, FP64-reference and GPU-instance gpu tests,
#               and the per-task gtest mskb_gpu_shipped_kernels_test for $SHIPPED_TASKS (default the six
#               slice tasks; `all` = every task, as long as `check`, which is the faster report)
#     agents    the replay demo of `cudamaster optimize` (store + summary), the same script over a
#               loopback HTTP server, and `cudamaster profile` on the slice tasks, each timed
#               (PROFILES=0 skips the profiles)
#     harness   the harness GPU test alone (bad inputs, paper-sweep evaluation time, repeatability, sharing)
#     integrity the adversarial corpus (tests/adversarial): `mskb check --contenders adversarial` of its
#               tasks, the memcheck-gated kernels under --memcheck, the timing-gated ones through
#               `mskb run`; every kernel must get its declared disposition -> adversarial*.json
#     check     `mskb check` of the shipped baseline, vendor and wrong/ kernels ($CONTENDERS) of $TASKS (default all)
#     memcheck  `mskb check --all --memcheck` (baseline + vendor, both precisions) over every GPU
#     suite     full-suite target (docs/harness.md 11): `mskb run --all --sweep paper` on GPU 0 with an empty kernel cache,
#               (the project build timed apart) -> suite_paper.*; CHECKS_PER_GPU=N (default auto),
#               OVERLAP=M (--timing-overlap, default auto), SUITE_ARGS / SUITE_ENV (more options / environment),
#               SUITE_SWEEP (default paper; paper,large for the 12-minute target), SUITE_GPUS (default 0; 0,1: both,
#               one hold log per GPU, and a check that each group stayed on one), SUITE_DEADLINE=SECONDS (cut), PREVIOUS_SUITE=FILE
#               (continue a cut report with --skip-done, then `mskb merge` -> suite_paper_merged.*);
#               its progress lines time-stamped, read by scripts/suite_timeline.py -> suite_timeline.*, and
#               the GPU lock's hold log read by scripts/gpu_lock_timeline.py -> suite_gpu_lock.*
#     taskfiles the task-file GPU tests, each task-file demo (mskb run + one replayed optimize round), and the
#               demo submission (scripts/demo-submission.sh) run and verified -> taskfile_*, submission_*
#               (SUBMISSION=0 leaves the submission out)
#     overlap   A/B/A of --timing-overlap 1, $OVERLAP (3), 1 on $TASKS (eight LLM tasks) -> overlap_*, compared
#     ab        A/B/A of any two settings of `mskb run` ($AB_A / $AB_B options, $AB_ENV_A / $AB_ENV_B
#               environment) on $TASKS (eight LLM tasks), $AB_SWEEP (paper), compared -> ab_*
#     inputs    GPU instances' inputs through the host against device to device (MSKB_DEVICE_INPUTS 0 / 1):
#               `mskb check` of the GPU-instance tasks ($TASKS) both ways, timed, and DeviceComparison -> inputs_*
#     candidate the four-task replay demo from an empty kernel cache, then scripts/candidate_times.py:
#               per candidate nvcc build + evaluation seconds, medians, nvcc's share -> candidate_times.*
#     rerun     `mskb rerun R $RERUN_ARGS` for each R of $RERUN (a comma list; default the committed paper sweep;
#               RERUN_ARGS e.g. --allow-changed) on this lease, judged by the spread model's intervals;
#               scripts/spread_model.py's call and device bands and scripts/diag/baseline_drift.py's ratio tables
#               and scripts/diag/rerun_tails.py from each pair -> rerun.*, rerun_{spread,drift,tails}.md (several: one folder per R)
#     claim     a claim to publish and rerun later: `mskb run` of the baseline and vendor contenders of $CLAIM_TASKS
#               (default every task) at this commit, one report per sweep of $CLAIM_SWEEPS (default paper,large) ->
#               claim_<sweep>.{json,md,log}; CLAIM_DEADLINE=SECONDS cuts the whole phase (partial reports written)
#     sandbox   what the candidate's sandbox costs: scripts/diag/seccomp_cost.cpp (one system call before and after
#               each step), then scripts/diag/sandbox_cost.sh ($SANDBOX_ROUNDS rounds of every MSKB_SANDBOX mode on
#               $TASKS, default six launch-bound tasks) -> seccomp_cost.txt, sandbox_cost/summary.md
#     diag      scripts/diag/cudnn_pw_engines.cu: every cuDNN engine (and knob value) that runs the
#               activation tasks' graph-API pointwise nodes, with its bandwidth -> pw_engines.log
#     run       `mskb run` per category ($CATEGORIES, default scientific llm sparse algebra; or $TASKS
#               alone; $PRECISION fp32|bf16|all, default all) timing $SWEEP (default paper,large) with
#               $BUDGET s per shape (default 0.1), one
#               lane per GPU, checks $CHECKS_PER_GPU (6) at a time per GPU before the timing ->
#               run_<category>.json/.md, merged by `mskb merge` into run.json / run.md;
#               RUN_DEADLINE=SECONDS stops starting (and cuts) category runs that late;
#               PREVIOUS=DIR continues the run_<category>.json reports in DIR (--skip-done)
#   scripts/gpu_validate.sh split PHASES_A PHASES_B   build once, then PHASES_A on GPU 0 and PHASES_B
#               on GPU 1 at the same time, each on half of the CPU cores, outputs in $OUT/gpu0 and
#               $OUT/gpu1 (each bundled); DEADLINE=SECONDS stops both that long after the start.
# BUILD_TARGETS=a,b builds only those targets (e.g. mskb,mskb-runner for `rerun` or `claim`: about a minute less).
# SKIP_BUILD=1 uses the existing build (for phases started in parallel on different GPUs after one
# `gpu_validate.sh build`; pin each with CUDA_VISIBLE_DEVICES).
# Outputs land in $OUT (default ./gpu-out), bundled at the end into $OUT/results.tgz (BUNDLE=0 keeps them loose). A .deb/ folder (scripts/prefix-deps.sh download) is
# unpacked first so the run store (SQLite headers) builds on machines that lack them.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
phases=",${1:-tests},"
# Remote command runners may return only a few files: everything but console.log and earlier bundles goes into
# one more archive (`gpu_validate.sh bundle` alone does just that, e.g. after a timeout).
bundle() {
  (cd "$OUT" && find . -mindepth 1 -maxdepth 1 ! -name console.log ! -name 'results*.tgz' ! -name .bundle -printf '%P\n' > .bundle &&
   if [ -s .bundle ]; then n=1; while [ -e results$n.tgz ]; do n=$((n + 1)); done
     tar czf results$n.tgz -T .bundle && xargs rm -rf < .bundle; fi; rm -f .bundle)
}
if [ "$phases" = ",bundle," ]; then bundle; exit 0; fi
if [ "$phases" = ",split," ]; then
  start=$(date +%s)
  BUNDLE=0 bash "$0" build > "$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 1; }
  cat "$OUT/build.txt"
  cores=$(nproc); half=$(( cores / 2 ))
  left=$(( ${DEADLINE:-3600} - ($(date +%s) - start) )); [ "$left" -lt 1 ] && left=1
  for g in 0 1; do
    p=$([ $g = 0 ] && echo "${2:-tests}" || echo "${3:-check}")
    cpus=$([ $g = 0 ] && echo "0-$((half - 1))" || echo "$half-$((cores - 1))")
    mkdir -p "$OUT/gpu$g"
    (CUDA_VISIBLE_DEVICES=$g OUT=$OUT/gpu$g SKIP_BUILD=1 BUNDLE=0 timeout "$left" taskset -c "$cpus" bash "$0" "$p" \
       > "$OUT/gpu$g/console.log" 2>&1; echo "gpu$g ($p) rc=$?" >> "$OUT/gpu$g/console.log"; OUT=$OUT/gpu$g bash "$0" bundle) &
  done
  wait
  for g in 0 1; do echo "== gpu$g"; cat "$OUT/gpu$g/console.log"; done
  rm -f "$OUT/build.txt" "$OUT"/*.log
  exit 0
fi
export MSKB_CACHE_DIR=${MSKB_CACHE_DIR:-$PWD/build/kernel-cache}
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -ge 1 ] || { echo "no GPU"; exit 1; }
# The GPUs this script may use: CUDA_VISIBLE_DEVICES where set (e.g. one GPU of `split`: a phase
# must never put work on the other's GPU, it would time beside it), otherwise all of them.
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then IFS=, read -ra gpus <<< "$CUDA_VISIBLE_DEVICES"; else mapfile -t gpus < <(seq 0 $((ngpu - 1))); fi
ngpu=${#gpus[@]}
t0=$(date +%s)
if [ -d .deb ] && ls .deb/*.deb >/dev/null 2>&1; then
  scripts/prefix-deps.sh unpack > "$OUT/prefix.log" 2>&1 && export MSKB_PREFIX=$PWD/.prefix
fi
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake --preset gpu > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
  targets=(); [ -n "${BUILD_TARGETS:-}" ] && targets=(--target ${BUILD_TARGETS//,/ })
  cmake --build --preset gpu -j "$(nproc)" "${targets[@]}" > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
  echo "build: $(( $(date +%s) - t0 )) s on $ngpu GPU(s)"
fi
B=build/gpu/apps
mskb=$B/mskb
export MSKB_RUNNER=$PWD/$B/mskb-runner MSKB_TEST_KERNELS=$PWD/tests/mskb/gpu/kernels
since() { echo "$(( $(date +%s) - $1 )) s"; }
sel=(--all); [ -n "${TASKS:-}" ] && sel=(--task "$TASKS")

if [[ $phases == *,tests,* ]]; then
  $mskb device --json > "$OUT/device.json"; $mskb device
  t1=$(date +%s)
  $mskb build --all --contenders baseline,vendor,wrong,adversarial > "$OUT/kernels-build.log" 2>&1; echo "kernel builds rc=$? ($(since $t1)): $(tail -1 "$OUT/kernels-build.log")"
  grep FAIL -A1 "$OUT/kernels-build.log" | head -20
  # The timing test alone on GPU 0; the FP64 reference test beside it on the last GPU.
  CUDA_VISIBLE_DEVICES=${gpus[0]} build/gpu/tests/mskb/gpu/mskb_gpu_harness_test > "$OUT/mskb_gpu_harness_test.log" 2>&1 &
  hp=$!
  [ "$ngpu" -gt 1 ] || wait $hp
  CUDA_VISIBLE_DEVICES=${gpus[$((ngpu - 1))]} build/gpu/tests/mskb/gpu/mskb_gpu_reference_test > "$OUT/mskb_gpu_reference_test.log" 2>&1
  echo "mskb_gpu_reference_test rc=$?"
  CUDA_VISIBLE_DEVICES=${gpus[$((ngpu - 1))]} build/gpu/tests/mskb/gpu/mskb_gpu_instance_test > "$OUT/mskb_gpu_instance_test.log" 2>&1
  echo "mskb_gpu_instance_test rc=$?: $(grep -E 'instances:|GPU references' "$OUT/mskb_gpu_instance_test.log" | tr '\n' ' ')"
  wait $hp; echo "mskb_gpu_harness_test rc=$?"
  grep -E "repeatab|paper sweep|cached rebuild|beside gpu_busy|FAILED|Failure" -A2 "$OUT/mskb_gpu_harness_test.log" "$OUT/mskb_gpu_reference_test.log" | head -30
  # The per-task gtest of shipped kernels for $SHIPPED_TASKS (default: the six slice tasks; `all`
  # for every task, which takes as long as `check`).
  t1=$(date +%s)
  filter=""; for t in ${SHIPPED_TASKS:-vector_add dot_product matrix_mul softmax spmv_csr stencil_2d}; do filter+="*/$t:"; done
  [ "${SHIPPED_TASKS:-}" = all ] && filter="*"
  MSKB_TEST_CHECKS_PER_GPU=${CHECKS_PER_GPU:-6} build/gpu/tests/mskb/gpu/mskb_gpu_shipped_kernels_test --gtest_filter="${filter%:}" \
    > "$OUT/mskb_gpu_shipped_kernels_test.log" 2>&1
  echo "mskb_gpu_shipped_kernels_test rc=$? ($(since $t1)): $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/mskb_gpu_shipped_kernels_test.log" | tr '\n' ' ')"
fi

if [[ $phases == *,agents,* ]]; then
  t1=$(date +%s)
  $B/cudamaster optimize --task matrix_vector_mul --llm replay:data/demo/matrix_vector_mul_fp32.jsonl --rounds 2 \
    --db "$OUT/demo.db" --out "$OUT/demo" --json > "$OUT/demo-summary.json" 2> "$OUT/demo.log"
  echo "demo rc=$? ($(since $t1))"; tail -25 "$OUT/demo.log"
  $B/cudamaster runs --db "$OUT/demo.db" > "$OUT/demo-runs.txt" 2>&1; cat "$OUT/demo-runs.txt"
  $B/cudamaster show 1 --calls --db "$OUT/demo.db" > "$OUT/demo-show.txt" 2>&1; echo "show rc=$?"
  # Live: the same script served over real HTTP by a loopback OpenAI-compatible server.
  rm -f "$OUT/llm.port"
  python3 scripts/script_llm_server.py --cassette data/demo/matrix_vector_mul_fp32.jsonl --port-file "$OUT/llm.port" \
    --log "$OUT/llm-server.log" > /dev/null 2>&1 &
  srv=$!
  for _ in $(seq 50); do [ -s "$OUT/llm.port" ] && break; sleep 0.1; done
  t1=$(date +%s)
  $B/cudamaster optimize --task matrix_vector_mul --llm "openai-compatible:http://127.0.0.1:$(cat "$OUT/llm.port")/v1:cudamaster-demo-script" \
    --rounds 2 --db "$OUT/live.db" --out "$OUT/live" --json > "$OUT/live-summary.json" 2> "$OUT/live.log"
  echo "live rc=$? ($(since $t1)), $(wc -l < "$OUT/llm-server.log") HTTP requests served"; tail -8 "$OUT/live.log"
  kill $srv 2>/dev/null
  $B/cudamaster show 1 --calls --db "$OUT/live.db" > "$OUT/live-show.txt" 2>&1; echo "live show rc=$?"
  (cd "$OUT" && tar czf agents.tgz demo.db demo-summary.json demo.log demo-runs.txt demo-show.txt demo live.db live-summary.json \
     live.log live-show.txt llm-server.log 2>/dev/null)
  : > "$OUT/profile.log"
  [ "${PROFILES:-1}" != 0 ] && for t in vector_add dot_product softmax matrix_mul spmv_csr stencil_2d; do
    for k in baseline vendor; do
      [ "$t" = stencil_2d ] && [ "$k" = vendor ] && continue
      t1=$(date +%s%N)
      $B/cudamaster profile --task $t --kernel $k --json > "$OUT/profile.$t.$k.json" 2>> "$OUT/profile.log"
      rc=$?
      printf '%s %s rc=%s %s ms class=%s\n' $t $k $rc $(( ($(date +%s%N) - t1) / 1000000 )) \
        "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d.get('class'), d.get('confidence'), d.get('source', ''))" "$OUT/profile.$t.$k.json" 2>/dev/null)" | tee -a "$OUT/profile.log"
    done
  done
  (cd "$OUT" && ls profile.*.json > /dev/null 2>&1 && tar czf profiles.tgz profile.*.json && rm -f profile.*.json)
fi

if [[ $phases == *,harness,* ]]; then
  build/gpu/tests/mskb/gpu/mskb_gpu_harness_test > "$OUT/mskb_gpu_harness_test.log" 2>&1
  echo "mskb_gpu_harness_test rc=$?"
  grep -E "repeatab|paper sweep|cached rebuild|beside gpu_busy|FAILED|Failure" -A2 "$OUT/mskb_gpu_harness_test.log" | head -30
fi

if [[ $phases == *,integrity,* ]]; then
  adv_tasks=$(cd tests/adversarial && ls -d */ | tr -d / | paste -sd,)
  t1=$(date +%s)
  $mskb check --task "$adv_tasks" --contenders adversarial --checks-per-gpu "${CHECKS_PER_GPU:-6}" --json "$OUT/adversarial_check.json" \
    > "$OUT/adversarial_check.log" 2> "$OUT/adversarial_check.progress"
  echo "adversarial check rc=$? ($(since $t1)): $(grep -c '^PASS' "$OUT/adversarial_check.log") as declared, $(grep -c '^FAIL' "$OUT/adversarial_check.log") not"
  grep '^FAIL' "$OUT/adversarial_check.log" | head -20
  t1=$(date +%s)
  $mskb check --task "$adv_tasks" --contenders adversarial --memcheck --checks-per-gpu "${CHECKS_PER_GPU:-6}" --json "$OUT/adversarial_memcheck.json" \
    > "$OUT/adversarial_memcheck.log" 2> "$OUT/adversarial_memcheck.progress"
  echo "adversarial memcheck rc=$? ($(since $t1)): $(grep -c '^PASS' "$OUT/adversarial_memcheck.log") as declared, $(grep -c '^FAIL' "$OUT/adversarial_memcheck.log") not"
  grep '^FAIL' "$OUT/adversarial_memcheck.log" | head -20
  t1=$(date +%s)
  $mskb run --task "$adv_tasks" --contenders adversarial --budget 0.05 --checks-per-gpu "${CHECKS_PER_GPU:-6}" --json "$OUT/adversarial_run.json" \
    --markdown "$OUT/adversarial_run.md" > "$OUT/adversarial_run.log" 2> "$OUT/adversarial_run.progress"
  echo "adversarial run rc=$? ($(since $t1))"; grep -vE '^\|' "$OUT/adversarial_run.log" | head -30
fi

if [[ $phases == *,check,* ]]; then
  t1=$(date +%s)
  $mskb check "${sel[@]}" --contenders "${CONTENDERS:-baseline,vendor,wrong}" --checks-per-gpu "${CHECKS_PER_GPU:-4}" --json "$OUT/check.json" > "$OUT/check.log" 2> "$OUT/check.progress"
  echo "check rc=$? ($(since $t1)): $(grep -c '^PASS' "$OUT/check.log") pass, $(grep -c '^FAIL' "$OUT/check.log") fail"
  grep '^FAIL' "$OUT/check.log" | head -30
fi

if [[ $phases == *,memcheck,* ]]; then
  t1=$(date +%s)
  $mskb check "${sel[@]}" --memcheck --checks-per-gpu "${CHECKS_PER_GPU:-4}" --json "$OUT/memcheck.json" \
    > "$OUT/memcheck.log" 2> "$OUT/memcheck.progress"
  echo "memcheck rc=$? ($(since $t1)): $(grep -c '^PASS' "$OUT/memcheck.log") pass, $(grep -c '^FAIL' "$OUT/memcheck.log") fail"
  grep '^FAIL' "$OUT/memcheck.log" | head -30
fi

if [[ $phases == *,suite,* ]]; then
  # docs/harness.md section 11: the full suite (baseline + vendor of every task, both precisions, paper
  # sweep) in < 5 min on one H200: `mskb run` with an empty kernel cache (every kernel built), on the
  # first GPU only; the project build (above, when not SKIP_BUILD) is timed apart. Every line of
  # the progress stream starts with the seconds since the run started, and scripts/suite_timeline.py
  # reads it (where the time went).
  # CHECKS_PER_GPU=N, OVERLAP=M: --checks-per-gpu, --timing-overlap (default auto). SUITE_DEADLINE=SECONDS
  # cuts the run (SIGINT: the partial report is written). PREVIOUS_SUITE=FILE continues that
  # partial report (--skip-done; the kernel cache is then kept) and merges the two.
  # SUITE_SWEEP=paper,large: the second target (< 12 min), in two calls with the two above.
  t1=$(date +%s)
  skip=()
  if [ -n "${PREVIOUS_SUITE:-}" ]; then
    cp "$PREVIOUS_SUITE" "$OUT/suite_paper.previous.json"; skip=(--skip-done "$OUT/suite_paper.previous.json")
  else
    rm -rf build/kernel-cache-cold
  fi
  (while true; do free -m | awk '/Mem:/{print $3}'; sleep 2; done) > "$OUT/suite_mem_used_mb.log" 2>&1 &
  memp=$!
  s0=$(( ${EPOCHREALTIME/./} / 100000 )) lock_t0=$EPOCHREALTIME
  rm -f "$OUT"/suite_gpu_lock.log*
  # SUITE_GPUS: the GPUs (default 0; "0,1" for the two-GPU scaling of docs/harness.md section 9,
  # one hold log per GPU then: suite_gpu_lock.log.gpu0, .gpu1).
  suite_gpus=${SUITE_GPUS:-0}
  # SUITE_ARGS: more options of `mskb run` (e.g. "--noise 0.01"); SUITE_ENV: more environment
  # (e.g. "MSKB_LOAD_OUTSIDE_LOCK=1"), for A/B runs of the whole suite.
  # shellcheck disable=SC2086
  (env ${SUITE_ENV:-} MSKB_GPU_LOCK_LOG=$OUT/suite_gpu_lock.log MSKB_CACHE_DIR=$PWD/build/kernel-cache-cold timeout -s INT "${SUITE_DEADLINE:-86400}" \
    $mskb run --all --sweep "${SUITE_SWEEP:-paper}" --gpus "$suite_gpus" --checks-per-gpu "${CHECKS_PER_GPU:-auto}" --timing-overlap "${OVERLAP:-auto}" ${SUITE_ARGS:-} "${skip[@]}" \
    --json "$OUT/suite_paper.json" --markdown "$OUT/suite_paper.md" 2>&1 > "$OUT/suite_paper.log") |
    while IFS= read -r line; do t=$(( ${EPOCHREALTIME/./} / 100000 - s0 )); printf '%4d.%d %s\n' $((t / 10)) $((t % 10)) "$line"; done > "$OUT/suite_paper.progress"
  rc=${PIPESTATUS[0]}
  kill $memp 2>/dev/null
  if [ -n "${PREVIOUS_SUITE:-}" ] && [ -f "$OUT/suite_paper.json" ]; then
    # --expect all: the merge is whole (not partial) when every group of the suite is.
    $mskb merge "$OUT/suite_paper.previous.json" "$OUT/suite_paper.json" --expect all --json "$OUT/suite_paper_merged.json" \
      --markdown "$OUT/suite_paper_merged.md" >> "$OUT/suite_paper.log" 2>&1
  fi
  echo "suite (${SUITE_SWEEP:-paper} sweep, GPU(s) $suite_gpus, cold kernel cache) rc=$rc: run $(since $t1) (target < 300 s for paper, < 720 s for paper,large; kernel builds included)," \
    "from the script's start $(since $t0)"
  python3 scripts/suite_timeline.py "$OUT/suite_paper.progress" --json "$OUT/suite_timeline.json" > "$OUT/suite_timeline.txt" 2>&1
  grep -E "^(run|checks|timing|tail)" "$OUT/suite_timeline.txt"
  # The timing parts' own phases (contenders[].timing_part_seconds), summed: their checks of the
  # timed seeds hold the GPU lock shared beside the other parts' exclusive timings.
  python3 -c 'import json,sys; s={}
for c in json.load(open(sys.argv[1]))["contenders"]:
    for k,v in c.get("timing_part_seconds",{}).items(): s[k]=s.get(k,0)+v
print("timing parts, summed:", ", ".join(f"{k} {v:.0f} s" for k,v in sorted(s.items())))' "$OUT/suite_paper.json" 2>&1 | tee -a "$OUT/suite_timeline.txt"
  # The GPU's own time line, from the lane lock's hold log: exclusive (timings), shared (checks'
  # GPU work) and idle, before and after the last checks part ended.
  split=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kinds"]["checks"]["last_end_s"])' "$OUT/suite_timeline.json" 2>/dev/null)
  for log in "$OUT"/suite_gpu_lock.log*; do
    [ -f "$log" ] || continue
    lane=${log#"$OUT"/suite_gpu_lock.log}
    python3 scripts/gpu_lock_timeline.py "$log" --t0 "$lock_t0" ${split:+--split "$split"} \
      --json "$OUT/suite_gpu_lock$lane.json" 2>&1 | tee "$OUT/suite_gpu_lock$lane.txt"
  done
  # The timing parts' shared instances (docs/harness.md section 9): host-made checks, and those
  # copied from another verifier of the group instead of prepared again; where the share root was.
  for log in "$OUT"/suite_gpu_lock.log*; do
    [ -f "$log" ] || continue
    echo "host-made instances checked: $(grep -c ' host' "$log"), copied from another verifier: $(grep -c ' host shared ' "$log") ($(basename "$log"))" |
      tee -a "$OUT/suite_timeline.txt"
  done
  df -h /dev/shm "${TMPDIR:-/tmp}" > "$OUT/suite_df.txt" 2>&1
  # Several GPUs: every (task, precision) group's contenders on one GPU.
  python3 -c 'import json,sys; g={}
for c in json.load(open(sys.argv[1]))["contenders"]: g.setdefault((c["task"], c["precision"]), set()).add(c.get("gpu"))
split=[k for k,v in g.items() if len(v) > 1]
print(f"groups: {len(g)}, on more than one GPU: {len(split)}", *split)' "$OUT/suite_paper.json" 2>&1 | tee -a "$OUT/suite_timeline.txt"
  grep -E "WARNING|^  " "$OUT/suite_paper.log" | head -20
fi

if [[ $phases == *,taskfiles,* ]]; then
  # Users' tasks on the GPU: the examples' and task-file types' GPU tests; each task-file demo
  # (data/demo/vadd: vector_add re-expressed, and the three examples/) through `mskb run` and one
  # replayed `cudamaster optimize` round; the demo submission (scripts/demo-submission.sh) in one
  # `mskb run --submission`, verified against its expect.tsv.
  t1=$(date +%s)
  ctest --test-dir build/gpu -R 'mskb_gpu_examples_test|mskb_gpu_task_file_types_test' --output-on-failure > "$OUT/taskfile_gpu_tests.log" 2>&1
  echo "task-file GPU tests rc=$? ($(since $t1)): $(grep -E 'tests passed' "$OUT/taskfile_gpu_tests.log")"
  for d in vadd:data/demo/vadd/task.toml histogram:examples/histogram/task.toml bias_gelu:examples/bias_gelu/task.toml \
           conv1d:examples/conv1d/task.toml; do
    n=${d%%:*}; tf=${d#*:}; t1=$(date +%s)
    $mskb run --task-file "$tf" --precision all --json "$OUT/taskfile_run_$n.json" --markdown "$OUT/taskfile_run_$n.md" > "$OUT/taskfile_run_$n.log" 2>&1
    echo "mskb run --task-file $tf rc=$? ($(since $t1))"
    t1=$(date +%s)
    $B/cudamaster optimize --task-file "$tf" --llm "replay:data/demo/$n.jsonl" --rounds 1 --db "$OUT/taskfile_optimize.db" \
      --out "$OUT/taskfile_optimize_$n" > "$OUT/taskfile_optimize_$n.log" 2>&1
    echo "cudamaster optimize --task-file $tf (replay, 1 round) rc=$? ($(since $t1)): $(grep -E 'round 1: (accepted|rejected)' "$OUT/taskfile_optimize_$n.log" | head -1)"
  done
  python3 scripts/candidate_times.py "$OUT/taskfile_optimize.db" --json "$OUT/taskfile_candidate_times.json" > "$OUT/taskfile_candidate_times.txt" 2>&1
  tail -1 "$OUT/taskfile_candidate_times.txt"
  if [ "${SUBMISSION:-1}" = 1 ]; then
  sub=$(mktemp -d)/submission; bash scripts/demo-submission.sh make "$sub" && cp "$sub/expect.tsv" "$OUT/submission_expect.tsv"
  t1=$(date +%s)
  $mskb run --submission "$sub" --checks-per-gpu "${CHECKS_PER_GPU:-8}" --json "$OUT/submission_run.json" --markdown "$OUT/submission_run.md" \
    > "$OUT/submission_run.log" 2> "$OUT/submission_run.progress"
  echo "submission run rc=$? ($(since $t1))"
  bash scripts/demo-submission.sh verify "$sub" "$OUT/submission_run.json" > "$OUT/submission_verify.txt" 2>&1; echo "verify rc=$?: $(tail -1 "$OUT/submission_verify.txt")"
  fi
fi

if [[ $phases == *,overlap,* ]]; then
  # Does --timing-overlap M measure what one at a time measures? The same tasks ($TASKS, default
  # eight LLM tasks with small, launch-bound shapes and library vendors) timed with 1, then M
  # (OVERLAP, default 3), then 1 again (the A/A: run-to-run noise), warm kernel cache, GPU 0;
  # `mskb compare` of 1 vs M and of 1 vs 1.
  ov_tasks=${TASKS:-softmax,layer_norm,rms_norm,gelu,sigmoid,row_tanh,cross_entropy_loss,max_pooling_2d}
  $mskb build --task "$ov_tasks" > "$OUT/overlap_build.log" 2>&1
  for run in 1a "${OVERLAP:-3}" 1b; do
    t1=$(date +%s)
    $mskb run --task "$ov_tasks" --precision all --sweep paper --gpus 0 --checks-per-gpu "${CHECKS_PER_GPU:-8}" --timing-overlap "${run%[ab]}" \
      --json "$OUT/overlap_$run.json" --markdown "$OUT/overlap_$run.md" > "$OUT/overlap_$run.log" 2>&1
    echo "--timing-overlap ${run%[ab]} ($run) rc=$? ($(since $t1)): $(grep -oE 'WARNING: [0-9]+ timed shape' "$OUT/overlap_$run.md" || echo 'no shape flagged')"
  done
  $mskb compare "$OUT/overlap_1a.json" "$OUT/overlap_${OVERLAP:-3}.json" --markdown "$OUT/overlap_compare_1_vs_${OVERLAP:-3}.md" > /dev/null 2>&1
  $mskb compare "$OUT/overlap_1a.json" "$OUT/overlap_1b.json" --markdown "$OUT/overlap_compare_1_vs_1.md" > /dev/null 2>&1
  grep -E "^\| all \|" "$OUT/overlap_compare_1_vs_${OVERLAP:-3}.md" "$OUT/overlap_compare_1_vs_1.md"
fi

if [[ $phases == *,ab,* ]]; then
  # Any two settings of `mskb run`, A/B/A: $AB_A and $AB_B (extra options, e.g. AB_A="--warmup 0.1"
  # AB_B="--warmup 0.02"; environment settings go in $AB_ENV_A / $AB_ENV_B, e.g. MSKB_PIPELINE=1) on
  # $TASKS (default the eight LLM tasks of `overlap`), $AB_SWEEP (default paper), GPU 0, kernels built before;
  # `mskb compare` of A vs B and of A vs A (the noise floor) -> ab_*.
  ab_tasks=${TASKS:-softmax,layer_norm,rms_norm,gelu,sigmoid,row_tanh,cross_entropy_loss,max_pooling_2d}
  $mskb build --task "$ab_tasks" > "$OUT/ab_build.log" 2>&1
  for run in a1 b a2; do
    opts=${AB_A:-}; envs=${AB_ENV_A:-}; [ $run = b ] && { opts=${AB_B:-}; envs=${AB_ENV_B:-}; }
    t1=$(date +%s)
    # shellcheck disable=SC2086
    env $envs $mskb run --task "$ab_tasks" --precision all --sweep "${AB_SWEEP:-paper}" --gpus 0 --checks-per-gpu "${CHECKS_PER_GPU:-8}" $opts \
      --json "$OUT/ab_$run.json" --markdown "$OUT/ab_$run.md" > "$OUT/ab_$run.log" 2>&1
    echo "$run ($envs $opts) rc=$? ($(since $t1))"
  done
  $mskb compare "$OUT/ab_a1.json" "$OUT/ab_b.json" --markdown "$OUT/ab_compare_a_vs_b.md" > /dev/null 2>&1
  $mskb compare "$OUT/ab_a1.json" "$OUT/ab_a2.json" --markdown "$OUT/ab_compare_a_vs_a.md" > /dev/null 2>&1
  grep -E "^\| all \|" "$OUT/ab_compare_a_vs_b.md" "$OUT/ab_compare_a_vs_a.md"
fi

if [[ $phases == *,inputs,* ]]; then
  # GPU instances' inputs through the host region (MSKB_DEVICE_INPUTS=0) against device to device
  # from the verifier's staging copy (1): `mskb check` of the tasks drawn on the verifier's GPU
  # ($TASKS), baseline and vendor, kernels built before; then the GPU test of every way to be wrong
  # through both paths.
  in_tasks=${TASKS:-matrix_copy,matrix_transpose,matrix_scalar_mul,matrix_vector_mul,stencil_2d,matrix_mul,square_matrix_mul,conv_2d,high_order_contraction}
  $mskb build --task "$in_tasks" > "$OUT/inputs_build.log" 2>&1
  for di in 0 1; do
    t1=$(date +%s)
    MSKB_DEVICE_INPUTS=$di $mskb check --task "$in_tasks" --contenders baseline,vendor --checks-per-gpu "${CHECKS_PER_GPU:-8}" \
      --json "$OUT/inputs_device$di.json" > "$OUT/inputs_device$di.log" 2>&1
    echo "MSKB_DEVICE_INPUTS=$di check rc=$? ($(since $t1)): $(grep -c '^PASS' "$OUT/inputs_device$di.log") pass, $(grep -c '^FAIL' "$OUT/inputs_device$di.log") fail"
  done
  build/gpu/tests/mskb/gpu/mskb_gpu_harness_test --gtest_filter='DeviceComparison.*' > "$OUT/inputs_device_comparison_test.log" 2>&1
  echo "DeviceComparison rc=$?"
fi

if [[ $phases == *,candidate,* ]]; then
  # What one candidate's evaluation costs in cudamaster: the four-task replay demo (8 rounds, every
  # candidate built with nvcc from an empty cache, checked, timed, gated), then per candidate its
  # build and evaluation seconds from the store (scripts/candidate_times.py).
  t1=$(date +%s)
  MSKB_CACHE_DIR=$PWD/build/kernel-cache-candidates $B/cudamaster optimize --task spmv_csr,vector_add,softmax,dot_product --precision fp32 \
    --llm replay:data/demo/suite4.jsonl --replay-match task --rounds 2 --db "$OUT/candidates.db" --out "$OUT/candidates" > "$OUT/candidates.log" 2>&1
  echo "suite4 replay rc=$? ($(since $t1))"
  python3 scripts/candidate_times.py "$OUT/candidates.db" --json "$OUT/candidate_times.json" | tee "$OUT/candidate_times.txt" | tail -12
fi

if [[ $phases == *,rerun,* ]]; then
  # A committed claim rerun on this lease (docs/harness.md section 5): `mskb rerun` of each report of $RERUN
  # (a comma list; default the committed paper sweep) judged by the spread model's intervals, then from the
  # pair the model's table (call and device time) and the per-shape ratios by band and by task, call and device
  # side by side (scripts/diag/baseline_drift.py), how far outside their intervals the checks fell
  # (scripts/diag/rerun_tails.py) -> rerun.{json,md,log}, rerun_spread.md, rerun_drift.md, rerun_tails.md; with
  # several reports each in $OUT/<report's name>/. RERUN_DEADLINE=SECONDS: no rerun starts that late.
  IFS=, read -r -a rerun_list <<< "${RERUN:-docs/results/h200/throughput/suite_paper_4aae2a5.json}"
  t1=$(date +%s)
  for rerun_of in "${rerun_list[@]}"; do
    if [ $(( $(date +%s) - t1 )) -ge "${RERUN_DEADLINE:-86400}" ]; then echo "rerun of $rerun_of: not started (RERUN_DEADLINE)"; continue; fi
    dir=$OUT; [ ${#rerun_list[@]} -gt 1 ] && dir=$OUT/$(basename "$rerun_of" .json) && mkdir -p "$dir"
    t2=$(date +%s)
    $mskb rerun "$rerun_of" ${RERUN_ARGS:-} --json "$dir/rerun.json" --markdown "$dir/rerun.md" > "$dir/rerun.log" 2>&1
    echo "rerun of $rerun_of rc=$? ($(since $t2))"; tail -5 "$dir/rerun.log"
    python3 scripts/spread_model.py "$rerun_of" "$dir/rerun.json" --quantile 0.9 > "$dir/rerun_spread.md" 2>&1
    echo "spread table rc=$?"; cat "$dir/rerun_spread.md"
    { python3 scripts/diag/baseline_drift.py "$rerun_of" "$dir/rerun.json" --contender all --time both &&
      echo && python3 scripts/diag/baseline_drift.py "$rerun_of" "$dir/rerun.json" --contender all --by-task; } > "$dir/rerun_drift.md" 2>&1
    echo "drift tables rc=$?"; head -8 "$dir/rerun_drift.md"
    python3 scripts/diag/rerun_tails.py "$dir/rerun.json" > "$dir/rerun_tails.md" 2>&1
    echo "tails rc=$?"; cat "$dir/rerun_tails.md"
  done
fi

if [[ $phases == *,claim,* ]]; then
  # A claim (docs/harness.md section 12): the report `mskb rerun` reproduces on a later lease. One report per
  # sweep, as the committed claims (docs/results/h200/throughput/suite_{paper,large}_<commit>.json).
  t1=$(date +%s)
  if [ -n "${CLAIM_TASKS:-}" ]; then which=(--task "$CLAIM_TASKS"); else which=(--all); fi
  IFS=, read -r -a claim_sweeps <<< "${CLAIM_SWEEPS:-paper,large}"
  for sw in "${claim_sweeps[@]}"; do
    left=$(( ${CLAIM_DEADLINE:-86400} - ($(date +%s) - t1) ))
    [ "$left" -gt 0 ] || { echo "claim $sw: not started (CLAIM_DEADLINE)"; continue; }
    t2=$(date +%s)
    timeout -s INT "$left" $mskb run "${which[@]}" --sweep "$sw" --contenders baseline,vendor \
      --json "$OUT/claim_$sw.json" --markdown "$OUT/claim_$sw.md" > "$OUT/claim_$sw.log" 2>&1
    echo "claim $sw (${CLAIM_TASKS:-every task}) rc=$? ($(since $t2))"; tail -2 "$OUT/claim_$sw.log"
  done
fi

if [[ $phases == *,sandbox,* ]]; then
  # What the candidate's sandbox costs: one system call timed before and after each step
  # (scripts/diag/seccomp_cost.cpp), then the same `mskb run` in every MSKB_SANDBOX mode
  # (scripts/diag/sandbox_cost.sh, $SANDBOX_ROUNDS rounds, default 2; $TASKS, default its six) ->
  # sandbox_cost/summary.md.
  g++ -std=c++17 -O2 -Iinclude scripts/diag/seccomp_cost.cpp build/gpu/src/libmskb_util.a -lpthread -o build/gpu/seccomp_cost \
    > "$OUT/seccomp_cost.txt" 2>&1 && build/gpu/seccomp_cost >> "$OUT/seccomp_cost.txt" 2>&1
  echo "seccomp_cost rc=$?"; cat "$OUT/seccomp_cost.txt"
  sc_args=(); [ -n "${TASKS:-}" ] && sc_args=(--task "$TASKS" --contenders baseline,vendor --sweep "${SWEEP:-paper}")
  t1=$(date +%s)
  scripts/diag/sandbox_cost.sh "$B" "$OUT/sandbox_cost" "${SANDBOX_ROUNDS:-2}" "${sc_args[@]}" | tail -12
  echo "sandbox_cost ($(since $t1))"
fi

if [[ $phases == *,diag,* ]]; then
  # Survey of the cuDNN graph API engines (and single-knob variations) for one-node pointwise graphs.
  nvcc -std=c++17 -O2 -I kernels/include scripts/diag/cudnn_pw_engines.cu -lcudnn -o build/gpu/pw_engines > "$OUT/pw_engines.log" 2>&1 &&
    timeout 240 build/gpu/pw_engines "${PW_LOG2N:-24}" >> "$OUT/pw_engines.log" 2>&1
  echo "diag rc=$?: $(grep -c ' default:' "$OUT/pw_engines.log") engine plans ran"
fi

if [[ $phases == *,run,* ]]; then
  # One run per category (each finishes with its timings even if a later one is cut short by
  # RUN_DEADLINE seconds after the phase starts), then one merged report. TASKS runs those alone.
  t1=$(date +%s)
  if [ -n "${TASKS:-}" ]; then groups=("task:$TASKS"); else groups=(); for c in ${CATEGORIES:-scientific llm sparse algebra}; do groups+=("category:$c"); done; fi
  # PREVIOUS=DIR: continue the run_<name>.json reports there (e.g. of a call that ran out of time):
  # their complete groups are skipped (--skip-done) and the merge takes them from there.
  merge_list=()
  for g in "${groups[@]}"; do
    kind=${g%%:*}; what=${g#*:}; name=$([ "$kind" = task ] && echo tasks || echo "$what")
    skip=()
    if [ -n "${PREVIOUS:-}" ] && [ -f "$PREVIOUS/run_$name.json" ]; then
      cp "$PREVIOUS/run_$name.json" "$OUT/run_$name.previous.json"
      skip=(--skip-done "$OUT/run_$name.previous.json"); merge_list+=("$OUT/run_$name.previous.json")
    fi
    left=$(( ${RUN_DEADLINE:-86400} - ($(date +%s) - t1) ))
    if [ "$left" -lt 30 ]; then echo "run $name: skipped (RUN_DEADLINE)"; continue; fi
    t2=$(date +%s)
    timeout "$left" $mskb run --"$kind" "$what" "${skip[@]}" --precision "${PRECISION:-all}" --sweep "${SWEEP:-paper,large}" --budget "${BUDGET:-0.1}" \
      --checks-per-gpu "${CHECKS_PER_GPU:-6}" --json "$OUT/run_$name.json" --markdown "$OUT/run_$name.md" \
      > "$OUT/run_$name.log" 2> "$OUT/run_$name.progress"
    echo "mskb run $name rc=$? ($(since $t2))"; grep -vE '^\|| passed' "$OUT/run_$name.log" | head -20
    [ -f "$OUT/run_$name.json" ] && merge_list+=("$OUT/run_$name.json")
  done
  # --expect checks the merge holds every group of what was asked (both precisions: not with PRECISION).
  expect=(--expect "$([ -n "${TASKS:-}" ] && echo "$TASKS" || echo "${CATEGORIES:-scientific llm sparse algebra}" | tr ' ' ,)")
  [ "${PRECISION:-all}" != all ] && expect=()
  [ ${#merge_list[@]} -gt 0 ] && $mskb merge "${merge_list[@]}" "${expect[@]}" --json "$OUT/run.json" --markdown "$OUT/run.md"
fi
echo "total: $(since $t0)"
if [ "${BUNDLE:-1}" != 0 ]; then bundle; fi
