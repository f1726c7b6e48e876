#!/usr/bin/env bash
# scripts/diag/sandbox_cost.sh end to end over the fake runner (fake nvcc): one round of every
# sandbox mode, each `mskb run` given its mode's environment (the fake runner names the mode it
# saw as the sandbox level, and reports a candidate usage note); walls.tsv has the five runs in
# the round's rotated order, and summary.md a row per mode with its level, the shapes compared
# against the unconfined run and the candidates' CPU ratio; the kernels built once before the
# rounds; the per-round rows and summary.json.
set -uo pipefail
mskb=$1 runner=$2 fakes=$3 root=$4
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work/bin"
cat > "$work/bin/mskb" <<WRAP
#!/usr/bin/env bash
MSKB_NVCC=$fakes/nvcc MSKB_RUNNER=$runner MSKB_CACHE_DIR=$work/cache FAKE_RUNNER_SANDBOX=1 exec "$mskb" "\$@"
WRAP
chmod +x "$work/bin/mskb"
out=$(bash "$root/scripts/diag/sandbox_cost.sh" "$work/bin" "$work/out" 1 --task vector_add --precision fp32 --budget 0.01 \
  --contenders baseline --sweep paper 2>&1) || fail "sandbox_cost.sh: $out"
echo "$out"
[ "$(wc -l < "$work/out/walls.tsv")" = 5 ] || fail "five runs: $(cat "$work/out/walls.tsv")"
[ "$(cut -f2 "$work/out/walls.tsv" | tr '\n' ' ')" = "on off files calls spec " ] || fail "round 1's order: $(cut -f2 "$work/out/walls.tsv")"
awk -F'\t' '$4 != 0 { exit 1 }' "$work/out/walls.tsv" || fail "a run failed: $(cat "$work/out/walls.tsv")"
for m in on files calls spec off; do [ -s "$work/out/r1_$m.json" ] || fail "no report for $m"; done
s=$work/out/summary.md
grep -q '^| on | fake on | [1-9]' "$s" || fail "on row: $(cat "$s")"
grep -q '^| files | fake files | ' "$s" || fail "files row"
grep -q '^| calls | fake calls | ' "$s" || fail "calls row"
grep -q '^| spec | fake on spec-allow | ' "$s" || fail "spec row: MSKB_SANDBOX_SPEC=allow did not reach the runner"
grep -q '^| off | fake off | [1-9][0-9]* | 1.000 | ' "$s" || fail "off row (against itself)"
# Every mode's candidates' CPU against the unconfined run's: the fake's usage is the same everywhere.
# (The wall ratio is n/a when the unconfined run took under 0.05 s, as the fake's runs may.)
grep '^| on ' "$s" | grep -Eq '\| 1\.000 \| ([0-9.]+|n/a) \| 0 \|$' || fail "on row's CPU ratio and IPC count: $(grep '^| on ' "$s")"
grep -q '^host: ' "$work/out/host.txt" || fail "host.txt"
# The kernels were built before the first run (so no mode pays for them), and the numbers as JSON.
# (the fake nvcc's objects export no entry point, so `mskb build` refuses them here: the warning)
grep -qE '^(kernels built: |sandbox_cost: warning: mskb build --task vector_add --contenders baseline: )' <<< "$out" ||
  fail "no build step before the rounds"
[ -s "$work/out/build.log" ] || fail "no build.log"
grep -q '^| 1 | on | [1-9]' "$s" || fail "per-round row: $(cat "$s")"
python3 - "$work/out/summary.json" <<'PY' || fail "summary.json: $(cat "$work/out/summary.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d["modes"]) == {"on", "files", "calls", "spec", "off"}, d["modes"].keys()
assert d["modes"]["off"]["call_ratio_median"] == 1.0
assert len(d["per_round"]) == 4 and len(d["walls_s"]) == 5
assert d["host"][0].startswith("host: ")
PY
echo "sandbox_cost_test: ok"
