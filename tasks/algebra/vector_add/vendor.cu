// Vendor contender: cuBLAS. C = A (device copy), then C += 1 * B (axpy).
// mskb-link: cublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f;
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(C, A, sizeof(float) * static_cast<size_t>(N), cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cublasSaxpy(h, N, &one, B, 1, C, 1));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f;
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(C, A, sizeof(__nv_bfloat16) * static_cast<size_t>(N), cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cublasAxpyEx(h, N, &one, CUDA_R_32F, B, CUDA_R_16BF, 1, C, CUDA_R_16BF, 1, CUDA_R_32F));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
