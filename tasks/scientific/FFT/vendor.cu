// Vendor contender: cuFFT. FP32: a kernel interleaves the split input into a cufftComplex scratch buffer,
// cufftExecC2C(CUFFT_FORWARD) runs in place, a kernel de-interleaves into the split outputs. BF16: the
// same around a cufftXtMakePlanMany/cufftXtExec plan with CUDA_C_16BF (power-of-two sizes, sm_80+); if
// cuFFT refuses the bf16 plan, the bf16 input is widened to FP32 and the FP32 C2C plan is used instead.
// Plans are cached per N and destroyed at exit. cuFFT's forward transform is unnormalised, as the task.
// mskb-link: cufft
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cufftXt.h>

#include <map>

#include "mskb_vendor.cuh"

namespace {

struct PlanCache {
  std::map<int, cufftHandle> fp32, bf16;
  std::map<int, bool> bf16_refused;
  ~PlanCache() {
    for (auto& p : fp32) cufftDestroy(p.second);
    for (auto& p : bf16) cufftDestroy(p.second);
  }
  cufftHandle get_fp32(int n) {
    auto it = fp32.find(n);
    if (it != fp32.end()) return it->second;
    cufftHandle h{};
    MSKB_VENDOR_CHECK(cufftPlan1d(&h, n, CUFFT_C2C, 1));
    fp32[n] = h;
    return h;
  }
  // Returns false (once per N, remembered) when cuFFT has no bf16 plan for this N.
  bool get_bf16(int n, cufftHandle* out) {
    auto it = bf16.find(n);
    if (it != bf16.end()) {
      *out = it->second;
      return true;
    }
    if (bf16_refused.count(n)) return false;
    cufftHandle h{};
    MSKB_VENDOR_CHECK(cufftCreate(&h));
    long long len = n;
    size_t work = 0;
    if (cufftXtMakePlanMany(h, 1, &len, nullptr, 1, 1, CUDA_C_16BF, nullptr, 1, 1, CUDA_C_16BF, 1, &work, CUDA_C_16BF) !=
        CUFFT_SUCCESS) {
      cufftDestroy(h);
      bf16_refused[n] = true;
      return false;
    }
    bf16[n] = h;
    *out = h;
    return true;
  }
};

PlanCache& plans() {
  static PlanCache c;
  return c;
}

__global__ void interleave_f32(const float* re, const float* im, cufftComplex* z, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = make_float2(re[i], im[i]);
}
__global__ void deinterleave_f32(const cufftComplex* z, float* re, float* im, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    re[i] = z[i].x;
    im[i] = z[i].y;
  }
}
__global__ void interleave_bf16(const __nv_bfloat16* re, const __nv_bfloat16* im, __nv_bfloat162* z, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = __halves2bfloat162(re[i], im[i]);
}
__global__ void deinterleave_bf16(const __nv_bfloat162* z, __nv_bfloat16* re, __nv_bfloat16* im, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    re[i] = z[i].x;
    im[i] = z[i].y;
  }
}
__global__ void widen_bf16(const __nv_bfloat16* re, const __nv_bfloat16* im, cufftComplex* z, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = make_float2(__bfloat162float(re[i]), __bfloat162float(im[i]));
}
__global__ void narrow_bf16(const cufftComplex* z, __nv_bfloat16* re, __nv_bfloat16* im, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    re[i] = __float2bfloat16(z[i].x);
    im[i] = __float2bfloat16(z[i].y);
  }
}

unsigned blocks_for(long long n) { return static_cast<unsigned>((n + 255) / 256); }

}  // namespace

extern "C" void FFT(const float* input_real, const float* input_img, float* output_real, float* output_img, int N) {
  if (N <= 0) return;
  const long long n = N;
  if (N == 1) {  // the length-1 DFT is the identity
    MSKB_VENDOR_CHECK(cudaMemcpyAsync(output_real, input_real, sizeof(float), cudaMemcpyDeviceToDevice, 0));
    MSKB_VENDOR_CHECK(cudaMemcpyAsync(output_img, input_img, sizeof(float), cudaMemcpyDeviceToDevice, 0));
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  cufftHandle plan = plans().get_fp32(N);
  auto* z = static_cast<cufftComplex*>(mskb_vendor::workspace().get(static_cast<size_t>(n) * sizeof(cufftComplex)));
  interleave_f32<<<blocks_for(n), 256>>>(input_real, input_img, z, n);
  MSKB_VENDOR_CHECK(cufftExecC2C(plan, z, z, CUFFT_FORWARD));
  deinterleave_f32<<<blocks_for(n), 256>>>(z, output_real, output_img, n);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void FFT_bf16(const __nv_bfloat16* input_real, const __nv_bfloat16* input_img, __nv_bfloat16* output_real,
                         __nv_bfloat16* output_img, int N) {
  if (N <= 0) return;
  const long long n = N;
  if (N == 1) {
    MSKB_VENDOR_CHECK(cudaMemcpyAsync(output_real, input_real, sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, 0));
    MSKB_VENDOR_CHECK(cudaMemcpyAsync(output_img, input_img, sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, 0));
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  cufftHandle plan{};
  if (plans().get_bf16(N, &plan)) {
    auto* z = static_cast<__nv_bfloat162*>(mskb_vendor::workspace().get(static_cast<size_t>(n) * sizeof(__nv_bfloat162)));
    interleave_bf16<<<blocks_for(n), 256>>>(input_real, input_img, z, n);
    MSKB_VENDOR_CHECK(cufftXtExec(plan, z, z, CUFFT_FORWARD));
    deinterleave_bf16<<<blocks_for(n), 256>>>(z, output_real, output_img, n);
  } else {
    plan = plans().get_fp32(N);
    auto* z = static_cast<cufftComplex*>(mskb_vendor::workspace().get(static_cast<size_t>(n) * sizeof(cufftComplex)));
    widen_bf16<<<blocks_for(n), 256>>>(input_real, input_img, z, n);
    MSKB_VENDOR_CHECK(cufftExecC2C(plan, z, z, CUFFT_FORWARD));
    narrow_bf16<<<blocks_for(n), 256>>>(z, output_real, output_img, n);
  }
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
