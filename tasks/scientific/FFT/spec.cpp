// FFT: forward complex-to-complex DFT of length N = 2^m on split real/imaginary device arrays.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

namespace {

int log2_exact(int64_t n) {
  int l = 0;
  while ((int64_t{1} << l) < n) ++l;
  return l;
}

uint64_t bit_reverse(uint64_t i, int bits) {
  uint64_t r = 0;
  for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1u) << (bits - 1 - b);
  return r;
}

// In-place FP64 radix-2 decimation-in-time FFT (forward, unnormalised) of a bit-reversed input.
// The first stages run inside cache-sized blocks; the rest are parallel over butterflies.
void fft_fp64(mskb::HostData& re, mskb::HostData& im) {
  const auto n = static_cast<int64_t>(re.size());
  const int bits = log2_exact(n);
  if (n < 2) return;
  const double pi = std::acos(-1.0);
  std::vector<double> twr(static_cast<std::size_t>(n / 2)), twi(static_cast<std::size_t>(n / 2));
  mskb::parallel_for(n / 2, [&](int64_t j) {
    const double ang = -2.0 * pi * static_cast<double>(j) / static_cast<double>(n);
    twr[static_cast<std::size_t>(j)] = std::cos(ang);
    twi[static_cast<std::size_t>(j)] = std::sin(ang);
  });
  auto butterfly = [&](int64_t i1, int64_t i2, int64_t tw) {
    const auto a = static_cast<std::size_t>(i1), b = static_cast<std::size_t>(i2), w = static_cast<std::size_t>(tw);
    const double tr = twr[w] * re[b] - twi[w] * im[b];
    const double ti = twr[w] * im[b] + twi[w] * re[b];
    re[b] = re[a] - tr;
    im[b] = im[a] - ti;
    re[a] += tr;
    im[a] += ti;
  };
  const int blocked = bits < 12 ? bits : 12;
  const int64_t block = int64_t{1} << blocked;
  mskb::parallel_for(n / block, [&](int64_t blk) {
    for (int s = 1; s <= blocked; ++s) {
      const int64_t m = int64_t{1} << s, half = m / 2, stride = n / m;
      for (int64_t g = blk * block; g < (blk + 1) * block; g += m)
        for (int64_t j = 0; j < half; ++j) butterfly(g + j, g + j + half, j * stride);
    }
  }, 1);
  for (int s = blocked + 1; s <= bits; ++s) {
    const int64_t half = int64_t{1} << (s - 1), stride = n >> s;
    mskb::parallel_for(n / 2, [&](int64_t t) {
      const int64_t j = t & (half - 1), g = t >> (s - 1);
      const int64_t i1 = (g << s) + j;
      butterfly(i1, i1 + half, j * stride);
    }, 1 << 16);
  }
}

}  // namespace

MSKB_TASK(FFT) {
  using namespace mskb;
  spec.semantics =
      "Forward complex-to-complex DFT of length N on split arrays: X[k] = sum_{n=0}^{N-1} x[n] * exp(-2*pi*i*n*k/N) "
      "for k in [0, N), with x[n] = input_real[n] + i*input_img[n] and X[k] = output_real[k] + i*output_img[k]; "
      "unnormalised, natural (not bit-reversed) output order. N is a power of two (radix-2; N = 1 is the identity). "
      "All four pointers are DEVICE pointers; inputs are read only. BF16: load bf16, compute in FP32, store bf16 "
      "once.";
  spec.vendor = "cuFFT: cufftExecC2C (FP32) on a complex scratch buffer that a kernel interleaves from the split "
                "arrays and another de-interleaves back (plans cached per N); BF16: cufftXtMakePlanMany/cufftXtExec "
                "with CUDA_C_16BF (falls back to widening to FP32 + cufftExecC2C if cuFFT refuses the bf16 plan)";
  spec.vendor_abi_cost =
      "the ABI's split real / imaginary arrays are a layout cuFFT does not take: each call interleaves the input into a "
      "complex scratch buffer and de-interleaves the result (two small kernels, about two extra passes over the data)";
  spec.params = {in("input_real"), in("input_img"), out("output_real"), out("output_img"), int_arg("N")};
  for (int e = 10; e <= 14; ++e) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 1}}, {{"N", 2}}, {{"N", 8}}, {{"N", int64_t{1} << 15}}, {{"N", int64_t{1} << 16}},
                  {{"N", int64_t{1} << 20}}};
  spec.large = {{{"N", int64_t{1} << 22}}, {{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const auto n = static_cast<std::size_t>(s["N"]);
    for (int i = 0; i < 4; ++i) a[static_cast<std::size_t>(i)].data.resize(n);
    rng.fill_uniform(a[0].data, -1.0, 1.0);
    rng.fill_uniform(a[1].data, -1.0, 1.0);
    a[4].value = static_cast<double>(n);
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto n = static_cast<int64_t>(a[0].data.size());
    const int bits = log2_exact(n);
    mskb::HostData& re = a[2].data;
    mskb::HostData& im = a[3].data;
    parallel_for(n, [&](int64_t i) {
      const auto r = static_cast<std::size_t>(bit_reverse(static_cast<uint64_t>(i), bits));
      re[static_cast<std::size_t>(i)] = a[0].data[r];
      im[static_cast<std::size_t>(i)] = a[1].data[r];
    }, 1 << 16);
    fft_fp64(re, im);
  };
  // FFT errors are normwise: a few units of roundoff per stage times the output's typical magnitude
  // sqrt(N) * rms|x| (rms|x| = sqrt(2/3) for re, im ~ U(-1, 1)). FP32: 16 * 2^-24 * log2(N) of that;
  // BF16: one rounding of each output (rtol) plus 2^-10 * log2(N) of it, room for a library that keeps
  // bf16 intermediates between passes.
  spec.tolerance = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    const double stages = std::max(1.0, std::log2(n));
    const double scale = std::sqrt(n) * std::sqrt(2.0 / 3.0);
    return p == Precision::fp32 ? Tolerance{16.0 * std::ldexp(1.0, -24) * stages * scale, 1e-6}
                                : Tolerance{std::ldexp(1.0, -10) * stages * scale, 8e-3};
  };
  spec.complexity = [](const Shape& s) {
    const int64_t n = s["N"];
    return static_cast<uint64_t>(std::max<int64_t>(1, n * log2_exact(n)));
  };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{4.0 * n * static_cast<double>(real_bytes(p)), 5.0 * n * std::max(1.0, std::log2(n))};
  };
}
