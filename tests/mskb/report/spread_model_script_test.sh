#!/usr/bin/env bash
# scripts/spread_model.py: a pair of synthetic reports with known ratios (the quantile checked by
# hand), the two committed pointwise reports of one H200 (between processes), --write into a
# model file (scopes kept, version up) and the usage errors.
set -u
root=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
script="$root/scripts/spread_model.py"

# A: 21 shapes of 10 us; B: shape k at 10 us * e^(0.01 k) (|ln| = 0.00 .. 0.20), on another GPU
# of the same model (the fixtures' H200); C: B's times on another GPU model.
python3 - "$work" <<'PY'
import json, math, sys
def report(uuid, f, name="NVIDIA H200"):
    res = [{"task": "t", "precision": "fp32", "contender": "baseline", "sweep": "paper", "shape": {"N": k},
            "disposition": "passed", "time_us": {"median": 10.0 * f(k), "noise": 0.0}} for k in range(21)]
    return {"device": {"name": name, "uuid": uuid, "compute_capability": "9.0"}, "contenders": [], "results": res}
json.dump(report("GPU-a", lambda k: 1.0), open(sys.argv[1] + "/a.json", "w"))
json.dump(report("GPU-b", lambda k: math.exp(0.01 * k)), open(sys.argv[1] + "/b.json", "w"))
json.dump(report("GPU-c", lambda k: math.exp(0.01 * k), "NVIDIA A100-SXM4-80GB"), open(sys.argv[1] + "/c.json", "w"))
json.dump(report("GPU-d", lambda k: 1.0, "NVIDIA A100-SXM4-80GB"), open(sys.argv[1] + "/d.json", "w"))
PY
out=$(python3 "$script" "$work/a.json" "$work/b.json" --quantile 0.9) || fail "synthetic pair: $out"
# The 90th percentile of 0.00 .. 0.20 (21 values) is 0.18; the other bands take it (filled).
echo "$out" | grep -q "| between lease | call | 18.0% (n=21) | 18.0% (n=0)\* |" || fail "quantile of the synthetic pair: $out"
echo "$out" | grep -q "| between process" && fail "one pair on two GPUs is between leases: $out"
# The shift of all shapes together: mean of 0.00 .. 0.20 = 0.10.
echo "$out" | grep -q "| 10.0% |" || fail "common shift: $out"

# The two committed pointwise reports (one H200, the same GPU): between processes.
fx="$root/tests/fixtures/h200"
out=$(python3 "$script" "$fx/run_pointwise_first_plan.json" "$fx/run_pointwise_final.json") || fail "fixtures: $out"
echo "$out" | grep -q "^| between process | call | " || fail "fixtures are between processes: $out"
echo "$out" | grep -q "95th percentile" || fail "default quantile: $out"

# --write: a new file, then the other scope added; the first kept, the version up.
python3 "$script" "$fx/run_pointwise_first_plan.json" "$fx/run_pointwise_final.json" --write "$work/m.json" > /dev/null 2>&1 || fail "--write"
python3 "$script" "$work/a.json" "$work/b.json" --write "$work/m.json" > /dev/null 2>&1 || fail "--write again"
python3 - "$work/m.json" <<'PY' || fail "the written model"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["format"] == 1 and m["version"] == 2 and m["quantile"] == 0.95, m
assert m["measured_on"] == {"gpu": "NVIDIA H200", "compute_capability": "9.0"}, m["measured_on"]
assert set(m["scopes"]) == {"between_process", "between_lease"}, m["scopes"].keys()
for s in m["scopes"].values():
    assert len(s["call"]) == len(m["bands_us"]) + 1 and 0 <= s["rho"] <= 1 and s["common"] >= 0, s
    assert s["command"].startswith("scripts/spread_model.py"), s
PY
# Another quantile into a file of 0.95 that keeps a scope it does not refit: refused.
python3 "$script" "$work/a.json" "$work/b.json" --quantile 0.9 --write "$work/m.json" > /dev/null 2>&1 && fail "mixed quantiles must be refused"

# A model is one GPU model's: a pair across GPU models is refused, and so is refitting one scope of
# an H200 model from another GPU model's reports (the other scope would stay the H200's).
out=$(python3 "$script" "$work/a.json" "$work/c.json" 2>&1); [ $? -eq 2 ] || fail "a pair across GPU models must exit 2: $out"
echo "$out" | grep -q "different GPU models" || fail "the mix is named: $out"
out=$(python3 "$script" "$work/c.json" "$work/d.json" --write "$work/m.json" 2>&1); [ $? -eq 2 ] || fail "an A100 scope into an H200 model: $out"
echo "$out" | grep -q "measured on NVIDIA H200, these reports on NVIDIA A100-SXM4-80GB" || fail "the refusal names both: $out"
python3 "$script" "$work/c.json" "$work/d.json" --write "$work/a100.json" > /dev/null 2>&1 || fail "an A100 model of its own"
python3 -c "import json, sys; m = json.load(open(sys.argv[1])); assert m['measured_on']['gpu'] == 'NVIDIA A100-SXM4-80GB', m" \
  "$work/a100.json" || fail "the A100 model records its GPU"

# Usage errors: exit 2.
python3 "$script" "$work/a.json" > /dev/null 2>&1; [ $? -eq 2 ] || fail "one report must exit 2"
echo '{}' > "$work/x.json"
python3 "$script" "$work/a.json" "$work/x.json" > /dev/null 2>&1; [ $? -eq 2 ] || fail "not a report must exit 2"
python3 "$script" "$work/a.json" "$work/b.json" --quantile 1.5 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--quantile 1.5 must exit 2"
echo "spread_model.py: ok"
