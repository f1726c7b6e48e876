// Vendor contender: cuBLAS. Row-major A (M x N) is a column-major N x M matrix with lda = N, so
// y = A x is y = (A_cm)^T x: cublasSgemv(OP_T) (fp32) and cublasGemmEx(OP_T, OP_N, m = M, n = 1, k = N)
// with CUDA_R_16BF A/x/y and CUBLAS_COMPUTE_32F (bf16), bf16 split-K reductions disallowed. beta = 0:
// the poisoned y is not read.
// mskb-link: cublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

// Split-K partial sums must not be reduced in bf16 (cuBLAS may do so for bf16 outputs by default), or
// long reductions fail the FP32-accumulate tolerance.
constexpr cublasMath_t kBf16Math = static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);

extern "C" void matrix_vector_mul(const float* A, const float* x, float* y, int M, int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSgemv(h, CUBLAS_OP_T, N, M, &one, A, N, x, 1, &zero, y, 1));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void matrix_vector_mul_bf16(const __nv_bfloat16* A, const __nv_bfloat16* x, __nv_bfloat16* y, int M, int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, kBf16Math));
  MSKB_VENDOR_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, 1, N, &one, A, CUDA_R_16BF, N, x, CUDA_R_16BF, N, &zero, y,
                                 CUDA_R_16BF, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
