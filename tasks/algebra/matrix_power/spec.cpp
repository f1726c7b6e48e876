// matrix_power: B = A^P for an N x N row-major matrix (device pointers).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

namespace {

// C = X * Y (n x n, row-major, FP64), cache-blocked and parallel over 16-row x 256-column tiles of C.
void gemm_fp64(const double* X, const double* Y, double* C, int64_t n) {
  constexpr int64_t IB = 16, JB = 256, KB = 128;
  const int64_t nib = (n + IB - 1) / IB, njb = (n + JB - 1) / JB;
  mskb::parallel_for(
      nib * njb,
      [&](int64_t t) {
        const int64_t i0 = (t / njb) * IB, j0 = (t % njb) * JB;
        const int64_t i1 = std::min(n, i0 + IB), j1 = std::min(n, j0 + JB), w = j1 - j0;
        std::vector<double> acc(static_cast<std::size_t>((i1 - i0) * w), 0.0);
        for (int64_t k0 = 0; k0 < n; k0 += KB) {
          const int64_t k1 = std::min(n, k0 + KB);
          for (int64_t i = i0; i < i1; ++i) {
            double* c = acc.data() + (i - i0) * w;
            for (int64_t k = k0; k < k1; ++k) {
              const double xv = X[i * n + k];
              const double* y = Y + k * n + j0;
              for (int64_t j = 0; j < w; ++j) c[j] += xv * y[j];
            }
          }
        }
        for (int64_t i = i0; i < i1; ++i) std::copy(acc.begin() + (i - i0) * w, acc.begin() + (i - i0 + 1) * w, C + i * n + j0);
      },
      1);
}

// Error bound of an FP32 computation of A^P for an orthogonal A (every row and column has norm 1, every
// power stays orthogonal, entries have rms 1/sqrt(N)): each FP32 product errs by ~0.4u per entry (rms,
// independent of N), errors propagate without growth through orthogonal factors, and in simulation
// (naive sequential FMA chains and binary exponentiation, N = 64..200, P = 2..32) the max error stays
// below 1.4*u*P. 6*u*(P + 3) leaves a margin of 10x at P = 2 and ~25x at P = 32; TF32 products miss it.
double fp32_power_atol(int64_t p) { return 6.0 * 0x1.0p-24 * static_cast<double>(p + 3); }

}  // namespace

