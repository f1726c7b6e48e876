#!/usr/bin/env bash
# scripts/suite_timeline.py on a real progress stream: a two-phase `mskb run` of two tasks over the
# fake runner (fake nvcc), its stderr time-stamped the way `scripts/gpu_validate.sh suite` does.
# Every contender has a checks line and a timing line; the checks end before the timing parts
# (the phases apart); the JSON agrees; an unstamped stream is refused in one line.
# scripts/gpu_lock_timeline.py on the same run's lock hold log (MSKB_GPU_LOCK_LOG): one exclusive
# hold per timing part (the fake runner's 20 ms), the run's time split in full; a malformed log
# is refused in one line.
set -uo pipefail
mskb=$1 runner=$2 fakes=$3 root=$4
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
s0=$(( ${EPOCHREALTIME/./} / 100000 )) t0=$EPOCHREALTIME
(MSKB_GPU_LOCK_LOG=$work/holds.log MSKB_NVCC=$fakes/nvcc MSKB_RUNNER=$runner MSKB_CACHE_DIR=$work/cache FAKE_RUNNER_SLEEP_MS=1100 "$mskb" run \
  --task spmv_csr,vector_add --precision fp32 --budget 0.01 --checks-per-gpu 2 --timing-overlap 2 \
  --json "$work/run.json" 2>&1 > "$work/run.log") |
  while IFS= read -r line; do t=$(( ${EPOCHREALTIME/./} / 100000 - s0 )); printf '%4d.%d %s\n' $((t / 10)) $((t % 10)) "$line"; done > "$work/progress"
[ "${PIPESTATUS[0]}" = 0 ] || fail "mskb run: $(tail -3 "$work/run.log") $(tail -3 "$work/progress")"
out=$(python3 "$root/scripts/suite_timeline.py" "$work/progress" --json "$work/t.json") || fail "suite_timeline: $out"
echo "$out"
echo "$out" | grep -q "^checks: 4 parts" || fail "four checks parts"
echo "$out" | grep -q "^timing: 4 parts" || fail "four timing parts"
python3 -c "
import json
d = json.load(open('$work/t.json'))
k = d['kinds']
assert k['checks']['parts'] == 4 and k['timing']['parts'] == 4, k
# Phases apart: the last check ends before (or in the second of) the first timing part's end.
assert k['checks']['last_end_s'] <= k['timing']['first_end_s'], k
assert d['timing_after_last_check_s'] >= 1, d
# Two at once at most (--checks-per-gpu 2, --timing-overlap 2); one more where a line is stamped
# late on a loaded machine (an end read after the next part started).
assert all(1 <= k[x]['most_at_once'] <= 3 for x in ('checks', 'timing')), k
# Each part holds one runner of 1.1 s of host work (its line's seconds leave the build out).
assert k['checks']['summed_s'] >= 4 * 1.0 and k['timing']['summed_s'] >= 4 * 1.0, k
assert d['run_s'] == max(k['checks']['last_end_s'], k['timing']['last_end_s']), d
" || fail "the JSON: $(cat "$work/t.json")"
out=$(python3 "$root/scripts/suite_timeline.py" "$work/run.log" 2>&1) && fail "an unstamped stream must fail"
[ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "no time-stamped part lines" || fail "the refusal: $out"
split=$(python3 -c "import json; print(json.load(open('$work/t.json'))['kinds']['checks']['last_end_s'])")
out=$(python3 "$root/scripts/gpu_lock_timeline.py" "$work/holds.log" --t0 "$t0" --split "$split" --json "$work/l.json") || fail "gpu_lock_timeline: $out"
echo "$out"
python3 -c "
import json
d = json.load(open('$work/l.json'))
w = d['whole']
assert w['timings'] == 4 and 15 <= w['timing_hold_mean_ms'] <= 500, w
assert 0.06 <= w['exclusive_s'] <= 2, w
# every second of the run is exclusive, shared or idle
assert abs(w['exclusive_s'] + w['shared_s'] + w['idle_s'] - w['wall_s']) <= 0.2, w
# the holds by kind: the fake runner labels its timings, sampling_ms=20 each
k = w['by_kind']['timing (x)']
assert k['holds'] == 4 and abs(k['fields_s']['sampling_ms'] - 0.08) < 1e-9, k
assert len(w['longest']) == 4 and all(' timing fake ' in l for l in w['longest']), w['longest']
# the phases apart: the timings come after the last checks part
assert d['after']['timings'] == 4 and d['before']['timings'] == 0, d
" || fail "the lock JSON: $(cat "$work/l.json")"
# A timing that waited 0.5 s behind a process start and then 0.3 s behind a check: the
# seconds behind each kind (they overlap), and the split of the 5 s into exclusive, shared, idle.
printf '%s\n' "s 100.0 100.0 101.0 1 load library_ms=300" "x 100.5 101.3 102.0 2 timing N=5 seed 2 warmup_ms=20 sampling_ms=500" \
  "s 100.9 101.0 101.3 3 check rows=4,K=2 seed 1 host check_ms=200" "s 103.0 103.0 104.0 1 exit" > "$work/synthetic.log"
python3 "$root/scripts/gpu_lock_timeline.py" "$work/synthetic.log" --t0 99 --json "$work/s.json" > /dev/null || fail "synthetic log"
python3 -c "
import json
w = json.load(open('$work/s.json'))['whole']
assert (w['exclusive_s'], w['shared_s'], w['idle_s']) == (0.7, 2.3, 2.0), w
assert w['shared_while_timing_waited_s'] == 0.8 and w['timing_waited_behind_s'] == {'load': 0.5, 'check': 0.3}, w
assert w['by_kind']['load (s)']['fields_s'] == {'library_ms': 0.3}, w['by_kind']
" || fail "the synthetic log's split: $(cat "$work/s.json")"
echo "x 1 2" > "$work/bad.log"
out=$(python3 "$root/scripts/gpu_lock_timeline.py" "$work/bad.log" 2>&1) && fail "a malformed log must fail"
[ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "not a hold line" || fail "the refusal: $out"
echo PASS
