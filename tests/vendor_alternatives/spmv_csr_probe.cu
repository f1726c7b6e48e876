// ALTERNATIVE (issue 39), same ABI: spmv_csr's cuSPARSE route with the exact column count instead of the
// INT_MAX bound: one small kernel reduces max(col_indices) + 1 and reads row_offsets[rows], and one 8-byte
// copy brings both back (one host round trip, as the vendor's nnz copy, plus a pass over the column
// indices). Measure against tasks/sparse/spmv_csr/vendor.cu: if cuSPARSE picks a different (faster) kernel
// for a true column count, this one wins despite the pass; correctness must hold in both.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

void spmv_csr_any(int rows, const void* values, const int* col_indices, const int* row_offsets, const void* x, void* y,
                  cudaDataType type, size_t elem) {
  if (rows <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  MSKB_VENDOR_CHECK(cudaMemsetAsync(y, 0, static_cast<size_t>(rows) * elem, 0));
  const mskb_sparse::CsrSize size = mskb_sparse::csr_size(row_offsets, rows, col_indices, 64LL * rows);
  const int nnz = size.nnz, cols = size.cols;
  if (nnz <= 0) {  // all rows empty: y = 0
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  cusparseHandle_t h = mskb_vendor::cusparse();
  mskb_sparse::SpMat A;
  mskb_sparse::ConstVec X;
  mskb_sparse::Vec Y;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, cols, nnz, row_offsets, col_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, cols, x, type));
  MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y, type));
  const float alpha = 1.0f, beta = 0.0f;
  size_t bytes = 0;
  MSKB_VENDOR_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, X.d, &beta, Y.d, CUDA_R_32F,
                                            CUSPARSE_SPMV_CSR_ALG1, &bytes));
  void* buffer = mskb_vendor::workspace().get(std::max<size_t>(bytes, 1));
  MSKB_VENDOR_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, X.d, &beta, Y.d, CUDA_R_32F,
                                 CUSPARSE_SPMV_CSR_ALG1, buffer));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmv_csr(int rows, const float* values, const int* col_indices, const int* row_offsets, const float* x,
                         float* y) {
  spmv_csr_any(rows, values, col_indices, row_offsets, x, y, CUDA_R_32F, sizeof(float));
}

extern "C" void spmv_csr_bf16(int rows, const __nv_bfloat16* values, const int* col_indices, const int* row_offsets,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_csr_any(rows, values, col_indices, row_offsets, x, y, CUDA_R_16BF, sizeof(__nv_bfloat16));
}
