// Vendor contender: cuSPARSE, CSC transposed into CSR by the library, then a CSR SpMM. The CSC arrays of
// A (rows x columns) are the CSR arrays of A^T (columns x rows), and cusparseCsr2cscEx2 (CSR2CSC_ALG1,
// CUSPARSE_ACTION_NUMERIC) turns them into the CSC arrays of A^T, which are the CSR arrays of A: row
// offsets, column indices sorted within each row, values. Then cusparseSpMM on that CSR descriptor with
// row-major dense X (columns x K) and Y (rows x K), ld = K, alpha = 1, beta = 1 so Y accumulates;
// CUSPARSE_SPMM_CSR_ALG2 (row-major), else the first accepted of ALG_DEFAULT, CSR_ALG3, CSR_ALG1. A
// row-parallel CSR product writes each output once with no atomics, where cusparseSpMM on the CSC
// descriptor itself runs the transposed (scatter) kernel: one atomic add per entry and output column
// (about 2.7e9 on the large sweep's first shape; measured at P 0.83..1.1 against the naive atomic baseline
// on the H200). The conversion is O(nnz), once per call, against an SpMM of nnz * K multiply-adds.
// BF16: values and X as CUDA_R_16BF with CUDA_R_32F compute, and Y staged in FP32 (cuSPARSE's BF16-in /
// FP32-out mode; a bf16 output failed spmm_csr's check on an H200, as from partial sums rounded to bf16
// more than once), rounded to bf16 once at the end (a BF16 Y directly only if cuSPARSE refuses the FP32
// output). csr2cscEx2 moves BF16 values as CUDA_R_16BF (as CUDA_R_16F, the same two bytes moved, if this
// cuSPARSE does not list 16BF for the conversion: a permutation does no arithmetic).
// What the ABI forces: nnz (the conversion and the descriptor need it) is col_offsets[columns], one
// 4-byte device-to-host copy, and the matrix comes in CSC, which the row-parallel SpMM does not take: the
// conversion runs on every call (a real application converts once). All of it is counted in the time;
// the CSR copy, the conversion's buffer and cuSPARSE's workspace are grown on demand and freed at exit.
// (The route before this one: tests/vendor_alternatives/spmm_csc_csc_descriptor.cu.)
// mskb-link: cusparse
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstddef>

#include "mskb_vendor.cuh"
#include "mskb_sparse_vendor.cuh"

namespace {

using mskb_sparse::align256;

template <class T>
struct CsrOfA {
  int* offsets;  // rows + 1
  int* cols;     // nnz
  T* vals;       // nnz
};

// The CSR arrays of A from its CSC arrays, by cusparseCsr2cscEx2 on A^T.
template <class T>
CsrOfA<T> csc_to_csr(int rows, int columns, int nnz, const T* values, const int* row_indices, const int* col_offsets,
                     cudaDataType type) {
  static mskb_sparse::DeviceScratch arrays, conversion;
  const size_t ob = align256((static_cast<size_t>(rows) + 1) * sizeof(int));
  const size_t cb = align256(static_cast<size_t>(nnz) * sizeof(int));
  const size_t vb = align256(static_cast<size_t>(nnz) * sizeof(T));
  char* base = static_cast<char*>(arrays.get(ob + cb + vb));
  CsrOfA<T> out{reinterpret_cast<int*>(base), reinterpret_cast<int*>(base + ob), reinterpret_cast<T*>(base + ob + cb)};
  cusparseHandle_t h = mskb_vendor::cusparse();
  auto convert = [&](cudaDataType value_type) {
    size_t bytes = 0;
    cusparseStatus_t s = cusparseCsr2cscEx2_bufferSize(h, columns, rows, nnz, values, col_offsets, row_indices, out.vals,
                                                       out.offsets, out.cols, value_type, CUSPARSE_ACTION_NUMERIC,
                                                       CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes);
    if (mskb_sparse::unsupported(s)) return false;
    MSKB_VENDOR_CHECK(s);
    void* buffer = conversion.get(std::max<size_t>(bytes, 1));
    s = cusparseCsr2cscEx2(h, columns, rows, nnz, values, col_offsets, row_indices, out.vals, out.offsets, out.cols, value_type,
                           CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buffer);
    if (mskb_sparse::unsupported(s)) return false;
    MSKB_VENDOR_CHECK(s);
    return true;
  };
  if (!convert(type) && !(type == CUDA_R_16BF && convert(CUDA_R_16F)))
    mskb_sparse::no_algorithm("spmm_csc vendor: cusparseCsr2cscEx2 does not support this value type");
  return out;
}

template <class T>
void spmm_csc_any(int rows, int columns, int K, const T* values, const int* row_indices, const int* col_offsets, const T* X, T* Y,
                  cudaDataType type) {
  const long long out = static_cast<long long>(rows) * K;
  int nnz = 0;
  if (out > 0 && columns > 0) MSKB_VENDOR_CHECK(cudaMemcpy(&nnz, col_offsets + columns, sizeof(int), cudaMemcpyDeviceToHost));
  if (nnz <= 0) {  // no entries: Y += 0
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
    return;
  }
  const CsrOfA<T> csr = csc_to_csr(rows, columns, nnz, values, row_indices, col_offsets, type);
  mskb_sparse::SpMat A;
  mskb_sparse::ConstMat B;
  MSKB_VENDOR_CHECK(cusparseCreateConstCsr(&A.d, rows, columns, nnz, csr.offsets, csr.cols, csr.vals, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  MSKB_VENDOR_CHECK(cusparseCreateConstDnMat(&B.d, columns, K, K, X, type, CUSPARSE_ORDER_ROW));
  static const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG3,
                                           CUSPARSE_SPMM_CSR_ALG1};
  // Y += A * X into the output (c, c_type), beta = 1.
  auto attempt = [&](void* c, cudaDataType c_type) {
    mskb_sparse::Mat C;
    MSKB_VENDOR_CHECK(cusparseCreateDnMat(&C.d, rows, K, K, c, c_type, CUSPARSE_ORDER_ROW));
    return mskb_sparse::spmm_first_supported(A.d, B.d, C.d, 1.0f, algs, 4);
  };
  // A BF16 Y through the FP32 stage.
  if (!mskb_sparse::accumulate_staged(out, Y, type, attempt))
    mskb_sparse::no_algorithm("spmm_csc vendor: cusparseSpMM: no CSR algorithm supports this configuration");
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void spmm_csc(int rows, int columns, int K, const float* values, const int* row_indices, const int* col_offsets,
                         const float* X, float* Y) {
  spmm_csc_any(rows, columns, K, values, row_indices, col_offsets, X, Y, CUDA_R_32F);
}

extern "C" void spmm_csc_bf16(int rows, int columns, int K, const __nv_bfloat16* values, const int* row_indices,
                              const int* col_offsets, const __nv_bfloat16* X, __nv_bfloat16* Y) {
  spmm_csc_any(rows, columns, K, values, row_indices, col_offsets, X, Y, CUDA_R_16BF);
}
