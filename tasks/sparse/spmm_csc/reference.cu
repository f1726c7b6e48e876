// FP64 GPU reference for spmm_csc (used where nnz * K makes the CPU reference slow).
#include "../common/spmm_gpu_reference.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_GPU_REFERENCE(spmm_csc) {
  namespace sp = mskb::sparse;
  (void)shape;
  (void)precision;
  const auto rows = static_cast<int64_t>(args[0].value), cols = static_cast<int64_t>(args[1].value);
  const auto K = static_cast<int64_t>(args[2].value);
  const sp::RowGrouped g = sp::group_csc(rows, cols, args[4].data.data(), args[5].data.data(), args[3].data.data());
  sp::spmm_rows_gpu(g, K, args[6].data, args[7].data, keep, 7);
}
