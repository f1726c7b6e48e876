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

#include <algorithm>
#include <cstdint>
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
// The column probe; the sort's keys and permutation (two buffers each); CUB's temporary storage; the
// sorted entries; the CSR row offsets of the fallback.
DeviceScratch g_probe, g_keys, g_perm, g_sort_tmp, g_sorted, g_offsets;

constexpr int kThreads = 256;
unsigned blocks_for(long long n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }
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

// ---- the entries sorted by row, then column (cuSPARSE's COO format requires row-sorted entries)

// Bits that hold every index in [0, n): 0 for n <= 1.
int index_bits(long long n) {
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
__global__ void gather_kernel(long long n, int col_bits, const Key* keys, const int* perm, const T* vals, int* out_rows,
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

// CUB radix sort of the packed (row, col) keys over bits [0, end_bit), the entry index as the value,
// then the gather into g_sorted.
template <class Key, class T>
SortedCoo<T> sort_with(int nnz, int col_bits, int end_bit, const T* values, const int* row_indices, const int* col_indices) {
  const size_t n = static_cast<size_t>(nnz);
  Key* keys = static_cast<Key*>(g_keys.get(2 * n * sizeof(Key)));
  int* perm = static_cast<int*>(g_perm.get(2 * n * sizeof(int)));
  cub::DoubleBuffer<Key> d_keys(keys, keys + n);
  cub::DoubleBuffer<int> d_perm(perm, perm + n);
  make_keys_kernel<Key>
      <<<blocks_for(nnz), kThreads>>>(nnz, col_bits, row_indices, col_indices, d_keys.Current(), d_perm.Current());
  MSKB_VENDOR_CHECK(cudaGetLastError());
  size_t tmp_bytes = 0;
  MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, d_keys, d_perm, nnz, 0, end_bit));
  void* tmp = g_sort_tmp.get(std::max<size_t>(tmp_bytes, 1));  // never null: null asks for the size
  MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, d_keys, d_perm, nnz, 0, end_bit));
  const size_t ib = align256(n * sizeof(int));
  char* base = static_cast<char*>(g_sorted.get(2 * ib + n * sizeof(T)));
  int* rows = reinterpret_cast<int*>(base);
  int* cols = reinterpret_cast<int*>(base + ib);
  T* vals = reinterpret_cast<T*>(base + 2 * ib);
  gather_kernel<Key, T>
      <<<blocks_for(nnz), kThreads>>>(nnz, col_bits, d_keys.Current(), d_perm.Current(), values, rows, cols, vals);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  return {rows, cols, vals};
}

// The entries sorted by row, then column: 32-bit keys when row and column bits fit, else 64-bit.
template <class T>
SortedCoo<T> sort_by_row(int rows, int cols, int nnz, const T* values, const int* row_indices, const int* col_indices) {
  const int col_bits = index_bits(cols);
  const int end_bit = std::max(1, index_bits(rows) + col_bits);
  if (end_bit <= 32) return sort_with<uint32_t, T>(nnz, col_bits, end_bit, values, row_indices, col_indices);
  return sort_with<uint64_t, T>(nnz, col_bits, end_bit, values, row_indices, col_indices);
}

// ---- FP32 stage for a BF16 output (see the header), grown on demand and freed at exit.
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
  widen_kernel<<<blocks_for(n), kThreads>>>(n, static_cast<const __nv_bfloat16*>(y), s);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  return s;
}

// Rounds the FP32 stage back into the BF16 y (once per element).
void unstage_output(long long n, void* staged, void* y, cudaDataType type) {
  if (type != CUDA_R_16BF) return;
  narrow_kernel<<<blocks_for(n), kThreads>>>(n, static_cast<const float*>(staged), static_cast<__nv_bfloat16*>(y));
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

// ---- fallback: CSR row offsets of the sorted entries

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
  row_offsets_kernel<<<blocks_for(static_cast<long long>(rows) + 1), kThreads>>>(rows, nnz, sorted_rows, offsets);
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
  const int cols = column_count(col_indices, nnz);
  const SortedCoo<T> sorted = sort_by_row(rows, cols, nnz, values, row_indices, col_indices);
  ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, cols, K, K, X, type, CUSPARSE_ORDER_ROW));
  SpMat coo, csr;
  MSKB_VENDOR_CHECK(cusparseCreateConstCoo(&coo.d, rows, cols, nnz, sorted.rows, sorted.cols, sorted.vals, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, type));
  static const cusparseSpMMAlg_t coo_algs[] = {CUSPARSE_SPMM_COO_ALG4, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_COO_ALG2,
                                               CUSPARSE_SPMM_COO_ALG1, CUSPARSE_SPMM_COO_ALG3};
  static const cusparseSpMMAlg_t csr_algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                               CUSPARSE_SPMM_CSR_ALG1};
  // Y += A * X into the output (c, c_type): COO first, else CSR over the same sorted entries.
  auto attempt = [&](void* c, cudaDataType c_type) {
    Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    if (spmm_first_supported(coo.d, B.d, C.d, 1.0f, coo_algs, 5)) return true;  // beta = 1: Y accumulates
    if (!csr.d)
      MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&csr.d, rows, cols, nnz, row_offsets(rows, nnz, sorted.rows), sorted.cols,
                                               sorted.vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                               type));
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
