// Owns the FP64 GEMM of the device references (matrix_mul, square_matrix_mul): C = A * B for
// row-major A (M x K) and B (K x N) read in their element types (load_input), C in FP64. Every
// element of C is summed over k in order from 0.0 with a separate multiply and add (no FMA): the
// CPU reference's operations in its order, so the same bits. Register-blocked: a 16 x 16 block
// computes a 64 x 64 tile of C, each thread 4 x 4 elements (rows ty + 16 i, columns tx + 16 j), from
// 16-deep slices of A and B in shared memory (a 16 x 16 tile per block, one element per thread,
// left the FP64 units mostly waiting on shared memory: 2.05 s for M = 12288 on a shared H200).
// Defined in dgemm.cu (compiled by nvcc).
#pragma once

#include <cstdint>

namespace mskb::gpu {

// C = A * B as above; `bytes`: A's and B's element size (4 float, 2 bfloat16). Launches on the
// legacy stream, checks the launch.
void dgemm_unfused(const void* A, const void* B, double* C, int64_t M, int64_t N, int64_t K, int bytes);

}  // namespace mskb::gpu
