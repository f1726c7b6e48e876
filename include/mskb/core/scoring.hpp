// Owns every score formula (one file, with tests): per-shape speedup vs the baseline, ratio vs
// the vendor, fraction of the roofline time; per-task complexity-weighted P and geomean; suite
// success rate and fast_p. Orientation: every ratio is "> 1 means the contender is faster".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace mskb {

struct Ceilings {
  double dram_bandwidth_gbs = 0;  // bytes read + written per second / 1e9
  double fp32_tflops = 0;
  double bf16_tflops = 0;
  double l2_bytes = 0;  // the L2 cache (0: unknown): working sets far past it cannot be served from cache
  bool valid() const { return dram_bandwidth_gbs > 0 && fp32_tflops > 0 && bf16_tflops > 0; }
};

// Roofline (speed-of-light) time in microseconds: max(bytes / bandwidth, flops / peak), the
// peak being the BF16 tensor peak for tensor-core work in BF16 and the FP32 peak otherwise.
double roofline_us(double bytes, double flops, bool tensor_bf16, const Ceilings& c);

inline double speedup(double baseline_us, double contender_us) { return baseline_us / contender_us; }
inline double ratio_vs_vendor(double vendor_us, double contender_us) { return vendor_us / contender_us; }
inline double sol_fraction(double roofline, double contender_us) { return roofline / contender_us; }

struct WeightedSample {
  uint64_t complexity = 0;
  double speedup = 0;
};
// P = sum_i c_i * s_i / sum_i c_i. nullopt when there are no samples.
std::optional<double> complexity_weighted(const std::vector<WeightedSample>& s);
std::optional<double> geomean(const std::vector<double>& v);

struct SuiteSummary {
  int tasks = 0;
  int correct = 0;
  double success_rate = 0;  // correct and P > 1
  double fast_1 = 0, fast_1_5 = 0, fast_2 = 0;  // share of tasks correct with P > p
  double mean_p = 0;        // over correct tasks
};
// `p[i]` is the task's P, or nullopt when the task has no correct candidate.
SuiteSummary summarize_suite(const std::vector<std::optional<double>>& p);

}  // namespace mskb
