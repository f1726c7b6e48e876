// FP64 GPU reference for triangle_attention (the CPU FP64 reference needs ~3e9 exponentials at the
// paper's largest shapes). One thread per output element (b, h, i, d), the same operations in the same
// order as the CPU reference in spec.cpp: s_j = (q * k) * scale, max over j <= i, e_j = exp(s_j - max),
// sum and weighted sum accumulated over j in order (separate multiply and add, no FMA), out = acc / sum.
#include <cmath>
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

__global__ void triangle_fp64(const double* q, const double* k, const double* v, double* out, long long total, int s, int d,
                              double scale) {
  const long long o = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const long long row = o / d;  // (b, h, i)
  const int c = static_cast<int>(o - row * d);
  const long long head = row / s;
  const int i = static_cast<int>(row - head * s);
  const long long base = head * s * d + c;
  const double qi = q[o];
  double m = -HUGE_VAL;
  for (int j = 0; j <= i; ++j) m = fmax(m, __dmul_rn(__dmul_rn(qi, k[base + static_cast<long long>(j) * d]), scale));
  double sum = 0.0, acc = 0.0;
  for (int j = 0; j <= i; ++j) {
    const long long at = base + static_cast<long long>(j) * d;
    const double e = exp(__dadd_rn(__dmul_rn(__dmul_rn(qi, k[at]), scale), -m));
    sum = __dadd_rn(sum, e);
    acc = __dadd_rn(acc, __dmul_rn(e, v[at]));
  }
  out[o] = __ddiv_rn(acc, sum);
}

}  // namespace

MSKB_GPU_REFERENCE(triangle_attention) {
  (void)precision;
  const long long b = shape["b"], h = shape["h"], s = shape["s"], d = shape["d"];
  const long long total = b * h * s * d;
  const std::size_t bytes = static_cast<std::size_t>(total) * sizeof(double);
  mskb::gpu::DeviceMemory dq(bytes), dk(bytes), dv(bytes), dout(bytes);
  MSKB_CUDA_CHECK(cudaMemcpy(dq.get(), args[0].data.data(), bytes, cudaMemcpyHostToDevice));
  MSKB_CUDA_CHECK(cudaMemcpy(dk.get(), args[1].data.data(), bytes, cudaMemcpyHostToDevice));
  MSKB_CUDA_CHECK(cudaMemcpy(dv.get(), args[2].data.data(), bytes, cudaMemcpyHostToDevice));
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  triangle_fp64<<<static_cast<unsigned>((total + 127) / 128), 128>>>(
      static_cast<const double*>(dq.get()), static_cast<const double*>(dk.get()), static_cast<const double*>(dv.get()),
      static_cast<double*>(dout.get()), total, static_cast<int>(s), static_cast<int>(d), scale);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  args[4].data.resize(static_cast<std::size_t>(total));
  MSKB_CUDA_CHECK(cudaMemcpy(args[4].data.data(), dout.get(), bytes, cudaMemcpyDeviceToHost));
}
