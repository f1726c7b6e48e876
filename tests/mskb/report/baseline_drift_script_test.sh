#!/usr/bin/env bash
# scripts/diag/baseline_drift.py (the per-shape time ratios of two reports that the committed rerun
# write-ups quote): a synthetic pair with known ratios, banded by call and by device time, side by
# side (--time both) equal to the two single tables, and --by-task.
set -u
root=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
script="$root/scripts/diag/baseline_drift.py"

# A: 10 baseline shapes at 10 us call / 5 us device and 10 at 200 us call / 190 us device, one vendor
# shape; B: the small shapes' call time x1.2 (shape 0: x1.0), device x1.0; the large x1.01 / x1.02.
python3 - "$work" <<'PY'
import json, sys
def report(small_call, small_dev, large_call, large_dev):
    res = []
    for k in range(10):
        res.append({"task": "t", "precision": "fp32", "contender": "baseline", "sweep": "paper", "shape": {"N": k},
                    "time_us": {"median": 10.0 * (1.0 if k == 0 else small_call)}, "device_us": 5.0 * small_dev})
        res.append({"task": "t", "precision": "fp32", "contender": "baseline", "sweep": "large", "shape": {"N": k},
                    "time_us": {"median": 200.0 * large_call}, "device_us": 190.0 * large_dev})
    res.append({"task": "t", "precision": "fp32", "contender": "vendor", "sweep": "paper", "shape": {"N": 0},
                "time_us": {"median": 50.0}, "device_us": 40.0})
    return {"results": res}
json.dump(report(1.0, 1.0, 1.0, 1.0), open(sys.argv[1] + "/a.json", "w"))
json.dump(report(1.2, 1.0, 1.01, 1.02), open(sys.argv[1] + "/b.json", "w"))
PY
a="$work/a.json"; b="$work/b.json"
call=$(python3 "$script" "$a" "$b") || fail "call: $call"
echo "$call" | grep -q "^20 shapes in both (baseline, sweep all, call time)" || fail "call count: $call"
# 9 of 10 small shapes at x1.2: median deviation 20%, 9 over 10%; geomean 1.2^0.9 = 1.178; over all 20
# shapes (1.2^9 x 1.01^10)^(1/20) = 1.091.
echo "$call" | grep -qF "| < 15 us | 10 | 20.0% | 20.0% | 9 | 1.178 |" || fail "small call band: $call"
echo "$call" | grep -qF "| 100-1000 us | 10 | 1.0% | 1.0% | 0 | 1.010 |" || fail "large call band: $call"
dev=$(python3 "$script" "$a" "$b" --time device) || fail "device: $dev"
echo "$dev" | grep -qF "| < 15 us | 10 | 0.0% | 0.0% | 0 | 1.000 |" || fail "small device band: $dev"
echo "$dev" | grep -qF "| 100-1000 us | 10 | 2.0% | 2.0% | 0 | 1.020 |" || fail "large device band: $dev"
# Side by side: each band's row is the call row's cells followed by the device row's.
both=$(python3 "$script" "$a" "$b" --time both) || fail "both: $both"
echo "$both" | grep -qF "| < 15 us | 10 | 20.0% | 20.0% | 9 | 1.178 | 10 | 0.0% | 0.0% | 0 | 1.000 |" || fail "both, small: $both"
echo "$both" | grep -qF "| 100-1000 us | 10 | 1.0% | 1.0% | 0 | 1.010 | 10 | 2.0% | 2.0% | 0 | 1.020 |" || fail "both, large: $both"
echo "$both" | grep -qF "geomean r over all: call 1.091, device 1.010" || fail "both, overall: $both"
# Every header cell separated: 1 + 2 x 5 columns.
[ "$(echo "$both" | grep '^| band' | tr -cd '|' | wc -c)" = 12 ] || fail "both header: $both"
# The vendor shape only with --contender all; --sweep keeps one sweep.
echo "$(python3 "$script" "$a" "$b" --contender all)" | grep -q "^21 shapes in both" || fail "--contender all"
echo "$(python3 "$script" "$a" "$b" --sweep large)" | grep -q "^10 shapes in both" || fail "--sweep large"
bt=$(python3 "$script" "$a" "$b" --by-task) || fail "by task: $bt"
echo "$bt" | grep -qF "| t | fp32 | baseline | large | 10 | 1.010 | 1.020 | -2.0 |" || fail "by task, large: $bt"
echo "$bt" | grep -qF "| t | fp32 | baseline | paper | 10 | 1.178 | 1.000 | -2.0 |" || fail "by task, paper: $bt"
echo "baseline_drift.py: every table as computed by hand"
