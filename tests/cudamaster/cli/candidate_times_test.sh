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
assert d['rows'][0]['builds'] == 1 and d['rows'][0]['eval_s'] >= 0, d['rows']
" || fail "the JSON"
out=$(python3 "$root/scripts/candidate_times.py" "$work/none.db" 2>&1) && fail "a missing store must fail"
echo PASS
