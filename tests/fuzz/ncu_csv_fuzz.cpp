// Nsight Compute's CSV page as cudamaster reads it (kernel names in it come from the candidate's
// code): any text gives profile data or a one-line ProfileError; the classifier and the metric
// filters then give a class (or a one-line ProfileError when no utilisation metric is there) and
// text for the prompt, never another exception, a crash or undefined behaviour.
#include <stdexcept>

#include "cudamaster/profile/classify.hpp"
#include "cudamaster/profile/filter.hpp"
#include "cudamaster/profile/metrics.hpp"
#include "fuzz_support.hpp"

namespace profile = cudamaster::profile;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  profile::ProfileData p;
  try {
    p = profile::parse_ncu_csv(fuzz::text_of(data, size), "ncu.csv");
  } catch (const profile::ProfileError& e) {
    fuzz::require_one_line(e.what(), "parse_ncu_csv");
    return 0;
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "parse_ncu_csv");
  }
  FUZZ_REQUIRE(!p.kernels.empty(), "profile data without a kernel");
  try {
    for (const auto& k : {p.aggregate, profile::aggregate_kernels(p.kernels)}) {
      (void)profile::stall_reasons(k);
      (void)profile::utilisation_units(k);
      (void)profile::stall_summary(k);
      (void)profile::occupancy_limits(k);
      for (const auto cls : {profile::Bottleneck::compute, profile::Bottleneck::memory_bandwidth, profile::Bottleneck::memory_latency})
        for (const auto& m : profile::filter_metrics(k, cls)) (void)m;
      try {
        (void)profile::classify(k);
      } catch (const profile::ProfileError& e) {
        fuzz::require_one_line(e.what(), "classify");
      }
    }
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "profile");
  }
  return 0;
}
