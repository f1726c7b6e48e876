// Vendor contender: cuSPARSE generic SpMV on a COO descriptor (cusparseCreateConstCoo) built from a
// row-sorted copy of the entries: cuSPARSE's COO format requires entries sorted by row, and on an
// H200 it crashed (illegal memory access) on the task's unsorted entries. So each call first sorts
// the entries on the device: CUB radix sort (cub::DeviceRadixSort::SortPairs) of (row, col) keys
// packed into one integer (row in the high bits; 32-bit keys when rows and columns fit in 32 bits,
// else 64-bit) with the entry index as the value, then a gather of the sorted rows, columns and
// values into scratch. Then alpha = 1, beta = 1 so y accumulates, with the first algorithm cuSPARSE
// accepts of CUSPARSE_SPMV_COO_ALG1, ALG_DEFAULT, COO_ALG2. BF16: values and x as CUDA_R_16BF with
// CUDA_R_32F compute, and y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): cuSPARSE's COO
// kernels may add a row's partial sums into y in several updates, and a bf16 y would be rounded at
// each; the stage is rounded to bf16 once at the end. The entry point is not given the column count
// cuSPARSE needs, so a small kernel first reduces max(col_indices) + 1 on the device (plus a 4-byte
// copy). All of it (probe, sort, gather, staging) is counted in the time; scratch is grown on demand
// and freed at exit.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

template <class T>
void spmv_coo_any(int rows, int nnz, const T* values, const int* row_indices, const int* col_indices, const T* x, T* y,
                  cudaDataType type) {
  if (rows <= 0 || nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const int cols = mskb_sparse::column_count(col_indices, nnz);
  const mskb_sparse::SortedCoo<T> sorted = mskb_sparse::sort_coo_by_row(rows, cols, nnz, values, row_indices, col_indices);
  mskb_sparse::SpMat A;
  mskb_sparse::ConstVec X;
  MSKB_VENDOR_CHECK(cusparseCreateConstCoo(&A.d, rows, cols, nnz, sorted.rows, sorted.cols, sorted.vals, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, cols, x, type));
  // beta = 1: y accumulates (a BF16 y through the FP32 stage).
  static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_COO_ALG1, CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_COO_ALG2};
  mskb_sparse::spmv_accumulate(A.d, X.d, rows, y, type, algs, 3);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmv_coo(int rows, int nnz, const float* values, const int* row_indices, const int* col_indices, const float* x,
                         float* y) {
  spmv_coo_any(rows, nnz, values, row_indices, col_indices, x, y, CUDA_R_32F);
}

extern "C" void spmv_coo_bf16(int rows, int nnz, const __nv_bfloat16* values, const int* row_indices, const int* col_indices,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_coo_any(rows, nnz, values, row_indices, col_indices, x, y, CUDA_R_16BF);
}
