// matrix_scalar_mul: B = scalar * A for an M x N row-major matrix.
#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(matrix_scalar_mul) {
  using namespace mskb;
  spec.semantics =
      "B[i*N + j] = scalar * A[i*N + j] for i in [0, M), j in [0, N): A and B are distinct M x N row-major device "
      "arrays; A is read only. In bf16 the scalar is passed as __nv_bfloat16; multiply in FP32 and round once to "
      "bf16.";
  spec.vendor =
      "cuBLAS + CUB: cublasSgeam (B = scalar*A + 0*A, one pass) for fp32; for bf16 cub::DeviceTransform::Transform, "
      "one pass B = scalar * A in FP32 (cuBLAS has no bf16 geam; the copy + cublasScalEx_64 route moved 4MN "
      "elements for a 2MN operation, 0.26 of the roofline)";
  spec.params = {in("A"), out("B"), real_arg("scalar"), int_arg("M"), int_arg("N")};
  for (int e = 8; e <= 16; e += 2) spec.paper.push_back({{"M", int64_t{1} << e}, {"N", 2048}});
  spec.heldout = {{{"M", 1}, {"N", 1}},      {{"M", 3}, {"N", 2047}},  {{"M", 1000}, {"N", 2048}},
                  {{"M", 257}, {"N", 3000}}, {{"M", 4097}, {"N", 1023}}, {{"M", 1}, {"N", 100003}},
                  {{"M", 100}, {"N", 1}},    {{"M", 65537}, {"N", 2048}}};
  spec.large = {{{"M", int64_t{1} << 16}, {"N", 4096}}, {{"M", int64_t{1} << 17}, {"N", 2048}}, {{"M", int64_t{1} << 18}, {"N", 2048}}};
  // A uniform in [-1, 1) (drawn on the GPU by the verifier for large shapes, CPU twin elsewhere);
  // |scalar| in [0.5, 3), either sign: never 0 or 1, so a copy or a zero fill cannot pass.
  set_uniform_inputs(spec, {[](const Shape& s, Rng& rng, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = static_cast<std::size_t>(s["M"] * s["N"]);
                              const double mag = rng.uniform(0.5, 3.0);
                              v[2] = rng.uniform(0.0, 1.0) < 0.5 ? -mag : mag;
                              v[3] = static_cast<double>(s["M"]);
                              v[4] = static_cast<double>(s["N"]);
                            },
                            {{-1.0, 1.0}, {}, {}, {}, {}}});
  spec.reference = [](const Shape&, Precision, Args& a) {
    const double scalar = a[2].value;
    const double* x = a[0].data.data();
    double* y = a[1].data.data();
    parallel_blocks(static_cast<int64_t>(a[0].data.size()), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) y[i] = scalar * x[i];
    });
  };
  // One rounding of the exact product: 2^-24 relative in fp32; in bf16 the product of two bf16 values is
  // exact in FP32 and rounded once to bf16 (2^-8 relative at worst), 8e-3 leaves a factor 2.
  spec.tolerance = [](const Shape&, Precision p) {
    return p == Precision::fp32 ? Tolerance{0.0, 2e-7} : Tolerance{0.0, 8e-3};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["M"]) * static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["M"]) * static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), n};
  };
}
