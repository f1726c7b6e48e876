// Vendor contender: CUB cub::DeviceRadixSort::SortPairsDescending of (value, index) pairs, indices written
// by cub::DeviceTransform from a counting iterator (thrust::sequence with the synchronous thrust::device
// policy waited on the stream mid-call). CUB's radix sort is stable, so equal values keep ascending index order (the tie
// rule); the first k values and indices are copied out. The temporary-storage size is queried once per N. fp32 keys, or bf16 keys (native CUB traits).
#include <cub/device/device_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cub/device/device_transform.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "mskb_vendor.cuh"

namespace {
struct Identity {
  __device__ __forceinline__ int operator()(int i) const { return i; }
};

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

template <class T>
void top_k_by_sort(T* values, int* indices, const T* input, int n, int k) {
  const size_t kb = align256(sizeof(T) * static_cast<size_t>(n)), ib = align256(sizeof(int) * static_cast<size_t>(n));
  static int cached_n = -1;  // the size query depends on N only (one instantiation per precision)
  static size_t temp_bytes = 0;
  if (n != cached_n) {
    MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp_bytes, input, static_cast<T*>(nullptr),
                                                                static_cast<const int*>(nullptr), static_cast<int*>(nullptr), n));
    cached_n = n;
  }
  char* ws = static_cast<char*>(mskb_vendor::workspace().get(kb + 2 * ib + temp_bytes + 16));
  T* keys_out = reinterpret_cast<T*>(ws);
  int* idx_in = reinterpret_cast<int*>(ws + kb);
  int* idx_out = reinterpret_cast<int*>(ws + kb + ib);
  MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(thrust::counting_iterator<int>(0), idx_in, n, Identity{}));
  MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortPairsDescending(ws + kb + 2 * ib, temp_bytes, input, keys_out, idx_in, idx_out, n));
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(values, keys_out, sizeof(T) * static_cast<size_t>(k), cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(indices, idx_out, sizeof(int) * static_cast<size_t>(k), cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
}  // namespace

extern "C" void top_k(float* top_k_values, int* top_k_indices, const float* input, const int N, const int k) {
  top_k_by_sort(top_k_values, top_k_indices, input, N, k);
}

extern "C" void top_k_bf16(__nv_bfloat16* top_k_values, int* top_k_indices, const __nv_bfloat16* input, const int N, const int k) {
  top_k_by_sort(top_k_values, top_k_indices, input, N, k);
}
