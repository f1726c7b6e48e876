// Vendor contender: cuBLAS GEMM. cuBLAS is column-major, so the row-major C = A*B is computed as
// C^T = B^T * A^T: a row-major X viewed column-major is X^T with the same leading dimension.
// fp32: cublasSgemm with CUBLAS_DEFAULT_MATH (true FP32, no TF32 tensor cores).
// bf16: cublasGemmEx with CUDA_R_16BF A/B/C and CUBLAS_COMPUTE_32F; split-K partial sums may not be
// reduced in bf16 (CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION), or K=8191 fails the FP32-accumulate tolerance.
// mskb-link: cublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

extern "C" void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  MSKB_VENDOR_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void matrix_mul_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  MSKB_VENDOR_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16BF, N, A, CUDA_R_16BF, K, &zero, C,
                                 CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
