#!/usr/bin/env bash
# scripts/demo-submission.sh: `make` writes the example submission with the expectations the H200
# run was judged against (tests/fixtures/h200/submission_expect.tsv), and `verify` finds
# that run's report (its kernel paths moved to this folder) as expected, and a changed verdict not.
set -uo pipefail
root=$1
script=$root/scripts/demo-submission.sh
results=$root/tests/fixtures/h200
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
bash "$script" make "$work/sub" > "$work/make.log" 2>&1 || fail "make: $(cat "$work/make.log")"
[ "$(find "$work/sub" -name '*.cu' | wc -l)" -eq 24 ] || fail "24 .cu files expected"
diff "$work/sub/expect.tsv" "$results/submission_expect.tsv" || fail "expect.tsv differs from the H200 run's"
bash "$script" make "$work/sub" > /dev/null 2>&1 && fail "make over an existing folder must fail"
sed "s|/tmp/sub/|$work/sub/|g; s|\"/tmp/sub\"|\"$work/sub\"|g" "$results/submission_run.json" > "$work/report.json"
out=$(bash "$script" verify "$work/sub" "$work/report.json") || fail "verify: $out"
echo "$out" | tail -1 | grep -q "28 of 28 as expected" || fail "$out"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["contenders"]:
    if c["kernel"].endswith("/gelu.cu"):
        c["disposition"] = "passed"
json.dump(r, open(sys.argv[1], "w"))
PY
out=$(bash "$script" verify "$work/sub" "$work/report.json") && fail "a wrong kernel that passed must fail verify"
echo "$out" | grep -q "^BAD gelu.cu" || fail "$out"
bash "$script" bogus > /dev/null 2>&1; [ $? -eq 2 ] || fail "usage must exit 2"
echo PASS
