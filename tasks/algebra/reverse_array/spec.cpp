// reverse_array: output[i] = input[N-1-i].
#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(reverse_array) {
  using namespace mskb;
  spec.semantics =
      "output[i] = input[N-1-i] for i in [0, N): output is input reversed. input and output are device arrays of N "
      "elements (distinct buffers); input is read only.";
  spec.vendor =
      "CUB (CCCL): cub::DeviceTransform::Transform over a thrust::reverse_iterator of the input with an identity "
      "functor (the engine thrust::reverse_copy uses in CCCL 3, called directly: thrust::device is a synchronous "
      "policy and added a second stream synchronisation per call); cuBLAS <t>copy with incx = -1 has no bf16 form. Under 0.8 of the bandwidth roofline at the large sweep's largest shape (H200, 4aae2a5): fp32 0.76, "
      "bf16 0.49: the reversed read goes through DeviceTransform's iterator path (no bulk-copy tiles for a "
      "reversed range), so the call is bound by its element rate (bf16 takes 0.77x the fp32 call's time for "
      "half its bytes); no library reverses bf16 otherwise";
  spec.params = {out("output"), in("input"), int_arg("N")};
  for (int e : {10, 12, 14, 16, 18}) spec.paper.push_back({{"N", int64_t{1} << e}});
  // Odd sizes (the middle element maps to itself), N=1, and N beyond the paper maximum.
  spec.heldout = {{{"N", 1}}, {{"N", 2}}, {{"N", 3}}, {{"N", 1001}}, {{"N", 65537}}, {{"N", (1 << 18) + 3}}, {{"N", 3'000'017}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
  // input uniform in [-1, 1), drawn by the counter generator: on the GPU by the verifier for large
  // shapes (reference.cu reverses it there), its CPU twin elsewhere.
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = static_cast<std::size_t>(s["N"]);
                              v[2] = static_cast<double>(s["N"]);
                            },
                            {{}, {-1.0, 1.0}, {}}});
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto n = static_cast<int64_t>(a[1].data.size());
    const double* x = a[1].data.data();
    double* y = a[0].data.data();
    parallel_blocks(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) y[i] = x[n - 1 - i];
    });
  };
  // A permutation of the input: every element must be bit-exact.
  spec.tolerance = [](const Shape&, Precision) { return Tolerance{0.0, 0.0}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), 0.0};
  };
}
