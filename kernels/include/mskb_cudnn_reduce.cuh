// Support for the cuDNN legacy-API norm vendor contenders (tasks/llm/rms_norm, tasks/llm/layer_norm): RAII
// tensor / op-tensor / reduce-tensor descriptors, one call's scratch laid out in mskb_vendor::workspace(), the
// bf16 <-> FP32 conversions (cudnnTransformTensor, or elementwise kernels where cuDNN rejects the mixed-type
// transform), cudnnReduceTensor of a vector into one FP32 device scalar, the host scalar
// 1 / sqrt(||v||^2 / N + eps), and y = alpha * a * w + b (cudnnOpTensor + cudnnAddTensor). A vector of N
// elements is a packed 1 x 1 x 1 x N NCHW tensor. Include after <cudnn.h> and "mskb_vendor.cuh". Everything
// here has internal linkage (an unnamed namespace): each vendor library keeps its own state. Kernels and
// copies go to the legacy default stream (0), the handle's stream.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <type_traits>

#include "mskb_vendor.cuh"

// The legacy API is deprecated in cuDNN 9 (still supported).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma nv_diagnostic push
#pragma nv_diag_suppress 1444
#pragma nv_diag_suppress 1215

namespace mskb_cudnn_reduce {
namespace {

struct TensorDesc {
  cudnnTensorDescriptor_t d{};
  TensorDesc() { MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&d)); }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  // n elements as a packed 1 x 1 x 1 x n NCHW tensor.
  void vec(cudnnDataType_t type, int n) {
    MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, type, 1, 1, 1, n));
  }
};

