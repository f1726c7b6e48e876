#!/usr/bin/env bash
# The pages of `mskb report` and `mskb compare` in a real browser (headless Chromium): the committed
# H200 reports and a hostile hand-made one (HTML and script in a kernel message and a contender
# name). Each page must load without a console message (an uncaught error, or the hostile report's
# markup running), draw its charts (<svg> in the DOM, never escaped markup such as "&lt;svg"), run
# its sort script, and show the hostile text as text. The screenshots and dumped DOMs stay in
# OUT_DIR. A canary page with an uncaught error must be caught, so the check itself is tested.
# Chromium is required (scripts/install-deps.sh --tests installs it); MSKB_NO_BROWSER=1 skips (exit 125).
#   report_browser_test.sh MSKB SOURCE_DIR OUT_DIR
set -uo pipefail
MSKB=$1
SRC=$2
OUT=$3

# shellcheck source=../../support/browser_check.sh
. "$(dirname "$0")/../../support/browser_check.sh"
browser_test_begin

# The check catches a broken page.
check_canary js

# A hostile report: a kernel message and a contender name that would run script if not escaped.
hostile() {  # $1: the evil contender's disposition, $2: its message
  cat <<EOF
{"device": {"name": "Test <GPU> & co", "sms": 4, "dram_bandwidth_gbs": 1000.0, "fp32_tflops": 10.0, "bf16_tflops": 100.0},
 "contenders": [
  {"task": "vector_add", "precision": "fp32", "contender": "baseline", "disposition": "passed", "message": "", "checks_passed": 3, "checks_total": 3},
  {"task": "vector_add", "precision": "fp32", "contender": "vendor", "disposition": "passed", "message": "", "checks_passed": 3, "checks_total": 3},
  {"task": "vector_add", "precision": "fp32", "contender": "x<img src=x onerror=\"console.error('INJECTED_NAME')\">", "disposition": "$1",
   "message": "$2", "checks_passed": 1, "checks_total": 3}],
 "results": [
  {"task": "vector_add", "precision": "fp32", "contender": "baseline", "sweep": "paper", "shape": {"N": 1024}, "complexity": 1024,
   "time_us": {"median": 10.0, "noise": 0.01}, "roofline_us": 0.5, "speedup_vs_baseline": 1.0, "ratio_vs_vendor": 0.5, "sol_fraction": 0.05},
  {"task": "vector_add", "precision": "fp32", "contender": "baseline", "sweep": "paper", "shape": {"N": 1048576}, "complexity": 1048576,
   "time_us": {"median": 40.0, "noise": 0.01}, "roofline_us": 3.0, "speedup_vs_baseline": 1.0, "ratio_vs_vendor": 0.75, "sol_fraction": 0.075},
  {"task": "vector_add", "precision": "fp32", "contender": "vendor", "sweep": "paper", "shape": {"N": 1024}, "complexity": 1024,
   "time_us": {"median": 5.0, "noise": 0.01}, "roofline_us": 0.5, "speedup_vs_baseline": 2.0, "ratio_vs_vendor": 1.0, "sol_fraction": 0.1},
  {"task": "vector_add", "precision": "fp32", "contender": "vendor", "sweep": "paper", "shape": {"N": 1048576}, "complexity": 1048576,
   "time_us": {"median": 30.0, "noise": 0.01}, "roofline_us": 3.0, "speedup_vs_baseline": 1.333, "ratio_vs_vendor": 1.0, "sol_fraction": 0.1}],
 "scores": [
  {"task": "vector_add", "precision": "fp32", "contender": "baseline", "sweep": "paper", "P": 1.0, "geomean": 1.0},
  {"task": "vector_add", "precision": "fp32", "contender": "vendor", "sweep": "paper", "P": 1.34, "geomean": 1.63}]}
EOF
}
evil_message='<script>console.error(\"INJECTED_MESSAGE\")</script> & \"quoted\" <b>bold</b>'
hostile wrong_result "$evil_message" >"$OUT/hostile.json"
hostile passed "" >"$OUT/hostile_fixed.json"

run() {
  if ! "$@" >"$OUT/cmd.out" 2>&1; then
    fail "command failed: $* ($(tail -n 3 "$OUT/cmd.out"))"
  fi
}
H200=$SRC/tests/fixtures/h200
run "$MSKB" report "$H200/run.json" --html "$OUT/run.html"
run "$MSKB" compare "$H200/run_pointwise_first_plan.json" "$H200/run_pointwise_final.json" \
  --label A=first-plan --label B=final --html "$OUT/compare.html"
run "$MSKB" report "$OUT/hostile.json" --html "$OUT/hostile.html"
run "$MSKB" compare "$OUT/hostile.json" "$OUT/hostile_fixed.json" --label "A=<i>before</i>" --html "$OUT/hostile_compare.html"

# The full suite: 100 groups, each with a time chart, and the 86 with a vendor a speedup chart.
expect_clean "$OUT/run.html" run 186 js
expect_clean "$OUT/compare.html" compare 2 js
expect_clean "$OUT/hostile.html" hostile 2 js
expect_clean "$OUT/hostile_compare.html" hostile_compare 2 js

# The hostile text is on the page as text.
for page in hostile hostile_compare; do
  [ -f "$OUT/$page.dom" ] || continue
  grep -q 'x&lt;img src=x onerror="console.error(' "$OUT/$page.dom" || fail "$page: the hostile contender name is not shown as text"
  if grep -q "<img" "$OUT/$page.dom"; then fail "$page: an <img> element from the report made it into the DOM"; fi
done
grep -q '&lt;script&gt;console.error("INJECTED_MESSAGE")&lt;/script&gt; &amp; "quoted" &lt;b&gt;bold&lt;/b&gt;' "$OUT/hostile.dom" ||
  fail "hostile: the kernel message is not shown as text"
grep -q '&lt;i&gt;before&lt;/i&gt;' "$OUT/hostile_compare.dom" || fail "hostile_compare: the label is not shown as text"
grep -q "Correctness differs (1)" "$OUT/hostile_compare.dom" || fail "hostile_compare: the fixed contender is not listed as a correctness change"

# Bad input: one line on stderr, exit 2.
echo '{"tasks": 1}' >"$OUT/not_a_report.json"
"$MSKB" report "$OUT/not_a_report.json" --html "$OUT/never.html" >"$OUT/bad.out" 2>"$OUT/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "mskb report on a non-report exited $rc, expected 2"
[ "$(wc -l <"$OUT/bad.err")" -eq 1 ] || fail "mskb report on a non-report: not one line on stderr: $(cat "$OUT/bad.err")"
[ ! -e "$OUT/never.html" ] || fail "mskb report on a non-report wrote a page"
"$MSKB" compare "$OUT/hostile.json" "$OUT/hostile_fixed.json" --label Z=nobody >/dev/null 2>"$OUT/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "mskb compare --label for no report exited $rc, expected 2"

rm -rf "$OUT"/profile-*
if [ $failures -ne 0 ]; then
  echo "$failures failure(s); pages, screenshots, DOMs and browser logs in $OUT"
  exit 1
fi
echo "PASS: screenshots in $OUT (run.png, compare.png, hostile.png, hostile_compare.png)"
