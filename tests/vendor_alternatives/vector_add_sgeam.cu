// Alternative vendor route for vector_add (not the shipped contender; same ABI, for measurement on the
// H200): fp32 cublasSgeam C = 1*A + 1*B on the vector viewed as an N x 1 column-major matrix (one
// cuBLAS call, 3N elements of traffic). cuBLAS has no bf16 geam: the bf16 entry point uses
// cublasAxpyEx after a device copy (the previous route), so only the fp32 row is of interest.
// mskb-link: cublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  const float one = 1.0f;
  if (N > 0) MSKB_VENDOR_CHECK(cublasSgeam(mskb_vendor::cublas(), CUBLAS_OP_N, CUBLAS_OP_N, N, 1, &one, A, N, &one, B, N, C, N));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f;
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(C, A, sizeof(__nv_bfloat16) * static_cast<size_t>(N), cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cublasAxpyEx(h, N, &one, CUDA_R_32F, B, CUDA_R_16BF, 1, C, CUDA_R_16BF, 1, CUDA_R_32F));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
