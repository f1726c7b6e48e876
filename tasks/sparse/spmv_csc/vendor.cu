// Vendor contender: cuSPARSE generic SpMV on a CSC descriptor (cusparseCreateConstCsc),
// alpha = 1, beta = 1 so y accumulates; the first algorithm cuSPARSE accepts of CUSPARSE_SPMV_ALG_DEFAULT,
// CSR_ALG1, CSR_ALG2 (the CSR/CSC algorithms). BF16 through CUDA_R_16BF with
// CUDA_R_32F compute. nnz (which the descriptor needs) is col_offsets[columns]: one 4-byte copy.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdio>
#include <cstdlib>

#include "mskb_vendor.cuh"

namespace {

struct SpMat {
  cusparseConstSpMatDescr_t d{};
  ~SpMat() {
    if (d) cusparseDestroySpMat(d);
  }
};
struct ConstVec {
  cusparseConstDnVecDescr_t d{};
  ~ConstVec() {
    if (d) cusparseDestroyDnVec(d);
  }
};
struct Vec {
  cusparseDnVecDescr_t d{};
  ~Vec() {
    if (d) cusparseDestroyDnVec(d);
  }
};

bool unsupported(cusparseStatus_t s) { return s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_INVALID_VALUE; }

// y = A * x + beta * y with the first algorithm of `algs` that cuSPARSE accepts for this
// configuration (mixed precision is not supported by every algorithm); aborts if none does.
void spmv_first_supported(cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t X, cusparseDnVecDescr_t Y, float beta,
                          const cusparseSpMVAlg_t* algs, int n_algs) {
  cusparseHandle_t h = mskb_vendor::cusparse();
  const float alpha = 1.0f;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  for (int a = 0; a < n_algs; ++a) {
    size_t bytes = 0;
    cusparseStatus_t s = cusparseSpMV_bufferSize(h, op, &alpha, A, X, &beta, Y, CUDA_R_32F, algs[a], &bytes);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    void* buffer = mskb_vendor::workspace().get(bytes > 0 ? bytes : 256);  // never a null buffer
    s = cusparseSpMV(h, op, &alpha, A, X, &beta, Y, CUDA_R_32F, algs[a], buffer);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    return;
  }
  std::fprintf(stderr, "cusparseSpMV: no algorithm supports this configuration\n");
  std::abort();
}

void spmv_csc_any(int rows, int columns, const void* values, const int* row_indices, const int* col_offsets, const void* x,
                  void* y, cudaDataType type) {
  int nnz = 0;
  if (rows > 0 && columns > 0) MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, col_offsets + columns, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  SpMat A;
  ConstVec X;
  Vec Y;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsc(&A.d, rows, columns, nnz, col_offsets, row_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, columns, x, type));
  MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y, type));
  // beta = 1: y accumulates.
  static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
  spmv_first_supported(A.d, X.d, Y.d, 1.0f, algs, 3);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmv_csc(int rows, int columns, const float* values, const int* row_indices, const int* col_offsets,
                         const float* x, float* y) {
  spmv_csc_any(rows, columns, values, row_indices, col_offsets, x, y, CUDA_R_32F);
}

extern "C" void spmv_csc_bf16(int rows, int columns, const __nv_bfloat16* values, const int* row_indices, const int* col_offsets,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_csc_any(rows, columns, values, row_indices, col_offsets, x, y, CUDA_R_16BF);
}
