#!/usr/bin/env bash
# The pages of `cudamaster report` and `cudamaster compare` in a real browser (headless Chromium,
# through ../../support/browser_check.sh like mskb's report_browser_test.sh): copies of the
# committed H200 demo stores (a finished run, a run cut by a timeout) and a hostile store (cm_report_fixture: markup and script in a plan,
# a build error, an agent error, the LLM name and the device name). Each page must load without a
# console message, draw its charts (<svg> in the DOM, never "&lt;svg") and show the hostile text as
# text. A canary page with those defects must be caught. Screenshots and DOMs stay in OUT_DIR.
# Chromium is required (scripts/install-deps.sh --tests installs it); MSKB_NO_BROWSER=1 skips (exit 125).
#   report_browser_test.sh CUDAMASTER CM_REPORT_FIXTURE SOURCE_DIR OUT_DIR
set -uo pipefail
CM=$1
FIXTURE=$2
SRC=$3
OUT=$4

# shellcheck source=../../support/browser_check.sh
. "$(dirname "$0")/../../support/browser_check.sh"
browser_test_begin

# The check catches a broken page.
check_canary

run() {
  if ! "$@" >"$OUT/cmd.out" 2>&1; then
    fail "command failed: $* ($(tail -n 3 "$OUT/cmd.out"))"
  fi
}
COMMITTED=$SRC/tests/fixtures/h200/demo.db
before=$(sha256sum "$COMMITTED" | cut -d' ' -f1)
cp "$COMMITTED" "$OUT/demo.db"
run "$CM" report --run 1 --db "$OUT/demo.db" --html "$OUT/demo.html"
run "$CM" compare 1 --db "$OUT/demo.db" --html "$OUT/demo_compare.html" --markdown "$OUT/demo_compare.md"
cp "$SRC/tests/fixtures/h200/suite4_cut.db" "$OUT/suite4_cut.db"
run "$CM" report --run 1 --db "$OUT/suite4_cut.db" --html "$OUT/suite4_cut.html"
run "$FIXTURE" "$OUT/hostile.db"
run "$CM" report --run 1 --db "$OUT/hostile.db" --html "$OUT/hostile.html"
run "$CM" report --run 2 --db "$OUT/hostile.db" --html "$OUT/hostile_failed.html"
run "$CM" compare 1 2 --db "$OUT/hostile.db" --html "$OUT/hostile_compare.html"
[ "$(sha256sum "$COMMITTED" | cut -d' ' -f1)" = "$before" ] || fail "the committed demo store changed"

# One P-per-round chart per job; the compare page's fast_p chart.
expect_clean "$OUT/demo.html" demo 1
expect_clean "$OUT/demo_compare.html" demo_compare 1
expect_clean "$OUT/suite4_cut.html" suite4_cut 4
expect_clean "$OUT/hostile.html" hostile 1
expect_clean "$OUT/hostile_failed.html" hostile_failed 1
expect_clean "$OUT/hostile_compare.html" hostile_compare 1

# What the pages show.
grep -q "block per row" "$OUT/demo.dom" || fail "demo: round 1's plan is not on the page"
grep -q "% of roofline" "$OUT/demo.dom" || fail "demo: no per-size table"
grep -q "No end recorded" "$OUT/suite4_cut.dom" || fail "suite4_cut: the cut run's page does not say that no end was recorded"
grep -q ">undecided<" "$OUT/suite4_cut.dom" || fail "suite4_cut: no undecided candidate on the cut run's page"
grep -q "| run | status |" "$OUT/demo_compare.md" || fail "demo_compare.md: no ablation table: $(head -c 300 "$OUT/demo_compare.md")"
# The hostile text is on the pages as text.
grep -q '&lt;script&gt;console.error("INJECTED_PLAN")&lt;/script&gt; &amp; "quoted" &lt;b&gt;bold&lt;/b&gt;' "$OUT/hostile.dom" ||
  fail "hostile: the plan's risks are not shown as text"
grep -q 'HTTP 500: &lt;html&gt;upstream&lt;/html&gt;' "$OUT/hostile.dom" || fail "hostile: the failed call's error is not shown as text"
for page in hostile hostile_failed hostile_compare; do
  [ -f "$OUT/$page.dom" ] || continue
  if grep -q "<b>bold\|<b>model\|<GPU>" "$OUT/$page.dom"; then fail "$page: markup from the store made it into the DOM"; fi
done
grep -q 'openai:&lt;b&gt;model&lt;/b&gt;' "$OUT/hostile_compare.dom" || fail "hostile_compare: the LLM name is not shown as text"

# Bad input: one line on stderr, exit 2, no page.
"$CM" compare 1 9 --db "$OUT/hostile.db" --html "$OUT/never.html" >"$OUT/bad.out" 2>"$OUT/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "cudamaster compare with an unknown run exited $rc, expected 2"
[ "$(wc -l <"$OUT/bad.err")" -eq 1 ] || fail "cudamaster compare with an unknown run: not one line on stderr: $(cat "$OUT/bad.err")"
[ ! -e "$OUT/never.html" ] || fail "cudamaster compare with an unknown run wrote a page"

rm -rf "$OUT"/profile-*
if [ $failures -ne 0 ]; then
  echo "$failures failure(s); pages, screenshots, DOMs and browser logs in $OUT"
  exit 1
fi
echo "PASS: screenshots in $OUT (demo.png, demo_compare.png, hostile.png, hostile_failed.png, hostile_compare.png)"
