// Vendor contender: CUB. y[i] is the sum of row i's width slots, so the product is one
// cub::DeviceReduce::ReduceByKey over the rows * width slots in storage order: the key of slot s is its
// row s / width (a transform of a counting iterator, never stored), its value values[s] * x[col_ids[s]]
// in FP32 (0 for a padding slot, col_ids[s] < 0; a transform of a counting iterator, so the slots are
// read once, where they lie), the runs' keys are discarded and each run's FP32 sum is written into y[i]
// (BF16: rounded once through a transform output iterator). Every row is one run of exactly width slots,
// so y is fully overwritten (a zero width: y zeroed). No conversion, no host copy, no hand-written
// kernel: CUB's scan-based reduce-by-key balances any row lengths in one pass. CUB's temporary storage
// (sized by the slot count: the shape) is grown on demand and freed at exit.
// Rejected: cuSPARSE SpMV on a CSR copy (the conversion every call, a host copy for nnz: P 0.09 on the
// H200); cuSPARSE Sliced-ELL (its descriptor needs nnz, data the ABI does not pass, and its slices
// are column-major: a slice size of 1 keeps the row-major layout but not the access pattern SELL is
// built for); cub::DeviceSegmentedReduce (one thread block per row: idle for rows of ~20 slots).
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <climits>
#include <cstddef>

#include "mskb_vendor.cuh"

namespace {

__host__ __device__ inline float widen(float v) { return v; }
__host__ __device__ inline float widen(__nv_bfloat16 v) { return __bfloat162float(v); }

// The row of slot s.
template <class Index>
struct RowOf {
  Index width;
  __host__ __device__ Index operator()(Index s) const { return s / width; }
};

// values[s] * x[col_ids[s]] in FP32; 0 for padding.
template <class T, class Index>
struct SlotProduct {
  const T* values;
  const int* col_ids;
  const T* x;
  __host__ __device__ float operator()(Index s) const {
    const int c = col_ids[s];
    return c >= 0 ? widen(values[s]) * widen(x[c]) : 0.0f;
  }
};

struct ToBf16 {
  __host__ __device__ __nv_bfloat16 operator()(float v) const { return __float2bfloat16(v); }
};

inline float* aggregates(float* y) { return y; }
inline auto aggregates(__nv_bfloat16* y) { return thrust::make_transform_output_iterator(y, ToBf16{}); }

template <class T, class Index>
void reduce_rows(Index slots, Index width, const T* values, const int* col_ids, const T* x, T* y) {
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<Index>(0), RowOf<Index>{width});
  auto products = thrust::make_transform_iterator(thrust::counting_iterator<Index>(0), SlotProduct<T, Index>{values, col_ids, x});
  auto out = aggregates(y);
  size_t temp_bytes = 0;
  MSKB_VENDOR_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, temp_bytes, keys, thrust::make_discard_iterator(), products, out,
                                                   static_cast<int*>(nullptr), ::cuda::std::plus<float>{}, slots));
  constexpr size_t kHead = 256;  // the run count, 256-byte aligned ahead of CUB's temporary storage
  char* ws = static_cast<char*>(mskb_vendor::workspace().get(kHead + temp_bytes));
  MSKB_VENDOR_CHECK(cub::DeviceReduce::ReduceByKey(ws + kHead, temp_bytes, keys, thrust::make_discard_iterator(), products, out,
                                                   reinterpret_cast<int*>(ws), ::cuda::std::plus<float>{}, slots));
}

template <class T>
void spmv_ell_any(int rows, int width, const T* values, const int* col_ids, const T* x, T* y) {
  if (rows > 0) {
    const long long slots = static_cast<long long>(rows) * (width > 0 ? width : 0);
    if (slots == 0)
      MSKB_VENDOR_CHECK(cudaMemsetAsync(y, 0, static_cast<size_t>(rows) * sizeof(T), 0));  // padding only: y = 0
    else if (slots <= INT_MAX)
      reduce_rows<T, int>(static_cast<int>(slots), width, values, col_ids, x, y);
    else
      reduce_rows<T, long long>(slots, width, values, col_ids, x, y);
    MSKB_VENDOR_CHECK(cudaGetLastError());
  }
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmv_ell(int rows, int max_nnz_per_row, const float* values, const int* col_ids, const float* x, float* y) {
  spmv_ell_any(rows, max_nnz_per_row, values, col_ids, x, y);
}

extern "C" void spmv_ell_bf16(int rows, int max_nnz_per_row, const __nv_bfloat16* values, const int* col_ids,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_ell_any(rows, max_nnz_per_row, values, col_ids, x, y);
}
