// Vendor contender: cuSPARSE generic SpMV on a COO descriptor (cusparseCreateConstCoo; the generic
// API allows unsorted indices), alpha = 1, beta = 1 so y accumulates; the first algorithm cuSPARSE
// accepts of CUSPARSE_SPMV_COO_ALG1, ALG_DEFAULT, COO_ALG2. BF16: values and x as CUDA_R_16BF with
// CUDA_R_32F compute, and y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): with unsorted entries
// every product is a separate update of y, so a bf16 y would be rounded once per entry; the stage is
// rounded to bf16 once at the end. The entry point is not given the column count cuSPARSE needs, so a
// small kernel first reduces max(col_indices) + 1 on the device (plus a 4-byte copy). All counted.
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

__global__ void widen_kernel(long long n, const __nv_bfloat16* in, float* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}

__global__ void narrow_kernel(long long n, const float* in, __nv_bfloat16* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}

// The output cuSPARSE writes: y itself (FP32), or an FP32 copy of the BF16 y.
void* stage_output(long long n, void* y, cudaDataType type) {
  if (type != CUDA_R_16BF) return y;
  float* s = g_stage.get(static_cast<size_t>(n));
  widen_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(n, static_cast<const __nv_bfloat16*>(y), s);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  return s;
}

// Rounds the FP32 stage back into the BF16 y (once per element).
void unstage_output(long long n, void* staged, void* y, cudaDataType type) {
  if (type != CUDA_R_16BF) return;
  narrow_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(n, static_cast<const float*>(staged),
                                                                 static_cast<__nv_bfloat16*>(y));
  MSKB_VENDOR_CHECK(cudaGetLastError());
}

struct SpMat {
  cusparseConstSpMatDescr_t d{};
  ~SpMat() {
    if (d) cusparseDestroySpMat(d);
  }
};
struct ConstVec {
  cusparseConstDnVecDescr_t d{};
  ~ConstVec() {
    if (d) cusparseDestroyDnVec(d);
  }
};
struct Vec {
  cusparseDnVecDescr_t d{};
  ~Vec() {
    if (d) cusparseDestroyDnVec(d);
  }
};

bool unsupported(cusparseStatus_t s) { return s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_INVALID_VALUE; }

// y = A * x + beta * y with the first algorithm of `algs` that cuSPARSE accepts for this
// configuration (mixed precision is not supported by every algorithm); false if none does.
bool spmv_first_supported(cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t X, cusparseDnVecDescr_t Y, float beta,
                          const cusparseSpMVAlg_t* algs, int n_algs) {
  cusparseHandle_t h = mskb_vendor::cusparse();
  const float alpha = 1.0f;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  for (int a = 0; a < n_algs; ++a) {
    size_t bytes = 0;
    cusparseStatus_t s = cusparseSpMV_bufferSize(h, op, &alpha, A, X, &beta, Y, CUDA_R_32F, algs[a], &bytes);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    void* buffer = mskb_vendor::workspace().get(bytes > 0 ? bytes : 256);  // never a null buffer
    s = cusparseSpMV(h, op, &alpha, A, X, &beta, Y, CUDA_R_32F, algs[a], buffer);
    if (unsupported(s)) continue;
    MSKB_VENDOR_CHECK(s);
    return true;
  }
  return false;
}

void spmv_coo_any(int rows, int nnz, const void* values, const int* row_indices, const int* col_indices, const void* x, void* y,
                  cudaDataType type) {
  if (rows <= 0 || nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const int cols = column_count(col_indices, nnz);
  SpMat A;
  ConstVec X;
  MSKB_VENDOR_CHECK(cusparseCreateConstCoo(&A.d, rows, cols, nnz, row_indices, col_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, cols, x, type));
  // beta = 1: y accumulates.
  static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_COO_ALG1, CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_COO_ALG2};
  void* y_out = stage_output(rows, y, type);
  bool done;
  {
    Vec Y;
    MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y_out, type == CUDA_R_16BF ? CUDA_R_32F : type));
    done = spmv_first_supported(A.d, X.d, Y.d, 1.0f, algs, 3);
  }
  if (done) {
    unstage_output(rows, y_out, y, type);
  } else if (y_out != y) {  // cuSPARSE refused BF16 in / FP32 out: a BF16 y directly
    Vec Y;
    MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y, type));
    done = spmv_first_supported(A.d, X.d, Y.d, 1.0f, algs, 3);
  }
  if (!done) {
    std::fprintf(stderr, "cusparseSpMV: no algorithm supports this configuration\n");
    std::abort();
  }
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmv_coo(int rows, int nnz, const float* values, const int* row_indices, const int* col_indices, const float* x,
                         float* y) {
  spmv_coo_any(rows, nnz, values, row_indices, col_indices, x, y, CUDA_R_32F);
}

extern "C" void spmv_coo_bf16(int rows, int nnz, const __nv_bfloat16* values, const int* row_indices, const int* col_indices,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_coo_any(rows, nnz, values, row_indices, col_indices, x, y, CUDA_R_16BF);
}
