// FFT-based valid cross-correlation with cuFFT, for single-channel convolution contenders (conv_2d's
// vendor.cu; conv_1d's measured alternative tests/vendor_alternatives/conv_1d_cufft_fp64.cu). Include
// after <cufft.h> and "mskb_vendor.cuh".
//
// The valid outputs of a correlation of an H x W signal with a KH x KW filter are the first
// (H - KH + 1) x (W - KW + 1) outputs of the circular correlation of size H x W (an output i <= H - KH
// reads x[i + m] for m < KH, which never wraps), so the transforms have exactly the input's size:
//   xr = the input widened to R; hr = the filter zero-padded to H x W (a memset and one small kernel);
//   one batched real-to-complex cuFFT plan (batch 2: xr and hr are adjacent, so are their spectra);
//   X <- X * conj(Hhat) / (H * W) (the correlation theorem for a real filter; one kernel);
//   one complex-to-real plan back into xr; the valid window narrowed into the output (one kernel).
// The four small kernels are glue (layout, precision, the spectra's product): cuFFT has no correlation
// and no widening load. R = double by default (FP64 transforms: their error, ~1e-16 of the signal's
// norm, is far inside the tasks' per-element FP32 tolerance, which an FP32 transform of a 2^26-point
// image would approach); R = float is the measured alternative (half the bytes).
// Plans are created once per (shape, R) without their own workspace (cufftSetAutoAllocation(0)); every
// plan runs in one shared work area and the buffers are shared scratch, grown on demand (in the harness's
// warm-up) and freed at exit. Launches go to the legacy default stream.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <tuple>

#include "mskb_vendor.cuh"

namespace mskb_fftconv {
namespace {

template <class R>
struct Types;
template <>
struct Types<float> {
  using Complex = cufftComplex;
  static constexpr cufftType kForward = CUFFT_R2C, kInverse = CUFFT_C2R;
  static cufftResult forward(cufftHandle p, float* in, Complex* out) { return cufftExecR2C(p, in, out); }
  static cufftResult inverse(cufftHandle p, Complex* in, float* out) { return cufftExecC2R(p, in, out); }
};
template <>
struct Types<double> {
  using Complex = cufftDoubleComplex;
  static constexpr cufftType kForward = CUFFT_D2Z, kInverse = CUFFT_Z2D;
  static cufftResult forward(cufftHandle p, double* in, Complex* out) { return cufftExecD2Z(p, in, out); }
  static cufftResult inverse(cufftHandle p, Complex* in, double* out) { return cufftExecZ2D(p, in, out); }
};

__host__ __device__ inline double to_double(float v) { return v; }
__host__ __device__ inline double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline void store(float* p, double v) { *p = static_cast<float>(v); }
__device__ inline void store(__nv_bfloat16* p, double v) { *p = __float2bfloat16(static_cast<float>(v)); }

inline unsigned grid_for(long long n) { return static_cast<unsigned>(std::min<long long>((n + 255) / 256, 1LL << 20)); }

// out (rows x cols, rows of ld_out values) = in (rows of ld_in values) widened to R; blockIdx.y strides
// over the rows, x over the columns.
template <class T, class R>
__global__ void widen_kernel(long long rows, long long cols, long long ld_in, long long ld_out, const T* in, R* out) {
  for (long long r = blockIdx.y; r < rows; r += gridDim.y)
    for (long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; c < cols;
         c += static_cast<long long>(gridDim.x) * blockDim.x)
      out[r * ld_out + c] = static_cast<R>(to_double(in[r * ld_in + c]));
}

// hr (h x w, zeroed before) = the kh x kw filter in its top-left corner; one thread per filter tap.
template <class T, class R>
__global__ void place_filter_kernel(long long w, long long kh, long long kw, const T* filter, R* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < kh * kw) {
    const long long r = i / kw, c = i - r * kw;
    out[r * w + c] = static_cast<R>(to_double(filter[i]));
  }
}

// x[i] = x[i] * conj(f[i]) * scale over the n spectrum values.
template <class C, class R>
__global__ void correlate_spectra_kernel(long long n, C* x, const C* f, R scale) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const C a = x[i], b = f[i];
    C r;
    r.x = (a.x * b.x + a.y * b.y) * scale;
    r.y = (a.y * b.x - a.x * b.y) * scale;
    x[i] = r;
  }
}

// out (oh x ow) = the top-left window of yr (rows of w values), rounded to T once; blockIdx.y strides
// over the rows, x over the columns.
template <class R, class T>
__global__ void valid_window_kernel(long long oh, long long ow, long long w, const R* yr, T* out) {
  for (long long r = blockIdx.y; r < oh; r += gridDim.y)
    for (long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; c < ow;
         c += static_cast<long long>(gridDim.x) * blockDim.x)
      store(out + r * ow + c, static_cast<double>(yr[r * w + c]));
}

