// Vendor contender: CUDA runtime cudaMemcpyAsync device-to-device on the legacy stream (fp32 and bf16).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

extern "C" void matrix_copy(float* A, float* B, int M, int N) {
  const size_t bytes = sizeof(float) * static_cast<size_t>(M) * static_cast<size_t>(N);
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(B, A, bytes, cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void matrix_copy_bf16(__nv_bfloat16* A, __nv_bfloat16* B, int M, int N) {
  const size_t bytes = sizeof(__nv_bfloat16) * static_cast<size_t>(M) * static_cast<size_t>(N);
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(B, A, bytes, cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
