// ALTERNATIVE (issue 39), same ABI: the route before, cuDNN cudnnConvolutionForward on one channel
// (P 0.48 / 0.18 paper, 0.38 / 0.09 large, fp32 / bf16, on the H200 at e192307); conv_1d has no vendor now.

// Vendor contender: cuDNN. cudnnConvolutionForward with CUDNN_CROSS_CORRELATION on an NCHW 1x1x1xW input
// and a 1x1x1xk filter (no padding, stride 1), FP32 compute. The algorithm comes from
// cudnnGetConvolutionForwardAlgorithm_v7, restricted to the GEMM-type algorithms (FFT and Winograd are
// skipped: their rounding error grows with the whole signal's norm and fails the per-element FP32
// tolerance), with FMA math in FP32 (no TF32). BF16: CUDNN_DATA_BFLOAT16 tensors with FP32 compute; if
// cuDNN has no bf16 engine for the shape, the input and filter are widened to FP32 and the FP32 path is
// used, rounding the output to bf16 once. Very long signals are processed in chunks of 2^24 outputs.
// (The cuDNN plumbing is kernels/include/mskb_cudnn_conv.cuh, shared with conv_2d.)
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "mskb_cudnn_conv.cuh"
#include "mskb_vendor.cuh"

namespace {

constexpr long long kChunk = 1LL << 24;  // outputs per cudnnConvolutionForward call

// output[i] = sum_t input[i + t] * kernel[t] for i < n - k + 1, in chunks of kChunk outputs (each chunk
// reads its kChunk + k - 1 inputs). Returns false, before writing anything, if cuDNN cannot run it.
template <class T>
bool correlate(const T* input, const T* kernel, T* output, int n, int k) {
  const long long out_len = static_cast<long long>(n) - k + 1;
  const long long chunk = out_len < kChunk ? out_len : kChunk;
  const long long rest = out_len % chunk;
  mskb_conv::Plan* full = mskb_conv::plan_for<T>(1, chunk + k - 1, 1, k);
  mskb_conv::Plan* tail = rest ? mskb_conv::plan_for<T>(1, rest + k - 1, 1, k) : nullptr;
  return mskb_conv::run_bands(full, tail, out_len, chunk, 1, 1, input, kernel, output);
}

}  // namespace

extern "C" void conv_1d(const float* input, const float* kernel, float* output, int input_size, int kernel_size) {
  if (kernel_size <= 0 || input_size < kernel_size) return;
  mskb_conv::forward_fp32(input, kernel, output,
                          [&](const float* x, const float* w, float* y) { return correlate(x, w, y, input_size, kernel_size); });
}

extern "C" void conv_1d_bf16(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                             int input_size, int kernel_size) {
  if (kernel_size <= 0 || input_size < kernel_size) return;
  const long long n = input_size, k = kernel_size, m = n - k + 1;
  mskb_conv::forward_bf16(input, n, kernel, k, output, m,
                          [&](const auto* x, const auto* w, auto* y) { return correlate(x, w, y, input_size, kernel_size); });
}
