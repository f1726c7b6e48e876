// FP64 GPU reference for high_order_contraction (up to ~7e10 multiply-adds in the large sweep): one
// thread per output element C[a,b,c], summing over x then y in order, in double precision.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

__global__ void contract_fp64(const double* A, const double* B, double* C, long long ad, long long bd, long long cd,
                              long long xd, long long yd) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= ad * bd * cd) return;
  const long long c = idx % cd, b = (idx / cd) % bd, a = idx / (cd * bd);
  double acc = 0.0;
  for (long long x = 0; x < xd; ++x) {
    const double* arow = A + ((a * xd + x) * bd + b) * yd;
    const double* brow = B + (x * cd + c) * yd;
    for (long long y = 0; y < yd; ++y) acc = fma(arow[y], brow[y], acc);
  }
  C[idx] = acc;
}

}  // namespace

MSKB_GPU_REFERENCE(high_order_contraction) {
  (void)precision;
  const long long ad = shape["a_dim"], bd = shape["b_dim"], cd = shape["c_dim"], xd = shape["x_dim"], yd = shape["y_dim"];
  const std::size_t na = static_cast<std::size_t>(ad * xd * bd * yd), nb = static_cast<std::size_t>(xd * cd * yd),
                    nc = static_cast<std::size_t>(ad * bd * cd);
  mskb::gpu::DeviceMemory dA(na * sizeof(double)), dB(nb * sizeof(double)), dC(nc * sizeof(double));
  MSKB_CUDA_CHECK(cudaMemcpy(dA.get(), args[0].data.data(), na * sizeof(double), cudaMemcpyHostToDevice));
  MSKB_CUDA_CHECK(cudaMemcpy(dB.get(), args[1].data.data(), nb * sizeof(double), cudaMemcpyHostToDevice));
  const int threads = 256;
  const unsigned blocks = static_cast<unsigned>((static_cast<long long>(nc) + threads - 1) / threads);
  contract_fp64<<<blocks, threads>>>(static_cast<const double*>(dA.get()), static_cast<const double*>(dB.get()),
                                     static_cast<double*>(dC.get()), ad, bd, cd, xd, yd);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  args[2].data.resize(nc);
  MSKB_CUDA_CHECK(cudaMemcpy(args[2].data.data(), dC.get(), nc * sizeof(double), cudaMemcpyDeviceToHost));
}
