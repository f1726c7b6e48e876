// FP64 GPU reference for spmm_csr (used where nnz * K makes the CPU reference slow).
#include "../common/spmm_gpu_reference.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_GPU_REFERENCE(spmm_csr) {
  namespace sp = mskb::sparse;
  (void)shape;
  (void)precision;
  const auto rows = static_cast<int64_t>(args[0].value), K = static_cast<int64_t>(args[1].value);
  const sp::RowGrouped g = sp::group_csr(rows, args[3].data.data(), args[4].data.data(), args[2].data.data());
  sp::spmm_rows_gpu(g, K, args[5].data, args[6].data, keep, 6);
}
