# Shared by the browser tests of the tools' HTML pages (sourced, not run): find headless Chromium,
# render a page to a screenshot and its DOM, and say what is wrong with it - console messages (an
# uncaught error, or injected markup running), too few charts (<svg> in the DOM), escaped chart
# markup ("&lt;svg"), and optionally a script that did not run (no class js on <html>).
#   browser_find            sets BROWSER (MSKB_CHROMIUM, else chromium / chromium-browser /
#                           google-chrome on PATH); returns 1 if none
#   check_page PAGE NAME MIN_SVG [js]   writes $OUT/NAME.png, .dom, .log; prints the defects, if any
#                           (each page gets its own browser profile: a browser still exiting from
#                           the previous page holds its profile's lock)
#   expect_clean PAGE NAME MIN_SVG [js] check_page, then "ok: NAME" or fail "NAME: defects"
#   browser_test_begin      the test's start: skip (exit 125) under MSKB_NO_BROWSER=1, fail (exit 1)
#                           without a browser, a fresh $OUT, failures=0 and fail()
#   check_canary [js]       a page with every defect must be caught (the checks themselves work)
# The caller sets OUT (the output folder).

browser_test_begin() {
  if [ "${MSKB_NO_BROWSER:-}" = 1 ]; then
    echo "SKIPPED: MSKB_NO_BROWSER=1"
    exit 125
  fi
  if ! browser_find; then
    echo "FAIL: no chromium on PATH (scripts/install-deps.sh --tests installs it; MSKB_NO_BROWSER=1 skips this test)"
    exit 1
  fi
  rm -rf "$OUT"
  mkdir -p "$OUT"
  failures=0
}

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

check_canary() {
  local js=${1:-} canary sign
  cat >"$OUT/canary.html" <<'EOF'
<!doctype html><html><head><meta charset="utf-8"><title>canary</title></head><body><p>&lt;svg</p>
<script>notDefinedAnywhere();</script></body></html>
EOF
  canary=$(check_page "$OUT/canary.html" canary 1 "$js")
  local signs=("console messages" "charts (<svg>)" "escaped markup")
  [ "$js" = js ] && signs+=("sort script")
  for sign in "${signs[@]}"; do
    case "$canary" in *"$sign"*) ;; *) fail "the canary page's defect '$sign' was not caught: $canary" ;; esac
  done
}

browser_find() {
  BROWSER=${MSKB_CHROMIUM:-}
  if [ -z "$BROWSER" ]; then
    for b in chromium chromium-browser google-chrome; do
      if command -v "$b" >/dev/null; then BROWSER=$(command -v "$b"); break; fi
    done
  fi
  [ -n "$BROWSER" ]
}

check_page() {
  local page=$1 name=$2 min_svg=$3 js=${4:-}
  timeout 60 "$BROWSER" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$OUT/profile-$name" \
    --enable-logging=stderr --v=0 --window-size=1400,2000 --screenshot="$OUT/$name.png" --dump-dom "file://$page" \
    >"$OUT/$name.dom" 2>"$OUT/$name.log"
  local rc=$?
  [ $rc -eq 0 ] || echo "chromium exited with $rc (see $OUT/$name.log)"
  if grep -E "Uncaught|ERROR:CONSOLE|:CONSOLE" "$OUT/$name.log"; then echo "console messages (above)"; fi
  [ -s "$OUT/$name.png" ] || echo "no screenshot"
  local svgs
  svgs=$(grep -o "<svg" "$OUT/$name.dom" | wc -l)
  [ "$svgs" -ge "$min_svg" ] || echo "$svgs charts (<svg>) in the DOM, expected at least $min_svg"
  if grep -q "&lt;svg" "$OUT/$name.dom"; then echo "escaped markup (&lt;svg) in the DOM"; fi
  if [ "$js" = js ]; then
    grep -Eq '<html[^>]* class="[^"]*\bjs\b' "$OUT/$name.dom" || echo "the sort script did not run (no class js on <html>)"
  fi
}

expect_clean() {
  local why
  why=$(check_page "$@")
  if [ -n "$why" ]; then fail "$2: $why"; else echo "ok: $2 ($1)"; fi
}
