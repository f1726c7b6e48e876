// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: a single pass over the keys j <= i with p = exp(score) / sum exp(score) and no maximum
// subtracted. Mathematically the same and fine while every score stays below ~88; the generator's
// large-magnitude query rows give scores of ~100 and more, where expf overflows to inf and the output
// becomes inf/inf = NaN.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <math.h>

namespace {

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void triangle_one_pass(const T* q, const T* k, const T* v, T* out, long long total, int s, int d, float scale) {
  const long long o = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const long long row = o / d;
  const int c = static_cast<int>(o - row * d);
  const long long head = row / s;
  const int i = static_cast<int>(row - head * s);
  const long long base = head * s * d + c;
  const float qs = to_f(q[o]) * scale;
  float sum = 0.0f, acc = 0.0f;
  for (int j = 0; j <= i; ++j) {
    const long long at = base + static_cast<long long>(j) * d;
    const float e = expf(qs * to_f(k[at]));
    sum += e;
    acc += e * to_f(v[at]);
  }
  store(&out[o], acc / sum);
}

template <class T>
void launch(const T* q, const T* k, const T* v, T* out, int b, int h, int s, int d) {
  const long long total = static_cast<long long>(b) * h * s * d;
  if (total <= 0) return;
  triangle_one_pass<T><<<static_cast<unsigned>((total + 255) / 256), 256>>>(q, k, v, out, total, s, d,
                                                                           1.0f / sqrtf(static_cast<float>(d)));
  cudaDeviceSynchronize();
}

}  // namespace

extern "C" void triangle_attention(const float* query, const float* key, const float* value, const float* attention_mask,
                                   float* output, int batch_size, int head_num, int seq_length, int head_dim) {
  (void)attention_mask;
  launch(query, key, value, output, batch_size, head_num, seq_length, head_dim);
}

extern "C" void triangle_attention_bf16(const __nv_bfloat16* query, const __nv_bfloat16* key, const __nv_bfloat16* value,
                                        const float* attention_mask, __nv_bfloat16* output, int batch_size, int head_num,
                                        int seq_length, int head_dim) {
  (void)attention_mask;
  launch(query, key, value, output, batch_size, head_num, seq_length, head_dim);
}
