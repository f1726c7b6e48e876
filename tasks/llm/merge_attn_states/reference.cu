// FP64 device reference for merge_attn_states: the verifier draws large inputs on the GPU and checks
// them there. Per (head, token): m = max(a, b), wa = exp(a - m), wb = exp(b - m), sum = wa + wb;
// LSE_out = m + log(sum), V_out = (V_a * wa + V_b * wb) / sum: the CPU reference's operations in
// its order, without FMA (CUDA's FP64 exp and log are within 1 ulp).
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

struct Weights {
  double m, wa, wb, sum;
};

__device__ Weights weights(const void* lse_a, const void* lse_b, std::size_t l, int bytes) {
  const double a = mskb::gpu::load_input(lse_a, l, bytes), b = mskb::gpu::load_input(lse_b, l, bytes);
  const double m = a > b ? a : b;
  const double wa = exp(__dadd_rn(a, -m)), wb = exp(__dadd_rn(b, -m));
  return {m, wa, wb, __dadd_rn(wa, wb)};
}

// V_out[(t * H + h) * D + k] for every element; LSE_out[h * T + t] by the thread of k == 0.
__global__ void merge_fp64(const void* va, const void* lse_a, const void* vb, const void* lse_b, double* v_out, double* lse_out,
                           std::size_t tokens, std::size_t heads, std::size_t d, int bytes) {
  const std::size_t n = tokens * heads * d;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t th = i / d, t = th / heads, h = th % heads, l = h * tokens + t;
    const Weights w = weights(lse_a, lse_b, l, bytes);
    const double x = __dadd_rn(__dmul_rn(mskb::gpu::load_input(va, i, bytes), w.wa), __dmul_rn(mskb::gpu::load_input(vb, i, bytes), w.wb));
    v_out[i] = __ddiv_rn(x, w.sum);
    if (i % d == 0) lse_out[l] = __dadd_rn(w.m, log(w.sum));
  }
}

}  // namespace

MSKB_DEVICE_REFERENCE(merge_attn_states) {
  (void)shape;
  const auto tokens = static_cast<std::size_t>(args.scalars[6]), heads = static_cast<std::size_t>(args.scalars[7]),
             d = static_cast<std::size_t>(args.scalars[8]);
  if (tokens == 0 || heads == 0 || d == 0) return;
  merge_fp64<<<4096, 256>>>(args.in[2], args.in[3], args.in[4], args.in[5], args.out[0], args.out[1], tokens, heads, d,
                            static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
