// FP64 GPU reference for spmm_ell (used where rows * width * K makes the CPU reference slow).
#include "../common/spmm_gpu_reference.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_GPU_REFERENCE(spmm_ell) {
  namespace sp = mskb::sparse;
  (void)shape;
  (void)precision;
  const auto rows = static_cast<int64_t>(args[0].value), width = static_cast<int64_t>(args[1].value);
  const auto K = static_cast<int64_t>(args[2].value);
  const sp::RowGrouped g = sp::group_ell(rows, width, args[4].data.data(), args[3].data.data());
  sp::spmm_rows_gpu(g, K, args[5].data, args[6].data, keep, 6);
}
