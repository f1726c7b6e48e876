// FP64 GPU reference for sorting (used where N log N makes the CPU's sort and merges take seconds:
// the large sweep). The keys are the rounded inputs in FP64; a radix sort orders them as
// std::sort does (ascending; the inputs hold no NaN and no -0), so the result is the CPU
// reference's, bit for bit (mskb_gpu_reference_test).
#include <cub/device/device_radix_sort.cuh>

#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_GPU_REFERENCE(sorting) {
  (void)shape;
  (void)precision;
  std::vector<double>& v = args[0].data;
  const std::size_t n = v.size();
  if (n < 2) return;
  const std::size_t bytes = n * sizeof(double);
  mskb::gpu::DeviceMemory keys(bytes), sorted(bytes);
  MSKB_CUDA_CHECK(cudaMemcpy(keys.get(), v.data(), bytes, cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0;
  MSKB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, static_cast<const double*>(keys.get()),
                                                 static_cast<double*>(sorted.get()), static_cast<int64_t>(n)));
  mskb::gpu::DeviceMemory temp(temp_bytes);
  MSKB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, static_cast<const double*>(keys.get()),
                                                 static_cast<double*>(sorted.get()), static_cast<int64_t>(n)));
  MSKB_CUDA_CHECK(cudaMemcpy(v.data(), sorted.get(), bytes, cudaMemcpyDeviceToHost));
}
