#!/usr/bin/env bash
# Installs what the build needs from the distribution's packages (Debian 12 / Ubuntu 24.04).
# The CUDA toolkit (nvcc, cuBLAS, cuSPARSE, cuDNN 9, cuFFT, CUB) must already be installed.
#   scripts/install-deps.sh            # the build's dependencies (scripts/setup.sh)
#   scripts/install-deps.sh --tests    # and the test suite's: cpp-httplib for a loopback LLM
#                                      # server, a browser for the report pages' check, and a
#                                      # one-node Slurm for the --executor slurm tests
# Each package is probed by what the build uses (a command or a header), so tools installed
# another way (CMake 4 from Kitware, say) count, and headers in a private prefix of unpacked .debs
# (MSKB_PREFIX, or .prefix/ after `scripts/prefix-deps.sh unpack`) count for sqlite3 and toml++.
# A machine without network that lacks one gets one line naming it and the offline route;
# MSKB_TESTS_PARTIAL=1 lets --tests go on without the test-only packages (their tests skip).
set -euo pipefail
root=$(cd "${0%/*}/.." && pwd)
prefix=${MSKB_PREFIX:-$root/.prefix}
tests=0
case "${1:-}" in
  "") ;;
  --tests) tests=1 ;;
  *) echo "usage: scripts/install-deps.sh [--tests]" >&2; exit 2 ;;
esac

has_cmd() { command -v "$1" >/dev/null 2>&1; }
has_header() {  # a header under /usr/include (any multiarch folder) or the private prefix
  local h
  for h in "$@"; do
    compgen -G "/usr/include/$h" >/dev/null || compgen -G "/usr/include/*/$h" >/dev/null ||
      compgen -G "$prefix/usr/include/$h" >/dev/null && return 0
  done
  return 1
}
# package -> probe
present() {
  case "$1" in
    cmake) has_cmd cmake ;;
    g++) has_cmd g++ ;;
    make) has_cmd make ;;
    binutils) has_cmd nm && has_cmd objdump ;;
    nlohmann-json3-dev) has_header nlohmann/json.hpp ;;
    libcli11-dev) has_header CLI/CLI.hpp ;;
    libfmt-dev) has_header fmt/core.h ;;
    libgtest-dev) has_header gtest/gtest.h ;;
    libcurl4-openssl-dev) has_header curl/curl.h ;;
    libsqlite3-dev) has_header sqlite3.h ;;
    libtomlplusplus-dev) has_header toml++/toml.hpp toml++/toml.h ;;
    libcpp-httplib-dev) has_header httplib.h ;;
    chromium) has_cmd chromium || has_cmd chromium-browser ;;
    slurmctld | slurmd | munge) has_cmd "$1" ;;
    slurm-client) has_cmd srun ;;
    python3) has_cmd python3 ;;
    *) dpkg -s "$1" >/dev/null 2>&1 ;;
  esac
}

pkgs=(cmake g++ make binutils nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libcurl4-openssl-dev
      libsqlite3-dev libtomlplusplus-dev)
[ "$tests" = 1 ] && pkgs+=(python3  # the script tests (report scripts, the baselines' scratch rule)
                           libcpp-httplib-dev  # the loopback LLM server of the HTTP tests
                           chromium  # the report pages' browser test
                           slurmctld slurmd slurm-client munge)  # a one-node Slurm (tests/support/slurm)
missing=()
for p in "${pkgs[@]}"; do present "$p" || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then echo "dependencies: all present"; exit 0; fi
echo "dependencies: installing ${missing[*]}"
if ! has_cmd apt-get; then echo "install these packages first: ${missing[*]}" >&2; exit 1; fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"; }; then
  # MSKB_TESTS_PARTIAL=1 (an offline GPU node, say): the test-only packages may stay missing; the
  # tests that need them are skipped (scripts/test.sh sets MSKB_NO_BROWSER / MSKB_NO_SLURM) or not
  # built (no cpp-httplib: the loopback LLM server's tests). The build's own packages never may.
  build_missing=()
  for p in "${missing[@]}"; do
    case $p in libcpp-httplib-dev|chromium|slurmctld|slurmd|slurm-client|munge) ;; *) build_missing+=("$p") ;; esac
  done
  if [ "$tests" = 1 ] && [ "${MSKB_TESTS_PARTIAL:-}" = 1 ] && [ ${#build_missing[@]} -eq 0 ]; then
    echo "install-deps: warning: could not install ${missing[*]} (MSKB_TESTS_PARTIAL=1): the tests that need them are skipped or not built" >&2
    exit 0
  fi
  echo "install-deps: could not install ${missing[*]}; without network, sqlite3.h and toml++ come from" \
       "carried .debs (scripts/prefix-deps.sh download, then unpack on this machine)$([ "$tests" = 1 ] &&
       echo "; MSKB_TESTS_PARTIAL=1 runs the tests without the test-only ones (browser, Slurm, HTTP server tests skipped)")" >&2
  exit 1
fi
