#!/usr/bin/env bash
# Writes .source-stamp: the commit of this checkout, whether its tracked files differ from it, and
# the SHA-256 of every tracked file. A copy of the tree without git metadata (a GPU machine's
# copy, a container build) that carries the stamp still names its commit: cmake/GitCommit.cmake
# re-hashes the files at build time and calls the commit known only when every file matches
# ("<commit>"), "<commit>+modified" when any differs or was modified when stamped, and "unknown"
# without a stamp. Run it right before copying the tree.
#   scripts/stamp-source.sh            # writes .source-stamp at the repository root
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "stamp-source: not a git checkout" >&2; exit 2; }
commit=$(git rev-parse HEAD)
modified=no
git diff --quiet HEAD -- || modified=yes
{
  echo "commit: $commit"
  echo "modified: $modified"
  git ls-files -z | xargs -0 sha256sum -- 2>/dev/null | sed 's/^/file: /'
} > .source-stamp.tmp
mv .source-stamp.tmp .source-stamp
echo "stamp-source: $commit$([ $modified = yes ] && echo +modified) ($(grep -c '^file: ' .source-stamp) files)"
