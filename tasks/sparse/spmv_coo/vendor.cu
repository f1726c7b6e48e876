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
// sorted entries.
DeviceScratch g_probe, g_keys, g_perm, g_sort_tmp, g_sorted;

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
// configuration (mixed precision is not supported by every algorithm); false if none does.
bool spmv_first_supported(cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t X, cusparseDnVecDescr_t Y, float beta,
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

template <class T>
void spmv_coo_any(int rows, int nnz, const T* values, const int* row_indices, const int* col_indices, const T* x, T* y,
                  cudaDataType type) {
  if (rows <= 0 || nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const int cols = column_count(col_indices, nnz);
  const SortedCoo<T> sorted = sort_by_row(rows, cols, nnz, values, row_indices, col_indices);
  SpMat A;
  ConstVec X;
  MSKB_VENDOR_CHECK(cusparseCreateConstCoo(&A.d, rows, cols, nnz, sorted.rows, sorted.cols, sorted.vals, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, cols, x, type));
  // beta = 1: y accumulates.
  static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_COO_ALG1, CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_COO_ALG2};
  void* y_out = stage_output(rows, y, type);
  bool done;
  {
    Vec Y;
    MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y_out, type == CUDA_R_16BF ? CUDA_R_32F : type));
    done = spmv_first_supported(A.d, X.d, Y.d, 1.0f, algs, 3);
  }
  if (done) {
    unstage_output(rows, y_out, y, type);
  } else if (y_out != static_cast<void*>(y)) {  // cuSPARSE refused BF16 in / FP32 out: a BF16 y directly
    Vec Y;
    MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y, type));
    done = spmv_first_supported(A.d, X.d, Y.d, 1.0f, algs, 3);
  }
  if (!done) {
    std::fprintf(stderr, "cusparseSpMV: no algorithm supports this configuration\n");
    std::abort();
  }
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
