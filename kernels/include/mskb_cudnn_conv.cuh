// The cuDNN convolution route shared by the conv_1d and conv_2d vendor contenders: a single-channel
// cudnnConvolutionForward (CUDNN_CROSS_CORRELATION, no padding, stride 1, FP32 compute) of a 1x1xHxW
// input with a 1x1xKHxKW filter. The algorithm comes from cudnnGetConvolutionForwardAlgorithm_v7,
// restricted to the GEMM-type algorithms (FFT and Winograd are skipped: their rounding error grows with
// the whole input's norm and fails the per-element FP32 tolerance), with FMA math in FP32 (no TF32).
// BF16: CUDNN_DATA_BFLOAT16 tensors with FP32 compute; if cuDNN has no bf16 engine for the shape, the
// input and filter are widened to FP32 and the FP32 path is used, rounding the output to bf16 once.
// Each task splits its outputs into bands (run_bands) of at most a few 2^24 outputs per call.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <map>
#include <memory>
#include <tuple>

#include "mskb_vendor.cuh"

namespace mskb_conv {
namespace {

constexpr size_t kMaxWorkspace = size_t{512} << 20;  // skip algorithms that want more

inline bool gemm_type(cudnnConvolutionFwdAlgo_t a) {
  return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

struct Plan {
  cudnnTensorDescriptor_t x{}, y{};
  cudnnFilterDescriptor_t w{};
  cudnnConvolutionDescriptor_t conv{};
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t ws = 0;
  bool usable = false;
  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

// Descriptors and algorithm for one call: input 1x1xHxW, filter 1x1xKHxKW, output 1x1x(H-KH+1)x(W-KW+1).
inline std::unique_ptr<Plan> make_plan(int h, int w, int kh, int kw, cudnnDataType_t dt) {
  auto p = std::make_unique<Plan>();
  cudnnHandle_t handle = mskb_vendor::cudnn();
  const bool bf16 = dt == CUDNN_DATA_BFLOAT16;
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&p->x));
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&p->y));
  MSKB_VENDOR_CHECK(cudnnCreateFilterDescriptor(&p->w));
  MSKB_VENDOR_CHECK(cudnnCreateConvolutionDescriptor(&p->conv));
  const cudnnMathType_t math = bf16 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
  if (cudnnSetTensor4dDescriptor(p->x, CUDNN_TENSOR_NCHW, dt, 1, 1, h, w) != CUDNN_STATUS_SUCCESS ||
      cudnnSetFilter4dDescriptor(p->w, dt, CUDNN_TENSOR_NCHW, 1, 1, kh, kw) != CUDNN_STATUS_SUCCESS ||
      cudnnSetTensor4dDescriptor(p->y, CUDNN_TENSOR_NCHW, dt, 1, 1, h - kh + 1, w - kw + 1) != CUDNN_STATUS_SUCCESS ||
      cudnnSetConvolution2dDescriptor(p->conv, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT) !=
          CUDNN_STATUS_SUCCESS ||
      cudnnSetConvolutionMathType(p->conv, math) != CUDNN_STATUS_SUCCESS)
    return p;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int count = 0;
  if (cudnnGetConvolutionForwardAlgorithm_v7(handle, p->x, p->w, p->conv, p->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count,
                                             perf) == CUDNN_STATUS_SUCCESS) {
    for (int i = 0; i < count; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS || !gemm_type(perf[i].algo)) continue;
      if (!bf16 && (perf[i].mathType == CUDNN_TENSOR_OP_MATH || perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION))
        continue;  // FP32 stays FP32 (no TF32)
      if (bf16 && cudnnSetConvolutionMathType(p->conv, perf[i].mathType) != CUDNN_STATUS_SUCCESS) continue;
      size_t ws = 0;
      if (cudnnGetConvolutionForwardWorkspaceSize(handle, p->x, p->w, p->conv, p->y, perf[i].algo, &ws) !=
              CUDNN_STATUS_SUCCESS ||
          ws > kMaxWorkspace)
        continue;
      p->algo = perf[i].algo;
      p->ws = ws;
      p->usable = true;
      return p;
    }
  }
  if (!bf16) {  // implicit GEMM covers every FP32 configuration
    size_t ws = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(handle, p->x, p->w, p->conv, p->y,
                                                CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws) == CUDNN_STATUS_SUCCESS) {
      p->algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
      p->ws = ws;
      p->usable = true;
    }
  }
  return p;
}

