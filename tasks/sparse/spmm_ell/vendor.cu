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

// Rounds the FP32 stage into the BF16 y, once per element (grid-stride, 64-bit indices: rows * K can
// exceed 2^31).
__global__ void narrow_kernel(long long n, const float* in, __nv_bfloat16* out) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

void narrow(long long n, const float* in, __nv_bfloat16* out) {
  const long long blocks = std::min<long long>((n + 255) / 256, 65536);
  narrow_kernel<<<static_cast<unsigned>(blocks), 256>>>(n, in, out);
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

template <class T>
void spmm_ell_any(int rows, int width, int K, const T* values, const int* col_ids, const T* X, T* Y, cudaDataType type) {
  const long long total = static_cast<long long>(rows) * K;
  if (total <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const Csr csr = ell_to_csr(rows, std::max(width, 0), values, col_ids);
  if (csr.nnz <= 0) {  // padding only: Y = 0
    MSKB_VENDOR_CHECK(cudaMemsetAsync(Y, 0, static_cast<size_t>(total) * sizeof(T), 0));
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  SpMat A;
  ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, csr.ncols, csr.nnz, csr.offsets, csr.cols, csr.vals, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, csr.ncols, K, K, X, type, CUSPARSE_ORDER_ROW));
  static const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                           CUSPARSE_SPMM_CSR_ALG1};
  // Output (c, c_type) = A * X: zeroed, then beta = 0.
  auto attempt = [&](void* c, cudaDataType c_type, size_t elem_bytes) {
    MSKB_VENDOR_CHECK(cudaMemsetAsync(c, 0, static_cast<size_t>(total) * elem_bytes, 0));
    Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    return spmm_first_supported(A.d, B.d, C.d, 0.0f, algs, 4);
  };
  bool done = false;
  if (type == CUDA_R_16BF) {
    float* stage = g_stage.get(static_cast<size_t>(total));
    done = attempt(stage, CUDA_R_32F, sizeof(float));
    if (done)
      narrow(total, stage, reinterpret_cast<__nv_bfloat16*>(Y));
    else  // cuSPARSE refused BF16 in / FP32 out: a BF16 Y directly
      done = attempt(Y, type, sizeof(T));
  } else {
    done = attempt(Y, type, sizeof(T));
  }
  if (!done) {
    std::fprintf(stderr, "spmm_ell vendor: cusparseSpMM: no algorithm supports this configuration\n");
    std::abort();
  }
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
