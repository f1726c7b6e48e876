#!/usr/bin/env bash
# scripts/diag/rerun_tails.py: a synthetic `mskb rerun --json` comparison with known deviations (the
# counts beyond each threshold and the normal tails checked by hand), and its refusals.
set -u
root=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
script="$root/scripts/diag/rerun_tails.py"

# Ten checks: time_dev 0.1 .. 1.0 over five entries' paper sweeps, P_dev 0.5 / 1.3 / 1.6 / 2.2 / 3.0,
# and the run-wide check at 1.1; q = 0.9.
python3 - "$work" <<'PY'
import json, sys
pd = [0.5, 1.3, 1.6, 2.2, 3.0]
entries = [{"task": "t%d" % i, "precision": "fp32", "contender": "vendor", "verdict": "chance",
            "sweeps": [{"sweep": "paper", "time_dev": 0.1 * (2 * i + 1), "P_dev": pd[i]}]} for i in range(5)]
c = {"judge": {"kind": "model", "model": {"version": 3, "quantile": 0.9}}, "entries": entries,
     "shift": {"call_dev": 1.1}, "summary": {"simultaneous_factor": 2.25}}
json.dump({"rerun_of": {"comparison": c}}, open(sys.argv[1] + "/r.json", "w"))
c["judge"] = {"kind": "tolerance", "tolerance": 0.1}
json.dump({"rerun_of": {"comparison": c}}, open(sys.argv[1] + "/flat.json", "w"))
PY
out=$(python3 "$script" "$work/r.json") || fail "synthetic: $out"
echo "$out" | grep -q "11 checks, q = 0.9, simultaneous bound 2.25 intervals" || fail "heading: $out"
# beyond 1: P 1.3 1.6 2.2 3.0 and the run 1.1 = 5; beyond 1.5: 3; beyond 2: 2; beyond 2.5: 1.
echo "$out" | grep -q "^| 1 | 5 | 1.10 |$" || fail "beyond 1 (11 * 0.1 = 1.10 by normal tails): $out"
echo "$out" | grep -q "^| 1.5 | 3 | " || fail "beyond 1.5: $out"
echo "$out" | grep -q "^| 2 | 2 | " || fail "beyond 2: $out"
echo "$out" | grep -q "^| 2.5 | 1 | " || fail "beyond 2.5: $out"
echo "$out" | grep -q "Beyond 1.5 intervals: t4 fp32 vendor paper P 3.00 (chance); t3 fp32 vendor paper P 2.20 (chance); t2 fp32 vendor paper P 1.60" \
  || fail "the far checks, largest first: $out"

# Refusals: exit 2 with one line.
python3 "$script" "$work/flat.json" > /dev/null 2> "$work/err" && fail "a flat-tolerance comparison has no intervals"
grep -q "judged by a flat tolerance" "$work/err" || fail "flat: $(cat "$work/err")"
echo '{}' > "$work/bad.json"
python3 "$script" "$work/bad.json" > /dev/null 2> "$work/err"; [ $? -eq 2 ] || fail "not a rerun report: exit 2"
python3 "$script" > /dev/null 2>&1; [ $? -eq 2 ] || fail "no argument: exit 2"
echo "rerun_tails_script_test: ok"
