#!/usr/bin/env bash
# scripts/install-deps.sh probes what the build uses, not package names: a tool found on PATH or a
# header found counts, a missing one is named; without apt-get it says what to install and fails;
# a bad argument is a usage error.
set -uo pipefail
root=$1
script=$root/scripts/install-deps.sh
fail() { echo "FAIL: $*"; exit 1; }

out=$(bash "$script" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "on this machine (where the build ran) every dependency is present, got rc=$rc: $out"
echo "$out" | grep -q "all present" || fail "expected 'all present': $out"

# An empty PATH: no cmake, compiler, make, binutils, apt-get; the headers are still found.
empty=$(mktemp -d); trap 'rm -rf "$empty"' EXIT
out=$(PATH=$empty /bin/bash "$script" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "no tools on PATH must fail with rc=1, got rc=$rc: $out"
echo "$out" | grep -q "install these packages first: cmake g++ make binutils$" || fail "expected the four tools named, and only them: $out"

# --tests adds python3, the browser and Slurm; a tool on PATH counts however it was installed. Every header
# comes from a private prefix (as carried .debs unpacked), so the machine's own (an offline GPU node
# lacks cpp-httplib) does not decide what is missing.
mkdir -p "$empty/bin"
for h in nlohmann/json.hpp CLI/CLI.hpp fmt/core.h gtest/gtest.h curl/curl.h sqlite3.h toml++/toml.hpp httplib.h; do
  mkdir -p "$(dirname "$empty/prefix/usr/include/$h")" && : > "$empty/prefix/usr/include/$h"
done
export MSKB_PREFIX=$empty/prefix
for t in cmake g++ make nm objdump python3 chromium slurmctld slurmd srun; do printf '#!/bin/sh\n' > "$empty/bin/$t"; chmod +x "$empty/bin/$t"; done
out=$(PATH=$empty/bin /bin/bash "$script" --tests 2>&1); rc=$?
[ $rc -eq 1 ] || fail "munge missing must fail, got rc=$rc: $out"
echo "$out" | grep -q "install these packages first: munge$" || fail "expected only munge named: $out"

# An offline machine (apt-get fails): munge missing fails with the partial route named; with
# MSKB_TESTS_PARTIAL=1 a test-only package may stay missing (a warning, rc 0), a build one may not.
printf '#!/bin/sh\nexit 100\n' > "$empty/bin/apt-get"; chmod +x "$empty/bin/apt-get"; ln -s "$(command -v id)" "$empty/bin/id"
out=$(PATH=$empty/bin /bin/bash "$script" --tests 2>&1); rc=$?
[ $rc -eq 1 ] || fail "offline, munge missing must fail, got rc=$rc: $out"
echo "$out" | grep -q "could not install munge;.*MSKB_TESTS_PARTIAL=1 runs the tests without the test-only ones" || fail "the partial route: $out"
out=$(MSKB_TESTS_PARTIAL=1 PATH=$empty/bin /bin/bash "$script" --tests 2>&1); rc=$?
[ $rc -eq 0 ] || fail "MSKB_TESTS_PARTIAL=1 with only munge missing must pass, got rc=$rc: $out"
echo "$out" | grep -q "warning: could not install munge (MSKB_TESTS_PARTIAL=1)" || fail "the warning: $out"
rm "$empty/bin/make"
out=$(MSKB_TESTS_PARTIAL=1 PATH=$empty/bin /bin/bash "$script" --tests 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a build package (make) missing must fail even with MSKB_TESTS_PARTIAL=1, got rc=$rc: $out"

out=$(bash "$script" --bogus 2>&1); rc=$?
[ $rc -eq 2 ] || fail "a bad argument must exit 2, got $rc"
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "usage is one line: $out"
echo "PASS"
