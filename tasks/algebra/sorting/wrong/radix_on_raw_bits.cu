// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: radix-sorts the raw bit patterns as unsigned integers (reinterpret_cast to unsigned int /
// unsigned short) instead of as floating-point keys. Right for non-negative keys only: negative keys
// (sign bit set) land after the positive ones, in reverse order.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <class U>
void sort_bits(U* keys, int n) {
  cub::DoubleBuffer<U> db(keys, keys);
  size_t temp_bytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, db, n);
  const size_t alt_bytes = (sizeof(U) * static_cast<size_t>(n) + 255) / 256 * 256;
  char* ws = nullptr;
  cudaMalloc(&ws, alt_bytes + temp_bytes + 16);
  db = cub::DoubleBuffer<U>(keys, reinterpret_cast<U*>(ws));
  cub::DeviceRadixSort::SortKeys(ws + alt_bytes, temp_bytes, db, n);
  if (db.Current() != keys) cudaMemcpyAsync(keys, db.Current(), sizeof(U) * static_cast<size_t>(n), cudaMemcpyDeviceToDevice, 0);
  cudaDeviceSynchronize();
  cudaFree(ws);
}

extern "C" void sorting(float* data, int N) { sort_bits(reinterpret_cast<unsigned int*>(data), N); }
extern "C" void sorting_bf16(__nv_bfloat16* data, int N) { sort_bits(reinterpret_cast<unsigned short*>(data), N); }
