// Vendor contender: cuSPARSE generic SpMM on a CSR descriptor (cusparseCreateConstCsr) with row-major
// dense X (cols x K) and Y (rows x K), ld = K; alpha = 1, beta = 0 after zeroing the output (cuSPARSE
// does not promise that beta = 0 ignores the NaN the harness poisons Y with). Algorithm: the first one
// cuSPARSE accepts of CUSPARSE_SPMM_CSR_ALG2 (meant for row-major), ALG_DEFAULT, CSR_ALG3, CSR_ALG1
// (mixed precision is not supported by every algorithm). BF16: values and X as CUDA_R_16BF with
// CUDA_R_32F compute, and the output staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): with a BF16
// output, cuSPARSE failed the check on an H200 (errors of tens of % on small results, as from a row's
// partial sums rounded to bf16 more than once); the zeroed FP32 stage is rounded into Y once at the end
// (a BF16 Y directly only if cuSPARSE refuses the FP32 output for every algorithm). The entry point is
// not given nnz or the column count: one small kernel reads row_offsets[rows] and reduces
// max(col_indices) + 1 on the device, and one 8-byte copy brings both back (one host round trip; a
// column bound such as spmv_csr's INT_MAX would spare the reduction, but the dense X descriptor's row
// count then claims INT_MAX * K elements, which the SpMM algorithms may size work by; against an SpMM of
// K = 2048..4096 columns the probe is a fraction of a percent). All of it (probe, staging) is counted in
// the time; the stage is grown on demand and freed at exit.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

template <class T>
void spmm_csr_any(int rows, int K, const T* values, const int* col_indices, const int* row_offsets, const T* X, T* Y,
                  cudaDataType type) {
  const long long total = static_cast<long long>(rows) * K;
  if (total <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  // nnz and the column count in one probe (one kernel, one 8-byte copy: one host round trip).
  const mskb_sparse::CsrSize size = mskb_sparse::csr_size(row_offsets, rows, col_indices, 64LL * rows);
  const int nnz = size.nnz, cols = size.cols;
  if (nnz <= 0) {  // an empty matrix: Y = 0
    MSKB_VENDOR_CHECK(cudaMemsetAsync(Y, 0, static_cast<size_t>(total) * sizeof(T), 0));
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  mskb_sparse::SpMat A;
  mskb_sparse::ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, cols, nnz, row_offsets, col_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, cols, K, K, X, type, CUSPARSE_ORDER_ROW));
  static const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                           CUSPARSE_SPMM_CSR_ALG1};
  // Y = A * X: the output zeroed, then beta = 0 (a BF16 Y through the zeroed FP32 stage).
  if (!mskb_sparse::spmm_into_zeroed(A.d, B.d, rows, K, Y, type, algs, 4))
    mskb_sparse::no_algorithm("spmm_csr vendor: cusparseSpMM: no algorithm supports this configuration");
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmm_csr(int rows, int K, const float* values, const int* col_indices, const int* row_offsets, const float* X,
                         float* Y) {
  spmm_csr_any(rows, K, values, col_indices, row_offsets, X, Y, CUDA_R_32F);
}

extern "C" void spmm_csr_bf16(int rows, int K, const __nv_bfloat16* values, const int* col_indices, const int* row_offsets,
                              const __nv_bfloat16* X, __nv_bfloat16* Y) {
  spmm_csr_any(rows, K, values, col_indices, row_offsets, X, Y, CUDA_R_16BF);
}
