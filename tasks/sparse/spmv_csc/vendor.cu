// Vendor contender: cuSPARSE generic SpMV on a CSC descriptor (cusparseCreateConstCsc), alpha = 1,
// beta = 1 so y accumulates; the first algorithm cuSPARSE accepts of CUSPARSE_SPMV_ALG_DEFAULT,
// CSR_ALG1, CSR_ALG2 (the CSR/CSC algorithms). BF16: values and x as CUDA_R_16BF with CUDA_R_32F
// compute, and y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): a CSC product scatters every
// column into y, so a bf16 y would be rounded once per entry; the stage is rounded to bf16 once at the
// end. nnz (which the descriptor needs) is col_offsets[columns]: one 4-byte copy. All counted.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

void spmv_csc_any(int rows, int columns, const void* values, const int* row_indices, const int* col_offsets, const void* x,
                  void* y, cudaDataType type) {
  int nnz = 0;
  if (rows > 0 && columns > 0) MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, col_offsets + columns, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  mskb_sparse::SpMat A;
  mskb_sparse::ConstVec X;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsc(&A.d, rows, columns, nnz, col_offsets, row_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, columns, x, type));
  // beta = 1: y accumulates (a BF16 y through the FP32 stage).
  static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
  mskb_sparse::spmv_accumulate(A.d, X.d, rows, y, type, algs, 3);
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
