// dot_product: loss = sum_i X[i] * Y[i] (a scalar; the harness zeroes loss before each call).
#include <algorithm>
#include <cmath>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(dot_product) {
  using namespace mskb;
  spec.semantics =
      "loss[0] = sum over i in [0, N) of X[i] * Y[i]. X and Y are device arrays of N elements (bf16 in the bf16 "
      "variant); loss is ONE float in both precisions (float* even in the bf16 variant). loss is zeroed by the "
      "caller before each call and must hold the full dot product afterwards (atomics allowed). N >= 1.";
  spec.vendor =
      "cuBLAS + CUB: cublasSdot with device pointer mode for fp32; for bf16 cub::DeviceReduce::TransformReduce of "
      "the widened products, FP32 sum written into *loss (size query once per N, cached workspace). Rejected for "
      "bf16: cublasDotEx (a bf16 result for bf16 inputs) and a 1x1xN cublasGemmEx (0.32 of the roofline). Under 0.8 of the bandwidth roofline at the large sweep's largest shape (H200, 4aae2a5): bf16 0.70 "
      "(fp32 0.95): the bf16 call takes 0.68x the fp32 call's time for half its bytes, bound by the element "
      "rate of CUB's transform-iterator reads (2-byte loads, not vectorised), not by bandwidth";
  spec.params = {accumulate("loss", Elem::f32), in("X"), in("Y"), int_arg("N")};
  for (int e = 16; e <= 20; ++e) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 1}}, {{"N", 1000}}, {{"N", 65537}}, {{"N", 333'333}}, {{"N", (1 << 20) + 3}}, {{"N", 3'000'017}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 27}}};
  // X and Y uniform in [-1, 1), drawn by the counter generator: on the GPU by the verifier for
  // large shapes (reference.cu computes the reference there, in this reference's order), its CPU
  // twin elsewhere.
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = 1;
                              n[1] = n[2] = static_cast<std::size_t>(s["N"]);
                              v[3] = static_cast<double>(s["N"]);
                            },
                            {{}, {-1.0, 1.0}, {-1.0, 1.0}, {}}});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t n = s["N"];
    const double *x = a[1].data.data(), *y = a[2].data.data();
    // FP64 chunked sums added in a fixed order: the same whatever the thread count (reference.cu
    // takes the same sums in the same order on the GPU).
    const double sum = chunked_sum(n, [x, y](int64_t i) { return x[i] * y[i]; });
    a[0].data[0] = sum;
  };
  // A sum of N products of U(-1,1) values: typical term 1/3, typical result sqrt(N)/3. Tree orders and
  // per-block atomics err by far less than 1e-4 * sqrt(N) / 3. One FP32 accumulator over all N terms
  // (e.g. one atomicAdd per element) errs by 0.10 u N (standard deviation, u = 2^-24: the partial sums
  // grow like sqrt(j) / 3) with a heavy tail (1 in 10^4 sums errs by 0.72 u N): the linear term u N
  // covers it at every N (at N = 2^27 the sqrt(N) term alone was about 0.5 standard deviation).
  // Accumulating in bf16 stays 3x (N = 2^27) to 25x (N = 2^20) outside. Both precisions compute in
  // FP32 and write a float, so they share the tolerance.
  spec.tolerance = [](const Shape& s, Precision) {
    const double n = static_cast<double>(s["N"]);
    return Tolerance{1e-4 * std::sqrt(n) / 3.0 + n * 0x1.0p-24, 1e-4};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)) + 4.0, 2.0 * n};
  };
}
