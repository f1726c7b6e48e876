// Vendor contender: cuBLAS cublasSgeam(OP_T) (fp32) and cuBLASLt cublasLtMatrixTransform(TRANSA = T) with
// CUDA_R_16BF layouts and FP32 scale (bf16; cuBLAS has no bf16 geam). Row-major A (M x N) is read as a
// column-major N x M matrix; B (N x M row-major) is written as a column-major M x N matrix = op(A).
// The beta operand is A itself (fp32) or absent (bf16), so a poisoned B is never read. The cuBLASLt
// descriptors are made once per shape and cached (they were created and destroyed in every call before).
// mskb-link: cublas cublasLt
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

namespace {
cublasLtHandle_t cublaslt() {
  static mskb_vendor::Handle<cublasLtHandle_t, decltype(&cublasLtCreate), decltype(&cublasLtDestroy)> h(&cublasLtCreate,
                                                                                                       &cublasLtDestroy);
  return h.h;
}
}  // namespace

extern "C" void matrix_transpose(const float* A, float* B, int M, int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_T, M, N, &one, A, N, &zero, A, N, B, M));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

namespace {
// The transform descriptor is made once per process, the two layouts once per shape (M, N).
struct LtTranspose {
  cublasLtMatrixTransformDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, c = nullptr;
  int m = -1, n = -1;
  LtTranspose() {
    const cublasOperation_t trans = CUBLAS_OP_T;
    MSKB_VENDOR_CHECK(cublasLtMatrixTransformDescCreate(&desc, CUDA_R_32F));
    MSKB_VENDOR_CHECK(cublasLtMatrixTransformDescSetAttribute(desc, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &trans, sizeof(trans)));
  }
  ~LtTranspose() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (a) cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixTransformDescDestroy(desc);
  }
  LtTranspose(const LtTranspose&) = delete;
  LtTranspose& operator=(const LtTranspose&) = delete;
  void prepare(int M, int N) {
    if (M == m && N == n) return;
    if (c) MSKB_VENDOR_CHECK(cublasLtMatrixLayoutDestroy(c));
    if (a) MSKB_VENDOR_CHECK(cublasLtMatrixLayoutDestroy(a));
    a = c = nullptr;
    MSKB_VENDOR_CHECK(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, static_cast<uint64_t>(N), static_cast<uint64_t>(M), N));
    MSKB_VENDOR_CHECK(cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, static_cast<uint64_t>(M), static_cast<uint64_t>(N), M));
    m = M;
    n = N;
  }
};
}  // namespace

extern "C" void matrix_transpose_bf16(const __nv_bfloat16* A, __nv_bfloat16* B, int M, int N) {
  cublasLtHandle_t lt = cublaslt();
  static LtTranspose t;
  t.prepare(M, N);
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasLtMatrixTransform(lt, t.desc, &one, A, t.a, &zero, nullptr, nullptr, B, t.c, 0));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
