// ALTERNATIVE (issue 39), same ABI: conv_1d through cuFFT, FFT-based correlation in FP64
// (kernels/include/mskb_fft_conv.cuh, conv_2d's vendor route with one row). conv_1d ships no vendor: by
// estimate this route wins on the large sweep's 2^24-point signal with 1024 taps and loses on the 2^28-point
// signal with 32 taps (a 2^28-point FP64 transform pair moves ~20 GB against the direct route's ~2 GB) and on
// the launch-bound paper sweep. Measure it on both sweeps before reconsidering.
// mskb-link: cufft
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cufft.h>

#include "mskb_vendor.cuh"
#include "mskb_fft_conv.cuh"

extern "C" void conv_1d(const float* input, const float* kernel, float* output, int input_size, int kernel_size) {
  if (kernel_size > 0 && input_size >= kernel_size)
    mskb_fftconv::correlate<double>(input, 1, input_size, kernel, 1, kernel_size, output);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void conv_1d_bf16(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                             int input_size, int kernel_size) {
  if (kernel_size > 0 && input_size >= kernel_size)
    mskb_fftconv::correlate<double>(input, 1, input_size, kernel, 1, kernel_size, output);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
