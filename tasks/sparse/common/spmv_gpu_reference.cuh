// FP64 GPU reference shared by the SpMV tasks' reference.cu files (tasks/sparse/spmv_*/). On the
// large sweep (tens of millions of entries) the CPU reference spends seconds grouping the entries
// by row (a serial counting sort, sparse_gen.hpp group_coo): here the grouping is a stable radix
// sort on the GPU, and each row is one thread summing its products in the CPU reference's order
// (the entries of a row in their storage order), with unfused multiply and add, so both references
// agree bit for bit (mskb_gpu_reference_test). The host arrays are the Args' FP64 ones; indices
// are exact integers there. Everything sits in an anonymous namespace: each reference.cu gets its
// own copy of the kernels.
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mskb/core/task.hpp"
#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"

namespace mskb::sparse {
namespace {

constexpr int kSpmvThreads = 256;

inline unsigned spmv_blocks(int64_t n) { return static_cast<unsigned>((n + kSpmvThreads - 1) / kSpmvThreads); }

// Row r's entries are positions [offsets[r], offsets[r+1]) of `order` (entry ids; identity where
// null): y[r] = sum of val[e] * x[col[e]] in that order, unfused, from 0.0 (mskb/core/sparse_gen.hpp spmv_rows).
__global__ void spmv_rows_fp64_kernel(int64_t rows, const int64_t* offsets, const int32_t* order, const double* col, const double* val,
                                      const double* x, double* y) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double acc = 0.0;
  for (int64_t p = offsets[r]; p < offsets[r + 1]; ++p) {
    const int64_t e = order != nullptr ? order[p] : p;
    acc = __dadd_rn(acc, __dmul_rn(val[e], x[static_cast<int64_t>(col[e])]));
  }
  y[r] = acc;
}

__global__ void rows_and_ids_kernel(int64_t n, const double* row, int32_t* key, int32_t* id) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= n) return;
  key[e] = static_cast<int32_t>(row[e]);
  id[e] = static_cast<int32_t>(e);
}

// offsets[r] = the first position of a sorted key >= r (r in [0, rows]).
__global__ void lower_bounds_kernel(int64_t rows, const int32_t* sorted, int64_t n, int64_t* offsets) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r > rows) return;
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  offsets[r] = lo;
}

__global__ void to_offsets_kernel(int64_t count, const double* in, int64_t* out) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = static_cast<int64_t>(in[i]);
}

// col[p] = j for the positions p of column j (CSC: col_offsets has columns + 1 entries).
__global__ void csc_columns_kernel(int64_t columns, const double* col_offsets, double* col) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= columns) return;
  for (auto p = static_cast<int64_t>(col_offsets[j]); p < static_cast<int64_t>(col_offsets[j + 1]); ++p) col[p] = static_cast<double>(j);
}

__global__ void ell_rows_fp64_kernel(int64_t rows, int64_t width, const double* col, const double* val, const double* x, double* y) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double acc = 0.0;
  for (int64_t s = r * width; s < (r + 1) * width; ++s)
    if (col[s] >= 0) acc = __dadd_rn(acc, __dmul_rn(val[s], x[static_cast<int64_t>(col[s])]));
  y[r] = acc;
}

inline mskb::gpu::DeviceMemory upload(const double* host, std::size_t n) {
  mskb::gpu::DeviceMemory d(std::max<std::size_t>(n, 1) * sizeof(double));
  if (n > 0) MSKB_CUDA_CHECK(cudaMemcpy(d.get(), host, n * sizeof(double), cudaMemcpyHostToDevice));
  return d;
}

inline double* dptr(const mskb::gpu::DeviceMemory& m) { return static_cast<double*>(m.get()); }

inline void download_y(const mskb::gpu::DeviceMemory& y, mskb::HostData& host) {
  MSKB_CUDA_CHECK(cudaGetLastError());
  if (!host.empty()) MSKB_CUDA_CHECK(cudaMemcpy(host.data(), y.get(), host.size() * sizeof(double), cudaMemcpyDeviceToHost));
}