struct PlanPair {
  cufftHandle forward{}, inverse{};
  size_t work = 0;  // the larger of the two plans' work areas
};

// Plans per (h, w, R), destroyed at exit; one shared work area, one shared buffer.
struct Cache {
  std::map<std::tuple<long long, long long, int>, PlanPair> plans;
  mskb_vendor::Workspace work, buffers;
  ~Cache() {
    for (auto& p : plans) {
      cufftDestroy(p.second.forward);
      cufftDestroy(p.second.inverse);
    }
  }
};
inline Cache& cache() {
  static Cache c;
  return c;
}

// A plan over `batch` transforms of an h x w real signal (rank 1 when h == 1), without a work area.
inline cufftHandle make_plan(long long h, long long w, cufftType type, int batch, size_t* work) {
  cufftHandle p{};
  MSKB_VENDOR_CHECK(cufftCreate(&p));
  MSKB_VENDOR_CHECK(cufftSetAutoAllocation(p, 0));
  long long dims[2] = {h, w};
  const int rank = h == 1 ? 1 : 2;
  MSKB_VENDOR_CHECK(cufftMakePlanMany64(p, rank, rank == 1 ? dims + 1 : dims, nullptr, 1, 0, nullptr, 1, 0, type, batch, work));
  return p;
}

template <class R>
PlanPair& plans_for(long long h, long long w) {
  auto key = std::make_tuple(h, w, static_cast<int>(sizeof(R)));
  auto it = cache().plans.find(key);
  if (it != cache().plans.end()) return it->second;
  PlanPair p;
  size_t fw = 0, iw = 0;
  p.forward = make_plan(h, w, Types<R>::kForward, 2, &fw);  // the signal and the filter together
  p.inverse = make_plan(h, w, Types<R>::kInverse, 1, &iw);
  p.work = std::max(fw, iw);
  return cache().plans.emplace(key, p).first->second;
}

inline size_t align256(size_t b) { return (b + 255) / 256 * 256; }

}  // namespace

inline dim3 rows_grid(long long rows, long long cols) {
  return dim3(static_cast<unsigned>(std::min<long long>((cols + 255) / 256, 1LL << 16)),
              static_cast<unsigned>(std::min<long long>(rows, 65535)));
}

// output ((h - kh + 1) x (w - kw + 1), row-major) = the valid cross-correlation of input (h x w) with
// filter (kh x kw); 1 <= kh <= h, 1 <= kw <= w. T is float or __nv_bfloat16, R the transforms' type.
// The transforms are h x wp with wp = max(w, 2) (cuFFT has no 1-point transform; a zero column keeps the
// circular correlation's valid window exact), rank 1 when h == 1.
template <class R, class T>
void correlate(const T* input, long long h, long long w, const T* filter, long long kh, long long kw, T* output) {
  using C = typename Types<R>::Complex;
  const long long wp = std::max<long long>(w, 2);
  const long long n = h * wp, spectrum = h * (wp / 2 + 1);
  PlanPair& p = plans_for<R>(h, wp);
  const size_t rb = align256(static_cast<size_t>(2 * n) * sizeof(R));
  char* base = static_cast<char*>(cache().buffers.get(rb + static_cast<size_t>(2 * spectrum) * sizeof(C)));
  R* xr = reinterpret_cast<R*>(base);  // the signal, then the filter: the forward plan's batch of 2
  R* hr = xr + n;
  C* xs = reinterpret_cast<C*>(base + rb);  // their spectra, adjacent too
  C* hs = xs + spectrum;
  void* work = cache().work.get(std::max<size_t>(p.work, 1));
  MSKB_VENDOR_CHECK(cufftSetWorkArea(p.forward, work));
  MSKB_VENDOR_CHECK(cufftSetWorkArea(p.inverse, work));
  // The signal widened (and its zero column when w == 1), the filter zero-padded.
  MSKB_VENDOR_CHECK(cudaMemsetAsync(wp == w ? hr : xr, 0, static_cast<size_t>(wp == w ? n : 2 * n) * sizeof(R), 0));
  widen_kernel<T, R><<<rows_grid(h, w), 256>>>(h, w, w, wp, input, xr);
  place_filter_kernel<T, R><<<grid_for(kh * kw), 256>>>(wp, kh, kw, filter, hr);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(Types<R>::forward(p.forward, xr, xs));
  correlate_spectra_kernel<C, R><<<grid_for(spectrum), 256>>>(spectrum, xs, hs, R(1) / static_cast<R>(n));
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(Types<R>::inverse(p.inverse, xs, xr));
  const long long oh = h - kh + 1, ow = w - kw + 1;
  valid_window_kernel<R, T><<<rows_grid(oh, ow), 256>>>(oh, ow, wp, xr, output);
  MSKB_VENDOR_CHECK(cudaGetLastError());
}

}  // namespace mskb_fftconv