struct OpDesc {
  cudnnOpTensorDescriptor_t d{};
  explicit OpDesc(cudnnOpTensorOp_t op) {
    MSKB_VENDOR_CHECK(cudnnCreateOpTensorDescriptor(&d));
    MSKB_VENDOR_CHECK(cudnnSetOpTensorDescriptor(d, op, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  }
  ~OpDesc() { cudnnDestroyOpTensorDescriptor(d); }
  OpDesc(const OpDesc&) = delete;
  OpDesc& operator=(const OpDesc&) = delete;
};

struct ReduceDesc {
  cudnnReduceTensorDescriptor_t d{};
  explicit ReduceDesc(cudnnReduceTensorOp_t op) {
    MSKB_VENDOR_CHECK(cudnnCreateReduceTensorDescriptor(&d));
    MSKB_VENDOR_CHECK(cudnnSetReduceTensorDescriptor(d, op, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                                     CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
  }
  ~ReduceDesc() { cudnnDestroyReduceTensorDescriptor(d); }
  ReduceDesc(const ReduceDesc&) = delete;
  ReduceDesc& operator=(const ReduceDesc&) = delete;
};

// The FP32 shapes of one call: the N-element vectors, the reduced vector (N elements, or the 2-element
// zero-padded copy when N = 1: cuDNN rejects a reduction whose input and output shapes are equal) and the
// 1 x 1 x 1 x 1 reduction result.
struct Shapes {
  TensorDesc vec, red, scalar;
  void set(int N) {
    vec.vec(CUDNN_DATA_FLOAT, N);
    red.vec(CUDNN_DATA_FLOAT, N == 1 ? 2 : N);
    scalar.vec(CUDNN_DATA_FLOAT, 1);
  }
};

constexpr size_t kAlign = 256;
inline size_t align_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Hands out consecutive 256-byte-aligned pieces of one scratch block.
struct Carve {
  char* p;
  template <class U>
  U* take(size_t bytes) {
    U* r = reinterpret_cast<U*>(p);
    p += align_up(bytes);
    return r;
  }
};

__global__ void bf16_to_f32(const __nv_bfloat16* in, float* out, int n) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = __bfloat162float(in[i]);
}

__global__ void f32_to_bf16(const float* in, __nv_bfloat16* out, int n) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

// bf16 <-> FP32 conversions of n-element vectors: cudnnTransformTensor between bf16 and FP32 descriptors; if
// cuDNN rejects the mixed-type transform (a BAD_PARAM* / NOT_SUPPORTED* status on the first call, per
// direction), elementwise conversion kernels from then on.
struct Converter {
  TensorDesc src, dst;
  // -1: not tried yet, 1: cudnnTransformTensor converts this direction, 0: it does not (kernels are used).
  int to_f32_mode = -1;
  int to_bf16_mode = -1;

  void to_f32(cudnnHandle_t h, const void* in, float* out, int n) {
    run(h, to_f32_mode, CUDNN_DATA_BFLOAT16, in, CUDNN_DATA_FLOAT, out, n);
  }
  void to_bf16(cudnnHandle_t h, const float* in, void* out, int n) {
    run(h, to_bf16_mode, CUDNN_DATA_FLOAT, in, CUDNN_DATA_BFLOAT16, out, n);
  }

  // dst (n elements of dst_type) = src (n elements of src_type).
  void run(cudnnHandle_t h, int& mode, cudnnDataType_t src_type, const void* in, cudnnDataType_t dst_type, void* out, int n) {
    if (mode != 0) {
      src.vec(src_type, n);
      dst.vec(dst_type, n);
      const float one = 1.0f, zero = 0.0f;
      const cudnnStatus_t s = cudnnTransformTensor(h, &one, src.d, in, &zero, dst.d, out);
      if (s == CUDNN_STATUS_SUCCESS) {
        mode = 1;
        return;
      }
      // cuDNN 9 statuses are grouped by thousands: 2xxx = BAD_PARAM*, 3xxx = NOT_SUPPORTED*.
      const int category = static_cast<int>(s) / 1000;
      if (mode == 1 || (category != 2 && category != 3)) MSKB_VENDOR_CHECK(s);
      mode = 0;
    }
    const unsigned blocks = static_cast<unsigned>((static_cast<long long>(n) + 255) / 256);
    if (src_type == CUDNN_DATA_BFLOAT16)
      bf16_to_f32<<<blocks, 256>>>(static_cast<const __nv_bfloat16*>(in), static_cast<float*>(out), n);
    else
      f32_to_bf16<<<blocks, 256>>>(static_cast<const float*>(in), static_cast<__nv_bfloat16*>(out), n);
    MSKB_VENDOR_CHECK(cudaGetLastError());
  }
};

// FP32 views of input, weight and bias: the arrays themselves (FP32), or (bf16) FP32 copies taken from the
// scratch in that order and converted now; x_copy is the FP32 input copy (null for FP32).
struct Inputs {
  const float* x;
  const float* w;
  const float* b;
  float* x_copy;
};

template <class T>
Inputs fp32_inputs(cudnnHandle_t h, Converter& conv, Carve& carve, const T* x, const T* w, const T* b, int N) {
  if (!std::is_same<T, __nv_bfloat16>::value)
    return {reinterpret_cast<const float*>(x), reinterpret_cast<const float*>(w), reinterpret_cast<const float*>(b), nullptr};
  const size_t vec_bytes = sizeof(float) * static_cast<size_t>(N);
  float* x32 = carve.take<float>(vec_bytes);
  float* w32 = carve.take<float>(vec_bytes);
  float* b32 = carve.take<float>(vec_bytes);
  conv.to_f32(h, x, x32, N);
  conv.to_f32(h, w, w32, N);
  conv.to_f32(h, b, b32, N);
  return {x32, w32, b32, x32};
}

// Scratch of the reductions: the 2-element padded copy (N = 1; zeroed by the caller once per call), cuDNN's
// workspace and indices.
struct ReduceScratch {
  float* pad;
  void* ws;
  size_t ws_bytes;
  void* idx;
  size_t idx_bytes;
};

// One call's scratch: one block of the library's workspace (grown on demand, freed at exit) laid out as the
// 2-element pad, `scalars` (1 or 2) FP32 result scalars, the reduction workspace and indices (enough for every
// reduction of the call), then room for `vectors` N-element FP32 vectors, which the caller takes from `rest`.
struct CallScratch {
  ReduceScratch r;
  float* scalar[2];
  Carve rest;
};

// Sets the shapes for N, sizes the reductions `ops` (from s.red into s.scalar) and lays out the scratch.
inline CallScratch prepare_call(cudnnHandle_t h, Shapes& s, std::initializer_list<const ReduceDesc*> ops, int N, int scalars,
                                int vectors) {
  s.set(N);
  size_t ws_bytes = 0, idx_bytes = 0;
  for (const ReduceDesc* op : ops) {
    size_t ws = 0, idx = 0;
    MSKB_VENDOR_CHECK(cudnnGetReductionWorkspaceSize(h, op->d, s.red.d, s.scalar.d, &ws));
    MSKB_VENDOR_CHECK(cudnnGetReductionIndicesSize(h, op->d, s.red.d, s.scalar.d, &idx));
    if (ws > ws_bytes) ws_bytes = ws;
    if (idx > idx_bytes) idx_bytes = idx;
  }
  const size_t vec_bytes = sizeof(float) * static_cast<size_t>(N);
  const size_t total = align_up(2 * sizeof(float)) + static_cast<size_t>(scalars) * align_up(sizeof(float)) +
                       align_up(ws_bytes) + align_up(idx_bytes) + static_cast<size_t>(vectors) * align_up(vec_bytes);
  Carve carve{static_cast<char*>(mskb_vendor::workspace().get(total))};
  CallScratch c{};
  c.r.pad = carve.take<float>(2 * sizeof(float));
  for (int i = 0; i < scalars; ++i) c.scalar[i] = carve.take<float>(sizeof(float));
  c.r.ws = carve.take<void>(ws_bytes);
  c.r.ws_bytes = ws_bytes;
  c.r.idx = carve.take<void>(idx_bytes);
  c.r.idx_bytes = idx_bytes;
  c.rest = carve;
  return c;
}

// out (one FP32 device scalar) = op over the N FP32 values at src, FP32 compute, no indices. N = 1: the value
// is copied into r.pad, which is reduced instead.
inline void reduce_to_scalar(cudnnHandle_t h, const ReduceDesc& op, const Shapes& s, const ReduceScratch& r, const float* src,
                             int N, float* out) {
  if (N == 1) {
    MSKB_VENDOR_CHECK(cudaMemcpyAsync(r.pad, src, sizeof(float), cudaMemcpyDeviceToDevice, 0));
    src = r.pad;
  }
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cudnnReduceTensor(h, op.d, r.idx_bytes ? r.idx : nullptr, r.idx_bytes, r.ws_bytes ? r.ws : nullptr,
                                      r.ws_bytes, &one, s.red.d, src, &zero, s.scalar.d, out));
}

// 1 / sqrt(||v||^2 / N + eps) in double (eps inside the square root), from the FP32 device scalar ||v||_2
// (a 4-byte copy to the host).
inline float inv_sqrt_mean_square(const float* norm, int N, float eps) {
  float norm_host = 0.0f;
  MSKB_VENDOR_CHECK(cudaMemcpy(&norm_host, norm, sizeof(float), cudaMemcpyDeviceToHost));
  const double n2 = static_cast<double>(norm_host);
  return static_cast<float>(1.0 / std::sqrt(n2 * n2 / static_cast<double>(N) + static_cast<double>(eps)));
}

// y = alpha * a * w + b over the N-element FP32 vectors (s.vec), FP32 compute: cudnnOpTensor(MUL, alpha1 =
// alpha, beta = 0) writes alpha * a * w, then cudnnAddTensor(beta = 1) adds b.
inline void scale_mul_add(cudnnHandle_t h, const OpDesc& mul, const Shapes& s, float alpha, const float* a, const float* w,
                          const float* b, float* y) {
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cudnnOpTensor(h, mul.d, &alpha, s.vec.d, a, &one, s.vec.d, w, &zero, s.vec.d, y));
  MSKB_VENDOR_CHECK(cudnnAddTensor(h, &one, s.vec.d, b, &one, s.vec.d, y));
}

}  // namespace
}  // namespace mskb_cudnn_reduce

#pragma nv_diagnostic pop
#pragma GCC diagnostic pop
