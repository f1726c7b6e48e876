// ALTERNATIVE (issue 39), same ABI: the route before, cuDNN cudnnConvolutionForward on one channel
// (implicit GEMM with N = 1; P 0.09 on the H200 at e192307). Kept for measurement against the cuFFT route.

// Vendor contender: cuDNN. cudnnConvolutionForward with CUDNN_CROSS_CORRELATION on an NCHW 1x1xHxW input
// and a 1x1xKHxKW filter (no padding, stride 1, one channel), FP32 compute. The algorithm comes from
// cudnnGetConvolutionForwardAlgorithm_v7, restricted to the GEMM-type algorithms (FFT and Winograd are
// skipped: their rounding error grows with the whole image's norm and fails the per-element FP32
// tolerance), with FMA math in FP32 (no TF32). BF16: CUDNN_DATA_BFLOAT16 tensors with FP32 compute; if
// cuDNN has no bf16 engine for the shape, the input and filter are widened to FP32 and the FP32 path is
// used, rounding the output to bf16 once. Large images are processed in bands of output rows (<= 2^25
// outputs, a multiple of 8 rows so every band pointer stays 16-byte aligned).
// (The cuDNN plumbing is kernels/include/mskb_cudnn_conv.cuh, shared with conv_1d.)
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>

#include "mskb_cudnn_conv.cuh"
#include "mskb_vendor.cuh"

namespace {

constexpr long long kBand = 1LL << 25;  // outputs per cudnnConvolutionForward call

// output[i][j] = sum_{m,n} input[i+m][j+n] * kernel[m][n], in bands of output rows (each band reads its
// rows + kernel_rows - 1 input rows). Returns false, before writing anything, if cuDNN cannot run it.
template <class T>
bool correlate(const T* input, const T* kernel, T* output, int rows, int cols, int kr, int kc) {
  const long long out_rows = static_cast<long long>(rows) - kr + 1, out_cols = static_cast<long long>(cols) - kc + 1;
  long long band = out_rows;
  if (out_rows * out_cols > kBand) band = std::max(8LL, kBand / out_cols / 8 * 8);
  band = std::min(band, out_rows);
  const long long rest = out_rows % band;
  mskb_conv::Plan* full = mskb_conv::plan_for<T>(band + kr - 1, cols, kr, kc);
  mskb_conv::Plan* tail = rest ? mskb_conv::plan_for<T>(rest + kr - 1, cols, kr, kc) : nullptr;
  return mskb_conv::run_bands(full, tail, out_rows, band, cols, out_cols, input, kernel, output);
}

}  // namespace

extern "C" void conv_2d(const float* input, const float* kernel, float* output, int input_rows, int input_cols,
                        int kernel_rows, int kernel_cols) {
  if (kernel_rows <= 0 || kernel_cols <= 0 || input_rows < kernel_rows || input_cols < kernel_cols) return;
  mskb_conv::forward_fp32(input, kernel, output, [&](const float* x, const float* w, float* y) {
    return correlate(x, w, y, input_rows, input_cols, kernel_rows, kernel_cols);
  });
}

extern "C" void conv_2d_bf16(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                             int input_rows, int input_cols, int kernel_rows, int kernel_cols) {
  if (kernel_rows <= 0 || kernel_cols <= 0 || input_rows < kernel_rows || input_cols < kernel_cols) return;
  const long long n = static_cast<long long>(input_rows) * input_cols, k = static_cast<long long>(kernel_rows) * kernel_cols;
  const long long m = (static_cast<long long>(input_rows) - kernel_rows + 1) * (input_cols - kernel_cols + 1);
  mskb_conv::forward_bf16(input, n, kernel, k, output, m, [&](const auto* x, const auto* w, auto* y) {
    return correlate(x, w, y, input_rows, input_cols, kernel_rows, kernel_cols);
  });
}
