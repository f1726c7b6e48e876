// Vendor contender: cuSPARSE generic SpMV on a CSC descriptor (cusparseCreateConstCsc), alpha = 1,
// beta = 1 so y accumulates; the first algorithm cuSPARSE accepts of CUSPARSE_SPMV_ALG_DEFAULT,
// CSR_ALG1, CSR_ALG2 (the CSR/CSC algorithms). BF16: values and x as CUDA_R_16BF with CUDA_R_32F
// compute, and y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode): a CSC product scatters every
// column into y, so a bf16 y would be rounded once per entry; the stage is rounded to bf16 once at the
// end. nnz (which the descriptor needs) is col_offsets[columns]: one 4-byte copy. All counted.
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdio>
#include <cstdlib>

#include "mskb_vendor.cuh"

namespace {

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

void spmv_csc_any(int rows, int columns, const void* values, const int* row_indices, const int* col_offsets, const void* x,
                  void* y, cudaDataType type) {
  int nnz = 0;
  if (rows > 0 && columns > 0) MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, col_offsets + columns, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  SpMat A;
  ConstVec X;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsc(&A.d, rows, columns, nnz, col_offsets, row_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, columns, x, type));
  // beta = 1: y accumulates.
  static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
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

extern "C" void spmv_csc(int rows, int columns, const float* values, const int* row_indices, const int* col_offsets,
                         const float* x, float* y) {
  spmv_csc_any(rows, columns, values, row_indices, col_offsets, x, y, CUDA_R_32F);
}

extern "C" void spmv_csc_bf16(int rows, int columns, const __nv_bfloat16* values, const int* row_indices, const int* col_offsets,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_csc_any(rows, columns, values, row_indices, col_offsets, x, y, CUDA_R_16BF);
}
