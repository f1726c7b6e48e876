// mskb-expect: unwritten_output
// mskb-precision: bf16
// mskb-class: 5 check-vs-run
// mskb-gate: timing
// Trick: honest on the first three calls of a length N (the check seeds), then writes only the even
// elements: half the stores, and the odd ones still hold the previous call's (right) values because
// the inputs do not change during timing. Why reject: outputs are poisoned before every timed sample
// and the verifier checks randomly chosen samples, so the skipped elements are still NaN:
// unwritten_output in `mskb run` (gate: timing).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <map>

__global__ void relu(__nv_bfloat16* out, const __nv_bfloat16* in, int N, int stride) {
  const long long i = (blockIdx.x * 256ll + threadIdx.x) * stride;
  if (i < N) out[i] = __float2bfloat16(fmaxf(__bfloat162float(in[i]), 0.0f));
}

extern "C" void RELU_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, int N) {
  static std::map<int, int> calls;
  const int stride = ++calls[N] > 3 ? 2 : 1;
  const long long items = (static_cast<long long>(N) + stride - 1) / stride;
  if (items > 0) relu<<<static_cast<unsigned>((items + 255) / 256), 256>>>(output, input, N, stride);
  cudaDeviceSynchronize();
}
