// vector_add: C = A + B, elementwise.
#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(vector_add) {
  using namespace mskb;
  spec.semantics = "C[i] = A[i] + B[i] for i in [0, N). A, B, C are device arrays of N elements.";
  spec.vendor =
      "CUB (CCCL): cub::DeviceTransform::Transform: one pass C = A + B over two inputs, FP32 sum (bf16 widened, one "
      "rounding). Rejected: cudaMemcpyAsync + cublasSaxpy / cublasAxpyEx (5N elements of traffic for a 3N "
      "operation, two launches: P 0.63 / 0.71 on the large sweep)";
  spec.params = {in("A"), in("B"), out("C"), int_arg("N")};
  for (int e : {10, 12, 14, 16, 18}) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 1}}, {{"N", 1000}}, {{"N", 65537}}, {{"N", (1 << 18) + 3}}, {{"N", 3'000'017}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
  // A and B uniform in [-1, 1), drawn by the counter generator: on the GPU by the verifier for
  // large shapes (reference.cu computes the reference there), its CPU twin elsewhere.
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = n[2] = static_cast<std::size_t>(s["N"]);
                              v[3] = static_cast<double>(s["N"]);
                            },
                            {{-1.0, 1.0}, {-1.0, 1.0}, {}, {}}});
  spec.reference = [](const Shape&, Precision, Args& a) {
    const double *x = a[0].data.data(), *y = a[1].data.data();
    double* z = a[2].data.data();
    parallel_blocks(static_cast<int64_t>(a[2].data.size()), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) z[i] = x[i] + y[i];
    });
  };
  // One rounding of the exact sum to the output type.
  spec.tolerance = [](const Shape&, Precision p) {
    return p == Precision::fp32 ? Tolerance{1e-7, 2e-7} : Tolerance{1e-3, 8e-3};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{3.0 * n * static_cast<double>(real_bytes(p)), n};
  };
}
