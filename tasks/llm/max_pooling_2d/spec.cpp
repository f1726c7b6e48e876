// max_pooling_2d: 2-D max pooling of an NCHW tensor with a square k x k window, stride s and symmetric
// padding p whose cells are ignored (they never win the max).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

namespace {
int64_t out_dim(int64_t in, int64_t k, int64_t s, int64_t p) { return (in + 2 * p - k) / s + 1; }

mskb::Shape shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t s, int64_t p) {
  return mskb::Shape{{"N", n}, {"C", c}, {"H", h}, {"W", w}, {"k", k}, {"s", s}, {"p", p}};
}
}  // namespace

MSKB_TASK(max_pooling_2d) {
  using namespace mskb;
  spec.semantics =
      "2-D max pooling. input is N x C x H x W (NCHW, row-major), output is N x C x oH x oW with "
      "oH = (H + 2*padding - kernel_size) / stride + 1 and oW = (W + 2*padding - kernel_size) / stride + 1 "
      "(integer division). output[n][c][oh][ow] = max of input[n][c][ih][iw] over ih = oh*stride - padding + kh, "
      "iw = ow*stride - padding + kw for kh, kw in [0, kernel_size) with 0 <= ih < H and 0 <= iw < W: padded cells "
      "are ignored (they never win, even when every real value is negative). Any kernel_size >= 1, stride >= 1 "
      "and 0 <= padding < kernel_size (so every window holds at least one real cell).";
  spec.vendor =
      "cuDNN legacy API: cudnnPoolingForward with a CUDNN_POOLING_MAX 2-D descriptor (window k x k, padding p, "
      "stride s; cuDNN ignores padded cells in max pooling) on NCHW float / bf16 tensor descriptors, cached per shape. "
      "At the naive kernel's speed on the H200's large sweep (P 0.97 fp32 / 0.98 bf16; both at 0.20 / 0.10 of the "
      "roofline at the largest shape): a direct k x k window scan is what both do, bound by the same reads";
  spec.params = {in("input"),    out("output"),          int_arg("N"),      int_arg("C"),      int_arg("H"),
                 int_arg("W"),   int_arg("kernel_size"), int_arg("stride"), int_arg("padding")};
  const int64_t sizes[4][4] = {{8, 3, 512, 512}, {4, 3, 224, 224}, {16, 3, 608, 608}, {4, 1, 2048, 196}};
  const int64_t ks[3][2] = {{2, 1}, {3, 1}, {4, 2}};
  for (const auto& d : sizes)
    for (const auto& q : ks)
      for (int64_t p : {0, 1}) spec.paper.push_back(shape(d[0], d[1], d[2], d[3], q[0], q[1], p));
  spec.heldout = {shape(1, 1, 1, 1, 1, 1, 0),     shape(2, 5, 37, 53, 5, 3, 2),    shape(3, 7, 100, 99, 3, 2, 1),
                  shape(1, 3, 224, 224, 7, 1, 3), shape(4, 16, 65, 33, 2, 2, 0),   shape(2, 3, 513, 257, 3, 3, 1),
                  shape(1, 1, 9, 4000, 4, 2, 2),  shape(1, 2, 2048, 196, 6, 4, 3)};
  spec.large = {shape(32, 64, 256, 256, 3, 1, 1), shape(8, 16, 1024, 1024, 2, 2, 0), shape(16, 64, 512, 512, 3, 2, 1)};
  // input uniform in [-1, 1): half the values are negative, so treating padding as 0 is caught at the
  // borders. Counter generator: drawn on the GPU by the verifier for large shapes, CPU twin elsewhere.
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              const int64_t oh = out_dim(s["H"], s["k"], s["s"], s["p"]);
                              const int64_t ow = out_dim(s["W"], s["k"], s["s"], s["p"]);
                              n[0] = static_cast<std::size_t>(s["N"] * s["C"] * s["H"] * s["W"]);
                              n[1] = static_cast<std::size_t>(s["N"] * s["C"] * oh * ow);
                              const char* dims[] = {"N", "C", "H", "W", "k", "s", "p"};
                              for (int i = 0; i < 7; ++i) v[static_cast<std::size_t>(2 + i)] = static_cast<double>(s[dims[i]]);
                            },
                            {{-1.0, 1.0}, {}, {}, {}, {}, {}, {}, {}, {}}});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t h = s["H"], w = s["W"], k = s["k"], st = s["s"], p = s["p"];
    const int64_t oh = out_dim(h, k, st, p), ow = out_dim(w, k, st, p);
    const mskb::HostData& x = a[0].data;
    mskb::HostData& y = a[1].data;
    parallel_for(s["N"] * s["C"], [&](int64_t plane) {
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t c = 0; c < ow; ++c) {
          double m = -std::numeric_limits<double>::infinity();
          for (int64_t i = r * st - p; i < r * st - p + k; ++i)
            for (int64_t j = c * st - p; j < c * st - p + k; ++j)
              if (i >= 0 && i < h && j >= 0 && j < w) m = std::max(m, x[static_cast<std::size_t>((plane * h + i) * w + j)]);
          y[static_cast<std::size_t>((plane * oh + r) * ow + c)] = m;
        }
    }, 1);
  };
  // The max of real input values is exact in any precision: every element must match bit for bit.
  spec.tolerance = [](const Shape&, Precision) { return Tolerance{0.0, 0.0}; };
  spec.complexity = [](const Shape& s) {
    const int64_t oh = out_dim(s["H"], s["k"], s["s"], s["p"]), ow = out_dim(s["W"], s["k"], s["s"], s["p"]);
    return static_cast<uint64_t>(s["N"]) * static_cast<uint64_t>(s["C"]) * static_cast<uint64_t>(oh) *
           static_cast<uint64_t>(ow) * static_cast<uint64_t>(s["k"] * s["k"]);
  };
  spec.cost = [](const Shape& s, Precision p) {
    const double oh = static_cast<double>(out_dim(s["H"], s["k"], s["s"], s["p"]));
    const double ow = static_cast<double>(out_dim(s["W"], s["k"], s["s"], s["p"]));
    const double nc = static_cast<double>(s["N"]) * static_cast<double>(s["C"]);
    const double in_elems = nc * static_cast<double>(s["H"]) * static_cast<double>(s["W"]);
    const double k2 = static_cast<double>(s["k"] * s["k"]);
    return Cost{(in_elems + nc * oh * ow) * static_cast<double>(real_bytes(p)), nc * oh * ow * k2};
  };
}
