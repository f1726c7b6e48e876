// Vendor contender: cuSPARSE generic SpMV on a CSC descriptor (cusparseCreateConstCsc),
// CUSPARSE_SPMV_ALG_DEFAULT, alpha = 1, beta = 1 so y accumulates. BF16 through CUDA_R_16BF with
// CUDA_R_32F compute. nnz (which the descriptor needs) is col_offsets[columns]: one 4-byte copy.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

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

void spmv_csc_any(int rows, int columns, const void* values, const int* row_indices, const int* col_offsets, const void* x, void* y,
                  cudaDataType type) {
  int nnz = 0;
  if (rows > 0 && columns > 0)
    MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, col_offsets + columns, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  cusparseHandle_t h = mskb_vendor::cusparse();
  SpMat A;
  ConstVec X;
  Vec Y;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsc(&A.d, rows, columns, nnz, col_offsets, row_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, columns, x, type));
  MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y, type));
  const float alpha = 1.0f, beta = 1.0f;  // y accumulates
  size_t bytes = 0;
  MSKB_VENDOR_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, X.d, &beta, Y.d, CUDA_R_32F,
                                            CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  void* buffer = mskb_vendor::workspace().get(bytes);
  MSKB_VENDOR_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, X.d, &beta, Y.d, CUDA_R_32F,
                                 CUSPARSE_SPMV_ALG_DEFAULT, buffer));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmv_csc(int rows, int columns, const float* values, const int* row_indices, const int* col_offsets, const float* x,
                         float* y) {
  spmv_csc_any(rows, columns, values, row_indices, col_offsets, x, y, CUDA_R_32F);
}

extern "C" void spmv_csc_bf16(int rows, int columns, const __nv_bfloat16* values, const int* row_indices, const int* col_offsets,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_csc_any(rows, columns, values, row_indices, col_offsets, x, y, CUDA_R_16BF);
}
