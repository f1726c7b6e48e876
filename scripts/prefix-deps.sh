#!/usr/bin/env bash
# A private prefix for build dependencies a machine lacks. The GPU machine (Ubuntu 24.04, no
# network) has SQLite's runtime (/usr/lib/x86_64-linux-gnu/libsqlite3.so.0) but not sqlite3.h,
# which the run store (cudamaster optimize / runs / show) needs to build, nor toml++ (header-only,
# used as such: task files, `mskb run --task-file`). So:
#
#   scripts/prefix-deps.sh download     # on a Debian/Ubuntu machine with network: the -dev .debs -> .deb/
#   scripts/prefix-deps.sh unpack       # on the machine that lacks them: .deb/*.deb -> .prefix/
#   export MSKB_PREFIX=$PWD/.prefix     # cmake/Dependencies.cmake searches it; then configure and build
#
# `unpack` links the prefix's libsqlite3.so to the system's libsqlite3.so.0 (the .deb's own link
# points at a runtime the prefix does not carry), so find_package(SQLite3) finds the header in the
# prefix and links the system library. `scripts/prefix-deps.sh cmake-args` prints the equivalent
# explicit cache settings (-DSQLite3_INCLUDE_DIR=... -DSQLite3_LIBRARY=...) for a configure line.
# .deb/ and .prefix/ are git-ignored: carry .deb/ to the other machine with the working tree.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
debs="$root/.deb"
prefix="${MSKB_PREFIX:-$root/.prefix}"
packages=(libsqlite3-dev libtomlplusplus-dev)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)

system_sqlite() {
  for f in "/usr/lib/$multiarch/libsqlite3.so.0" /lib/"$multiarch"/libsqlite3.so.0 /usr/lib64/libsqlite3.so.0 /usr/lib/libsqlite3.so.0; do
    if [ -e "$f" ]; then echo "$f"; return 0; fi
  done
  ldconfig -p 2>/dev/null | awk '/libsqlite3\.so\.0 /{print $NF; exit}'
}

case "${1:-}" in
  download)
    mkdir -p "$debs"
    cd "$debs"
    apt-get download "${packages[@]}"
    ls -l "$debs"
    echo "now carry $debs to the target machine and run: scripts/prefix-deps.sh unpack"
    ;;
  unpack)
    shopt -s nullglob
    files=("$debs"/*.deb)
    if [ ${#files[@]} -eq 0 ]; then
      echo "prefix-deps: no .deb files in $debs (run 'scripts/prefix-deps.sh download' on a machine with network)" >&2
      exit 1
    fi
    mkdir -p "$prefix"
    for f in "${files[@]}"; do dpkg -x "$f" "$prefix"; done
    lib=$(system_sqlite)
    if [ -z "$lib" ]; then
      echo "prefix-deps: this machine has no libsqlite3.so.0 runtime; install libsqlite3-0" >&2
      exit 1
    fi
    libdir="$prefix/usr/lib/$multiarch"
    mkdir -p "$libdir"
    rm -f "$libdir/libsqlite3.so" "$libdir/libsqlite3.a"
    ln -s "$lib" "$libdir/libsqlite3.so"
    test -f "$prefix/usr/include/sqlite3.h"
    if [ ! -f "$prefix/usr/include/toml++/toml.hpp" ] && [ ! -f "$prefix/usr/include/toml++/toml.h" ]; then
      echo "prefix-deps: warning: no toml++ headers from $debs: task files (--task-file) stay off (run 'scripts/prefix-deps.sh download' again)" >&2
    fi
    echo "prefix ready: $prefix (sqlite3.h and toml++ from the .debs, libsqlite3.so -> $lib)"
    echo "export MSKB_PREFIX=$prefix"
    ;;
  cmake-args)
    lib=$(system_sqlite)
    echo "-DSQLite3_INCLUDE_DIR=$prefix/usr/include -DSQLite3_LIBRARY=${lib:-/usr/lib/$multiarch/libsqlite3.so.0}"
    ;;
  *)
    echo "usage: scripts/prefix-deps.sh download|unpack|cmake-args" >&2
    exit 2
    ;;
esac
