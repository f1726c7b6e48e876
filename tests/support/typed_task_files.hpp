// Task files of the two buffer types no built-in task uses, shared by the CPU test of their
// parsing, generation, encoding and comparison (mskb/core/task_file_test.cpp) and the GPU test that
// runs right and wrong kernels of them through `mskb check --task-file` (mskb/gpu/task_file_types_test.cpp).
#pragma once

namespace mskb_test {

// fp16 in (x uniform in [-3, 3]; w normal(0, 1e-5): mostly subnormal halves), fp32 and fp16 out.
constexpr const char* kHalfScaleToml = R"TOML(name = "half_scale"
semantics = "y[i] = 3 * x[i] + w[i] (float); h[i] = x[i] / 2 (half)"
dims = ["N"]
reference = "ref.cpp"

[[params]]
name = "x"
type = "fp16"
role = "in"
length = "N"
init = { dist = "uniform", lo = -3, hi = 3 }

[[params]]
name = "w"
type = "fp16"
role = "in"
length = "N"
init = { dist = "normal", mean = 0, std = 1e-5 }

[[params]]
name = "y"
type = "fp32"
role = "out"
length = "N"

[[params]]
name = "h"
type = "fp16"
role = "out"
length = "N"

[[params]]
name = "N"
type = "int"
value = "N"

[sweeps]
paper = [{ N = 1000 }, { N = 65536 }]
heldout = [{ N = 1 }, { N = 7 }, { N = 4099 }]
large = [{ N = 1048576 }]

[tolerance]
atol = 1e-6
rtol = 1e-6
)TOML";

constexpr const char* kHalfScaleRef = R"CPP(#include "mskb_reference.h"
extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* x = mskb_ref_data(a, "x");
  const double* w = mskb_ref_data(a, "w");
  double* y = mskb_ref_data(a, "y");
  double* h = mskb_ref_data(a, "h");
  const int64_t n = mskb_ref_length(a, "y");
  if (!x || !w || !y || !h) return;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = 3 * x[i] + w[i];
    h[i] = x[i] / 2;
  }
}
)CPP";

// int64 in and out (draws beyond 2^31 and negative), an int64 scalar beyond 2^32; FP32 only.
constexpr const char* kOffsets64Toml = R"TOML(name = "offsets64"
semantics = "out[i] = 3 * idx[i] + base, in int64"
dims = ["N"]
precisions = ["fp32"]
reference = "ref.cpp"

[[params]]
name = "idx"
type = "int64"
role = "in"
length = "N"
init = { dist = "int_uniform", lo = "-(2**40)", hi = "2**40" }

[[params]]
name = "out"
type = "int64"
role = "out"
length = "N"

[[params]]
name = "base"
type = "int64"
value = "2**33 + N"

[[params]]
name = "N"
type = "int"
value = "N"

[sweeps]
paper = [{ N = 1000 }, { N = 65536 }]
heldout = [{ N = 1 }, { N = 7 }, { N = 4099 }]
large = [{ N = 1048576 }]

[tolerance]
atol = 0
)TOML";

constexpr const char* kOffsets64Ref = R"CPP(#include "mskb_reference.h"
extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* idx = mskb_ref_data(a, "idx");
  double* out = mskb_ref_data(a, "out");
  const double base = mskb_ref_scalar(a, "base");
  const int64_t n = mskb_ref_length(a, "out");
  if (!idx || !out) return;
  for (int64_t i = 0; i < n; ++i) out[i] = (double)(3 * (int64_t)idx[i] + (int64_t)base);
}
)CPP";

}  // namespace mskb_test
