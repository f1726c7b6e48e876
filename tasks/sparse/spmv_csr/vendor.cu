// Vendor contender: cuSPARSE generic SpMV on a CSR descriptor (cusparseCreateConstCsr),
// CUSPARSE_SPMV_CSR_ALG1, alpha = 1, beta = 0 (y is zeroed first so the harness's NaN poison can never
// leak through beta * y). BF16 through CUDA_R_16BF values/vectors with CUDA_R_32F compute. The entry point
// is given neither nnz nor the column count cuSPARSE needs: nnz is read from row_offsets[rows] and the
// column count is max(col_indices) + 1, reduced on the device (one small kernel, two 4-byte copies,
// counted in the time).
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>

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

void spmv_csr_any(int rows, const void* values, const int* col_indices, const int* row_offsets, const void* x, void* y,
                  cudaDataType type, size_t elem) {
  if (rows <= 0) {
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  MSKB_VENDOR_CHECK(cudaMemsetAsync(y, 0, static_cast<size_t>(rows) * elem, 0));
  int nnz = 0;
  MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, row_offsets + rows, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {  // all rows empty: y = 0
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  cusparseHandle_t h = mskb_vendor::cusparse();
  const int cols = column_count(col_indices, nnz);
  SpMat A;
  ConstVec X;
  Vec Y;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, cols, nnz, row_offsets, col_indices, values, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnVec(&X.d, cols, x, type));
  MSKB_VENDOR_CHECK(cusparseCreateDnVec(&Y.d, rows, y, type));
  const float alpha = 1.0f, beta = 0.0f;
  size_t bytes = 0;
  MSKB_VENDOR_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, X.d, &beta, Y.d, CUDA_R_32F,
                                            CUSPARSE_SPMV_CSR_ALG1, &bytes));
  void* buffer = mskb_vendor::workspace().get(std::max<size_t>(bytes, 1));
  MSKB_VENDOR_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, X.d, &beta, Y.d, CUDA_R_32F,
                                 CUSPARSE_SPMV_CSR_ALG1, buffer));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmv_csr(int rows, const float* values, const int* col_indices, const int* row_offsets, const float* x,
                         float* y) {
  spmv_csr_any(rows, values, col_indices, row_offsets, x, y, CUDA_R_32F, sizeof(float));
}

extern "C" void spmv_csr_bf16(int rows, const __nv_bfloat16* values, const int* col_indices, const int* row_offsets,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_csr_any(rows, values, col_indices, row_offsets, x, y, CUDA_R_16BF, sizeof(__nv_bfloat16));
}
