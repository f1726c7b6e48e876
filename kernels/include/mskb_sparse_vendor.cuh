// Support for the sparse tasks' cuSPARSE vendor contenders (tasks/sparse/*/vendor.cu): RAII cuSPARSE
// descriptors, "the first algorithm cuSPARSE accepts" SpMV / SpMM loops, device scratch grown on demand
// and freed at exit, the column-count probe (max index + 1), the FP32 stage for BF16 outputs, the COO sort
// by (row, col) and the ELL -> CSR compaction. Include after <cusparse.h> and "mskb_vendor.cuh".
// Everything here has internal linkage (an unnamed namespace): each vendor library keeps its own scratch,
// created on first use and freed at exit. Launches go to the legacy default stream (0).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>

#include "mskb_vendor.cuh"

namespace mskb_sparse {
namespace {

// ---- device scratch and launch shapes

// Device scratch, grown on demand and freed at exit.
using DeviceScratch = mskb_vendor::Workspace;

constexpr int kThreads = 256;
// ceil(n / 256) blocks of 256 threads.
inline unsigned blocks_for(long long n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }
inline size_t align256(size_t b) { return (b + 255) / 256 * 256; }

[[noreturn]] inline void no_algorithm(const char* message) {
  std::fprintf(stderr, "%s\n", message);
  std::abort();
}

// ---- the column count: max(index) + 1, reduced on the device

// The max over a full warp's lanes: one redux instruction from sm_80 on, five shuffles before
// (sm_75, Turing, has no __reduce_max_sync).
__device__ __forceinline__ int warp_max(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
  return v;
#endif
}

__global__ void max_index_kernel(const int* idx, long long n, int* out) {
  int m = -1;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    m = max(m, idx[i]);
  m = warp_max(m);
  if ((threadIdx.x & 31) == 0 && m >= 0) atomicMax(out, m);
}

// Number of columns of the matrix: max(col_indices) + 1 (at least 1). One small kernel (at most 4096
// blocks, grid-stride) into one device int, and a 4-byte copy.
inline int column_count(const int* col_indices, long long nnz) {
  static DeviceScratch probe;
  int* d = static_cast<int*>(probe.get(sizeof(int)));
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

// The column count and nnz of a CSR matrix in one probe: one small kernel reduces max(col_indices) + 1
// over the entries (at most 4096 blocks, grid-stride; nnz read from row_offsets[rows] on the device) and
// one 8-byte copy brings back both: the two values the entry point is not given, for one host round trip.
__global__ void csr_probe_kernel(const int* row_offsets, int rows, const int* col_indices, int* out) {
  const int nnz = row_offsets[rows];
  if (blockIdx.x == 0 && threadIdx.x == 0) out[1] = nnz;
  int m = -1;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < nnz;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    m = max(m, col_indices[i]);
  m = warp_max(m);
  if ((threadIdx.x & 31) == 0 && m >= 0) atomicMax(out, m);
}

struct CsrSize {
  int nnz;
  int cols;  // max(col_indices) + 1, at least 1
};

// The CSR matrix's nnz and column count; `nnz_hint` (an upper bound of nnz, e.g. rows * cols of the
// sweep, or any positive number) only sizes the probe's grid.
inline CsrSize csr_size(const int* row_offsets, int rows, const int* col_indices, long long nnz_hint) {
  static DeviceScratch probe;
  int* d = static_cast<int*>(probe.get(2 * sizeof(int)));
  MSKB_VENDOR_CHECK(cudaMemsetAsync(d, 0xFF, sizeof(int), 0));  // max column id = -1
  const long long blocks = std::max<long long>(1, std::min<long long>((nnz_hint + 255) / 256, 4096));
  csr_probe_kernel<<<static_cast<unsigned>(blocks), 256>>>(row_offsets, rows, col_indices, d);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  int h[2] = {-1, 0};
  MSKB_VENDOR_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  return {h[1], std::max(h[0] + 1, 1)};
}

// ---- the FP32 stage for a BF16 output (rounded into the output once at the end)

inline float* fp32_stage(size_t n) {
  static DeviceScratch stage;
  return static_cast<float*>(stage.get(n * sizeof(float)));
}

__global__ void widen_kernel(long long n, const __nv_bfloat16* in, float* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}

// Grid-stride, 64-bit indices (rows * K can exceed 2^31).
__global__ void narrow_kernel(long long n, const float* in, __nv_bfloat16* out) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

// The output cuSPARSE accumulates into: y itself (FP32), or an FP32 copy of the BF16 y (one thread per
// element).
inline void* stage_output(long long n, void* y, cudaDataType type) {
  if (type != CUDA_R_16BF) return y;
  float* s = fp32_stage(static_cast<size_t>(n));
  widen_kernel<<<blocks_for(n), kThreads>>>(n, static_cast<const __nv_bfloat16*>(y), s);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  return s;
}

// Rounds the FP32 stage back into the BF16 y (once per element; one thread per element).
inline void unstage_output(long long n, void* staged, void* y, cudaDataType type) {
  if (type != CUDA_R_16BF) return;
  narrow_kernel<<<blocks_for(n), kThreads>>>(n, static_cast<const float*>(staged), static_cast<__nv_bfloat16*>(y));
  MSKB_VENDOR_CHECK(cudaGetLastError());
}

// Rounds n FP32 values into BF16, once per element (at most 65536 blocks, grid-stride).
inline void narrow(long long n, const float* in, __nv_bfloat16* out) {
  const long long blocks = std::min<long long>((n + 255) / 256, 65536);
  narrow_kernel<<<static_cast<unsigned>(blocks), 256>>>(n, in, out);
  MSKB_VENDOR_CHECK(cudaGetLastError());
}

// Runs attempt(c, c_type), which adds into the output c (beta = 1): for BF16 into the FP32 stage of y
// (rounded into y once after), or, if cuSPARSE refuses that, into the BF16 y directly. False if neither
// attempt runs.
template <class Attempt>
bool accumulate_staged(long long n, void* y, cudaDataType type, Attempt attempt) {
  void* y_out = stage_output(n, y, type);
  bool done = attempt(y_out, type == CUDA_R_16BF ? CUDA_R_32F : type);
  if (done)
    unstage_output(n, y_out, y, type);
  else if (y_out != y)  // cuSPARSE refused BF16 in / FP32 out: a BF16 y directly
    done = attempt(y, type);
  return done;
}

// ---- cuSPARSE descriptors (RAII) and the algorithm loops

struct SpMat {
  cusparseConstSpMatDescr_t d{};
  SpMat() = default;
  SpMat(const SpMat&) = delete;
  SpMat& operator=(const SpMat&) = delete;
  ~SpMat() {
    if (d) cusparseDestroySpMat(d);
  }
};
struct ConstVec {
  cusparseConstDnVecDescr_t d{};
  ConstVec() = default;
  ConstVec(const ConstVec&) = delete;
  ConstVec& operator=(const ConstVec&) = delete;
  ~ConstVec() {
    if (d) cusparseDestroyDnVec(d);
  }
};
struct Vec {
  cusparseDnVecDescr_t d{};
  Vec() = default;
  Vec(const Vec&) = delete;
  Vec& operator=(const Vec&) = delete;
  ~Vec() {
    if (d) cusparseDestroyDnVec(d);
  }
};
struct ConstMat {
  cusparseConstDnMatDescr_t d{};
  ConstMat() = default;
  ConstMat(const ConstMat&) = delete;
  ConstMat& operator=(const ConstMat&) = delete;
  ~ConstMat() {
    if (d) cusparseDestroyDnMat(d);
  }
};
struct Mat {
  cusparseDnMatDescr_t d{};
  Mat() = default;
  Mat(const Mat&) = delete;
  Mat& operator=(const Mat&) = delete;
  ~Mat() {
    if (d) cusparseDestroyDnMat(d);
  }
};

inline bool unsupported(cusparseStatus_t s) { return s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_INVALID_VALUE; }

// y = A * x + beta * y with the first algorithm of `algs` that cuSPARSE accepts for this
// configuration (mixed precision is not supported by every algorithm); false if none does.
inline bool spmv_first_supported(cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t X, cusparseDnVecDescr_t Y, float beta,
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
    return true;
  }
  return false;
}

// C = A * B + beta * C with the first algorithm of `algs` that cuSPARSE accepts; false if none does.
inline bool spmm_first_supported(cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B, cusparseDnMatDescr_t C, float beta,
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

// y (rows, of `type`) += A * x with the first algorithm of `algs` cuSPARSE accepts (beta = 1), through
// accumulate_staged (an FP32 stage for a BF16 y); aborts if no algorithm runs.
inline void spmv_accumulate(cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t X, int rows, void* y, cudaDataType type,
                            const cusparseSpMVAlg_t* algs, int n_algs) {
  auto attempt = [&](void* c, cudaDataType c_type) {
    Vec Y;
    MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, c, c_type));
    return spmv_first_supported(A, X, Y.d, 1.0f, algs, n_algs);
  };
  if (!accumulate_staged(rows, y, type, attempt)) no_algorithm("cusparseSpMV: no algorithm supports this configuration");
}

// Y (rows x K, row-major, ld = K) = A * B with beta = 0 after zeroing the output, with the first algorithm
// of `algs` cuSPARSE accepts. BF16: the output is a zeroed FP32 stage rounded into Y once at the end (a
// BF16 Y directly only if cuSPARSE refuses the FP32 output for every algorithm). False if none runs.
template <class T>
bool spmm_into_zeroed(cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B, int rows, int K, T* Y, cudaDataType type,
                      const cusparseSpMMAlg_t* algs, int n_algs) {
  const long long total = static_cast<long long>(rows) * K;
  auto attempt = [&](void* c, cudaDataType c_type, size_t elem_bytes) {
    MSKB_VENDOR_CHECK(cudaMemsetAsync(c, 0, static_cast<size_t>(total) * elem_bytes, 0));
    Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    return spmm_first_supported(A, B, C.d, 0.0f, algs, n_algs);
  };
  bool done = false;
  if (type == CUDA_R_16BF) {
    float* stage = fp32_stage(static_cast<size_t>(total));
    done = attempt(stage, CUDA_R_32F, sizeof(float));
    if (done)
      narrow(total, stage, reinterpret_cast<__nv_bfloat16*>(Y));
    else  // cuSPARSE refused BF16 in / FP32 out: a BF16 Y directly
      done = attempt(Y, type, sizeof(T));
  } else {
    done = attempt(Y, type, sizeof(T));
  }
  return done;
}

// ---- the COO entries sorted by row, then column (cuSPARSE's COO format requires row-sorted entries)

// Bits that hold every index in [0, n): 0 for n <= 1.
inline int index_bits(long long n) {
  int b = 0;
  while (b < 62 && (1LL << b) < n) ++b;
  return b;
}

// keys[i] = row << col_bits | col (row-major order), perm[i] = i.
template <class Key>
__global__ void make_keys_kernel(long long n, int col_bits, const int* rows, const int* cols, Key* keys, int* perm) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    keys[i] = (static_cast<Key>(static_cast<unsigned>(rows[i])) << col_bits) | static_cast<Key>(static_cast<unsigned>(cols[i]));
    perm[i] = static_cast<int>(i);
  }
}

