// FP64 device reference for reverse_array: the verifier draws large inputs on the GPU and checks
// them there (output[i] = input[N-1-i], a copy: exactly the CPU reference's values).
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void reverse_to_fp64(const void* x, double* y, std::size_t n, int bytes) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = mskb::gpu::load_input(x, n - 1 - i, bytes);
}
}  // namespace

MSKB_DEVICE_REFERENCE(reverse_array) {
  (void)shape;
  reverse_to_fp64<<<4096, 256>>>(args.in[1], args.out[0], args.elements[1],
                                 static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
