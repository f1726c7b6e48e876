#!/usr/bin/env bash
# Installs the build dependencies from the distribution's packages (Debian 12 / Ubuntu 24.04).
# The CUDA toolkit (nvcc, cuBLAS, cuSPARSE, cuDNN 9, cuFFT, CUB) must already be installed.
set -euo pipefail
pkgs=(cmake g++ make nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libcurl4-openssl-dev
      libsqlite3-dev libcpp-httplib-dev libtomlplusplus-dev binutils chromium  # chromium: the report pages' browser test
      slurmctld slurmd slurm-client munge)  # a one-node Slurm for the --executor slurm tests (tests/support/slurm)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then echo "dependencies: all installed"; exit 0; fi
if ! command -v apt-get >/dev/null; then echo "install these packages first: ${missing[*]}" >&2; exit 1; fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
