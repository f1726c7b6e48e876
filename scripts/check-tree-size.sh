#!/usr/bin/env bash
# Guards the repository against run logs: refuses any tracked file over 1 MB outside tests/fixtures/
# (except the canonical JSON of a published claim, listed below by path), and docs/ over 8 MB.
# Raw runs (per-commit suites, progress and lock logs, databases, HTML pages) are published as a
# bundle outside the tree: docs/results/README.md says where. Run by CI (scripts/test.sh).
#   scripts/check-tree-size.sh            # the tracked files of this checkout (git ls-files)
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((1024 * 1024))
docs_limit=$((8 * 1024 * 1024))
# The canonical JSON of each published claim (docs/results/*/README.md cites it). A new claim
# replaces its predecessor here; it does not add to the list.
claims=(
  docs/results/h200/throughput/suite_paper_4aae2a5.json
)
is_claim() { local c; for c in "${claims[@]}"; do [ "$1" = "$c" ] && return 0; done; return 1; }
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-tree-size: not a git checkout; nothing to check" >&2
  exit 0
fi
bad=0
docs_total=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  size=$(stat -c %s "$f")
  case "$f" in docs/*) docs_total=$((docs_total + size)) ;; esac
  case "$f" in tests/fixtures/*) continue ;; esac
  if [ "$size" -gt "$limit" ] && ! is_claim "$f"; then
    echo "check-tree-size: $f is $((size / 1024)) KiB (over 1 MiB outside tests/fixtures/): publish it in a results bundle, not in the tree" >&2
    bad=1
  fi
done < <(git ls-files -z)
if [ "$docs_total" -gt "$docs_limit" ]; then
  echo "check-tree-size: docs/ holds $((docs_total / 1024)) KiB of tracked files (limit 8 MiB): move run logs to a bundle" >&2
  bad=1
fi
[ "$bad" -eq 0 ] && echo "check-tree-size: ok (docs/ $((docs_total / 1024)) KiB)"
exit "$bad"
