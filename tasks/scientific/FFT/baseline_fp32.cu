// Naive baseline: radix-2 decimation-in-time FFT on device pointers. One kernel writes the bit-reversed
// input into the outputs, then log2(N) butterfly-stage kernels (one thread per butterfly, a full grid
// each) work in place on the outputs. Twiddles are computed per butterfly with sincospi in double and
// rounded to float, so they are exact to FP32 at any N. N must be a power of two.
#include <cuda_runtime.h>

__global__ void fft_bit_reverse(const float* xr, const float* xi, float* yr, float* yi, long long n, int bits) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned r = bits == 0 ? 0u : (__brev(static_cast<unsigned>(i)) >> (32 - bits));
  yr[i] = xr[r];
  yi[i] = xi[r];
}

// Stage s combines pairs half = 2^(s-1) apart with twiddle exp(-2*pi*i*j/2^s) = exp(-i*pi*j/half).
__global__ void fft_stage(float* yr, float* yi, long long n, int s) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n / 2) return;
  const long long half = 1LL << (s - 1);
  const long long j = t & (half - 1);
  const long long i1 = ((t >> (s - 1)) << s) + j, i2 = i1 + half;
  double sn, cs;
  sincospi(-static_cast<double>(j) / static_cast<double>(half), &sn, &cs);
  const float wr = static_cast<float>(cs), wi = static_cast<float>(sn);
  const float br = yr[i2], bi = yi[i2];
  const float tr = wr * br - wi * bi, ti = wr * bi + wi * br;
  const float ar = yr[i1], ai = yi[i1];
  yr[i1] = ar + tr;
  yi[i1] = ai + ti;
  yr[i2] = ar - tr;
  yi[i2] = ai - ti;
}

extern "C" void FFT(const float* input_real, const float* input_img, float* output_real, float* output_img, int N) {
  if (N <= 0) return;
  int bits = 0;
  while ((1LL << bits) < N) ++bits;
  const int threads = 256;
  const long long n = N;
  fft_bit_reverse<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(input_real, input_img, output_real,
                                                                                    output_img, n, bits);
  const long long butterflies = n / 2;
  for (int s = 1; s <= bits; ++s)
    fft_stage<<<static_cast<unsigned>((butterflies + threads - 1) / threads), threads>>>(output_real, output_img, n, s);
  cudaDeviceSynchronize();
}
