// Vendor contender: cuSPARSE generic SpMV on a CSR descriptor (cusparseCreateConstCsr),
// CUSPARSE_SPMV_CSR_ALG1, alpha = 1, beta = 0 (y is zeroed first so the harness's NaN poison can never
// leak through beta * y). BF16 through CUDA_R_16BF values/vectors with CUDA_R_32F compute.
// What the ABI forces: the entry point is not given nnz, which the descriptor needs (cuSPARSE sizes its
// work by it), so nnz is read from row_offsets[rows] (one 4-byte device-to-host copy, a host round trip,
// counted in the time). It is not given the column count either, and that one needs no probe: a
// non-transposed CSR SpMV reads x only at the stored column indices, and the column count only sizes the
// descriptors (A is rows x cols, x has cols elements). Any bound >= max(col_indices) + 1 describes the
// same product, and every int column index is <= INT_MAX - 1, so cols = INT_MAX is always a valid bound
// (boundary cases: rows = 1 with one entry in column 0; a column index of INT_MAX - 1). The earlier
// route's probe (a max-reduction over all column indices and a second host round trip) is gone.
// The workspace is grown on demand (in the harness's warm-up) and freed at exit.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <climits>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

// Columns of the descriptor: an upper bound of max(col_indices) + 1 (see above).
constexpr int kColumnBound = INT_MAX;

void spmv_csr_any(int rows, const void* values, const int* col_indices, const int* row_offsets, const void* x, void* y,
                  cudaDataType type, size_t elem) {
  if (rows <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  MSKB_VENDOR_CHECK(cudaMemsetAsync(y, 0, static_cast<size_t>(rows) * elem, 0));
  int nnz = 0;
  MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, row_offsets + rows, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {  // all rows empty: y = 0
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  cusparseHandle_t h = mskb_vendor::cusparse();
  mskb_sparse::SpMat A;
  mskb_sparse::ConstVec X;
  mskb_sparse::Vec Y;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, kColumnBound, nnz, row_offsets, col_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, kColumnBound, x, type));
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
