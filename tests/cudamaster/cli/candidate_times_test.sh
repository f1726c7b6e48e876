#!/usr/bin/env bash
# scripts/candidate_times.py on a real store: one replayed round of data/demo/vadd through the
# cudamaster binary (fake nvcc and runner at the process boundary) has one candidate besides the
# job's baseline; the script reports it, its build and evaluation, and the medians, as JSON too.
set -uo pipefail
cudamaster=$1 runner=$2 fakes=$3 root=$4
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
MSKB_NVCC=$fakes/nvcc MSKB_RUNNER=$runner "$cudamaster" optimize --task-file "$root/data/demo/vadd/task.toml" \
  --llm "replay:$root/data/demo/vadd.jsonl" --rounds 1 --profile none --db "$work/run.db" --out "$work/out" > "$work/log" 2>&1 ||
  fail "optimize: $(tail -3 "$work/log")"
out=$(python3 "$root/scripts/candidate_times.py" "$work/run.db" --json "$work/t.json") || fail "candidate_times: $out"
echo "$out"
echo "$out" | grep -q "^vadd fp32 .* passed$" || fail "the candidate's row"
echo "$out" | grep -q "^1 candidates evaluated: median build + evaluation" || fail "the summary"
python3 -c "
import json, sys
d = json.load(open('$work/t.json'))
s = d['summary']
assert s['candidates'] == 1 and s['evaluated'] == 1, s
assert 0 < s['nvcc_share'] <= 1, s
# The gate's median is over the candidates it ran for (none ran, or all: never a median of zeros).
gated = [r for r in d['rows'] if r['eval_s'] is not None and r['gate']]
assert s['gated'] == len(gated), s
assert (s['median_gate_s'] > 0) == (len(gated) > 0), s
assert d['rows'][0]['builds'] == 1 and d['rows'][0]['eval_s'] >= 0, d['rows']
" || fail "the JSON"
# A store the H200 wrote (the spmv_csr demo, two rounds): the gate ran for one candidate of three,
# and its median is that candidate's gate, not a median with the ungated ones' zeros.
cp "$root/tests/fixtures/h200/demo.db" "$work/h200.db"
python3 "$root/scripts/candidate_times.py" "$work/h200.db" --json "$work/h.json" > /dev/null || fail "candidate_times on the H200 store"
python3 -c "
import json
d = json.load(open('$work/h.json'))
s = d['summary']
gated = [r['gate_s'] for r in d['rows'] if r['eval_s'] is not None and r['gate']]
assert s['evaluated'] == 3 and s['gated'] == 1 == len(gated), s
assert s['median_gate_s'] == gated[0] > 0, s
" || fail "the gate's median on the H200 store"
out=$(python3 "$root/scripts/candidate_times.py" "$work/none.db" 2>&1) && fail "a missing store must fail"
echo PASS
