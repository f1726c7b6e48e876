// The files `mskb task new NAME` writes (task_templates.hpp).
#include "task_templates.hpp"

#include <cctype>
#include <stdexcept>

namespace mskb::cli {

namespace {

// @NAME@ -> name; "@include" -> "#include" (spelled so in this host-only source, whose own includes
// the layer check reads line by line).
std::string fill_template(std::string text, const std::string& name) {
  for (std::size_t at = text.find("@NAME@"); at != std::string::npos; at = text.find("@NAME@", at + name.size()))
    text.replace(at, 6, name);
  for (std::size_t at = text.find("@include"); at != std::string::npos; at = text.find("@include", at + 1)) text[at] = '#';
  return text;
}

constexpr const char* kTaskToml = R"(# @NAME@: an MSKernelBench task file (docs/task-files.md describes every key).
# Check your kernel:  mskb check --task-file @NAME@/task.toml --kernel my_kernel.cu
# Time and score it:  mskb run --task-file @NAME@/task.toml --kernel my_kernel.cu

name = "@NAME@"          # the entry point: extern "C" void @NAME@(...) and @NAME@_bf16(...)
category = "user"
semantics = "y[i] = scale * x[i] + bias[i % C] for i in [0, N): a per-column bias over an N-element array of rows of C."
dims = ["N", "C"]          # shape variables, in order; every sweep shape gives each one
# precisions = ["fp32", "bf16"]   # the entry points the task defines (default: both)
# seeds = 3                       # correctness seeds per paper/held-out shape
reference = "ref.cpp"      # FP64 reference (include/mskb/core/abi/mskb_reference.h), compiled by mskb
baseline = "baseline.cu"   # the contender your kernel is scored against (exports both entry points)

# The entry point's parameters, in signature order. A parameter with a role is a buffer
# (a device pointer): type fp32 | fp16 | bf16 | real | int32 | int64 (real is float in @NAME@,
# __nv_bfloat16 in @NAME@_bf16; fp16 is __half and int64 long long in both), role in | out | inout |
# accumulate, length = an expression over dims. Inputs are drawn by init: uniform {lo, hi},
# normal {mean, std}, int_uniform {lo, hi} or constant {value}.
[[params]]
name = "x"
type = "real"
role = "in"
length = "N"
init = { dist = "uniform", lo = -1, hi = 1 }

[[params]]
name = "bias"
type = "real"
role = "in"
length = "C"
init = { dist = "normal", mean = 0, std = 0.5 }

[[params]]
name = "y"
type = "real"
role = "out"               # poisoned before every call: every element must be written
length = "N"

# A parameter without a role is a scalar passed by value: type int | int64 | float | real, and value =
# an expression over dims, or init = {dist = ...} for a random value.
[[params]]
name = "scale"
type = "float"
init = { dist = "uniform", lo = 0.5, hi = 2 }

[[params]]
name = "N"
type = "int"
value = "N"

[[params]]
name = "C"
type = "int"
value = "C"

# Shapes: paper = the timed sizes; heldout = other sizes checked (odd, non-powers of two, never a
# paper shape); large = sizes timed with --sweep large.
[sweeps]
paper = [{ N = 65536, C = 64 }, { N = 1048576, C = 256 }, { N = 16777216, C = 1024 }]
heldout = [{ N = 1, C = 1 }, { N = 1001, C = 7 }, { N = 3000017, C = 333 }]
large = [{ N = 268435456, C = 4096 }]

# |out - ref| <= atol + rtol * |ref|, per precision (numbers or expressions over dims).
[tolerance]
fp32 = { atol = 1e-6, rtol = 1e-5 }
bf16 = { atol = 1e-2, rtol = 1e-2 }

# The roofline's minimum traffic and arithmetic per call (expressions; real_bytes is 4 or 2).
# Without bytes: every buffer once at its element size.
[cost]
bytes = "(2 * N + C) * real_bytes"
flops = "2 * N"

# complexity = "N"          # the weight of a shape in the score (default: the fp32 bytes)
)";

constexpr const char* kRefCpp = R"(// FP64 reference of @NAME@ (task.toml): mskb compiles this file with the host compiler and calls
// mskb_reference for every instance it checks. Inputs arrive rounded to their device type.
#include "mskb_reference.h"

extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* x = mskb_ref_data(a, "x");
  const double* bias = mskb_ref_data(a, "bias");
  double* y = mskb_ref_data(a, "y");
  const double scale = mskb_ref_scalar(a, "scale");
  const int64_t n = mskb_ref_length(a, "y"), c = mskb_ref_length(a, "bias");
  if (!x || !bias || !y) return;  // mskb_ref_data recorded the problem
  for (int64_t i = 0; i < n; ++i) y[i] = scale * x[i] + bias[i % c];
}
)";

constexpr const char* kBaselineCu = R"(// Baseline of @NAME@: one thread per element, FP32 arithmetic, one rounding to the output type.
@include <cuda_bf16.h>
@include <cuda_runtime.h>

template <class T>
__device__ float to_float(T v) { return static_cast<float>(v); }
template <>
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T>
__device__ T from_float(float v) { return static_cast<T>(v); }
template <>
__device__ __nv_bfloat16 from_float(float v) { return __float2bfloat16(v); }

template <class T>
__global__ void @NAME@_kernel(const T* x, const T* bias, T* y, float scale, int N, int C) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) y[i] = from_float<T>(scale * to_float(x[i]) + to_float(bias[i % C]));
}

template <class T>
void launch(const T* x, const T* bias, T* y, float scale, int N, int C) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  @NAME@_kernel<<<static_cast<unsigned>(blocks), threads>>>(x, bias, y, scale, N, C);
  cudaDeviceSynchronize();
}

extern "C" void @NAME@(const float* x, const float* bias, float* y, float scale, int N, int C) {
  launch(x, bias, y, scale, N, C);
}

extern "C" void @NAME@_bf16(const __nv_bfloat16* x, const __nv_bfloat16* bias, __nv_bfloat16* y, float scale, int N, int C) {
  launch(x, bias, y, scale, N, C);
}
)";

}  // namespace

std::vector<std::pair<std::string, std::string>> new_task_files(const std::string& name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw std::invalid_argument("task name '" + name + "' is not a C identifier (it is the entry point's name)");
  return {{"task.toml", fill_template(kTaskToml, name)},
          {"ref.cpp", fill_template(kRefCpp, name)},
          {"baseline.cu", fill_template(kBaselineCu, name)}};
}

}  // namespace mskb::cli