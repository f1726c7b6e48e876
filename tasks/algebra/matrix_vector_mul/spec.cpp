// matrix_vector_mul: y = A x, A is M x N row-major.
#include <algorithm>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

namespace {
// FP32 accumulation error bound for sums of K products of U(-1,1) values (rms term 1/3). A sequential
// FP32 sum errs by ~0.14*u*K (rms; partial sums grow like sqrt(k)/3 and each addition rounds), so the
// max over millions of outputs stays below ~3 units of u*K/3 in simulation; 8 units leave margin for any
// summation order, while TF32 products or bf16 accumulation miss by orders of magnitude.
double fp32_dot_atol(int64_t k) { return 8.0 * 0x1.0p-24 * static_cast<double>(k) / 3.0; }
}  // namespace

MSKB_TASK(matrix_vector_mul) {
  using namespace mskb;
  spec.semantics =
      "y = A * x: A is an M x N row-major device array, x has N elements, y has M elements; y[i] = sum over j in "
      "[0, N) of A[i*N + j] * x[j]. A and x are read only. bf16: bf16 A, x and y; accumulate in FP32 and round "
      "once to bf16.";
  spec.vendor =
      "cuBLAS: cublasSgemv with OP_T on the column-major view (fp32); cublasGemmEx with n = 1, CUDA_R_16BF A/x/y and "
      "CUBLAS_COMPUTE_32F (bf16)";
  spec.params = {in("A"), in("x"), out("y"), int_arg("M"), int_arg("N")};
  for (int e = 8; e <= 16; e += 2) spec.paper.push_back({{"M", 2048}, {"N", int64_t{1} << e}});
  // N not a multiple of 4/32/any block, M other than 2048, N beyond 2^16.
  spec.heldout = {{{"M", 1}, {"N", 1}},        {{"M", 3}, {"N", 7}},         {{"M", 2048}, {"N", 1000}},
                  {{"M", 1000}, {"N", 2049}},  {{"M", 4097}, {"N", 300}},    {{"M", 65537}, {"N", 17}},
                  {{"M", 1}, {"N", 131073}},   {{"M", 2048}, {"N", 100003}}};
  spec.large = {{{"M", 16384}, {"N", 16384}}, {{"M", 4096}, {"N", 131072}}, {{"M", 32768}, {"N", 16384}}};
  // A and x uniform in [-1, 1): drawn on the GPU by the verifier for large shapes (CPU twin elsewhere).
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              const auto rows = static_cast<std::size_t>(s["M"]), cols = static_cast<std::size_t>(s["N"]);
                              n[0] = rows * cols;
                              n[1] = cols;
                              n[2] = rows;
                              v[3] = static_cast<double>(rows);
                              v[4] = static_cast<double>(cols);
                            },
                            {{-1.0, 1.0}, {-1.0, 1.0}, {}, {}, {}}});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t M = s["M"], N = s["N"];
    const double* A = a[0].data.data();
    const double* x = a[1].data.data();
    double* y = a[2].data.data();
    parallel_for(
        M,
        [&](int64_t i) {
          double acc = 0.0;
          const double* row = A + i * N;
          for (int64_t j = 0; j < N; ++j) acc += row[j] * x[j];
          y[i] = acc;
        },
        std::max<int64_t>(1, (int64_t{1} << 16) / N));
  };
  // y[i] has rms sqrt(N)/3. FP32: accumulation bound over K = N terms (see fp32_dot_atol) plus one output
  // rounding. BF16: products of bf16 values are exact in FP32, so the same accumulation bound applies
  // (doubled), plus one bf16 rounding of the output (2^-8 relative at worst).
  spec.tolerance = [](const Shape& s, Precision p) {
    const double atol = fp32_dot_atol(s["N"]);
    return p == Precision::fp32 ? Tolerance{atol, 1e-6} : Tolerance{2.0 * atol, 8e-3};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["M"]) * static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double m = static_cast<double>(s["M"]), n = static_cast<double>(s["N"]);
    return Cost{(m * n + n + m) * static_cast<double>(real_bytes(p)), 2.0 * m * n};
  };
}
