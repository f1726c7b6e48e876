// Vendor contender: cuSPARSE. Generic cuSPARSE has no classic ELL (its Blocked-ELL is an SpMM-only
// format), so the call compacts the ELL slots into CSR on the device (count kernel + CUB exclusive
// scan + pack kernel; the count kernel also finds the largest column id, and one 8-byte copy brings
// back nnz and the column count), then runs cusparseSpMV on the CSR descriptor
// (the first algorithm cuSPARSE accepts of CUSPARSE_SPMV_CSR_ALG1, ALG_DEFAULT, CSR_ALG2; alpha = 1,
// beta = 0 after zeroing y). The conversion is counted in the
// time. BF16 through CUDA_R_16BF with CUDA_R_32F compute.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

template <class T>
void spmv_ell_any(int rows, int width, const T* values, const int* col_ids, const T* x, T* y, cudaDataType type) {
  if (rows <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  // cuSPARSE does not promise that beta = 0 ignores what y holds (the harness poisons it with NaN).
  MSKB_VENDOR_CHECK(cudaMemsetAsync(y, 0, static_cast<size_t>(rows) * sizeof(T), 0));
  const mskb_sparse::Csr csr = mskb_sparse::ell_to_csr(rows, std::max(width, 0), values, col_ids);
  if (csr.nnz > 0) {
    mskb_sparse::SpMat A;
    mskb_sparse::ConstVec X;
    mskb_sparse::Vec Y;
    MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, csr.ncols, csr.nnz, csr.offsets, csr.cols, csr.vals, CUSPARSE_INDEX_32I,
                                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, csr.ncols, x, type));
    MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y, type));
    static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG2};
    if (!mskb_sparse::spmv_first_supported(A.d, X.d, Y.d, 0.0f, algs, 3))
      mskb_sparse::no_algorithm("cusparseSpMV: no algorithm supports this configuration");
  }
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmv_ell(int rows, int max_nnz_per_row, const float* values, const int* col_ids, const float* x, float* y) {
  spmv_ell_any(rows, max_nnz_per_row, values, col_ids, x, y, CUDA_R_32F);
}

extern "C" void spmv_ell_bf16(int rows, int max_nnz_per_row, const __nv_bfloat16* values, const int* col_ids,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_ell_any(rows, max_nnz_per_row, values, col_ids, x, y, CUDA_R_16BF);
}