// The sorted row and column of each sorted key, and the value of the entry it came from.
template <class Key, class T>
__global__ void coo_gather_kernel(long long n, int col_bits, const Key* keys, const int* perm, const T* vals, int* out_rows,
                                  int* out_cols, T* out_vals) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const Key k = keys[i];
    out_rows[i] = static_cast<int>(k >> col_bits);
    out_cols[i] = static_cast<int>(k & ((Key{1} << col_bits) - 1));
    out_vals[i] = vals[perm[i]];
  }
}

template <class T>
struct SortedCoo {
  const int* rows;
  const int* cols;
  const T* vals;
};

// The sort's keys and permutation (two buffers each); CUB's temporary storage; the sorted entries.
struct CooSortScratch {
  DeviceScratch keys, perm, sort_tmp, sorted;
};
inline CooSortScratch& coo_sort_scratch() {
  static CooSortScratch s;
  return s;
}

// CUB radix sort of the packed (row, col) keys over bits [0, end_bit), the entry index as the value,
// then the gather into the sorted-entries scratch.
template <class Key, class T>
SortedCoo<T> sort_coo_with(int nnz, int col_bits, int end_bit, const T* values, const int* row_indices, const int* col_indices) {
  CooSortScratch& g = coo_sort_scratch();
  const size_t n = static_cast<size_t>(nnz);
  Key* keys = static_cast<Key*>(g.keys.get(2 * n * sizeof(Key)));
  int* perm = static_cast<int*>(g.perm.get(2 * n * sizeof(int)));
  cub::DoubleBuffer<Key> d_keys(keys, keys + n);
  cub::DoubleBuffer<int> d_perm(perm, perm + n);
  make_keys_kernel<Key>
      <<<blocks_for(nnz), kThreads>>>(nnz, col_bits, row_indices, col_indices, d_keys.Current(), d_perm.Current());
  MSKB_VENDOR_CHECK(cudaGetLastError());
  size_t tmp_bytes = 0;
  MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, d_keys, d_perm, nnz, 0, end_bit));
  void* tmp = g.sort_tmp.get(std::max<size_t>(tmp_bytes, 1));  // never null: null asks for the size
  MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, d_keys, d_perm, nnz, 0, end_bit));
  const size_t ib = align256(n * sizeof(int));
  char* base = static_cast<char*>(g.sorted.get(2 * ib + n * sizeof(T)));
  int* rows = reinterpret_cast<int*>(base);
  int* cols = reinterpret_cast<int*>(base + ib);
  T* vals = reinterpret_cast<T*>(base + 2 * ib);
  coo_gather_kernel<Key, T>
      <<<blocks_for(nnz), kThreads>>>(nnz, col_bits, d_keys.Current(), d_perm.Current(), values, rows, cols, vals);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  return {rows, cols, vals};
}

// The entries sorted by row, then column: 32-bit keys when row and column bits fit, else 64-bit.
template <class T>
SortedCoo<T> sort_coo_by_row(int rows, int cols, int nnz, const T* values, const int* row_indices, const int* col_indices) {
  const int col_bits = index_bits(cols);
  const int end_bit = std::max(1, index_bits(rows) + col_bits);
  if (end_bit <= 32) return sort_coo_with<uint32_t, T>(nnz, col_bits, end_bit, values, row_indices, col_indices);
  return sort_coo_with<uint64_t, T>(nnz, col_bits, end_bit, values, row_indices, col_indices);
}

// ---- ELL -> CSR compaction (count kernel + CUB exclusive scan + pack kernel)

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

// Device scratch for the CSR copy.
inline DeviceScratch& ell_csr_scratch() {
  static DeviceScratch s;
  return s;
}

// The ELL slots (rows x width, -1 = padding) compacted into CSR; one 8-byte copy brings back nnz and the
// column count (largest column id + 1, at least 1).
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
  char* base = static_cast<char*>(ell_csr_scratch().get(counts_b + offsets_b + cols_b + vals_b + align256(scan_bytes)));
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

}  // namespace
}  // namespace mskb_sparse
