// FP64 device reference for sorting: the verifier draws large inputs on the GPU and checks them there
// (and host-made instances from about 10^8 N log N use it too). The keys are the rounded inputs in
// FP64 (the in-place buffer's widened values); a radix sort orders them as std::sort does (ascending;
// the inputs hold no NaN and no -0), so the result is the CPU reference's, bit for bit.
#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_DEVICE_REFERENCE(sorting) {
  (void)shape;
  (void)precision;
  const std::size_t n = args.elements[0];
  if (n < 2) return;
  double* keys = args.out[0];
  mskb::gpu::DeviceMemory sorted(n * sizeof(double));
  std::size_t temp_bytes = 0;
  MSKB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, static_cast<double*>(sorted.get()), static_cast<int64_t>(n)));
  mskb::gpu::DeviceMemory temp(temp_bytes);
  MSKB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, keys, static_cast<double*>(sorted.get()), static_cast<int64_t>(n)));
  MSKB_CUDA_CHECK(cudaMemcpy(keys, sorted.get(), n * sizeof(double), cudaMemcpyDeviceToDevice));
}
