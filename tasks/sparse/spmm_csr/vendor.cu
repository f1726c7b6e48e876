// Vendor contender: cuSPARSE generic SpMM on a CSR descriptor (cusparseCreateConstCsr) with row-major
// dense X (cols x K) and Y (rows x K), ld = K; alpha = 1, beta = 0 after zeroing the output (cuSPARSE
// does not promise that beta = 0 ignores the NaN the harness poisons Y with). Algorithm: the first one
// cuSPARSE accepts of CUSPARSE_SPMM_CSR_ALG2 (meant for row-major), ALG_DEFAULT, CSR_ALG3, CSR_ALG1
// (mixed precision is not supported by every algorithm). BF16: values and X as CUDA_R_16BF with
// CUDA_R_32F compute, and the output staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): with a BF16
// output, cuSPARSE failed the check on an H200 (errors of tens of % on small results, as from a row's
// partial sums rounded to bf16 more than once); the zeroed FP32 stage is rounded into Y once at the end
// (a BF16 Y directly only if cuSPARSE refuses the FP32 output for every algorithm). The entry point is
// not given nnz or the column count: the call reads row_offsets[rows] and reduces
// max(col_indices) + 1 on the device (two 4-byte copies). All of it (probe, staging) is counted in the
// time; the stage is grown on demand and freed at exit.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "mskb_vendor.cuh"

namespace {

// One device int for the column probe, allocated once and freed at exit.
struct ProbeSlot {
  int* p = nullptr;
  int* get() {
    if (!p) MSKB_VENDOR_CHECK(cudaMalloc(&p, sizeof(int)));
    return p;
  }
  ~ProbeSlot() {
    if (p) cudaFree(p);
  }
};
ProbeSlot g_probe;

__global__ void max_index_kernel(const int* idx, long long n, int* out) {
  int m = -1;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    m = max(m, idx[i]);
  m = __reduce_max_sync(0xffffffffu, m);
  if ((threadIdx.x & 31) == 0 && m >= 0) atomicMax(out, m);
}

// Number of columns of the matrix: max(col_indices) + 1 (at least 1).
int column_count(const int* col_indices, long long nnz) {
  int* d = g_probe.get();
  MSKB_VENDOR_CHECK(cudaMemsetAsync(d, 0xFF, sizeof(int), 0));  // -1
  if (nnz > 0) {
    const long long blocks = std::min<long long>((nnz + 255) / 256, 4096);
    max_index_kernel<<<static_cast<unsigned>(blocks), 256>>>(col_indices, nnz, d);
    MSKB_VENDOR_CHECK(cudaGetLastError());
  }
  int h = -1;
  MSKB_VENDOR_CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
  return std::max(h + 1, 1);
}

// FP32 stage for a BF16 output (see the header), grown on demand and freed at exit.
struct Stage {
  float* p = nullptr;
  size_t n = 0;
  float* get(size_t need) {
    if (need > n) {
      if (p) cudaFree(p);
      p = nullptr;
      n = 0;
      MSKB_VENDOR_CHECK(cudaMalloc(&p, need * sizeof(float)));
      n = need;
    }
    return p;
  }
  ~Stage() {
    if (p) cudaFree(p);
  }
};
Stage g_stage;

// Rounds the FP32 stage into the BF16 y, once per element (grid-stride, 64-bit indices: rows * K can
// exceed 2^31).
__global__ void narrow_kernel(long long n, const float* in, __nv_bfloat16* out) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

void narrow(long long n, const float* in, __nv_bfloat16* out) {
  const long long blocks = std::min<long long>((n + 255) / 256, 65536);
  narrow_kernel<<<static_cast<unsigned>(blocks), 256>>>(n, in, out);
  MSKB_VENDOR_CHECK(cudaGetLastError());
}

struct SpMat {
  cusparseConstSpMatDescr_t d{};
  ~SpMat() {
    if (d) cusparseDestroySpMat(d);
  }
};
struct ConstMat {
  cusparseConstDnMatDescr_t d{};
  ~ConstMat() {
    if (d) cusparseDestroyDnMat(d);
  }
};
struct Mat {
  cusparseDnMatDescr_t d{};
  ~Mat() {
    if (d) cusparseDestroyDnMat(d);
  }
};

bool unsupported(cusparseStatus_t s) { return s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_INVALID_VALUE; }

// C = A * B + beta * C with the first algorithm of `algs` that cuSPARSE accepts; false if none does.
bool spmm_first_supported(cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B, cusparseDnMatDescr_t C, float beta,
                          const cusparseSpMMAlg_t* algs, int n_algs) {
  cusparseHandle_t h = mskb_vendor::cusparse();
  const float alpha = 1.0f;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  for (int a = 0; a < n_algs; ++a) {
    size_t bytes = 0;
    cusparseStatus_t s = cusparseSpMM_bufferSize(h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, algs[a], &bytes);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    void* buffer = mskb_vendor::workspace().get(bytes > 0 ? bytes : 256);  // never a null buffer
    s = cusparseSpMM(h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, algs[a], buffer);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    return true;
  }
  return false;
}

template <class T>
void spmm_csr_any(int rows, int K, const T* values, const int* col_indices, const int* row_offsets, const T* X, T* Y,
                  cudaDataType type) {
  const long long total = static_cast<long long>(rows) * K;
  if (total <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  int nnz = 0;
  MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, row_offsets + rows, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {  // an empty matrix: Y = 0
    MSKB_VENDOR_CHECK(cudaMemsetAsync(Y, 0, static_cast<size_t>(total) * sizeof(T), 0));
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const int cols = column_count(col_indices, nnz);
  SpMat A;
  ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, cols, nnz, row_offsets, col_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, cols, K, K, X, type, CUSPARSE_ORDER_ROW));
  static const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                           CUSPARSE_SPMM_CSR_ALG1};
  // Output (c, c_type) = A * X: zeroed, then beta = 0.
  auto attempt = [&](void* c, cudaDataType c_type, size_t elem_bytes) {
    MSKB_VENDOR_CHECK(cudaMemsetAsync(c, 0, static_cast<size_t>(total) * elem_bytes, 0));
    Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    return spmm_first_supported(A.d, B.d, C.d, 0.0f, algs, 4);
  };
  bool done = false;
  if (type == CUDA_R_16BF) {
    float* stage = g_stage.get(static_cast<size_t>(total));
    done = attempt(stage, CUDA_R_32F, sizeof(float));
    if (done)
      narrow(total, stage, reinterpret_cast<__nv_bfloat16*>(Y));
    else  // cuSPARSE refused BF16 in / FP32 out: a BF16 Y directly
      done = attempt(Y, type, sizeof(T));
  } else {
    done = attempt(Y, type, sizeof(T));
  }
  if (!done) {
    std::fprintf(stderr, "spmm_csr vendor: cusparseSpMM: no algorithm supports this configuration\n");
    std::abort();
  }
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmm_csr(int rows, int K, const float* values, const int* col_indices, const int* row_offsets, const float* X,
                         float* Y) {
  spmm_csr_any(rows, K, values, col_indices, row_offsets, X, Y, CUDA_R_32F);
}

extern "C" void spmm_csr_bf16(int rows, int K, const __nv_bfloat16* values, const int* col_indices, const int* row_offsets,
                              const __nv_bfloat16* X, __nv_bfloat16* Y) {
  spmm_csr_any(rows, K, values, col_indices, row_offsets, X, Y, CUDA_R_16BF);
}
