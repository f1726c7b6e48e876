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

# --tests adds the browser and Slurm; a tool on PATH counts however it was installed.
mkdir -p "$empty/bin"
for t in cmake g++ make nm objdump chromium slurmctld slurmd srun; do printf '#!/bin/sh\n' > "$empty/bin/$t"; chmod +x "$empty/bin/$t"; done
out=$(PATH=$empty/bin /bin/bash "$script" --tests 2>&1); rc=$?
[ $rc -eq 1 ] || fail "munge missing must fail, got rc=$rc: $out"
echo "$out" | grep -q "install these packages first: munge$" || fail "expected only munge named: $out"

out=$(bash "$script" --bogus 2>&1); rc=$?
[ $rc -eq 2 ] || fail "a bad argument must exit 2, got $rc"
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "usage is one line: $out"
echo "PASS"
