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
DeviceScratch g_csr, g_cols;

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

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
  ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, columns, K, K, X, type, CUSPARSE_ORDER_ROW));
  SpMat csc, csr;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsc(&csc.d, rows, columns, nnz, col_offsets, row_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  static const cusparseSpMMAlg_t csc_algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1};
  static const cusparseSpMMAlg_t csr_algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                               CUSPARSE_SPMM_CSR_ALG1};
  // Y += A * X into the output (c, c_type): CSC first, else the row-sorted (CSR) copy.
  auto attempt = [&](void* c, cudaDataType c_type) {
    Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    if (spmm_first_supported(csc.d, B.d, C.d, 1.0f, csc_algs, 3)) return true;  // beta = 1: Y accumulates
    if (!csr.d) {
      int* col_of = static_cast<int*>(g_cols.get(static_cast<size_t>(nnz) * sizeof(int)));
      expand_columns_kernel<<<static_cast<unsigned>((static_cast<long long>(columns) + 255) / 256), 256>>>(columns, col_offsets,
                                                                                                           col_of);
      MSKB_VENDOR_CHECK(cudaGetLastError());
      const CsrCopy<T> sorted = sort_by_row(rows, nnz, values, row_indices, col_of);
      MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&csr.d, rows, columns, nnz, sorted.offsets, sorted.cols, sorted.vals,
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
    std::fprintf(stderr, "spmm_csc vendor: cusparseSpMM supports neither CSC nor CSR for this configuration\n");
    std::abort();
  }
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
