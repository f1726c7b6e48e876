// Vendor contender: cuSPARSE generic SpMM on a COO descriptor (cusparseCreateConstCoo) built from a
// row-sorted copy of the entries, with row-major dense X (cols x K) and Y (rows x K), ld = K; alpha =
// 1, beta = 1 so Y accumulates. cuSPARSE's COO format requires entries sorted by row: on an H200 it
// returned wrong results (nearly every output) for the task's unsorted entries. So each call first
// sorts the entries on the device: CUB radix sort (cub::DeviceRadixSort::SortPairs) of (row, col)
// keys packed into one integer (row in the high bits; 32-bit keys when rows and columns fit in 32
// bits, else 64-bit) with the entry index as the value, then a gather of the sorted rows, columns and
// values into scratch. Algorithm: the first one cuSPARSE accepts of CUSPARSE_SPMM_COO_ALG4 (meant for
// row-major), ALG_DEFAULT, COO_ALG2, COO_ALG1, COO_ALG3; cuSPARSE restricts mixed precision to some
// algorithms, and if it accepts none, row offsets are found by a binary search over the sorted rows
// and cusparseSpMM runs on CSR (the sorted columns and values). BF16: values and X as CUDA_R_16BF
// with CUDA_R_32F compute, and Y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): cuSPARSE's COO
// kernels may add a row's partial sums into Y in several updates, and a bf16 Y would be rounded at
// each; the stage is rounded to bf16 once at the end (a BF16 Y directly only if cuSPARSE refuses the
// FP32 output). The entry point is not given the column count: a small kernel reduces
// max(col_indices) + 1 on the device (one 4-byte copy). All of it (probe, sort, gather, staging) is
// counted in the time; scratch is grown on demand and freed at exit.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

// ---- fallback: CSR row offsets of the sorted entries (scratch grown on demand, freed at exit)

mskb_sparse::DeviceScratch g_offsets;

// offsets[r] = first position of a sorted row index >= r, r in [0, rows].
__global__ void row_offsets_kernel(int rows, long long nnz, const int* sorted_rows, int* offsets) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r > rows) return;
  long long lo = 0, hi = nnz;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (sorted_rows[mid] < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  offsets[r] = static_cast<int>(lo);
}

const int* row_offsets(int rows, int nnz, const int* sorted_rows) {
  int* offsets = static_cast<int*>(g_offsets.get((static_cast<size_t>(rows) + 1) * sizeof(int)));
  const long long n = static_cast<long long>(rows) + 1;
  row_offsets_kernel<<<mskb_sparse::blocks_for(n), mskb_sparse::kThreads>>>(rows, nnz, sorted_rows, offsets);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  return offsets;
}

template <class T>
void spmm_coo_any(int rows, int nnz, int K, const T* values, const int* row_indices, const int* col_indices, const T* X, T* Y,
                  cudaDataType type) {
  const long long out = static_cast<long long>(rows) * K;
  if (out <= 0 || nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const int cols = mskb_sparse::column_count(col_indices, nnz);
  const mskb_sparse::SortedCoo<T> sorted = mskb_sparse::sort_coo_by_row(rows, cols, nnz, values, row_indices, col_indices);
  mskb_sparse::ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, cols, K, K, X, type, CUSPARSE_ORDER_ROW));
  mskb_sparse::SpMat coo, csr;
  MSKB_VENDOR_CHECK(cusparseCreateConstCoo(&coo.d, rows, cols, nnz, sorted.rows, sorted.cols, sorted.vals, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, type));
  static const cusparseSpMMAlg_t coo_algs[] = {CUSPARSE_SPMM_COO_ALG4, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_COO_ALG2,
                                               CUSPARSE_SPMM_COO_ALG1, CUSPARSE_SPMM_COO_ALG3};
  static const cusparseSpMMAlg_t csr_algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                               CUSPARSE_SPMM_CSR_ALG1};
  // Y += A * X into the output (c, c_type): COO first, else CSR over the same sorted entries.
  auto attempt = [&](void* c, cudaDataType c_type) {
    mskb_sparse::Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    if (mskb_sparse::spmm_first_supported(coo.d, B.d, C.d, 1.0f, coo_algs, 5)) return true;  // beta = 1: Y accumulates
    if (!csr.d)
      MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&csr.d, rows, cols, nnz, row_offsets(rows, nnz, sorted.rows), sorted.cols,
                                               sorted.vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                               type));
    return mskb_sparse::spmm_first_supported(csr.d, B.d, C.d, 1.0f, csr_algs, 4);
  };
  // A BF16 Y through the FP32 stage.
  if (!mskb_sparse::accumulate_staged(out, Y, type, attempt))
    mskb_sparse::no_algorithm("spmm_coo vendor: cusparseSpMM supports neither COO nor CSR for this configuration");
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmm_coo(int rows, int nnz, int K, const float* values, const int* row_indices, const int* col_indices,
                         const float* X, float* Y) {
  spmm_coo_any(rows, nnz, K, values, row_indices, col_indices, X, Y, CUDA_R_32F);
}

extern "C" void spmm_coo_bf16(int rows, int nnz, int K, const __nv_bfloat16* values, const int* row_indices,
                              const int* col_indices, const __nv_bfloat16* X, __nv_bfloat16* Y) {
  spmm_coo_any(rows, nnz, K, values, row_indices, col_indices, X, Y, CUDA_R_16BF);
}
