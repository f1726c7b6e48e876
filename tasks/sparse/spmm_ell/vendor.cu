// Vendor contender: cuSPARSE. Blocked-ELL with block size 1 could take the arrays as they are, but it is
// built for large tensor-core blocks and does not document empty (-1) blocks before valid ones, so the
// call compacts the ELL slots into CSR on the device (count kernel + CUB exclusive scan + pack kernel;
// the count kernel also finds the largest column id, and one 8-byte copy brings back nnz and the column
// count) and runs cusparseSpMM on the CSR descriptor with row-major X (cols x K) and Y (rows x K),
// ld = K; alpha = 1, beta = 0 after zeroing the output. Algorithm: the first one cuSPARSE accepts of
// CUSPARSE_SPMM_CSR_ALG2 (row-major), ALG_DEFAULT, CSR_ALG3, CSR_ALG1. BF16: values and X as
// CUDA_R_16BF with CUDA_R_32F compute, and the output staged in FP32 (cuSPARSE's BF16-in / FP32-out
// mode): with a BF16 output, cuSPARSE failed the check on an H200 (errors of tens of % on small
// results, as from a row's partial sums rounded to bf16 more than once); the zeroed FP32 stage is
// rounded into Y once at the end (a BF16 Y directly only if cuSPARSE refuses the FP32 output for every
// algorithm). All of it (conversion, staging) is counted in the time; scratch and the stage are grown
// on demand and freed at exit.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

template <class T>
void spmm_ell_any(int rows, int width, int K, const T* values, const int* col_ids, const T* X, T* Y, cudaDataType type) {
  const long long total = static_cast<long long>(rows) * K;
  if (total <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const mskb_sparse::Csr csr = mskb_sparse::ell_to_csr(rows, std::max(width, 0), values, col_ids);
  if (csr.nnz <= 0) {  // padding only: Y = 0
    MSKB_VENDOR_CHECK(cudaMemsetAsync(Y, 0, static_cast<size_t>(total) * sizeof(T), 0));
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  mskb_sparse::SpMat A;
  mskb_sparse::ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, csr.ncols, csr.nnz, csr.offsets, csr.cols, csr.vals, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, csr.ncols, K, K, X, type, CUSPARSE_ORDER_ROW));
  static const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                           CUSPARSE_SPMM_CSR_ALG1};
  // Y = A * X: the output zeroed, then beta = 0 (a BF16 Y through the zeroed FP32 stage).
  if (!mskb_sparse::spmm_into_zeroed(A.d, B.d, rows, K, Y, type, algs, 4))
    mskb_sparse::no_algorithm("spmm_ell vendor: cusparseSpMM: no algorithm supports this configuration");
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmm_ell(int rows, int max_nnz_per_row, int K, const float* values, const int* col_ids, const float* X,
                         float* Y) {
  spmm_ell_any(rows, max_nnz_per_row, K, values, col_ids, X, Y, CUDA_R_32F);
}

extern "C" void spmm_ell_bf16(int rows, int max_nnz_per_row, int K, const __nv_bfloat16* values, const int* col_ids,
                              const __nv_bfloat16* X, __nv_bfloat16* Y) {
  spmm_ell_any(rows, max_nnz_per_row, K, values, col_ids, X, Y, CUDA_R_16BF);
}
