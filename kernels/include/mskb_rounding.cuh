// Reduced-precision arithmetic the wrong/ kernels imitate, the same on every architecture CUDA 13
// compiles for: the instruction from sm_80 on, an equivalent before it (sm_75 has neither).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace mskb_rounding {

// One bf16 fused multiply-add rounded to bf16: __hfma from sm_80 on; before it the FP32 FMA rounded
// to bf16, one more rounding than the instruction, as far off.
__device__ __forceinline__ __nv_bfloat16 fma_bf16(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __hfma(a, b, c);
#else
  return __float2bfloat16(fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
#endif
}

// x rounded to TF32 (10-bit mantissa), as TF32 tensor cores read it: cvt.rna.tf32.f32 from sm_80 on;
// before it the same rounding (to nearest, ties away from zero, 13 low mantissa bits dropped).
__device__ __forceinline__ float to_tf32(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
#else
  return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
#endif
}

}  // namespace mskb_rounding
