#!/usr/bin/env bash
# scripts/gpu_validate.sh rerun, the step a claim's out-of-sample check runs on a GPU lease, without one:
# a stand-in nvidia-smi, and build/gpu/apps/mskb standing in for the GPU build: `mskb rerun X` becomes the
# CPU build's `mskb rerun X --against Y` (Y: X itself, or X with one entry's times x1.5). Checks: several
# reports each into their own folder, every table written beside the verdict, a differing rerun's exit
# code said and the next report still run, the moved entry in the ratio tables, RERUN_DEADLINE, and a
# single report into $OUT itself.
#   gpu_validate_rerun_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1; build=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
paper=docs/results/h200/throughput/suite_paper_8_353066b.json
large=docs/results/h200/throughput/suite_large_8_353066b.json

repo=$tmp/repo
mkdir -p "$repo/scripts/diag" "$repo/docs/results/h200/throughput" "$repo/build/gpu/apps" "$tmp/bin"
cp "$src/scripts/gpu_validate.sh" "$src/scripts/spread_model.py" "$repo/scripts/"
cp "$src/scripts/diag/baseline_drift.py" "$src/scripts/diag/rerun_tails.py" "$repo/scripts/diag/"
cp "$src/$paper" "$src/$large" "$repo/docs/results/h200/throughput/"
# The large claim's softmax_attention bf16 vendor entry 1.5x slower, call and device time.
python3 - "$src/$large" "$tmp/large_moved.json" <<'PY' || fail "could not make the moved report"
import json, sys
r = json.load(open(sys.argv[1]))
n = 0
for x in r["results"]:
    if (x["task"], x["precision"], x["contender"]) == ("softmax_attention", "bf16", "vendor") and isinstance(x.get("time_us"), dict):
        x["time_us"] = {k: v * 1.5 if isinstance(v, (int, float)) and k != "noise" else v for k, v in x["time_us"].items()}
        if isinstance(x.get("device_us"), (int, float)):
            x["device_us"] *= 1.5
        n += 1
assert n > 0, "no entry to move"
json.dump(r, open(sys.argv[2], "w"))
PY
printf '#!/bin/sh\necho "GPU 0: NVIDIA H200 (stand-in)"\n' > "$tmp/bin/nvidia-smi"
cat > "$repo/build/gpu/apps/mskb" <<STANDIN
#!/bin/sh
[ "\$1" = rerun ] || { echo "stand-in mskb: only rerun" >&2; exit 2; }
against=\$2; case "\$2" in *suite_large_8*) against=$tmp/large_moved.json ;; esac
exec "$build/apps/mskb" rerun "\$2" --against "\$against" --json "\$4" --markdown "\$6"
STANDIN
chmod +x "$tmp/bin/nvidia-smi" "$repo/build/gpu/apps/mskb"
run() { (cd "$repo" && env PATH="$tmp/bin:$PATH" BUNDLE=0 SKIP_BUILD=1 "$@" bash scripts/gpu_validate.sh rerun 2>&1); }

out=$(run OUT="$tmp/two" RERUN="$paper,$large") || fail "two reports: $out"
for d in suite_paper_8_353066b suite_large_8_353066b; do
  for f in rerun.json rerun.md rerun.log rerun_spread.md rerun_drift.md rerun_tails.md; do
    [ -s "$tmp/two/$d/$f" ] || fail "$d/$f missing or empty: $out"
  done
done
echo "$out" | grep -q "rerun of $paper rc=0 " || fail "the paper rerun reproduces: $out"
echo "$out" | grep -Eq "rerun of $large rc=[1-9]" || fail "the moved large rerun's exit code: $out"
grep -q "^reproduced 32 of 32 entries" "$tmp/two/suite_paper_8_353066b/rerun.log" || fail "paper verdict: $(tail -2 "$tmp/two/suite_paper_8_353066b/rerun.log")"
grep -q "softmax_attention.*bf16.*vendor" "$tmp/two/suite_large_8_353066b/rerun_tails.md" || fail "the moved entry among the tails: $(cat "$tmp/two/suite_large_8_353066b/rerun_tails.md")"
grep -qF "| softmax_attention | bf16 | vendor | large | 3 | 1.500 | 1.500 |" "$tmp/two/suite_large_8_353066b/rerun_drift.md" ||
  fail "the moved entry's ratios: $(cat "$tmp/two/suite_large_8_353066b/rerun_drift.md")"
grep -q "| > 1 ms |" "$tmp/two/suite_large_8_353066b/rerun_drift.md" || fail "bands: the side-by-side table"

out=$(run OUT="$tmp/late" RERUN="$paper,$large" RERUN_DEADLINE=0)
[ "$(echo "$out" | grep -c "not started (RERUN_DEADLINE)")" = 2 ] || fail "RERUN_DEADLINE=0 starts nothing: $out"

out=$(run OUT="$tmp/one" RERUN="$paper") || fail "one report: $out"
[ -s "$tmp/one/rerun.json" ] && [ -s "$tmp/one/rerun_drift.md" ] || fail "one report writes into OUT itself: $(ls -R "$tmp/one")"
echo "gpu_validate.sh rerun: two reports in their folders, tables written, a moved entry found, deadline kept"
