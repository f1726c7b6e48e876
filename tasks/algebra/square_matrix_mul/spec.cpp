// square_matrix_mul: C = A * B, all M x M row-major.
#include <algorithm>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

namespace {
// FP32 accumulation error bound for sums of K products of U(-1,1) values (rms term 1/3). A sequential
// FP32 sum errs by ~0.14*u*K (rms: partial sums grow like sqrt(k)/3 and each addition rounds); over
// millions of outputs the max stays below ~3 units of u*K/3 in simulation. 8 units leave margin for any
// summation order; TF32 inputs (~1e-3 relative per product) or bf16 accumulation miss by far.
double fp32_dot_atol(int64_t k) { return 8.0 * 0x1.0p-24 * static_cast<double>(k) / 3.0; }
}  // namespace

MSKB_TASK(square_matrix_mul) {
  using namespace mskb;
  spec.semantics =
      "C = A * B for square M x M row-major device matrices: C[i*M + j] = sum over k in [0, M) of A[i*M + k] * "
      "B[k*M + j]. A and B are read only; every element of C is overwritten. FP32 means FP32 products and sums (no "
      "TF32 rounding of the inputs). bf16: bf16 A, B, C; accumulate in FP32 and round once to bf16.";
  spec.vendor =
      "cuBLAS: cublasSgemm with CUBLAS_DEFAULT_MATH (no TF32) computing C^T = B^T A^T in column-major (fp32); "
      "cublasGemmEx with CUDA_R_16BF A/B/C and CUBLAS_COMPUTE_32F (bf16)";
  spec.params = {in("A"), in("B"), out("C"), int_arg("M")};
  for (int m : {16, 64, 256, 1024, 4096}) spec.paper.push_back({{"M", m}});
  spec.heldout = {{{"M", 1}}, {{"M", 3}}, {{"M", 17}}, {{"M", 100}}, {{"M", 257}}, {{"M", 1000}}, {{"M", 1023}}, {{"M", 5000}}};
  spec.large = {{{"M", 6144}}, {{"M", 8192}}, {{"M", 12288}}};
  spec.call_timeout_s = 30.0;
  // A and B uniform in [-1, 1): drawn on the GPU by the verifier for large shapes (CPU twin elsewhere).
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = n[2] = static_cast<std::size_t>(s["M"] * s["M"]);
                              v[3] = static_cast<double>(s["M"]);
                            },
                            {{-1.0, 1.0}, {-1.0, 1.0}, {}, {}}});
  // FP64, cache-blocked (16 rows x 256 columns of C per task, K in slices of 128), parallel over tiles.
  // Shapes with M^3 >= 1e8 use the FP64 GPU reference (reference.cu), GPU instances its device form.
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t M = s["M"];
    constexpr int64_t IB = 16, JB = 256, KB = 128;
    const int64_t nib = (M + IB - 1) / IB, njb = (M + JB - 1) / JB;
    const double* A = a[0].data.data();
    const double* B = a[1].data.data();
    double* C = a[2].data.data();
    parallel_for(
        nib * njb,
        [&](int64_t t) {
          const int64_t i0 = (t / njb) * IB, j0 = (t % njb) * JB;
          const int64_t i1 = std::min(M, i0 + IB), j1 = std::min(M, j0 + JB), w = j1 - j0;
          std::vector<double> acc(static_cast<std::size_t>((i1 - i0) * w), 0.0);
          for (int64_t k0 = 0; k0 < M; k0 += KB) {
            const int64_t k1 = std::min(M, k0 + KB);
            for (int64_t i = i0; i < i1; ++i) {
              double* c = acc.data() + (i - i0) * w;
              for (int64_t k = k0; k < k1; ++k) {
                const double av = A[i * M + k];
                const double* b = B + k * M + j0;
                for (int64_t j = 0; j < w; ++j) c[j] += av * b[j];
              }
            }
          }
          for (int64_t i = i0; i < i1; ++i) std::copy(acc.begin() + (i - i0) * w, acc.begin() + (i - i0 + 1) * w, C + i * M + j0);
        },
        1);
  };
  // K = M terms per output (rms sqrt(M)/3). FP32: the accumulation bound plus one output rounding. BF16:
  // products of bf16 values are exact in FP32, so the same accumulation bound (doubled) plus one bf16
  // rounding of the output (2^-8 relative at worst; 8e-3 leaves a factor 2).
  spec.tolerance = [](const Shape& s, Precision p) {
    const double atol = fp32_dot_atol(s["M"]);
    return p == Precision::fp32 ? Tolerance{atol, 1e-6} : Tolerance{2.0 * atol, 8e-3};
  };
  spec.complexity = [](const Shape& s) {
    const auto m = static_cast<uint64_t>(s["M"]);
    return m * m * m;
  };
  spec.cost = [](const Shape& s, Precision p) {
    const double m = static_cast<double>(s["M"]);
    return Cost{3.0 * m * m * static_cast<double>(real_bytes(p)), 2.0 * m * m * m, p == Precision::bf16};
  };
}
