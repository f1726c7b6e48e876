#!/usr/bin/env bash
# Fuzzes the readers of untrusted input (tests/fuzz: task-file expressions, task files, Matrix Market
# files, model answers, API replies and replay cassettes, Nsight Compute's CSV, the binary policy's ELF
# reader, reports) with clang's libFuzzer, the host code under AddressSanitizer and
# UndefinedBehaviorSanitizer (CMake preset `fuzz`, build/fuzz).
#
#   scripts/fuzz.sh                      # every target, 60 s each
#   scripts/fuzz.sh 600 expr task_file   # these targets, 10 min each
#   FUZZ_MERGE=1 scripts/fuzz.sh 60 expr # then add the inputs that reached new code to tests/fuzz/corpus/expr
#
# Each target starts from its committed corpus (tests/fuzz/corpus/<target>, which CI replays with the
# ordinary build: fuzz_<target>_test) and keeps what it finds in build/fuzz/corpus/<target>. An input
# that crashes, leaks, hangs (> 10 s), takes more than 2 GiB or breaks a target's check (FUZZ DEFECT)
# is written to build/fuzz/artifacts/<target>/; the script then exits 1. After fixing the defect, add
# the input (minimized: build/fuzz/tests/fuzz/fuzz_<target> -minimize_crash=1 -runs=100000 FILE) to
# tests/fuzz/corpus/<target>/ so the replay keeps it fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
all=(expr matrix_market task_file binary_policy report llm_answer cassette exchange ncu_csv run_store)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t' (targets: ${all[*]})" >&2; exit 2; }
done
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 2; }

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)" --target mskb_fuzz_seed_so $(printf 'fuzz_%s ' "${targets[@]}")

found=0
for t in "${targets[@]}"; do
  work=build/fuzz/corpus/$t artifacts=build/fuzz/artifacts/$t
  mkdir -p "$work" "$artifacts"
  [ "$t" = binary_policy ] && cp build/fuzz/tests/fuzz/libfuzz_seed.so "$work/seed.so"
  dict=()
  [ -f "tests/fuzz/dict/$t.dict" ] && dict=(-dict="tests/fuzz/dict/$t.dict")
  before=$(find "$artifacts" -type f | wc -l)
  echo "== fuzz_$t: $seconds s"
  TMPDIR=${TMPDIR:-/tmp} build/fuzz/tests/fuzz/fuzz_"$t" "$work" "tests/fuzz/corpus/$t" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" 2> "build/fuzz/$t.log" || true
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)" "build/fuzz/$t.log" | sed 's/^/   /' || true
  after=$(find "$artifacts" -type f | wc -l)
  if [ "$after" -gt "$before" ]; then
    found=1
    echo "   DEFECT: $((after - before)) new input(s) in $artifacts/ (build/fuzz/$t.log says what)"
    grep -E "FUZZ DEFECT|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:" "build/fuzz/$t.log" | head -3 | sed 's/^/   /'
  fi
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    build/fuzz/tests/fuzz/fuzz_"$t" -merge=1 "tests/fuzz/corpus/$t" "$work" 2>/dev/null
    echo "   merged: tests/fuzz/corpus/$t has $(find "tests/fuzz/corpus/$t" -type f | wc -l) inputs"
  fi
done
exit $found
