// matrix_transpose: B = A^T, A is M x N row-major, B is N x M row-major.
#include <algorithm>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(matrix_transpose) {
  using namespace mskb;
  spec.semantics =
      "B = transpose(A): A is an M x N row-major device array, B is N x M row-major, B[j*M + i] = A[i*N + j] for i in "
      "[0, M), j in [0, N). A is read only. M and N differ in general (the matrix is not square).";
  spec.vendor =
      "cuBLAS: cublasSgeam(OP_T) with beta = 0 (fp32); cuBLASLt: cublasLtMatrixTransform(TRANSA = T) with CUDA_R_16BF "
      "layouts and FP32 scale (bf16: cuBLAS has no bf16 geam). Under 0.8 of the bandwidth roofline at the large sweep's largest shape (H200, 4aae2a5): bf16 0.53 "
      "(fp32 0.94): cublasLtMatrixTransform moves bf16 elements at about the fp32 element rate (the bf16 "
      "call takes 0.89x the fp32 call's time for half its bytes); cuBLAS has no bf16 geam and no other "
      "library transposes bf16";
  spec.params = {in("A"), out("B"), int_arg("M"), int_arg("N")};
  for (int em = 10; em <= 14; ++em)
    for (int en = 10; en <= 14; ++en) spec.paper.push_back({{"M", int64_t{1} << em}, {"N", int64_t{1} << en}});
  spec.heldout = {{{"M", 1}, {"N", 1}},        {{"M", 1}, {"N", 1000}},     {{"M", 1000}, {"N", 1}},
                  {{"M", 3}, {"N", 5}},        {{"M", 1000}, {"N", 999}},   {{"M", 17}, {"N", 4099}},
                  {{"M", 257}, {"N", 16385}},  {{"M", 20000}, {"N", 1500}}};
  spec.large = {{{"M", 16384}, {"N", 24576}}, {{"M", 24576}, {"N", 16384}}, {{"M", 32768}, {"N", 16384}}};
  // A uniform in [-1, 1): drawn on the GPU by the verifier for large shapes (CPU twin elsewhere).
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = static_cast<std::size_t>(s["M"] * s["N"]);
                              v[2] = static_cast<double>(s["M"]);
                              v[3] = static_cast<double>(s["N"]);
                            },
                            {{-1.0, 1.0}, {}, {}, {}}});
  // Blocked (64 x 64 tiles) so the 2 GB large shapes stay cache friendly; parallel over tiles.
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t M = s["M"], N = s["N"];
    constexpr int64_t T = 64;
    const int64_t tm = (M + T - 1) / T, tn = (N + T - 1) / T;
    const double* A = a[0].data.data();
    double* B = a[1].data.data();
    parallel_for(
        tm * tn,
        [&](int64_t t) {
          const int64_t i0 = (t / tn) * T, j0 = (t % tn) * T;
          const int64_t i1 = std::min(M, i0 + T), j1 = std::min(N, j0 + T);
          for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = i0; i < i1; ++i) B[j * M + i] = A[i * N + j];
        },
        16);
  };
  // A permutation of the input: every element must be bit-exact.
  spec.tolerance = [](const Shape&, Precision) { return Tolerance{0.0, 0.0}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["M"]) * static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["M"]) * static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), 0.0};
  };
}