// Entries (row[e], col[e], val[e]), e in [0, n), grouped by row keeping their order (a stable
// sort by row: group_coo's order), then summed per row. y: `rows` elements, written, never read.
inline void spmv_entries_gpu(int64_t rows, int64_t n, const mskb::gpu::DeviceMemory& row, const mskb::gpu::DeviceMemory& col,
                             const double* val, const mskb::HostData& x, mskb::HostData& y) {
  if (rows <= 0) return;
  const std::size_t n4 = static_cast<std::size_t>(std::max<int64_t>(n, 1)) * sizeof(int32_t);
  mskb::gpu::DeviceMemory keys(n4), ids(n4), sorted_keys(n4), order(n4), offsets(static_cast<std::size_t>(rows + 1) * sizeof(int64_t));
  auto* k = static_cast<int32_t*>(keys.get());
  auto* i = static_cast<int32_t*>(ids.get());
  auto* sk = static_cast<int32_t*>(sorted_keys.get());
  auto* o = static_cast<int32_t*>(order.get());
  if (n > 0) {
    rows_and_ids_kernel<<<spmv_blocks(n), kSpmvThreads>>>(n, dptr(row), k, i);
    MSKB_CUDA_CHECK(cudaGetLastError());
    int end_bit = 1;
    while (end_bit < 31 && (int64_t{1} << end_bit) < rows) ++end_bit;
    std::size_t temp_bytes = 0;
    MSKB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, sk, i, o, n, 0, end_bit));
    mskb::gpu::DeviceMemory temp(std::max<std::size_t>(temp_bytes, 1));
    MSKB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, k, sk, i, o, n, 0, end_bit));
  }
  auto* off = static_cast<int64_t*>(offsets.get());
  lower_bounds_kernel<<<spmv_blocks(rows + 1), kSpmvThreads>>>(rows, sk, n, off);
  MSKB_CUDA_CHECK(cudaGetLastError());
  const mskb::gpu::DeviceMemory v = upload(val, static_cast<std::size_t>(n)), dx = upload(x.data(), x.size());
  mskb::gpu::DeviceMemory dy(static_cast<std::size_t>(rows) * sizeof(double));
  spmv_rows_fp64_kernel<<<spmv_blocks(rows), kSpmvThreads>>>(rows, off, o, dptr(col), dptr(v), dptr(dx), dptr(dy));
  download_y(dy, y);
}

// COO: row_indices, col_indices, values of n entries.
inline void spmv_coo_gpu(int64_t rows, int64_t n, const double* row, const double* col, const double* val, const mskb::HostData& x,
                         mskb::HostData& y) {
  const mskb::gpu::DeviceMemory dr = upload(row, static_cast<std::size_t>(n)), dc = upload(col, static_cast<std::size_t>(n));
  spmv_entries_gpu(rows, n, dr, dc, val, x, y);
}

// CSC: row_indices and values of col_offsets[columns] entries, stored column by column (group_csc).
inline void spmv_csc_gpu(int64_t rows, int64_t columns, const double* row, const double* col_offsets, const double* val,
                         const mskb::HostData& x, mskb::HostData& y) {
  const auto n = static_cast<int64_t>(col_offsets[columns]);
  const mskb::gpu::DeviceMemory dr = upload(row, static_cast<std::size_t>(n)), doff = upload(col_offsets, static_cast<std::size_t>(columns) + 1);
  mskb::gpu::DeviceMemory dc(static_cast<std::size_t>(std::max<int64_t>(n, 1)) * sizeof(double));
  if (columns > 0) csc_columns_kernel<<<spmv_blocks(columns), kSpmvThreads>>>(columns, dptr(doff), dptr(dc));
  MSKB_CUDA_CHECK(cudaGetLastError());
  spmv_entries_gpu(rows, n, dr, dc, val, x, y);
}

// CSR: row_offsets (rows + 1), col_indices and values: already grouped by row (group_csr).
inline void spmv_csr_gpu(int64_t rows, const double* row_offsets, const double* col, const double* val, const mskb::HostData& x,
                         mskb::HostData& y) {
  if (rows <= 0) return;
  const auto n = static_cast<std::size_t>(row_offsets[rows]);
  const mskb::gpu::DeviceMemory droff = upload(row_offsets, static_cast<std::size_t>(rows) + 1), dc = upload(col, n), v = upload(val, n),
                                dx = upload(x.data(), x.size());
  mskb::gpu::DeviceMemory offsets(static_cast<std::size_t>(rows + 1) * sizeof(int64_t)), dy(static_cast<std::size_t>(rows) * sizeof(double));
  auto* off = static_cast<int64_t*>(offsets.get());
  to_offsets_kernel<<<spmv_blocks(rows + 1), kSpmvThreads>>>(rows + 1, dptr(droff), off);
  MSKB_CUDA_CHECK(cudaGetLastError());
  spmv_rows_fp64_kernel<<<spmv_blocks(rows), kSpmvThreads>>>(rows, off, nullptr, dptr(dc), dptr(v), dptr(dx), dptr(dy));
  download_y(dy, y);
}

// ELL: rows x width slots, row-major; padding slots (col < 0) skipped (group_ell).
inline void spmv_ell_gpu(int64_t rows, int64_t width, const double* col, const double* val, const mskb::HostData& x,
                         mskb::HostData& y) {
  if (rows <= 0) return;
  const auto n = static_cast<std::size_t>(rows * width);
  const mskb::gpu::DeviceMemory dc = upload(col, n), v = upload(val, n), dx = upload(x.data(), x.size());
  mskb::gpu::DeviceMemory dy(static_cast<std::size_t>(rows) * sizeof(double));
  ell_rows_fp64_kernel<<<spmv_blocks(rows), kSpmvThreads>>>(rows, width, dptr(dc), dptr(v), dptr(dx), dptr(dy));
  download_y(dy, y);
}

}  // namespace
}  // namespace mskb::sparse
