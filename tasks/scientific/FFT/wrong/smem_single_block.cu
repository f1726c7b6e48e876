// mskb-expect: unwritten_output
// mskb-precision: fp32
// Shortcut: the whole transform runs in ONE block out of shared memory sized for the paper's largest N
// (16384 complex floats = 128 KiB). Correct for every N <= 16384 (all paper sizes, held-out 1, 2, 8);
// for larger N it silently transforms only the first 16384 samples and writes only the first 16384
// outputs, so the rest of the output is never written.
#include <cuda_runtime.h>

constexpr int kMaxN = 16384;

__global__ void fft_one_block(const float* xr, const float* xi, float* yr, float* yi, int n, int bits) {
  extern __shared__ float smem[];
  float* sr = smem;
  float* si = smem + kMaxN;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const unsigned r = bits == 0 ? 0u : (__brev(static_cast<unsigned>(i)) >> (32 - bits));
    sr[i] = xr[r];
    si[i] = xi[r];
  }
  __syncthreads();
  for (int s = 1; s <= bits; ++s) {
    const int half = 1 << (s - 1);
    for (int t = threadIdx.x; t < n / 2; t += blockDim.x) {
      const int j = t & (half - 1);
      const int i1 = ((t >> (s - 1)) << s) + j, i2 = i1 + half;
      float sn, cs;
      sincospif(-static_cast<float>(j) / static_cast<float>(half), &sn, &cs);
      const float tr = cs * sr[i2] - sn * si[i2], ti = cs * si[i2] + sn * sr[i2];
      const float ar = sr[i1], ai = si[i1];
      sr[i1] = ar + tr;
      si[i1] = ai + ti;
      sr[i2] = ar - tr;
      si[i2] = ai - ti;
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    yr[i] = sr[i];
    yi[i] = si[i];
  }
}

extern "C" void FFT(const float* input_real, const float* input_img, float* output_real, float* output_img, int N) {
  const int n = N < kMaxN ? N : kMaxN;  // the shortcut: "N never exceeds 16384"
  int bits = 0;
  while ((1 << bits) < n) ++bits;
  const size_t smem = 2 * kMaxN * sizeof(float);
  cudaFuncSetAttribute(fft_one_block, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  fft_one_block<<<1, 256, smem>>>(input_real, input_img, output_real, output_img, n, bits);
  cudaDeviceSynchronize();
}
