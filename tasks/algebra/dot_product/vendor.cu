// Vendor contender: cuBLAS. fp32: cublasSdot writing the result straight into the device scalar
// (device pointer mode). bf16: cublasDotEx only supports a bf16 result for bf16 inputs (the scalar
// would be rounded to 8 mantissa bits), so the closest cuBLAS route with an FP32 result is a 1x1xN
// cublasGemmEx: A = X^T (1 x N), B = Y (N x 1), CUDA_R_16BF inputs, CUDA_R_32F output, COMPUTE_32F.
// mskb-link: cublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  cublasPointerMode_t old{};
  MSKB_VENDOR_CHECK(cublasGetPointerMode(h, &old));
  MSKB_VENDOR_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  MSKB_VENDOR_CHECK(cublasSdot(h, N, X, 1, Y, 1, loss));
  MSKB_VENDOR_CHECK(cublasSetPointerMode(h, old));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f, zero = 0.0f;
  // Column-major: C(1x1) = op(A)(1xN) * B(Nx1); A is stored N x 1 (lda = N) and transposed.
  MSKB_VENDOR_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 1, 1, N, &one, X, CUDA_R_16BF, N, Y, CUDA_R_16BF, N,
                                 &zero, loss, CUDA_R_32F, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
