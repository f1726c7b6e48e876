#!/usr/bin/env bash
# The README demo driven through `--llm exchange:DIR` and through `--llm replay:FILE`, then
# compared: the same agent calls (agent, round, attempt), the same candidates (sha256), the same
# evaluations (contender, disposition) and the same best kernel. On a GPU the times are measured,
# so a candidate near the acceptance margin can be accepted in one run and rejected in the other;
# the script says so instead of hiding it.
#
#   scripts/exchange_demo.sh [BUILD_APPS_DIR] [OUT_DIR] [CASSETTE] [TASKS]
#   defaults: build/gpu/apps, exchange-demo, data/demo/matrix_vector_mul_fp32.jsonl, matrix_vector_mul
#
# Each exchange session stops with exit 4 until scripts/exchange_answer.py has answered the
# waiting requests from the cassette; the run is resumed until it ends. Exit 0 when both runs
# agree, 1 when they differ (the differences on stderr), 2 when a run fails.
set -u
B=${1:-build/gpu/apps}
OUT=${2:-exchange-demo}
CASSETTE=${3:-data/demo/matrix_vector_mul_fp32.jsonl}
TASKS=${4:-matrix_vector_mul}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$OUT" && mkdir -p "$OUT" || exit 2
common=(--task "$TASKS" --rounds 2 --precision fp32)

echo "== replay: $CASSETTE" >&2
"$B/cudamaster" optimize "${common[@]}" --llm "replay:$CASSETTE" --replay-match task --db "$OUT/replay.db" --out "$OUT/replay-out" \
  2> "$OUT/replay.log" || { echo "replay run failed (rc $?): $OUT/replay.log" >&2; exit 2; }

echo "== exchange: $OUT/ex" >&2
"$B/cudamaster" optimize "${common[@]}" --llm "exchange:$OUT/ex:demo" --db "$OUT/exchange.db" --out "$OUT/exchange-out" \
  2> "$OUT/exchange.log"
rc=$?
sessions=1
while [ "$rc" -eq 4 ]; do
  python3 "$HERE/exchange_answer.py" --cassette "$CASSETTE" "$OUT/ex" >> "$OUT/answers.log" || exit 2
  "$B/cudamaster" optimize --resume 1 --db "$OUT/exchange.db" 2>> "$OUT/exchange.log"
  rc=$?
  sessions=$((sessions + 1))
  [ "$sessions" -gt 60 ] && { echo "the exchange run did not end in 60 sessions" >&2; exit 2; }
done
[ "$rc" -eq 0 ] || { echo "exchange run ended with rc $rc: $OUT/exchange.log" >&2; exit 2; }
echo "== exchange run: $sessions sessions" >&2

"$B/cudamaster" show 1 --db "$OUT/replay.db" --json "$OUT/replay.json" > /dev/null || exit 2
"$B/cudamaster" show 1 --db "$OUT/exchange.db" --json "$OUT/exchange.json" > /dev/null || exit 2
python3 - "$OUT" <<'EOF'
import json, sys, filecmp, os
out = sys.argv[1]
def view(name):
    j = json.load(open(os.path.join(out, name)))
    v = []
    for job in j["jobs"]:
        t = job["task"] + "/" + job["precision"]
        v += [f"{t} call {c['agent']} r{c['round']} a{c['attempt']}" for c in job["calls"] if c["seq"] is not None]
        v += [f"{t} evaluation {e['contender']} {e['disposition']}" for e in job["evaluations"]]
        v += [f"{t} round {r['round']}: {r['outcome'].split(':')[0]}" for r in job["rounds"]]
    return v
a, b = view("replay.json"), view("exchange.json")
same = a == b
for x, y in zip(a, b):
    if x != y: print(f"differs: replay {x!r} vs exchange {y!r}", file=sys.stderr)
if len(a) != len(b): print(f"differs: {len(a)} vs {len(b)} records", file=sys.stderr)
for f in sorted(os.listdir(os.path.join(out, "replay-out"))):
    if f.endswith(".cu"):
        eq = filecmp.cmp(os.path.join(out, "replay-out", f), os.path.join(out, "exchange-out", f), shallow=False)
        print(f"best kernel {f}: {'same' if eq else 'DIFFERENT'}", file=sys.stderr)
        same &= eq
print("exchange == replay" if same else "exchange != replay (see above)", file=sys.stderr)
sys.exit(0 if same else 1)
EOF