MSKB_TASK(matrix_power) {
  using namespace mskb;
  spec.semantics =
      "B = A^P (the matrix product of P copies of A) for an N x N row-major matrix A; A and B are DEVICE pointers, "
      "A is read only. P >= 1 (A^1 = A). Intermediate powers must be kept in FP32 (no TF32); bf16: bf16 A and B, all "
      "products and intermediate powers in FP32, B rounded once to bf16. The generated A is orthogonal, so every "
      "power stays bounded.";
  spec.vendor =
      "cuBLAS: cublasSgemm (CUBLAS_DEFAULT_MATH) binary exponentiation with scratch buffers (fp32); bf16: A widened "
      "to FP32 once, the same FP32 cublasSgemm exponentiation, B rounded once to bf16 (a bf16 GemmEx chain would round "
      "every intermediate power to bf16)";
  spec.params = {in("A"), out("B"), int_arg("N"), int_arg("P")};
  for (int n : {256, 512, 1024})
    for (int p : {2, 5, 8, 11, 16}) spec.paper.push_back({{"N", n}, {"P", p}});
  spec.heldout = {{{"N", 1}, {"P", 1}},     {{"N", 1}, {"P", 7}},     {{"N", 2}, {"P", 3}},     {{"N", 17}, {"P", 1}},
                  {{"N", 17}, {"P", 3}},    {{"N", 100}, {"P", 7}},   {{"N", 257}, {"P", 13}},  {{"N", 333}, {"P", 32}},
                  {{"N", 640}, {"P", 20}},  {{"N", 1000}, {"P", 9}},  {{"N", 1500}, {"P", 4}}};
  spec.large = {{{"N", 2048}, {"P", 32}}, {{"N", 4096}, {"P", 16}}, {{"N", 8192}, {"P", 4}}};
  spec.call_timeout_s = 30.0;
  // A = D1 * C * D2 * Pi: C the orthonormal DCT-II matrix, D1 and D2 random sign diagonals, Pi a random
  // column permutation. Dense, orthogonal (to FP64 rounding), O(N^2) to build.
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t n = s["N"];
    std::vector<double> d1(static_cast<std::size_t>(n)), d2(static_cast<std::size_t>(n));
    for (auto& x : d1) x = rng.uniform(0.0, 1.0) < 0.5 ? -1.0 : 1.0;
    for (auto& x : d2) x = rng.uniform(0.0, 1.0) < 0.5 ? -1.0 : 1.0;
    std::vector<int64_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t i = n - 1; i > 0; --i) std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(rng.uniform_int(0, i))]);
    a[0].data.resize(static_cast<std::size_t>(n * n));
    const double pi = 3.14159265358979323846;
    parallel_for(
        n,
        [&](int64_t i) {
          const double scale = std::sqrt((i == 0 ? 1.0 : 2.0) / static_cast<double>(n)) * d1[static_cast<std::size_t>(i)];
          for (int64_t j = 0; j < n; ++j) {
            const int64_t m = perm[static_cast<std::size_t>(j)];
            const int64_t phase = ((2 * m + 1) * i) % (4 * n);  // exact reduction: cos has period 4n here
            const double c = std::cos(pi * static_cast<double>(phase) / (2.0 * static_cast<double>(n)));
            a[0].data[static_cast<std::size_t>(i * n + j)] = scale * c * d2[static_cast<std::size_t>(m)];
          }
        },
        16);
    a[1].data.resize(static_cast<std::size_t>(n * n));
    a[2].value = static_cast<double>(n);
    a[3].value = static_cast<double>(s["P"]);
  };
  // FP64 binary exponentiation (shapes with N^3 * P >= 1e8 use the FP64 GPU reference, reference.cu).
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t n = s["N"];
    int64_t e = s["P"];
    const auto nn = static_cast<std::size_t>(n * n);
    std::vector<double> base(a[0].data.begin(), a[0].data.end()), result, tmp(nn);
    while (e > 0) {
      if (e & 1) {
        if (result.empty()) {
          result = base;
        } else {
          gemm_fp64(result.data(), base.data(), tmp.data(), n);
          result.swap(tmp);
        }
      }
      e >>= 1;
      if (e > 0) {
        gemm_fp64(base.data(), base.data(), tmp.data(), n);
        base.swap(tmp);
      }
    }
    a[1].data.assign(result.begin(), result.end());
  };
  // Entries of A^P have rms 1/sqrt(N); absolute tolerance from fp32_power_atol. BF16: A is rounded to bf16
  // (the reference uses the rounded A), FP32 work as above (bound doubled), and one bf16 rounding of B
  // (2^-8 relative at worst; 8e-3 leaves a factor 2). Rounding intermediate powers to bf16 fails.
  spec.tolerance = [](const Shape& s, Precision p) {
    const double atol = fp32_power_atol(s["P"]);
    return p == Precision::fp32 ? Tolerance{atol, 1e-6} : Tolerance{2.0 * atol, 8e-3};
  };
  spec.complexity = [](const Shape& s) {
    const auto n = static_cast<uint64_t>(s["N"]);
    return n * n * n * static_cast<uint64_t>(s["P"]);
  };
  // FLOPs: any addition chain for P needs at least ceil(log2 P) products (binary exponentiation needs
  // floor(log2 P) + popcount(P) - 1), each 2N^3. BF16 may use tensor cores (e.g. split-bf16 products) as
  // long as the FP32 accuracy holds: charged at the tensor peak.
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    const double products = std::ceil(std::log2(static_cast<double>(s["P"])));
    return Cost{2.0 * n * n * static_cast<double>(real_bytes(p)), products * 2.0 * n * n * n, p == Precision::bf16};
  };
}
