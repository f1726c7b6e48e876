#include "mskb/core/scoring.hpp"

#include <algorithm>
#include <cmath>

namespace mskb {

double roofline_us(double bytes, double flops, bool tensor_bf16, const Ceilings& c) {
  if (!c.valid()) return 0;
  const double mem_s = bytes / (c.dram_bandwidth_gbs * 1e9);
  const double peak = (tensor_bf16 ? c.bf16_tflops : c.fp32_tflops) * 1e12;
  const double math_s = flops / peak;
  return std::max(mem_s, math_s) * 1e6;
}

std::optional<double> complexity_weighted(const std::vector<WeightedSample>& s) {
  long double num = 0, den = 0;
  for (const auto& x : s) {
    num += static_cast<long double>(x.complexity) * x.speedup;
    den += static_cast<long double>(x.complexity);
  }
  if (s.empty() || den == 0) return std::nullopt;
  return static_cast<double>(num / den);
}

std::optional<double> geomean(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  double acc = 0;
  for (double x : v) {
    if (!(x > 0)) return std::nullopt;
    acc += std::log(x);
  }
  return std::exp(acc / static_cast<double>(v.size()));
}

SuiteSummary summarize_suite(const std::vector<std::optional<double>>& p) {
  SuiteSummary s;
  s.tasks = static_cast<int>(p.size());
  if (p.empty()) return s;
  int f1 = 0, f15 = 0, f2 = 0;
  double sum = 0;
  for (const auto& x : p) {
    if (!x) continue;
    ++s.correct;
    sum += *x;
    f1 += *x > 1.0;
    f15 += *x > 1.5;
    f2 += *x > 2.0;
  }
  const double n = static_cast<double>(s.tasks);
  s.success_rate = f1 / n;
  s.fast_1 = f1 / n;
  s.fast_1_5 = f15 / n;
  s.fast_2 = f2 / n;
  s.mean_p = s.correct ? sum / s.correct : 0.0;
  return s;
}

}  // namespace mskb
