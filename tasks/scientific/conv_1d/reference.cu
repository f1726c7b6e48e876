// FP64 device reference for conv_1d: the verifier draws large inputs on the GPU and checks them
// there. One output per thread (grid-stride): output[i] = 0, then + input[i + t] * kernel[t] for
// t = 0, 1, ..., kernel_size - 1 in order, with separate multiply and add (no FMA): the CPU
// reference's operations in its order, bit for bit.
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

__global__ void conv1d_fp64(const void* in, const void* w, double* out, int64_t m, int64_t k, int bytes) {
  using mskb::gpu::load_input;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m; i += step) {
    double acc = 0.0;
    for (int64_t t = 0; t < k; ++t)
      acc = __dadd_rn(acc, __dmul_rn(load_input(in, static_cast<std::size_t>(i + t), bytes),
                                     load_input(w, static_cast<std::size_t>(t), bytes)));
    out[i] = acc;
  }
}

}  // namespace

MSKB_DEVICE_REFERENCE(conv_1d) {
  const int64_t n = shape["input_size"], k = shape["kernel_size"];
  conv1d_fp64<<<4096, 256>>>(args.in[0], args.in[1], args.out[2], n - k + 1, k,
                             static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
