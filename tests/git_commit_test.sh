#!/usr/bin/env bash
# cmake/GitCommit.cmake names the commit the tools are built from: in a git checkout its short
# hash; in a tree made by `git archive` (a release tarball, no .git) the commit .git_archival.txt
# was filled with, marked "(archive)"; in a copy stamped by scripts/stamp-source.sh the stamp's
# commit, verified file by file; elsewhere "unknown".
set -uo pipefail
root=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
commit_of() { cmake -DSRC="$1" -DOUT="$work/out.cpp" -P "$root/cmake/GitCommit.cmake" >/dev/null 2>&1 || return 1
              sed -n 's/.*kGitCommit = "\(.*\)";/\1/p' "$work/out.cpp"; rm -f "$work/out.cpp"; }

head=$(git -C "$root" rev-parse --short=12 HEAD) || { echo "not a git checkout: skipped"; exit 125; }
# A copy with stale git metadata (a remote machine's copy of the working tree over an older .git)
# and a stamp names the stamp's commit, verified by the files.
stamped=$(sed -n 's/^commit: \([0-9a-f]\{12\}\).*/\1/p' "$root/.source-stamp" 2>/dev/null)
got=$(commit_of "$root")
case "$got" in
  "$head" | "$head+modified") ;;
  "$stamped (stamp)")  # GitCommit.cmake: a verified stamp over modified git metadata
    [ -n "$stamped" ] && ! git -C "$root" diff --quiet HEAD -- || fail "checkout: got '$got', HEAD is $head (unmodified)" ;;
  *) fail "checkout: got '$got', HEAD is $head" ;;
esac

mkdir "$work/archive" && git -C "$root" archive HEAD | tar -x -C "$work/archive" || fail "git archive"
full=$(git -C "$root" rev-parse HEAD)
grep -q "^commit: $full$" "$work/archive/.git_archival.txt" || fail "git archive did not fill .git_archival.txt: $(cat "$work/archive/.git_archival.txt")"
got=$(commit_of "$work/archive"); [ "$got" = "${full:0:12} (archive)" ] || fail "archive: got '$got', want '${full:0:12} (archive)'"

mkdir "$work/plain" && printf 'commit: $Format:%%H$\n' > "$work/plain/.git_archival.txt"
got=$(commit_of "$work/plain"); [ "$got" = unknown ] || fail "an unfilled archival file: got '$got'"
# A copy without git metadata, stamped by scripts/stamp-source.sh: its commit while every stamped file
# matches, "+modified" once one differs; without the stamp, unknown.
mkdir "$work/stamped" && git -C "$root" archive HEAD | tar -x -C "$work/stamped" && rm -f "$work/stamped/.git_archival.txt"
{ echo "commit: $full"; echo "modified: no"; git -C "$root" ls-files -z | (cd "$work/stamped" && xargs -0 sha256sum -- 2>/dev/null) | sed 's/^/file: /'; } > "$work/stamped/.source-stamp"
got=$(commit_of "$work/stamped"); [ "$got" = "${full:0:12} (stamp)" ] || fail "stamped copy: got '$got', want '${full:0:12} (stamp)'"
echo "// changed" >> "$work/stamped/README.md"
got=$(commit_of "$work/stamped"); [ "$got" = "${full:0:12}+modified (stamp)" ] || fail "stamped copy, changed: got '$got'"
rm "$work/stamped/.source-stamp"
got=$(commit_of "$work/stamped"); [ "$got" = unknown ] || fail "unstamped copy: got '$got'"
echo PASS
