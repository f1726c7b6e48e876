// Vendor contender: cuSPARSE generic SpMM on a COO descriptor (cusparseCreateConstCoo; the generic API
// allows unsorted indices) with row-major dense X (cols x K) and Y (rows x K), ld = K; alpha = 1,
// beta = 1 so Y accumulates. Algorithm: the first one cuSPARSE accepts of CUSPARSE_SPMM_COO_ALG4 (meant
// for row-major), ALG_DEFAULT, COO_ALG2, COO_ALG1, COO_ALG3. cuSPARSE restricts mixed precision to some
// algorithms; if it accepts none for this configuration, the entries are sorted by row on the device
// (CUB radix sort, a gather and a row-offset search: all counted) and cusparseSpMM runs on CSR. BF16
// through CUDA_R_16BF with CUDA_R_32F compute. The entry point is not given the column count: a small
// kernel reduces max(col_indices) + 1 on the device (one 4-byte copy), counted in the time.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>

#include "mskb_vendor.cuh"

namespace {

// Device scratch, grown on demand and freed at exit.
struct DeviceScratch {
  void* p = nullptr;
  size_t n = 0;
  void* get(size_t need) {
    if (need > n) {
      if (p) cudaFree(p);
      p = nullptr;
      n = 0;
      MSKB_VENDOR_CHECK(cudaMalloc(&p, need));
      n = need;
    }
    return p;
  }
  ~DeviceScratch() {
    if (p) cudaFree(p);
  }
};
DeviceScratch g_probe, g_csr;

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

__global__ void max_index_kernel(const int* idx, long long n, int* out) {
  int m = -1;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    m = max(m, idx[i]);
  m = __reduce_max_sync(0xffffffffu, m);
  if ((threadIdx.x & 31) == 0 && m >= 0) atomicMax(out, m);
}

// Number of columns of the matrix: max(col_indices) + 1 (at least 1).
int column_count(const int* col_indices, long long nnz) {
  int* d = static_cast<int*>(g_probe.get(sizeof(int)));
  MSKB_VENDOR_CHECK(cudaMemsetAsync(d, 0xFF, sizeof(int), 0));  // -1
  if (nnz > 0) {
    const long long blocks = std::min<long long>((nnz + 255) / 256, 4096);
    max_index_kernel<<<static_cast<unsigned>(blocks), 256>>>(col_indices, nnz, d);
    MSKB_VENDOR_CHECK(cudaGetLastError());
  }
  int h = -1;
  MSKB_VENDOR_CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
  return std::max(h + 1, 1);
}

struct SpMat {
  cusparseConstSpMatDescr_t d{};
  ~SpMat() {
    if (d) cusparseDestroySpMat(d);
  }
};
struct ConstMat {
  cusparseConstDnMatDescr_t d{};
  ~ConstMat() {
    if (d) cusparseDestroyDnMat(d);
  }
};
struct Mat {
  cusparseDnMatDescr_t d{};
  ~Mat() {
    if (d) cusparseDestroyDnMat(d);
  }
};

bool unsupported(cusparseStatus_t s) { return s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_INVALID_VALUE; }

// C = A * B + beta * C with the first algorithm of `algs` that cuSPARSE accepts; false if none does.
bool spmm_first_supported(cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B, cusparseDnMatDescr_t C, float beta,
                          const cusparseSpMMAlg_t* algs, int n_algs) {
  cusparseHandle_t h = mskb_vendor::cusparse();
  const float alpha = 1.0f;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  for (int a = 0; a < n_algs; ++a) {
    size_t bytes = 0;
    cusparseStatus_t s = cusparseSpMM_bufferSize(h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, algs[a], &bytes);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    void* buffer = mskb_vendor::workspace().get(bytes > 0 ? bytes : 256);  // never a null buffer
    s = cusparseSpMM(h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, algs[a], buffer);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    return true;
  }
  return false;
}

// ---- fallback: the entries sorted by row (CSR)

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

template <class T>
void spmm_coo_any(int rows, int nnz, int K, const T* values, const int* row_indices, const int* col_indices, const T* X, T* Y,
                  cudaDataType type) {
  if (static_cast<long long>(rows) * K <= 0 || nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const int cols = column_count(col_indices, nnz);
  ConstMat B;
  Mat C;
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, cols, K, K, X, type, CUSPARSE_ORDER_ROW));
  MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, Y, type, CUSPARSE_ORDER_ROW));
  const float beta = 1.0f;  // Y accumulates
  {
    SpMat A;
    MSKB_VENDOR_CHECK(cusparseCreateConstCoo(&A.d, rows, cols, nnz, row_indices, col_indices, values, CUSPARSE_INDEX_32I,
                                             CUSPARSE_INDEX_BASE_ZERO, type));
    static const cusparseSpMMAlg_t coo_algs[] = {CUSPARSE_SPMM_COO_ALG4, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_COO_ALG2,
                                                 CUSPARSE_SPMM_COO_ALG1, CUSPARSE_SPMM_COO_ALG3};
    if (spmm_first_supported(A.d, B.d, C.d, beta, coo_algs, 5)) {
      MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
      return;
    }
  }
  const CsrCopy<T> csr = sort_by_row(rows, nnz, values, row_indices, col_indices);
  SpMat A;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, cols, nnz, csr.offsets, csr.cols, csr.vals, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  static const cusparseSpMMAlg_t csr_algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                               CUSPARSE_SPMM_CSR_ALG1};
  if (!spmm_first_supported(A.d, B.d, C.d, beta, csr_algs, 4)) {
    std::fprintf(stderr, "spmm_coo vendor: cusparseSpMM supports neither COO nor CSR for this configuration\n");
    std::abort();
  }
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
