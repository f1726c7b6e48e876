// matrix_copy: B = A for an M x N row-major matrix.
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(matrix_copy) {
  using namespace mskb;
  spec.semantics =
      "B[i*N + j] = A[i*N + j] for i in [0, M), j in [0, N): copies the M x N row-major matrix A into B (distinct "
      "buffers of M*N elements). A is read only. N is not always 2048.";
  spec.vendor = "CUDA runtime: cudaMemcpyAsync device-to-device on the legacy stream (fp32 and bf16)";
  spec.params = {in("A"), out("B"), int_arg("M"), int_arg("N")};
  for (int e = 8; e <= 16; e += 2) spec.paper.push_back({{"M", int64_t{1} << e}, {"N", 2048}});
  // Element counts that are not multiples of 4 or of any block size, widths other than 2048, M beyond 2^16.
  spec.heldout = {{{"M", 1}, {"N", 1}},      {{"M", 3}, {"N", 2047}},  {{"M", 1000}, {"N", 2048}},
                  {{"M", 257}, {"N", 3000}}, {{"M", 4097}, {"N", 1023}}, {{"M", 1}, {"N", 100003}},
                  {{"M", 100}, {"N", 1}},    {{"M", 65537}, {"N", 2048}}};
  spec.large = {{{"M", int64_t{1} << 16}, {"N", 4096}}, {{"M", int64_t{1} << 17}, {"N", 2048}}, {{"M", int64_t{1} << 18}, {"N", 2048}}};
  // A uniform in [-1, 1): drawn on the GPU by the verifier for large shapes (CPU twin elsewhere).
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = static_cast<std::size_t>(s["M"] * s["N"]);
                              v[2] = static_cast<double>(s["M"]);
                              v[3] = static_cast<double>(s["N"]);
                            },
                            {{-1.0, 1.0}, {}, {}, {}}});
  spec.reference = [](const Shape&, Precision, Args& a) { a[1].data = a[0].data; };
  // A copy: every element must be bit-exact.
  spec.tolerance = [](const Shape&, Precision) { return Tolerance{0.0, 0.0}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["M"]) * static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["M"]) * static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), 0.0};
  };
}
