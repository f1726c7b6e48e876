// FP64 device reference for top_k: the verifier draws large inputs on the GPU and checks them there.
// The keys are the rounded inputs in FP64 with their indices; a stable descending radix sort of the
// pairs puts equal keys in ascending index order (the tie rule), and its first k pairs are the CPU
// reference's output, bit for bit (the inputs hold no NaN and no -0, where the radix order and the
// comparison order differ).
#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void keys_and_indices(const void* in, int bytes, std::size_t n, double* keys, int32_t* idx) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    keys[i] = mskb::gpu::load_input(in, i, bytes);
    idx[i] = static_cast<int32_t>(i);
  }
}
__global__ void first_k(const double* keys, const int32_t* idx, std::size_t k, double* values, double* indices) {
  for (std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; r < k; r += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    values[r] = keys[r];
    indices[r] = static_cast<double>(idx[r]);
  }
}
}  // namespace

MSKB_DEVICE_REFERENCE(top_k) {
  (void)shape;
  const std::size_t n = args.elements[2], k = args.elements[0];
  if (n == 0 || k == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  mskb::gpu::DeviceMemory keys(n * sizeof(double)), sorted_keys(n * sizeof(double)), idx(n * sizeof(int32_t)),
      sorted_idx(n * sizeof(int32_t));
  auto* kin = static_cast<double*>(keys.get());
  auto* kout = static_cast<double*>(sorted_keys.get());
  auto* iin = static_cast<int32_t*>(idx.get());
  auto* iout = static_cast<int32_t*>(sorted_idx.get());
  keys_and_indices<<<4096, 256>>>(args.in[2], bytes, n, kin, iin);
  MSKB_CUDA_CHECK(cudaGetLastError());
  std::size_t temp_bytes = 0;
  MSKB_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp_bytes, kin, kout, iin, iout, static_cast<int64_t>(n)));
  mskb::gpu::DeviceMemory temp(temp_bytes);
  MSKB_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp.get(), temp_bytes, kin, kout, iin, iout, static_cast<int64_t>(n)));
  first_k<<<64, 256>>>(kout, iout, k, args.out[0], args.out[1]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
}
