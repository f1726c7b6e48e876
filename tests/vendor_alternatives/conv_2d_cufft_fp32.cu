// ALTERNATIVE (issue 39), same ABI: conv_2d's cuFFT route with FP32 transforms instead of FP64 (half the
// bytes; the error grows with the image's norm and may approach the per-element FP32 tolerance on the
// large sweep's 2^26..2^28-pixel images). Measure: correctness on every sweep, then the time against
// tasks/scientific/conv_2d/vendor.cu.
#define MSKB_FFT_CONV_REAL float
// The vendor route itself, with the transforms' type replaced (kernels/include/mskb_fft_conv.cuh).
// mskb-link: cufft
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cufft.h>

#include "mskb_vendor.cuh"
#include "mskb_fft_conv.cuh"

extern "C" void conv_2d(const float* input, const float* kernel, float* output, int input_rows, int input_cols,
                        int kernel_rows, int kernel_cols) {
  if (kernel_rows > 0 && kernel_cols > 0 && input_rows >= kernel_rows && input_cols >= kernel_cols)
    mskb_fftconv::correlate<MSKB_FFT_CONV_REAL>(input, input_rows, input_cols, kernel, kernel_rows, kernel_cols, output);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void conv_2d_bf16(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                             int input_rows, int input_cols, int kernel_rows, int kernel_cols) {
  if (kernel_rows > 0 && kernel_cols > 0 && input_rows >= kernel_rows && input_cols >= kernel_cols)
    mskb_fftconv::correlate<MSKB_FFT_CONV_REAL>(input, input_rows, input_cols, kernel, kernel_rows, kernel_cols, output);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