template <class T>
cudnnDataType_t dtype_of();
template <>
cudnnDataType_t dtype_of<float>() { return CUDNN_DATA_FLOAT; }
template <>
cudnnDataType_t dtype_of<__nv_bfloat16>() { return CUDNN_DATA_BFLOAT16; }

// The cached plan for a 1x1xHxW input and a 1x1xKHxKW filter of element type T.
template <class T>
Plan* plan_for(long long h, long long w, long long kh, long long kw) {
  static std::map<std::tuple<int, int, int, int, int>, std::unique_ptr<Plan>> cache;
  const int ih = static_cast<int>(h), iw = static_cast<int>(w), ikh = static_cast<int>(kh), ikw = static_cast<int>(kw);
  auto& slot = cache[std::make_tuple(ih, iw, ikh, ikw, static_cast<int>(dtype_of<T>()))];
  if (!slot) slot = make_plan(ih, iw, ikh, ikw, dtype_of<T>());
  return slot.get();
}

// Runs `total` bands of outputs in steps of `band`: the full plan for every whole step, the tail plan
// for the rest; band b0 reads input + b0 * in_stride and writes output + b0 * out_stride. Returns false,
// before writing anything, if cuDNN cannot run it (a plan not usable, or no bf16 engine after all).
template <class T>
bool run_bands(Plan* full, Plan* tail, long long total, long long band, long long in_stride, long long out_stride,
               const T* input, const T* kernel, T* output) {
  if (!full->usable || (tail && !tail->usable)) return false;
  const float one = 1.0f, zero = 0.0f;
  for (long long b0 = 0; b0 < total; b0 += band) {
    Plan* p = b0 + band <= total ? full : tail;
    void* ws = p->ws ? mskb_vendor::workspace().get(p->ws) : nullptr;
    const cudnnStatus_t st = cudnnConvolutionForward(mskb_vendor::cudnn(), &one, p->x, input + b0 * in_stride, p->w, kernel,
                                                     p->conv, p->algo, ws, p->ws, &zero, p->y, output + b0 * out_stride);
    if (st != CUDNN_STATUS_SUCCESS && dtype_of<T>() == CUDNN_DATA_BFLOAT16 && b0 == 0) {
      p->usable = false;  // no bf16 engine after all: let the caller widen
      return false;
    }
    MSKB_VENDOR_CHECK(st);
  }
  return true;
}

__global__ void widen(const __nv_bfloat16* in, float* out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}
__global__ void narrow(const float* in, __nv_bfloat16* out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}
inline unsigned blocks_for(long long n) { return static_cast<unsigned>((n + 255) / 256); }

// The FP32 entry point's body: correlate(input, kernel, output) (the task's banding, on float).
template <class Correlate>
void forward_fp32(const float* input, const float* kernel, float* output, Correlate&& correlate) {
  if (!correlate(input, kernel, output)) MSKB_VENDOR_CHECK(CUDNN_STATUS_NOT_SUPPORTED);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

// The BF16 entry point's body: correlate (a generic callable, run on bf16 and on float) on the bf16
// tensors; where cuDNN has no bf16 engine, on FP32 copies of the n inputs and k filter values, the m
// outputs rounded to bf16 once.
template <class Correlate>
void forward_bf16(const __nv_bfloat16* input, long long n, const __nv_bfloat16* kernel, long long k, __nv_bfloat16* output,
                  long long m, Correlate&& correlate) {
  if (!correlate(input, kernel, output)) {
    auto round_up = [](long long v) { return (v + 63) / 64 * 64; };  // keep every array 256-byte aligned
    static mskb_vendor::Workspace scratch;  // FP32 copies, apart from the library workspace; grown on demand
    float* buf = static_cast<float*>(scratch.get(static_cast<size_t>(round_up(n) + round_up(k) + m) * sizeof(float)));
    float *x = buf, *w = buf + round_up(n), *y = buf + round_up(n) + round_up(k);
    widen<<<blocks_for(n), 256>>>(input, x, n);
    widen<<<blocks_for(k), 256>>>(kernel, w, k);
    if (!correlate(static_cast<const float*>(x), static_cast<const float*>(w), y)) MSKB_VENDOR_CHECK(CUDNN_STATUS_NOT_SUPPORTED);
    narrow<<<blocks_for(m), 256>>>(y, output, m);
  }
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace mskb_conv
