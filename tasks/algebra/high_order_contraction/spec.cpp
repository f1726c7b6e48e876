// high_order_contraction: C[a,b,c] = sum_{x,y} A[a,x,b,y] * B[x,c,y].
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

namespace {
// FP32 accumulation error bound for sums of K products of U(-1,1) values (rms term 1/3); see
// square_matrix_mul: sequential FP32 sums stay below ~3 units of u*K/3, 8 units leave margin.
double fp32_dot_atol(int64_t k) { return 8.0 * 0x1.0p-24 * static_cast<double>(k) / 3.0; }

int64_t dim(const mskb::Shape& s, const char* n) { return s[n]; }
}  // namespace

MSKB_TASK(high_order_contraction) {
  using namespace mskb;
  spec.semantics =
      "Tensor contraction C[a,b,c] = sum over x in [0, x_dim), y in [0, y_dim) of A[a,x,b,y] * B[x,c,y]. All tensors "
      "are dense row-major (last index fastest): A is a_dim x x_dim x b_dim x y_dim, so A[a,x,b,y] = "
      "A[((a*x_dim + x)*b_dim + b)*y_dim + y]; B is x_dim x c_dim x y_dim; C is a_dim x b_dim x c_dim. A and B are "
      "read only. x_dim and y_dim differ in general. bf16: accumulate in FP32, round once to bf16.";
  spec.vendor =
      "cuBLAS: for each x, one strided-batched GEMM over a of C_a (b x c) += A[a,x] (b x y) * B[x]^T (y x c), "
      "accumulated with beta = 1 (cublasSgemmStridedBatched, fp32); bf16: cublasGemmStridedBatchedEx with CUDA_R_16BF "
      "A/B, an FP32 C scratch and CUBLAS_COMPUTE_32F, rounded once to bf16 (no cuTENSOR in the allowed libraries)";
  spec.params = {in("A"), in("B"), out("C"), int_arg("a_dim"), int_arg("b_dim"), int_arg("c_dim"), int_arg("x_dim"), int_arg("y_dim")};
  auto shape = [](int64_t a, int64_t b, int64_t c, int64_t x, int64_t y) {
    return Shape{{"a_dim", a}, {"b_dim", b}, {"c_dim", c}, {"x_dim", x}, {"y_dim", y}};
  };
  for (const auto& abc : std::vector<std::vector<int64_t>>{{32, 32, 32}, {64, 32, 48}, {128, 128, 64}, {256, 256, 128}})
    for (const auto& xy : std::vector<std::vector<int64_t>>{{8, 8}, {16, 16}}) spec.paper.push_back(shape(abc[0], abc[1], abc[2], xy[0], xy[1]));
  spec.heldout = {shape(1, 1, 1, 1, 1),     shape(3, 5, 7, 2, 3),       shape(2, 3, 4, 5, 1),     shape(33, 17, 65, 9, 7),
                  shape(100, 50, 30, 16, 1), shape(64, 64, 64, 1, 32),  shape(17, 300, 129, 5, 16), shape(300, 200, 100, 12, 20)};
  spec.large = {shape(512, 512, 256, 16, 16), shape(1024, 1024, 256, 16, 16), shape(512, 512, 256, 32, 32)};
  // A and B uniform in [-1, 1): drawn on the GPU by the verifier for large shapes (CPU twin elsewhere).
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              const int64_t A = dim(s, "a_dim"), B = dim(s, "b_dim"), C = dim(s, "c_dim"), X = dim(s, "x_dim"),
                                            Y = dim(s, "y_dim");
                              n[0] = static_cast<std::size_t>(A * X * B * Y);
                              n[1] = static_cast<std::size_t>(X * C * Y);
                              n[2] = static_cast<std::size_t>(A * B * C);
                              v[3] = static_cast<double>(A);
                              v[4] = static_cast<double>(B);
                              v[5] = static_cast<double>(C);
                              v[6] = static_cast<double>(X);
                              v[7] = static_cast<double>(Y);
                            },
                            {{-1.0, 1.0}, {-1.0, 1.0}, {}, {}, {}, {}, {}, {}}});
  // FP64, parallel over (a, b); y innermost (contiguous in A and B); per output, each x's sum over y is
  // added in x order (reference.cu does the same). Shapes with a*b*c*x*y >= 1e8 use the FP64 GPU
  // reference (reference.cu), GPU instances its device form.
  spec.reference = [](const Shape& s, Precision, Args& args) {
    const int64_t A = dim(s, "a_dim"), B = dim(s, "b_dim"), C = dim(s, "c_dim"), X = dim(s, "x_dim"), Y = dim(s, "y_dim");
    const double* a = args[0].data.data();
    const double* b = args[1].data.data();
    double* out = args[2].data.data();
    parallel_for(
        A * B,
        [&](int64_t ab) {
          const int64_t ia = ab / B, ib = ab % B;
          double* o = out + (ia * B + ib) * C;
          for (int64_t c = 0; c < C; ++c) o[c] = 0.0;
          for (int64_t x = 0; x < X; ++x) {
            const double* arow = a + ((ia * X + x) * B + ib) * Y;
            for (int64_t c = 0; c < C; ++c) {
              const double* brow = b + (x * C + c) * Y;
              double acc = 0.0;
              for (int64_t y = 0; y < Y; ++y) acc += arow[y] * brow[y];
              o[c] += acc;
            }
          }
        },
        16);
  };
  // K = x_dim * y_dim terms per output. FP32: the accumulation bound plus one output rounding. BF16:
  // products of bf16 values are exact in FP32 (bound doubled), plus one bf16 rounding of the output.
  spec.tolerance = [](const Shape& s, Precision p) {
    const double atol = fp32_dot_atol(dim(s, "x_dim") * dim(s, "y_dim"));
    return p == Precision::fp32 ? Tolerance{atol, 1e-6} : Tolerance{2.0 * atol, 8e-3};
  };
  spec.complexity = [](const Shape& s) {
    uint64_t c = 1;
    for (const char* n : {"a_dim", "b_dim", "c_dim", "x_dim", "y_dim"}) c *= static_cast<uint64_t>(s[n]);
    return c;
  };
  spec.cost = [](const Shape& s, Precision p) {
    const double A = static_cast<double>(dim(s, "a_dim")), B = static_cast<double>(dim(s, "b_dim")), C = static_cast<double>(dim(s, "c_dim")),
                 X = static_cast<double>(dim(s, "x_dim")), Y = static_cast<double>(dim(s, "y_dim"));
    return Cost{(A * X * B * Y + X * C * Y + A * B * C) * static_cast<double>(real_bytes(p)), 2.0 * A * B * C * X * Y,
                p == Precision::bf16};
  };
}
