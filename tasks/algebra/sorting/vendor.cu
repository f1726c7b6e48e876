// Vendor contender: CUB cub::DeviceRadixSort::SortKeys with a DoubleBuffer (alternate buffer and temp
// storage from the shared workspace), copied back into data when the sorted keys end in the alternate
// buffer. bf16 keys are sorted as __nv_bfloat16 (CUB's radix sort has native bf16 traits). The
// temporary-storage size is queried once per N.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

namespace {
template <class T>
void radix_sort_in_place(T* data, int n) {
  const size_t key_bytes = sizeof(T) * static_cast<size_t>(n);
  const size_t alt_bytes = (key_bytes + 255) / 256 * 256;
  cub::DoubleBuffer<T> keys(data, data);  // the size query only needs the types
  static int cached_n = -1;  // the size query depends on N only (one instantiation per precision)
  static size_t temp_bytes = 0;
  if (n != cached_n) {
    MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, n));
    cached_n = n;
  }
  char* ws = static_cast<char*>(mskb_vendor::workspace().get(alt_bytes + temp_bytes + 16));
  keys = cub::DoubleBuffer<T>(data, reinterpret_cast<T*>(ws));
  MSKB_VENDOR_CHECK(cub::DeviceRadixSort::SortKeys(ws + alt_bytes, temp_bytes, keys, n));
  if (keys.Current() != data) MSKB_VENDOR_CHECK(cudaMemcpyAsync(data, keys.Current(), key_bytes, cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
}  // namespace

extern "C" void sorting(float* data, int N) { radix_sort_in_place(data, N); }
extern "C" void sorting_bf16(__nv_bfloat16* data, int N) { radix_sort_in_place(data, N); }
