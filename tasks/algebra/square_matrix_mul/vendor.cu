// Vendor contender: cuBLAS GEMM. cuBLAS is column-major, so the row-major C = A*B is computed as
// C^T = B^T * A^T (a row-major X viewed column-major is X^T with the same leading dimension).
// fp32: cublasSgemm with CUBLAS_DEFAULT_MATH (true FP32, no TF32 tensor cores).
// bf16: cublasGemmEx with CUDA_R_16BF A/B/C and CUBLAS_COMPUTE_32F, bf16 split-K reductions disallowed.
// mskb-link: cublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

// Split-K partial sums must not be reduced in bf16 (cuBLAS may do so for bf16 outputs by default), or
// long reductions fail the FP32-accumulate tolerance.
constexpr cublasMath_t kBf16Math = static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);

extern "C" void square_matrix_mul(float* A, float* B, float* C, int M) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  MSKB_VENDOR_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, B, M, A, M, &zero, C, M));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void square_matrix_mul_bf16(__nv_bfloat16* A, __nv_bfloat16* B, __nv_bfloat16* C, int M) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, kBf16Math));
  MSKB_VENDOR_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, B, CUDA_R_16BF, M, A, CUDA_R_16BF, M, &zero, C,
                                 CUDA_R_16BF, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
