// Vendor contender: cuBLAS strided-batched GEMM (cuTENSOR is not among the allowed libraries). For a
// fixed a and x, A[a,x,:,:] is a row-major b x y matrix and B[x,:,:] a row-major c x y matrix, so
// C_a (b x c) = sum over x of A[a,x] * B[x]^T: one strided-batched GEMM per x (batch over a, B shared
// with stride 0), accumulated with beta = 1 after the first. In cuBLAS's column-major view C_a^T (c x b,
// ldc = c) = B[x] (y x c stored, OP_T) times A[a,x]^T (y x b stored, OP_N), k = y.
// fp32: cublasSgemmStridedBatched (CUBLAS_DEFAULT_MATH). bf16: cublasGemmStridedBatchedEx with CUDA_R_16BF
// A/B, an FP32 C scratch and CUBLAS_COMPUTE_32F, then one rounding to bf16 by cub::DeviceTransform (accumulating across x in a
// bf16 C would round x_dim times).
// mskb-link: cublas
#include <cublas_v2.h>
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

namespace {
struct ToBf16 {
  __device__ __forceinline__ __nv_bfloat16 operator()(float v) const { return __float2bfloat16(v); }
};
}  // namespace

extern "C" void high_order_contraction(const float* A, const float* B, float* C, int a_dim, int b_dim, int c_dim, int x_dim,
                                       int y_dim) {
  cublasHandle_t h = mskb_vendor::cublas();
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const float one = 1.0f, zero = 0.0f;
  const long long a_stride = static_cast<long long>(x_dim) * b_dim * y_dim, c_stride = static_cast<long long>(b_dim) * c_dim;
  for (int x = 0; x < x_dim; ++x) {
    const float* bx = B + static_cast<long long>(x) * c_dim * y_dim;
    const float* ax = A + static_cast<long long>(x) * b_dim * y_dim;
    MSKB_VENDOR_CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, c_dim, b_dim, y_dim, &one, bx, y_dim, 0, ax, y_dim,
                                                a_stride, x == 0 ? &zero : &one, C, c_dim, c_stride, a_dim));
  }
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void high_order_contraction_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int a_dim, int b_dim,
                                            int c_dim, int x_dim, int y_dim) {
  cublasHandle_t h = mskb_vendor::cublas();
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  const float one = 1.0f, zero = 0.0f;
  const long long a_stride = static_cast<long long>(x_dim) * b_dim * y_dim, c_stride = static_cast<long long>(b_dim) * c_dim;
  const long long nc = static_cast<long long>(a_dim) * c_stride;
  float* cf = static_cast<float*>(mskb_vendor::workspace().get(sizeof(float) * static_cast<size_t>(nc)));
  for (int x = 0; x < x_dim; ++x) {
    const __nv_bfloat16* bx = B + static_cast<long long>(x) * c_dim * y_dim;
    const __nv_bfloat16* ax = A + static_cast<long long>(x) * b_dim * y_dim;
    MSKB_VENDOR_CHECK(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, c_dim, b_dim, y_dim, &one, bx, CUDA_R_16BF, y_dim, 0, ax,
                                                 CUDA_R_16BF, y_dim, a_stride, x == 0 ? &zero : &one, cf, CUDA_R_32F, c_dim, c_stride,
                                                 a_dim, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(cf, C, nc, ToBf16{}));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
