// Vendor contender: cuSPARSE generic SpMM on a COO descriptor (cusparseCreateConstCoo; the generic API
// allows unsorted indices) with row-major dense X (cols x K) and Y (rows x K), ld = K; alpha = 1,
// beta = 1 so Y accumulates. Algorithm: the first one cuSPARSE accepts of CUSPARSE_SPMM_COO_ALG4 (meant
// for row-major), ALG_DEFAULT, COO_ALG2, COO_ALG1, COO_ALG3; cuSPARSE restricts mixed precision to some
// algorithms, and if it accepts none the entries are sorted by row on the device (CUB radix sort, a
// gather and a row-offset search) and cusparseSpMM runs on CSR. BF16: values and X as CUDA_R_16BF with
// CUDA_R_32F compute, and Y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): with unsorted entries
// every product is a separate update of Y, so a bf16 Y would be rounded once per entry; the stage is
// rounded to bf16 once at the end (a BF16 Y directly only if cuSPARSE refuses the FP32 output). The
// entry point is not given the column count: a small kernel reduces max(col_indices) + 1 on the device
// (one 4-byte copy). All of it is counted in the time.
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

// FP32 stage for a BF16 output (see the header), grown on demand and freed at exit.
struct Stage {
  float* p = nullptr;
  size_t n = 0;
  float* get(size_t need) {
    if (need > n) {
      if (p) cudaFree(p);
      p = nullptr;
      n = 0;
      MSKB_VENDOR_CHECK(cudaMalloc(&p, need * sizeof(float)));
      n = need;
    }
    return p;
  }
  ~Stage() {
    if (p) cudaFree(p);
  }
};
Stage g_stage;

__global__ void widen_kernel(long long n, const __nv_bfloat16* in, float* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}

__global__ void narrow_kernel(long long n, const float* in, __nv_bfloat16* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}

// The output cuSPARSE writes: y itself (FP32), or an FP32 copy of the BF16 y.
void* stage_output(long long n, void* y, cudaDataType type) {
  if (type != CUDA_R_16BF) return y;
  float* s = g_stage.get(static_cast<size_t>(n));
  widen_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(n, static_cast<const __nv_bfloat16*>(y), s);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  return s;
}

// Rounds the FP32 stage back into the BF16 y (once per element).
void unstage_output(long long n, void* staged, void* y, cudaDataType type) {
  if (type != CUDA_R_16BF) return;
  narrow_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(n, static_cast<const float*>(staged),
                                                                 static_cast<__nv_bfloat16*>(y));
  MSKB_VENDOR_CHECK(cudaGetLastError());
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
  const long long out = static_cast<long long>(rows) * K;
  if (out <= 0 || nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const int cols = column_count(col_indices, nnz);
  ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, cols, K, K, X, type, CUSPARSE_ORDER_ROW));
  SpMat coo, csr;
  MSKB_VENDOR_CHECK(cusparseCreateConstCoo(&coo.d, rows, cols, nnz, row_indices, col_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, type));
  static const cusparseSpMMAlg_t coo_algs[] = {CUSPARSE_SPMM_COO_ALG4, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_COO_ALG2,
                                               CUSPARSE_SPMM_COO_ALG1, CUSPARSE_SPMM_COO_ALG3};
  static const cusparseSpMMAlg_t csr_algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                               CUSPARSE_SPMM_CSR_ALG1};
  // Y += A * X into the output (c, c_type): COO first, else the row-sorted (CSR) copy.
  auto attempt = [&](void* c, cudaDataType c_type) {
    Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    if (spmm_first_supported(coo.d, B.d, C.d, 1.0f, coo_algs, 5)) return true;  // beta = 1: Y accumulates
    if (!csr.d) {
      const CsrCopy<T> sorted = sort_by_row(rows, nnz, values, row_indices, col_indices);
      MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&csr.d, rows, cols, nnz, sorted.offsets, sorted.cols, sorted.vals,
                                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    }
    return spmm_first_supported(csr.d, B.d, C.d, 1.0f, csr_algs, 4);
  };
  void* y_out = stage_output(out, Y, type);
  bool done = attempt(y_out, type == CUDA_R_16BF ? CUDA_R_32F : type);
  if (done)
    unstage_output(out, y_out, Y, type);
  else if (y_out != static_cast<void*>(Y))  // cuSPARSE refused BF16 in / FP32 out: a BF16 Y directly
    done = attempt(Y, type);
  if (!done) {
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
