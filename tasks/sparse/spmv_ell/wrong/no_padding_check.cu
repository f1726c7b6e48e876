// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: relies on padding values being 0 and multiplies every slot, so a padding slot reads
// x[-1]: the element before x (the harness's guard zone, NaN), and 0 * NaN = NaN poisons the row.
// Harmless only for a matrix without padding (the 1 x 1 held-out shape).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void spmv_ell_nocheck(int rows, int width, const __nv_bfloat16* values, const int* col_ids, const __nv_bfloat16* x,
                                 __nv_bfloat16* y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const long long base = i * width;
  float sum = 0.0f;
  for (int s = 0; s < width; ++s) sum += __bfloat162float(values[base + s]) * __bfloat162float(x[col_ids[base + s]]);
  y[i] = __float2bfloat16(sum);
}

extern "C" void spmv_ell_bf16(int rows, int max_nnz_per_row, const __nv_bfloat16* values, const int* col_ids,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  if (rows > 0) {
    const long long blocks = (static_cast<long long>(rows) + 255) / 256;
    spmv_ell_nocheck<<<static_cast<unsigned>(blocks), 256>>>(rows, max_nnz_per_row, values, col_ids, x, y);
  }
  cudaDeviceSynchronize();
}
