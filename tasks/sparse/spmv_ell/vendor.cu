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
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>

#include "mskb_vendor.cuh"

namespace {

// Device scratch for the CSR copy, grown on demand and freed at exit.
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
DeviceScratch g_csr;

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

// counts[i] = non-padding slots of row i (counts[rows] = 0 for the scan); max_col = largest column id.
__global__ void ell_count_kernel(int rows, int width, const int* col_ids, int* counts, int* max_col) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > rows) return;
  if (i == rows) {
    counts[rows] = 0;
    return;
  }
  const int* row = col_ids + i * width;
  int c = 0, m = -1;
  for (int s = 0; s < width; ++s) {
    const int col = row[s];
    if (col >= 0) {
      ++c;
      m = max(m, col);
    }
  }
  counts[i] = c;
  if (m >= 0) atomicMax(max_col, m);
}

template <class T>
__global__ void ell_pack_kernel(int rows, int width, const int* col_ids, const T* values, const int* offsets, int* csr_cols,
                                T* csr_vals) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const long long base = i * width;
  int p = offsets[i];
  for (int s = 0; s < width; ++s) {
    const int col = col_ids[base + s];
    if (col >= 0) {
      csr_cols[p] = col;
      csr_vals[p] = values[base + s];
      ++p;
    }
  }
}

struct Csr {
  const int* offsets;
  const int* cols;
  const void* vals;
  int nnz;
  int ncols;
};

template <class T>
Csr ell_to_csr(int rows, int width, const T* values, const int* col_ids) {
  size_t scan_bytes = 0;
  MSKB_VENDOR_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<int*>(nullptr), static_cast<int*>(nullptr), rows + 1));
  const size_t slots = static_cast<size_t>(rows) * static_cast<size_t>(width);
  const size_t counts_b = align256((static_cast<size_t>(rows) + 1) * sizeof(int));
  const size_t offsets_b = align256((static_cast<size_t>(rows) + 2) * sizeof(int));  // + max column id
  const size_t cols_b = align256(std::max<size_t>(slots, 1) * sizeof(int));
  const size_t vals_b = align256(std::max<size_t>(slots, 1) * sizeof(T));
  char* base = static_cast<char*>(g_csr.get(counts_b + offsets_b + cols_b + vals_b + align256(scan_bytes)));
  int* counts = reinterpret_cast<int*>(base);
  int* offsets = reinterpret_cast<int*>(base + counts_b);
  int* cols = reinterpret_cast<int*>(base + counts_b + offsets_b);
  T* vals = reinterpret_cast<T*>(base + counts_b + offsets_b + cols_b);
  void* scan_tmp = base + counts_b + offsets_b + cols_b + vals_b;
  const int threads = 256;
  MSKB_VENDOR_CHECK(cudaMemsetAsync(offsets + rows + 1, 0xFF, sizeof(int), 0));  // max column id = -1
  ell_count_kernel<<<static_cast<unsigned>((static_cast<long long>(rows) + threads) / threads), threads>>>(
      rows, width, col_ids, counts, offsets + rows + 1);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(cub::DeviceScan::ExclusiveSum(scan_tmp, scan_bytes, counts, offsets, rows + 1));
  ell_pack_kernel<T><<<static_cast<unsigned>((static_cast<long long>(rows) + threads - 1) / threads), threads>>>(
      rows, width, col_ids, values, offsets, cols, vals);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  int host[2] = {0, -1};  // nnz, max column id
  MSKB_VENDOR_CHECK(cudaMemcpy(host, offsets + rows, sizeof host, cudaMemcpyDeviceToHost));
  return {offsets, cols, vals, host[0], std::max(host[1] + 1, 1)};
}

struct SpMat {
  cusparseConstSpMatDescr_t d{};
  ~SpMat() {
    if (d) cusparseDestroySpMat(d);
  }
};
struct ConstVec {
  cusparseConstDnVecDescr_t d{};
  ~ConstVec() {
    if (d) cusparseDestroyDnVec(d);
  }
};
struct Vec {
  cusparseDnVecDescr_t d{};
  ~Vec() {
    if (d) cusparseDestroyDnVec(d);
  }
};

bool unsupported(cusparseStatus_t s) { return s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_INVALID_VALUE; }

// y = A * x + beta * y with the first algorithm of `algs` that cuSPARSE accepts for this
// configuration (mixed precision is not supported by every algorithm); aborts if none does.
void spmv_first_supported(cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t X, cusparseDnVecDescr_t Y, float beta,
                          const cusparseSpMVAlg_t* algs, int n_algs) {
  cusparseHandle_t h = mskb_vendor::cusparse();
  const float alpha = 1.0f;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  for (int a = 0; a < n_algs; ++a) {
    size_t bytes = 0;
    cusparseStatus_t s = cusparseSpMV_bufferSize(h, op, &alpha, A, X, &beta, Y, CUDA_R_32F, algs[a], &bytes);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    void* buffer = mskb_vendor::workspace().get(bytes > 0 ? bytes : 256);  // never a null buffer
    s = cusparseSpMV(h, op, &alpha, A, X, &beta, Y, CUDA_R_32F, algs[a], buffer);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    return;
  }
  std::fprintf(stderr, "cusparseSpMV: no algorithm supports this configuration\n");
  std::abort();
}

template <class T>
void spmv_ell_any(int rows, int width, const T* values, const int* col_ids, const T* x, T* y, cudaDataType type) {
  if (rows <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  // cuSPARSE does not promise that beta = 0 ignores what y holds (the harness poisons it with NaN).
  MSKB_VENDOR_CHECK(cudaMemsetAsync(y, 0, static_cast<size_t>(rows) * sizeof(T), 0));
  const Csr csr = ell_to_csr(rows, std::max(width, 0), values, col_ids);
  if (csr.nnz > 0) {
    SpMat A;
    ConstVec X;
    Vec Y;
    MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, csr.ncols, csr.nnz, csr.offsets, csr.cols, csr.vals, CUSPARSE_INDEX_32I,
                                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, csr.ncols, x, type));
    MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y, type));
    static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG2};
    spmv_first_supported(A.d, X.d, Y.d, 0.0f, algs, 3);
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
