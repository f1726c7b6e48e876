// ALTERNATIVE (issue 39), same ABI: the route before, cusparseSpMM on the CSC descriptor directly (the
// transposed-CSR scatter). Measure against tasks/sparse/spmm_csc/vendor.cu (csr2cscEx2, then CSR SpMM):
//   mskb run --task spmm_csc --kernel tests/vendor_alternatives/spmm_csc_csc_descriptor.cu --sweep large

// Vendor contender: cuSPARSE generic SpMM on a CSC descriptor (cusparseCreateConstCsc) with row-major
// dense X (columns x K) and Y (rows x K), ld = K; alpha = 1, beta = 1 so Y accumulates. Algorithm: the
// first one cuSPARSE accepts of CUSPARSE_SPMM_CSR_ALG2 (row-major), ALG_DEFAULT, CSR_ALG1 (the CSR/CSC
// algorithms); cuSPARSE restricts mixed precision to some algorithms (CSR_ALG3 is CSR-only), and if it
// accepts none the entries are sorted by row on the device (column ids expanded, CUB radix sort, a
// gather and a row-offset search) and cusparseSpMM runs on CSR. BF16: values and X as CUDA_R_16BF with
// CUDA_R_32F compute, and Y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): a CSC product scatters
// every column into Y, so a bf16 Y would be rounded once per entry; the stage is rounded to bf16 once at
// the end (a BF16 Y directly only if cuSPARSE refuses the FP32 output). nnz is col_offsets[columns]: one
// 4-byte copy. All of it is counted in the time.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cub/cub.cuh>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

using mskb_sparse::align256;

// ---- fallback: the entries sorted by row (CSR; scratch grown on demand, freed at exit)

mskb_sparse::DeviceScratch g_csr, g_cols;

__global__ void iota_kernel(int n, int* p) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = static_cast<int>(i);
}

template <class T>
__global__ void gather_kernel(int n, const int* perm, const int* cols, const T* vals, int* out_cols, T* out_vals) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    out_cols[i] = cols[perm[i]];
    out_vals[i] = vals[perm[i]];
  }
}

// offsets[r] = first position of a key >= r in the sorted keys, r in [0, rows].
__global__ void row_offsets_kernel(int rows, int nnz, const int* sorted_rows, int* offsets) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r > rows) return;
  int lo = 0, hi = nnz;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (sorted_rows[mid] < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  offsets[r] = lo;
}

template <class T>
struct CsrCopy {
  int* offsets;
  int* cols;
  T* vals;
};

template <class T>
CsrCopy<T> sort_by_row(int rows, int nnz, const T* values, const int* row_indices, const int* col_indices) {
  size_t sort_bytes = 0;
  MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<const int*>(nullptr),
                                                    static_cast<int*>(nullptr), static_cast<const int*>(nullptr),
                                                    static_cast<int*>(nullptr), nnz));
  const size_t ib = align256(static_cast<size_t>(nnz) * sizeof(int)), vb = align256(static_cast<size_t>(nnz) * sizeof(T));
  const size_t ob = align256((static_cast<size_t>(rows) + 1) * sizeof(int));
  char* base = static_cast<char*>(g_csr.get(4 * ib + vb + ob + align256(sort_bytes)));
  int* keys = reinterpret_cast<int*>(base);
  int* perm_in = reinterpret_cast<int*>(base + ib);
  int* perm = reinterpret_cast<int*>(base + 2 * ib);
  int* cols = reinterpret_cast<int*>(base + 3 * ib);
  T* vals = reinterpret_cast<T*>(base + 4 * ib);
  int* offsets = reinterpret_cast<int*>(base + 4 * ib + vb);
  void* tmp = base + 4 * ib + vb + ob;
  const int threads = 256;
  const unsigned blocks = static_cast<unsigned>((static_cast<long long>(nnz) + threads - 1) / threads);
  iota_kernel<<<blocks, threads>>>(nnz, perm_in);
  MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortPairs(tmp, sort_bytes, row_indices, keys, perm_in, perm, nnz));
  gather_kernel<T><<<blocks, threads>>>(nnz, perm, col_indices, values, cols, vals);
  row_offsets_kernel<<<static_cast<unsigned>((static_cast<long long>(rows) + threads) / threads), threads>>>(rows, nnz, keys,
                                                                                                             offsets);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  return {offsets, cols, vals};
}

// Column id of every stored entry (for the row sort).
__global__ void expand_columns_kernel(int columns, const int* col_offsets, int* col_of) {
  const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= columns) return;
  for (int p = col_offsets[j]; p < col_offsets[j + 1]; ++p) col_of[p] = static_cast<int>(j);
}

template <class T>
void spmm_csc_any(int rows, int columns, int K, const T* values, const int* row_indices, const int* col_offsets, const T* X, T* Y,
                  cudaDataType type) {
  const long long out = static_cast<long long>(rows) * K;
  int nnz = 0;
  if (out > 0 && columns > 0) MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, col_offsets + columns, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  mskb_sparse::ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, columns, K, K, X, type, CUSPARSE_ORDER_ROW));
  mskb_sparse::SpMat csc, csr;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsc(&csc.d, rows, columns, nnz, col_offsets, row_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  static const cusparseSpMMAlg_t csc_algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1};
  static const cusparseSpMMAlg_t csr_algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                               CUSPARSE_SPMM_CSR_ALG1};
  // Y += A * X into the output (c, c_type): CSC first, else the row-sorted (CSR) copy.
  auto attempt = [&](void* c, cudaDataType c_type) {
    mskb_sparse::Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    if (mskb_sparse::spmm_first_supported(csc.d, B.d, C.d, 1.0f, csc_algs, 3)) return true;  // beta = 1: Y accumulates
    if (!csr.d) {
      int* col_of = static_cast<int*>(g_cols.get(static_cast<size_t>(nnz) * sizeof(int)));
      expand_columns_kernel<<<static_cast<unsigned>((static_cast<long long>(columns) + 255) / 256), 256>>>(columns, col_offsets,
                                                                                                           col_of);
      MSKB_VENDOR_CHECK(cudaGetLastError());
      const CsrCopy<T> sorted = sort_by_row(rows, nnz, values, row_indices, col_of);
      MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&csr.d, rows, columns, nnz, sorted.offsets, sorted.cols, sorted.vals,
                                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    }
    return mskb_sparse::spmm_first_supported(csr.d, B.d, C.d, 1.0f, csr_algs, 4);
  };
  // A BF16 Y through the FP32 stage.
  if (!mskb_sparse::accumulate_staged(out, Y, type, attempt))
    mskb_sparse::no_algorithm("spmm_csc vendor: cusparseSpMM supports neither CSC nor CSR for this configuration");
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmm_csc(int rows, int columns, int K, const float* values, const int* row_indices, const int* col_offsets,
                         const float* X, float* Y) {
  spmm_csc_any(rows, columns, K, values, row_indices, col_offsets, X, Y, CUDA_R_32F);
}

extern "C" void spmm_csc_bf16(int rows, int columns, int K, const __nv_bfloat16* values, const int* row_indices,
                              const int* col_offsets, const __nv_bfloat16* X, __nv_bfloat16* Y) {
  spmm_csc_any(rows, columns, K, values, row_indices, col_offsets, X, Y, CUDA_R_16BF);
}
