// rope: rotary position embedding of an M x D matrix; row m is the position, the pair of columns
// (2i, 2i+1) is rotated by the angle m * base^(-2i/D).
#include <cmath>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(rope) {
  using namespace mskb;
  spec.semantics =
      "Rotary position embedding. input and output are M x D row-major (D even); row m in [0, M) is the position. "
      "For every pair i in [0, D/2): theta = m * base^(-2i/D), c = cos(theta), s = sin(theta), "
      "output[m][2i] = input[m][2i] * c - input[m][2i+1] * s, output[m][2i+1] = input[m][2i] * s + input[m][2i+1] * c. "
      "base is a float (1e4); bf16 variant: input/output bf16, base stays float. Any M >= 1 and even D >= 2 "
      "(no table of a fixed size).";
  spec.vendor = "";
  spec.vendor_none_reason =
      "rotary embedding lives in FlashInfer / vLLM, not in cuBLAS, cuDNN or CCCL; the rotation angle depends on the "
      "element's row and pair index, so a library elementwise call would carry the whole operation in hand-written "
      "index math";
  spec.params = {out("output"), in("input"), int_arg("M"), int_arg("D"), float_arg("base")};
  for (int64_t m : {16, 32, 64, 128})
    for (int64_t d : {256, 1024, 4096, 16384}) spec.paper.push_back({{"M", m}, {"D", d}});
  spec.heldout = {{{"M", 1}, {"D", 2}},      {{"M", 7}, {"D", 6}},        {{"M", 200}, {"D", 1000}},
                  {{"M", 129}, {"D", 16386}}, {{"M", 5}, {"D", 32770}},    {{"M", 33}, {"D", 20000}},
                  {{"M", 1000}, {"D", 768}},  {{"M", 4099}, {"D", 130}}};
  spec.large = {{{"M", 1024}, {"D", 65536}}, {{"M", 4096}, {"D", 65536}}, {{"M", 16384}, {"D", 16384}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const auto n = static_cast<std::size_t>(s["M"] * s["D"]);
    a[0].data.resize(n);
    a[1].data.resize(n);
    rng.fill_uniform(a[1].data, -1.0, 1.0);
    a[2].value = static_cast<double>(s["M"]);
    a[3].value = static_cast<double>(s["D"]);
    a[4].value = 1e4;
  };
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t m_count = s["M"], d = s["D"], half = d / 2;
    const double base = a[4].value;
    std::vector<double> inv_freq(static_cast<std::size_t>(half));
    for (int64_t i = 0; i < half; ++i)
      inv_freq[static_cast<std::size_t>(i)] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
    const mskb::HostData& x = a[1].data;
    mskb::HostData& y = a[0].data;
    parallel_for(m_count, [&](int64_t m) {
      for (int64_t i = 0; i < half; ++i) {
        const double theta = static_cast<double>(m) * inv_freq[static_cast<std::size_t>(i)];
        const double c = std::cos(theta), sn = std::sin(theta);
        const auto k = static_cast<std::size_t>(m * d + 2 * i);
        y[k] = x[k] * c - x[k + 1] * sn;
        y[k + 1] = x[k] * sn + x[k + 1] * c;
      }
    }, 1);
  };
  // A float implementation computes theta = m * base^(-2i/D) with a relative error of ~1.8e-7 (powf and
  // the product), i.e. an absolute angle error of up to ~1.8e-7 * m, which moves the rotated pair
  // (|pair| <= sqrt(2)) by up to ~2.5e-7 * m. atol admits that (5e-7 per position) on top of the float
  // (FP32) or bf16 (one rounding, 2^-9 relative) output error.
  spec.tolerance = [](const Shape& s, Precision p) {
    const double angle = 5e-7 * static_cast<double>(s["M"] - 1);
    return p == Precision::fp32 ? Tolerance{2e-6 + angle, 1e-5} : Tolerance{2e-3 + angle, 8e-3};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["M"]) * static_cast<uint64_t>(s["D"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["M"]) * static_cast<double>(s["D"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), 4.0 * n};
  };
}
